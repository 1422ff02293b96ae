/* Private state of the Gmsh bar-mesh reader shared by mesh.c (reading the sections) and
 * mesh_check.c (the checks of mesh.h and the positions along the bar). */
#ifndef FLEXMB_IO_MESH_READER_H
#define FLEXMB_IO_MESH_READER_H

#include <stddef.h>
#include <stdio.h>

#if defined(__GNUC__)
#define FMB_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define FMB_PRINTF(f, a)
#endif

#define MAX_TOKENS 64

typedef struct mnode {
    long tag;
    double p[3];
    long line; /* line of the coordinates */
} mnode_t;

typedef struct melem {
    long tag;
    long n[2]; /* node tags */
    long line;
    int a, b; /* node indices, resolved later */
} melem_t;

typedef struct rd {
    FILE *f;
    const char *path;
    char *buf;
    size_t cap;
    long line;
    char *err;
    size_t errlen;
    int failed;
    int version; /* 22 or 41 */
    mnode_t *nodes;
    int nn, capn;
    melem_t *el;
    int ne, cape;
    long elements_line; /* line of $Elements (0 if none) */
    long nodes_line;
} rd_t;

/* Record the first failure as "PATH:LINE: message" (line 0: no line) and return code. */
int fmb_mesh_fail(rd_t *r, long line, int code, const char *fmt, ...) FMB_PRINTF(4, 5);
/* The checks of mesh.h in their order, then the node positions along the bar. */
int fmb_mesh_check_and_build(rd_t *r, double **xout, int *nout);

#endif

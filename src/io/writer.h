/* Private declarations of the output module (src/io/writer.c, src/io/xdmf.c). */
#ifndef FMB_IO_WRITER_H
#define FMB_IO_WRITER_H

#include <stdio.h>

#include "flexmb/flexmb.h"

/* Call before any other HDF5 use in the process (the writer, compare, file checks do). */
void fmb_hdf5_init(void);
/* ---- XDMF sidecar (xdmf.c) ---------------------------------------------------
 * The sidecar describes record i as a spatial collection of one grid per drawn body
 * (polyline through its points, hyperslab [i, :, :] of /bodies/NAME/points; a body
 * without points: its frame origin, hyperslab [i, 0:2] of /bodies/NAME/pose; a beam:
 * polyline through its nodes, hyperslab [i, :, :] of /beams/NAME/points, with the point
 * attribute "deflection" from [i, :] of /beams/NAME/deflection) and one vertex grid per
 * drawn joint (hyperslab [i, :] of /joints/NAME/position). */
typedef struct fmb_xdmf_item {
    const char *name;         /* grid name (body or joint name) */
    const char *dataset;      /* absolute dataset path in the HDF5 file */
    int npoints;              /* points per record (joint: 1) */
    int rank;                 /* 3: dataset [nt x npoints x ncols] (ncols 2: XY, 3: XYZ);
                                 2: dataset [nt x ncols], one point from its first two columns */
    int ncols;                /* values per point (rank 3) or per record (rank 2: 2 for a
                                 position, 3 for a pose) */
    const char *attr_name;    /* optional scalar point attribute (NULL if none) */
    const char *attr_dataset; /* its dataset [nt x npoints] */
    int attr_1d;              /* 1: the attribute dataset is [nt] (one point) */
} fmb_xdmf_item_t;

typedef struct fmb_xdmf {
    char *path;   /* the .xmf file */
    char *h5name; /* the HDF5 file name as referenced from the sidecar */
    const fmb_xdmf_item_t *items;
    int nitems;
    long done;   /* records described in the file */
    long footer; /* byte offset of the closing tags */
} fmb_xdmf_t;

/* Sidecar path for an HDF5 path: ".h5"/".hdf5"/".hdf" replaced by ".xmf", else appended.
 * Returns a malloc'ed string or NULL. */
char *fmb_xdmf_path_for(const char *h5path);
/* Append the records [x->done, nrec) whose times are t[0 .. nrec - 1]; when full is
 * non-zero, rewrite the whole file (atomically, through a temporary file and rename).
 * Returns 0 or FMB_ERR_IO with a message in err. */
int fmb_xdmf_update(fmb_xdmf_t *x, const double *t, long nrec, int full, char *err, size_t errlen);

#endif

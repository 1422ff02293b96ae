/*
 * Gmsh mesh reader for straight bars (private; used by the case loader).
 *
 * Reads a Gmsh ASCII mesh, format 2.2 or 4.1, whose 2-node line elements (type 1)
 * form one straight bar, and returns the node positions along the bar axis: the
 * distance of each chain node from the first node of the first element, increasing
 * (x[0] = 0). Point elements (type 15), physical names and other sections are ignored.
 * Checks, each failure reported as "PATH:LINE: problem" (PATH: cannot open: reason):
 *   - the file opens and its $MeshFormat is ASCII 2.2 or 4.1;
 *   - no two nodes share a tag or a position (tolerance 1e-9 of the bar length);
 *   - at least one line element; no other element types than 1 and 15;
 *   - the line elements in file order form one chain, each starting at the node the
 *     previous one ended at (no gap, no branch, no reversed or shuffled element);
 *   - every chain node lies on the line through the chain's end nodes (distance at most
 *     1e-6 of the bar length) and the positions increase along it.
 */
#ifndef FLEXMB_IO_MESH_H
#define FLEXMB_IO_MESH_H

#include <stddef.h>

/* Read the bar mesh at path. On success returns 0, *x (malloc'ed, caller frees) holds
 * *n >= 2 positions. On failure returns a negative fmb_status (FMB_ERR_IO: cannot
 * open or read; FMB_ERR_PARSE: format or check failure; FMB_ERR_NOMEM) and writes the
 * message into err (errlen bytes; err may be NULL). */
int fmb_mesh_read_line(const char *path, double **x, int *n, char *err, size_t errlen);
/* The same from a memory buffer of len bytes (need not be NUL-terminated); name stands
 * for the path in messages. For the fuzz harness and for callers holding the text. */
int fmb_mesh_read_line_buffer(const char *name, const char *buf, size_t len, double **x, int *n,
                              char *err, size_t errlen);

#endif

/* XDMF 2 sidecar for ParaView (src/io/xdmf.c): one temporal collection per grid (so that
 * ParaView names each block after its grid at every time step), whose frames read their
 * geometry and fields through hyperslabs [frame, ...] of HDF5 datasets (layout:
 * docs/output.md, "Visualization").
 * The XML per frame depends on the number of grids and fields, not on the model's size. */
#ifndef FMB_IO_XDMF_H
#define FMB_IO_XDMF_H

#include <stddef.h>

typedef struct fmb_xdmf_attr {
    const char *name;    /* ParaView array name */
    int ncomp;           /* 1: Scalar, 3: Vector */
    int cell;            /* 1: cell data, 0: point data */
    int is_int;          /* 32-bit integers (else doubles) */
    int is_static;       /* dataset [n (x 3)] the same in every frame, else [nframes x n (x 3)] */
    const char *dataset; /* absolute path in the HDF5 file */
} fmb_xdmf_attr_t;

typedef struct fmb_xdmf_grid {
    const char *name;     /* block name in ParaView */
    const char *topology; /* "Polyline" (2 nodes per cell), "Quadrilateral", "Polyvertex" */
    int nodes_per_cell;   /* 2, 4, 1: the cells take the points in order, without a
                             connectivity array (see xdmf.c) */
    int ncells, npoints;  /* npoints = ncells * nodes_per_cell */
    int is_static;        /* geometry [npoints x 3] the same in every frame */
    const char *dataset;  /* geometry: [nframes x npoints x 3] (or [npoints x 3]) */
    const fmb_xdmf_attr_t *attrs;
    int nattrs;
} fmb_xdmf_grid_t;

typedef struct fmb_xdmf {
    char *path;   /* the .xmf file */
    char *h5name; /* the HDF5 file name as referenced from the sidecar */
    const fmb_xdmf_grid_t *grids;
    int ngrids;
    long done;   /* frames described in the file */
    double last; /* wall time of the last rewrite (s, monotonic clock) */
    double cost; /* its duration (s) */
} fmb_xdmf_t;

/* Sidecar path for an HDF5 path: ".h5"/".hdf5"/".hdf" replaced by ".xmf", else appended.
 * Returns a malloc'ed string or NULL. */
char *fmb_xdmf_path_for(const char *h5path);
/* Describe the frames whose times are t[0 .. nframes - 1]: the file is rewritten
 * atomically (temporary file and rename); unless full is non-zero, not more often than once
 * per second (and per 20 rewrite durations). Returns 0 or FMB_ERR_IO with a message. */
/* Bytes one frame (of every grid) takes in the sidecar of a file holding nframes frames. */
size_t fmb_xdmf_frame_bytes(const fmb_xdmf_t *x, long nframes);
int fmb_xdmf_update(fmb_xdmf_t *x, const double *t, long nframes, int full, char *err,
                    size_t errlen);

#endif

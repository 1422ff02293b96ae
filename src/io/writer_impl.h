/* Private state of the results writer shared by writer.c (create, flush, destroy: the
 * files), writer_layout.c (the datasets a run writes, docs/output.md), writer_record.c
 * (one record's rows), writer_commit.c (datasets, batches, commits) and writer_attrs.c
 * (provenance, statistics, matrices). */
#ifndef FMB_IO_WRITER_IMPL_H
#define FMB_IO_WRITER_IMPL_H

#include <hdf5.h>
#include <stddef.h>

#include "io/viz.h"
#include "io/writer.h"

#define WRITER_BATCH 4096             /* records per batch (at most), also the chunk length... */
#define WRITER_BUF_BYTES (4u << 20)   /* ...but a dataset's batch buffer at most this (long rows) */
#define WRITER_CHUNK_BYTES (1u << 20) /* ...and up to this many bytes per chunk */
#define WRITER_FLUSH_SECONDS 1.0      /* wall time between flushes, at most */
#define WRITER_DEFLATE_LEVEL 1        /* deflate level of the chunks (after the shuffle) */
#define WRITER_MAX_RANK 3

typedef struct wds {
    hid_t id;
    hid_t mtype;  /* memory type */
    size_t esize; /* element size in memory */
    int rank;
    hsize_t tail[WRITER_MAX_RANK]; /* dims after the first */
    size_t rowlen;                 /* elements per record */
    unsigned char *buf;            /* WRITER_BATCH * rowlen elements */
} wds_t;

typedef struct wbody {
    int b, offset, ndof, npoints;
    double *u; /* 2 * npoints body-frame points */
    int ds_q, ds_qd, ds_qdd, ds_pose, ds_points;
    int nnodes;                          /* beam bodies: node count (0 for rigid bodies) */
    double *bx, *by;                     /* beam node scratch: inertial x, y (nnodes each) */
    int ds_bpoints, ds_bdefl, ds_bslope; /* /beams/<body>/points, deflection, slope */
    int *slope_col; /* beam: column of node k's rotation in the body's q, -1 if held */
    int ds_bforces, ds_bstress; /* /beams/<body>/forces, stress (-1: none) */
} wbody_t;

#define WRITER_MAX_OUTPUTS 16 /* extra outputs per joint written */

typedef struct wjoint {
    int j;
    int body; /* body whose joint point gives the position (ground: inertial) */
    double u[2];
    int ds_reaction, ds_violation, ds_position;
    int ds_reaction_joint, ds_reaction_body, ds_force; /* other axes, |F| */
    int ds_drive, drive_column;                        /* drivers: drive torque/force */
    int noutputs;                                      /* extra outputs (/<group>/<joint>/<name>) */
    int ds_out[WRITER_MAX_OUTPUTS];
    int contact;    /* frictional sliding joint: /contacts/<joint> */
    double v_stick; /* |v| below which the stick flag is set */
    int ds_normal, ds_friction, ds_ftotal, ds_mode, ds_stick, ds_z, ds_v;
} wjoint_t;

/* A force with extra outputs (clearance joints: /joints/<name>/clearance/...). */
typedef struct wforce {
    int f, n, total; /* force index, outputs, values (sum of the widths) */
    int ds[WRITER_MAX_OUTPUTS];
    int width[WRITER_MAX_OUTPUTS];
} wforce_t;

struct fmb_writer {
    hid_t file;
    wforce_t *forces;
    int nforces;
    char *h5path;            /* the results file's final name (messages) */
    char *stage, *stage_xmf; /* where the file and its sidecar are written until the end */
    char *final_xmf;
    const fmb_model_t *model;
    wds_t *ds;
    int nds, capds;
    wbody_t *bodies;
    int nbodies;
    wjoint_t *joints;
    int njoints;
    int ds_time, ds_energy, ds_newton;
    double last_energy[FMB_ENERGY_COLUMNS]; /* the last record's /energy row */
    int has_energy;
    struct wswitch { /* /switches/<force>: mode, force, relative_velocity */
        int f, ds_mode, ds_force, ds_v;
    } * sws;
    int nsws;
    long nrec; /* records in the file */
    int nbuf;  /* records buffered */
    int batch; /* records per batch: WRITER_BATCH, less for long rows (fmb_writer_ds_create) */
    int chunk; /* records per chunk (at most): WRITER_BATCH, or the run's records if fewer */
    int plain; /* 1: no compression (solver compress: 0) */
    double last_flush;
    double unflushed; /* bytes handed to HDF5 since the last commit: in its caches, maybe
                         not yet on the disk (disk_room counts them as taken) */
    fmb_viz_t *viz;                  /* /viz and the .xmf sidecar (NULL: --no-viz) */
    long viz_every;                  /* records per visualization frame */
    int failed;                      /* sticky status after an HDF5 failure */
    int mdc_held;                    /* metadata cache evictions off between commits */
    H5AC_cache_config_t mdc_default; /* the cache's configuration before (restored) */
    char err[512];
};

int fmb_writer_err(fmb_writer_t *w, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Create an extendible dataset [0 x tail...]; returns its index or a negative status. */
int fmb_writer_ds_create(fmb_writer_t *w, hid_t loc, const char *name, int is_int, int rank,
                         const hsize_t *tail, const char *columns);
/* The record just filled in the batch buffers is complete: count it; write the batch when
 * full, commit when WRITER_FLUSH_SECONDS have passed since the last commit. 0 or status. */
int fmb_writer_record_done(fmb_writer_t *w);
/* Write the buffered records, commit them (flush, sync, committed_records marker) and bring
 * the XDMF sidecar up to date (whole when full_xdmf). 0 or a negative status. */
int fmb_writer_flush_all(fmb_writer_t *w, int full_xdmf);
/* Metadata cache evictions off between commits (w->mdc_default keeps the configuration
 * before). 0 or -1. */
int fmb_writer_hold_cache(fmb_writer_t *w);
/* Every group and dataset of a run (before the first record). */
int fmb_writer_layout(fmb_writer_t *w, const fmb_sim_t *sim, const char *case_text);

#endif

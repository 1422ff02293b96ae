/* Private structures of the visualization output (src/io/viz.c: frames, file and
 * sidecar; viz_layout.c: what is drawn and its datasets; viz_frames.c: the shapes of one
 * frame). */
#ifndef FMB_IO_VIZ_INTERNAL_H
#define FMB_IO_VIZ_INTERNAL_H

#include "io/viz.h"
#include "io/xdmf.h"
#include "model/model.h"

#define VIZ_MAX_FIELDS 6

enum { G_LINKS, G_BLOCKS, G_BEAMS, G_GUIDES, G_JOINTS, G_CONTACTS, G_MARKERS, G_FORCES, G_COUNT };

/* Force outputs drawn on the `forces` grid (a vertex at the force's "position" output) as
 * point data, by output name; a class without one of them draws 0. */
enum { VF_POSITION, VF_NORMAL, VF_FRICTION, VF_PENETRATION, VF_CONTACT, VF_COUNT };

typedef struct vfield {
    const char *name;
    int ncomp, cell, is_int, is_static;
    int n;       /* values (points or cells) */
    double *buf; /* n * ncomp values of the current frame (not for static fields) */
    int *ibuf;   /* static integer fields */
    hid_t ds;
    char path[48];
} vfield_t;

typedef struct vgrid {
    const char *topo;
    int npc, ncells, npoints, is_static;
    double *pts; /* npoints x 3 */
    hid_t ds;
    char path[48];
    vfield_t f[VIZ_MAX_FIELDS];
    int nf;
} vgrid_t;

typedef struct vitem { /* a segment, marker, block, beam, joint, contact */
    int body, joint, k;
    double hl, hw;     /* block half length and width */
    int sub;           /* beam: segments per element */
    int off[VF_COUNT]; /* forces: offsets of the drawn outputs in the force's values, -1 */
} vitem_t;

typedef struct vguide {
    int joint, body; /* the slider's body and its point */
    double u[2];
    double p[2], e[2]; /* a guide point and the sliding direction (inertial) */
    double smin, smax, margin;
} vguide_t;

/* A time-dependent dataset and the frames buffered for it until the next sync. */
typedef struct vseries {
    hid_t ds;
    const double *src; /* the current frame's row */
    size_t rowlen;
    double *buf; /* cap_buf rows */
} vseries_t;

#define VIZ_MAX_SERIES (2 + G_COUNT * (VIZ_MAX_FIELDS + 1))

struct fmb_viz {
    hid_t file, gviz, ds_time, ds_record;
    vseries_t series[VIZ_MAX_SERIES];
    int nseries;
    double cur[2];                /* time and record of the frame being committed */
    long nbuf, cap_buf, nwritten; /* frames buffered, their capacity, frames in the file */
    const fmb_model_t *m;
    const char *h5path;
    long every, nframes;
    vgrid_t g[G_COUNT];
    vitem_t *items[G_COUNT];
    int nitems[G_COUNT];
    vguide_t *guides;
    int nguides;
    double *fout; /* one force's output values (the largest total width) */
    int pending;
    long pending_rec;
    double pending_t;
    double *times;
    long cap_times;
    fmb_xdmf_t x;
    fmb_xdmf_grid_t xg[G_COUNT];
    fmb_xdmf_attr_t xa[G_COUNT][VIZ_MAX_FIELDS];
};

static inline void put3(double *p, double x, double y)
{
    p[0] = x, p[1] = y, p[2] = 0.0;
}

int fmb_viz_fail(char *err, size_t errlen, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* [nframes x n (x ncomp)] extendible (n 0: [nframes]) or static [n (x ncomp)] dataset. */
hid_t fmb_viz_ds_make(hid_t loc, const char *name, int n, int ncomp, int is_int, int is_static);
/* A time-dependent dataset whose row of the current frame is src (rowlen values). */
void fmb_viz_add_series(fmb_viz_t *v, hid_t ds, const double *src, size_t rowlen);
/* Decide what is drawn (items, guides) and the grids' point and cell counts. */
int fmb_viz_plan(fmb_viz_t *v, const fmb_sim_t *sim);
/* The /viz groups and datasets, static data, series and the sidecar's description. */
int fmb_viz_create_grids(fmb_viz_t *v, char *err, size_t errlen);
/* Fill the grids' points and fields for the simulation's current state. */
void fmb_viz_compute_frame(fmb_viz_t *v, const fmb_sim_t *sim);
/* The joint's point: on body1, or on body2 when body1 is the ground (/joints position). */
void fmb_viz_joint_point(const fmb_joint_t *jt, int *body, double u[2]);
/* Inertial position of body point u (the ground: u itself). */
void fmb_viz_point_at(const fmb_sim_t *sim, int body, const double u[2], double r[2]);
/* A sliding joint's inertial sliding direction at the current state. */
void fmb_viz_slide_dir(const fmb_model_t *m, const fmb_sim_t *sim, const fmb_joint_t *jt,
                       double e[2]);

#endif

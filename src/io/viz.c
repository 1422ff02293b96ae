/* Visualization output: the mechanism as a ParaView user expects to see it, in a bounded
 * number of frames (docs/output.md, "Visualization").
 *
 * /viz holds one group per drawn grid; a frame is one row of its datasets:
 *   links     rigid bodies through their named points: one 2-point segment per pair of
 *             consecutive points (bars: start-end); cell data "body" (model body index)
 *   blocks    slider blocks, one quadrilateral each: a body's `block: [L, W]` centred at
 *             its centre of mass along its axes, or a frictional slider's 2a x 2b block
 *             centred at the slider point along the sliding direction; cell data "body"
 *   beams     beam bodies, each element cut into `sub` straight segments between points
 *             of the deformed axis (the element's shape functions); point data
 *             deflection v (m), curvature v'' (1/m), moment E I v'' (N m), axial_force
 *             E A u' (N), all in the beam's body frame; cell data "body"
 *   guides    (static) ground guides of prismatic joints with the ground, one segment
 *             along the sliding direction through the guide point, long enough for the
 *             travel seen so far plus the block
 *   joints    one vertex per joint with a point (all but angle drivers): point data
 *             force (N, vector) and moment (N m) that the joint exerts on its second body
 *             (on the first when the second is the ground); cell data "joint" (index)
 *   contacts  four vertices per frictional slider, at the block's corners (F1+, F2+,
 *             F1-, F2-): point data force (N, vector), the corner's normal plus friction
 *             force on the block
 *   markers   bodies with fewer than two named points and no block: one vertex at the
 *             point (or at the body-frame origin); cell data "body"
 * Segments and quadrilaterals do not share points, so a field may jump between cells
 * (the curvature between beam elements) and the sidecar needs no connectivity.
 * Points are [x, y, 0] in inertial axes, vectors [Fx, Fy, 0]. Frames are taken every
 * `every` records, plus the last record. */
#include "io/viz.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bodies/beam.h"
#include "io/xdmf.h"
#include "model/model.h"

#define VIZ_MAX_FIELDS 5

enum { G_LINKS, G_BLOCKS, G_BEAMS, G_GUIDES, G_JOINTS, G_CONTACTS, G_MARKERS, G_COUNT };

static const char *const grid_names[G_COUNT] = {"links",  "blocks",   "beams",  "guides",
                                                "joints", "contacts", "markers"};

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
    double hl, hw; /* block half length and width */
    int sub;       /* beam: segments per element */
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
    int pending;
    long pending_rec;
    double pending_t;
    double *times;
    long cap_times;
    fmb_xdmf_t x;
    fmb_xdmf_grid_t xg[G_COUNT];
    fmb_xdmf_attr_t xa[G_COUNT][VIZ_MAX_FIELDS];
};

static int vfail(char *err, size_t errlen, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int vfail(char *err, size_t errlen, int status, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return status;
}

long fmb_viz_spacing(const fmb_sim_options_t *o, long expected_records)
{
    if (o->viz_every > 0) return o->viz_every;
    if (o->viz_frames < 2 || expected_records <= o->viz_frames) return 1;
    /* frames at 0, every, 2 every, ... plus the last record: at most viz_frames */
    const long n = o->viz_frames - 1;
    return (expected_records + n - 1) / n;
}

/* ---------------------------------------------------------------- datasets */

/* [nframes x n (x ncomp)] extendible (or [n (x ncomp)] static) dataset. */
static hid_t ds_make(hid_t loc, const char *name, int n, int ncomp, int is_int, int is_static)
{
    hsize_t dims[3], maxd[3], chunk[3];
    int rank = 0;
    if (!is_static) {
        dims[0] = 0, maxd[0] = H5S_UNLIMITED;
        const double rowbytes = (double)n * ncomp * 8;
        double rows = floor((1 << 20) / (rowbytes > 0 ? rowbytes : 1));
        chunk[0] = (hsize_t)(rows < 1 ? 1 : rows > 64 ? 64 : rows);
        if (n <= 0) chunk[0] = 256;
        rank = 1;
    }
    if (n > 0 || is_static) { /* n 0: a 1-D [nframes] dataset */
        dims[rank] = maxd[rank] = chunk[rank] = (hsize_t)(n > 0 ? n : 1);
        rank++;
    }
    if (ncomp > 1) {
        dims[rank] = maxd[rank] = chunk[rank] = (hsize_t)ncomp;
        rank++;
    }
    hid_t space = H5Screate_simple(rank, dims, maxd), dcpl = H5Pcreate(H5P_DATASET_CREATE), ds = -1;
    if (space >= 0 && dcpl >= 0 && (is_static || H5Pset_chunk(dcpl, rank, chunk) >= 0))
        ds = H5Dcreate2(loc, name, is_int ? H5T_STD_I32LE : H5T_IEEE_F64LE, space, H5P_DEFAULT,
                        is_static ? H5P_DEFAULT : dcpl, H5P_DEFAULT);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (space >= 0) H5Sclose(space);
    return ds;
}

/* Append n rows (n x rowlen doubles, converted to the dataset's type) from row0 on. */
static int ds_append(hid_t ds, long row0, long n, const double *buf)
{
    hid_t fs = H5Dget_space(ds);
    hsize_t dims[3] = {0, 1, 1};
    int rank = fs >= 0 ? H5Sget_simple_extent_ndims(fs) : -1;
    if (rank < 1 || rank > 3 || H5Sget_simple_extent_dims(fs, dims, NULL) < 0) {
        if (fs >= 0) H5Sclose(fs);
        return -1;
    }
    H5Sclose(fs);
    dims[0] = (hsize_t)(row0 + n);
    if (H5Dset_extent(ds, dims) < 0) return -1;
    hsize_t start[3] = {(hsize_t)row0, 0, 0}, count[3] = {(hsize_t)n, dims[1], dims[2]};
    fs = H5Dget_space(ds);
    hid_t ms = H5Screate_simple(rank, count, NULL);
    herr_t st = -1;
    if (fs >= 0 && ms >= 0 &&
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) >= 0)
        st = H5Dwrite(ds, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, buf);
    if (ms >= 0) H5Sclose(ms);
    if (fs >= 0) H5Sclose(fs);
    return st < 0 ? -1 : 0;
}

static void add_series(fmb_viz_t *v, hid_t ds, const double *src, size_t rowlen)
{
    v->series[v->nseries++] = (vseries_t){ds, src, rowlen, NULL};
}

/* ---------------------------------------------------------------- layout */

static vitem_t *add_item(fmb_viz_t *v, int grid, int *cap)
{
    if (v->nitems[grid] == *cap) {
        int c = *cap ? 2 * *cap : 8;
        vitem_t *p = realloc(v->items[grid], (size_t)c * sizeof *p);
        if (!p) return NULL;
        v->items[grid] = p;
        *cap = c;
    }
    vitem_t *it = &v->items[grid][v->nitems[grid]++];
    memset(it, 0, sizeof *it);
    it->body = it->joint = -1;
    return it;
}

static int has_point(const fmb_joint_t *jt)
{
    return jt->type != FMB_JOINT_DRIVER_ANGLE;
}

/* The joint's point: on body1, or on body2 when body1 is the ground (as /joints/position). */
static void joint_point(const fmb_joint_t *jt, int *body, double u[2])
{
    const int side = jt->body[0] == FMB_GROUND ? 1 : 0;
    *body = jt->body[side];
    u[0] = jt->point[side][0], u[1] = jt->point[side][1];
}

static void point_at(const fmb_sim_t *sim, int body, const double u[2], double r[2])
{
    if (body == FMB_GROUND)
        r[0] = u[0], r[1] = u[1];
    else
        fmb_sim_body_point(sim, body, u, r);
}

static void slide_dir(const fmb_model_t *m, const fmb_sim_t *sim, const fmb_joint_t *jt,
                      double e[2])
{
    const double *q = fmb_sim_q(sim), *qd = fmb_sim_qd(sim);
    fmb_bodyview_t vv[2] = {fmb_model_view(m, jt->body[0], q, qd),
                            fmb_model_view(m, jt->body[1], q, qd)};
    jt->klass->slide_direction(jt, vv, e);
}

static int frictional(const fmb_joint_t *jt)
{
    return jt->friction.model != FMB_FRICTION_NONE && jt->klass && jt->klass->slide_direction;
}

/* Decide what is drawn, and the point and cell counts of every grid. */
static int plan(fmb_viz_t *v, const fmb_sim_t *sim)
{
    const fmb_model_t *m = v->m;
    int cap[G_COUNT] = {0};
    vitem_t *it;
    for (int b = 1; b < m->nbodies; b++) {
        const fmb_body_t *bd = &m->bodies[b];
        if (fmb_model_body_is_beam(m, b) > 0 && fmb_model_beam_num_nodes(m, b) >= 2) {
            const int nel = fmb_model_beam_num_nodes(m, b) - 1;
            if (!(it = add_item(v, G_BEAMS, &cap[G_BEAMS]))) return FMB_ERR_NOMEM;
            it->body = b;
            it->sub = nel >= 64 ? 1 : nel >= 16 ? 2 : 4;
            continue;
        }
        if (bd->block[0] > 0 && bd->block[1] > 0) {
            if (!(it = add_item(v, G_BLOCKS, &cap[G_BLOCKS]))) return FMB_ERR_NOMEM;
            it->body = b, it->hl = bd->block[0] / 2, it->hw = bd->block[1] / 2;
        }
        for (int k = 0; k + 1 < bd->npoints; k++) {
            if (!(it = add_item(v, G_LINKS, &cap[G_LINKS]))) return FMB_ERR_NOMEM;
            it->body = b, it->k = k;
        }
        if (bd->npoints < 2 && !(bd->block[0] > 0)) {
            /* a frictional slider's block stands for its body */
            int drawn = 0;
            for (int j = 0; j < m->njoints; j++)
                drawn |= frictional(&m->joints[j]) && m->joints[j].body[0] == b;
            if (drawn) continue;
            if (!(it = add_item(v, G_MARKERS, &cap[G_MARKERS]))) return FMB_ERR_NOMEM;
            it->body = b, it->k = bd->npoints == 1 ? 0 : -1;
        }
    }
    /* mechanism size: the spread of the joint points at the start (guide margins) */
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (int j = 0; j < m->njoints; j++) {
        const fmb_joint_t *jt = &m->joints[j];
        if (!has_point(jt)) continue;
        int body;
        double u[2], r[2];
        joint_point(jt, &body, u);
        point_at(sim, body, u, r);
        for (int c = 0; c < 2; c++)
            lo[c] = fmin(lo[c], r[c]), hi[c] = fmax(hi[c], r[c]);
    }
    const double size = hi[0] >= lo[0] ? hypot(hi[0] - lo[0], hi[1] - lo[1]) : 0.0;
    for (int j = 0; j < m->njoints; j++) {
        const fmb_joint_t *jt = &m->joints[j];
        if (!has_point(jt)) continue;
        if (!(it = add_item(v, G_JOINTS, &cap[G_JOINTS]))) return FMB_ERR_NOMEM;
        it->joint = j;
        const int slider = jt->body[0] == FMB_GROUND ? 1 : 0;
        const fmb_body_t *sb = &m->bodies[jt->body[slider]];
        double half = sb->block[0] / 2;
        if (frictional(jt)) {
            half = jt->friction.a;
            if (!(it = add_item(v, G_CONTACTS, &cap[G_CONTACTS]))) return FMB_ERR_NOMEM;
            it->joint = j;
            if (!(sb->block[0] > 0)) {
                if (!(it = add_item(v, G_BLOCKS, &cap[G_BLOCKS]))) return FMB_ERR_NOMEM;
                it->joint = j, it->body = jt->body[0];
                it->hl = jt->friction.a, it->hw = jt->friction.b;
            }
        }
        if (jt->klass && jt->klass->slide_direction &&
            (jt->body[0] == FMB_GROUND || jt->body[1] == FMB_GROUND)) {
            vguide_t *p = realloc(v->guides, (size_t)(v->nguides + 1) * sizeof *p);
            if (!p) return FMB_ERR_NOMEM;
            v->guides = p;
            vguide_t *gd = &p[v->nguides++];
            const int gs = jt->body[0] == FMB_GROUND ? 0 : 1;
            gd->joint = j;
            gd->body = jt->body[1 - gs];
            gd->u[0] = jt->point[1 - gs][0], gd->u[1] = jt->point[1 - gs][1];
            gd->p[0] = jt->point[gs][0], gd->p[1] = jt->point[gs][1];
            slide_dir(m, sim, jt, gd->e);
            gd->smin = INFINITY, gd->smax = -INFINITY;
            gd->margin = fmax(half, 0.05 * (size > 0 ? size : 1.0));
        }
    }
    /* point and cell counts */
    static const char *const topo[G_COUNT] = {"Polyline",  "Quadrilateral", "Polyline",
                                              "Polyline",  "Polyvertex",    "Polyvertex",
                                              "Polyvertex"};
    static const int npc[G_COUNT] = {2, 4, 2, 2, 1, 1, 1};
    for (int g = 0; g < G_COUNT; g++) {
        int ncells = v->nitems[g];
        if (g == G_BEAMS) {
            ncells = 0;
            for (int i = 0; i < v->nitems[g]; i++)
                ncells +=
                    (fmb_model_beam_num_nodes(m, v->items[g][i].body) - 1) * v->items[g][i].sub;
        } else if (g == G_GUIDES) {
            ncells = v->nguides;
        } else if (g == G_CONTACTS) {
            ncells = 4 * v->nitems[g];
        }
        v->g[g].topo = topo[g];
        v->g[g].npc = npc[g];
        v->g[g].ncells = ncells;
        v->g[g].npoints = ncells * npc[g];
        v->g[g].is_static = g == G_GUIDES;
    }
    return 0;
}

static vfield_t *add_field(vgrid_t *g, const char *name, int ncomp, int cell, int is_int,
                           int is_static)
{
    vfield_t *f = &g->f[g->nf++];
    f->name = name, f->ncomp = ncomp, f->cell = cell, f->is_int = is_int;
    f->is_static = is_static;
    f->n = cell ? g->ncells : g->npoints;
    f->ds = -1;
    return f;
}

/* Static cell data: the body (or joint) index of every cell. */
static void fill_ids(fmb_viz_t *v, int grid, vfield_t *f)
{
    int c = 0;
    for (int i = 0; i < v->nitems[grid]; i++) {
        const vitem_t *it = &v->items[grid][i];
        int n = 1;
        if (grid == G_BEAMS) n = (fmb_model_beam_num_nodes(v->m, it->body) - 1) * it->sub;
        if (grid == G_CONTACTS) n = 4;
        for (int k = 0; k < n; k++)
            f->ibuf[c++] = grid == G_JOINTS || grid == G_CONTACTS ? it->joint : it->body;
    }
}

static int create_grids(fmb_viz_t *v, char *err, size_t errlen)
{
    for (int g = 0; g < G_COUNT; g++) {
        vgrid_t *gr = &v->g[g];
        gr->ds = -1;
        if (gr->npoints <= 0) continue;
        switch (g) {
        case G_LINKS:
        case G_BLOCKS:
        case G_MARKERS:
            add_field(gr, "body", 1, 1, 1, 1);
            break;
        case G_BEAMS:
            add_field(gr, "deflection", 1, 0, 0, 0);
            add_field(gr, "curvature", 1, 0, 0, 0);
            add_field(gr, "moment", 1, 0, 0, 0);
            add_field(gr, "axial_force", 1, 0, 0, 0);
            add_field(gr, "body", 1, 1, 1, 1);
            break;
        case G_JOINTS:
            add_field(gr, "force", 3, 0, 0, 0);
            add_field(gr, "moment", 1, 0, 0, 0);
            add_field(gr, "joint", 1, 1, 1, 1);
            break;
        case G_CONTACTS:
            add_field(gr, "force", 3, 0, 0, 0);
            add_field(gr, "joint", 1, 1, 1, 1);
            break;
        default:
            break;
        }
        hid_t grp = H5Gcreate2(v->gviz, grid_names[g], H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (grp < 0)
            return vfail(err, errlen, FMB_ERR_HDF5, "%s: cannot create group /viz/%s", v->h5path,
                         grid_names[g]);
        snprintf(gr->path, sizeof gr->path, "/viz/%s/points", grid_names[g]);
        gr->pts = calloc((size_t)gr->npoints * 3, sizeof *gr->pts);
        gr->ds = ds_make(grp, "points", gr->npoints, 3, 0, gr->is_static);
        int bad = !gr->pts || gr->ds < 0;
        for (int k = 0; k < gr->nf && !bad; k++) {
            vfield_t *f = &gr->f[k];
            snprintf(f->path, sizeof f->path, "/viz/%s/%s", grid_names[g], f->name);
            f->ds = ds_make(grp, f->name, f->n, f->ncomp, f->is_int, f->is_static);
            if (f->is_int) {
                f->ibuf = calloc((size_t)f->n, sizeof *f->ibuf);
                if (!f->ibuf) {
                    bad = 1;
                    break;
                }
                fill_ids(v, g, f);
                bad = f->ds < 0 ||
                      H5Dwrite(f->ds, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, f->ibuf) < 0;
            } else {
                f->buf = calloc((size_t)f->n * f->ncomp, sizeof *f->buf);
                bad = !f->buf || f->ds < 0;
            }
        }
        H5Gclose(grp);
        if (!bad && !gr->is_static) {
            add_series(v, gr->ds, gr->pts, (size_t)gr->npoints * 3);
            for (int k = 0; k < gr->nf; k++)
                if (!gr->f[k].is_static)
                    add_series(v, gr->f[k].ds, gr->f[k].buf, (size_t)gr->f[k].n * gr->f[k].ncomp);
        }
        if (bad)
            return vfail(err, errlen, FMB_ERR_HDF5, "%s: cannot create /viz/%s", v->h5path,
                         grid_names[g]);
        /* the sidecar's description */
        fmb_xdmf_grid_t *xg = &v->xg[v->x.ngrids++];
        xg->name = grid_names[g];
        xg->topology = gr->topo;
        xg->nodes_per_cell = gr->npc;
        xg->ncells = gr->ncells;
        xg->npoints = gr->npoints;
        xg->is_static = gr->is_static;
        xg->dataset = gr->path;
        xg->attrs = v->xa[g];
        xg->nattrs = gr->nf;
        for (int k = 0; k < gr->nf; k++) {
            const vfield_t *f = &gr->f[k];
            v->xa[g][k] =
                (fmb_xdmf_attr_t){f->name, f->ncomp, f->cell, f->is_int, f->is_static, f->path};
        }
    }
    v->x.grids = v->xg;
    return 0;
}

/* ---------------------------------------------------------------- frames */

static void put3(double *p, double x, double y)
{
    p[0] = x, p[1] = y, p[2] = 0.0;
}

static void compute_beams(fmb_viz_t *v, const fmb_sim_t *sim)
{
    vgrid_t *g = &v->g[G_BEAMS];
    const double *q = fmb_sim_q(sim);
    int p = 0;
    for (int i = 0; i < v->nitems[G_BEAMS]; i++) {
        const vitem_t *it = &v->items[G_BEAMS][i];
        const fmb_body_t *bd = &v->m->bodies[it->body];
        const fmb_beam_t *bm = bd->data;
        const double *qb = q + bd->offset;
        for (int e = 0; e + 1 < bm->nnodes; e++) {
            int col[4];
            fmb_beam_vcols(bm, e, col);
            double vals[4];
            for (int k = 0; k < 4; k++)
                vals[k] = col[k] >= 0 ? qb[col[k]] : 0.0;
            const int cu0 = bm->dof[3 * e], cu1 = bm->dof[3 * e + 3];
            const double le = bm->x[e + 1] - bm->x[e];
            const double du = ((cu1 >= 0 ? qb[cu1] : 0.0) - (cu0 >= 0 ? qb[cu0] : 0.0)) / le;
            for (int s = 0; s < it->sub; s++)
                for (int end = 0; end < 2; end++, p++) {
                    const double x = bm->x[e] + le * (double)(s + end) / it->sub;
                    double H[4], H2[4], r[2];
                    const double u[2] = {x, 0.0};
                    fmb_sim_body_point(sim, it->body, u, r);
                    put3(g->pts + 3 * p, r[0], r[1]);
                    fmb_beam_hermite(bm, e, x, 0, H);
                    fmb_beam_hermite(bm, e, x, 2, H2);
                    double defl = 0.0, curv = 0.0;
                    for (int k = 0; k < 4; k++)
                        defl += H[k] * vals[k], curv += H2[k] * vals[k];
                    g->f[0].buf[p] = defl;
                    g->f[1].buf[p] = curv;
                    g->f[2].buf[p] = bm->E * bm->I * curv;
                    g->f[3].buf[p] = bm->E * bm->A * du;
                }
        }
    }
}

static void compute_frame(fmb_viz_t *v, const fmb_sim_t *sim)
{
    const fmb_model_t *m = v->m;
    double r[2], r2[2];
    vgrid_t *g = &v->g[G_LINKS];
    for (int i = 0; i < v->nitems[G_LINKS]; i++) {
        const vitem_t *it = &v->items[G_LINKS][i];
        const fmb_body_t *bd = &m->bodies[it->body];
        fmb_sim_body_point(sim, it->body, bd->points[it->k].u, r);
        fmb_sim_body_point(sim, it->body, bd->points[it->k + 1].u, r2);
        put3(g->pts + 6 * i, r[0], r[1]);
        put3(g->pts + 6 * i + 3, r2[0], r2[1]);
    }
    g = &v->g[G_MARKERS];
    for (int i = 0; i < v->nitems[G_MARKERS]; i++) {
        const vitem_t *it = &v->items[G_MARKERS][i];
        double pose[3];
        fmb_sim_body_pose(sim, it->body, pose);
        if (it->k >= 0)
            fmb_sim_body_point(sim, it->body, m->bodies[it->body].points[it->k].u, r);
        else
            r[0] = pose[0], r[1] = pose[1];
        put3(g->pts + 3 * i, r[0], r[1]);
    }
    g = &v->g[G_BLOCKS];
    for (int i = 0; i < v->nitems[G_BLOCKS]; i++) {
        const vitem_t *it = &v->items[G_BLOCKS][i];
        double c[2], e[2];
        if (it->joint >= 0) { /* frictional slider: centre at the slider point */
            const fmb_joint_t *jt = &m->joints[it->joint];
            int body;
            double u[2];
            joint_point(jt, &body, u);
            point_at(sim, body, u, c);
            slide_dir(m, sim, jt, e);
        } else {
            double pose[3];
            fmb_sim_body_pose(sim, it->body, pose);
            fmb_sim_body_point(sim, it->body, m->bodies[it->body].com, c);
            e[0] = cos(pose[2]), e[1] = sin(pose[2]);
        }
        const double n[2] = {-e[1], e[0]};
        static const double sx[4] = {-1, 1, 1, -1}, sy[4] = {-1, -1, 1, 1};
        for (int k = 0; k < 4; k++)
            put3(g->pts + 12 * i + 3 * k, c[0] + sx[k] * it->hl * e[0] + sy[k] * it->hw * n[0],
                 c[1] + sx[k] * it->hl * e[1] + sy[k] * it->hw * n[1]);
    }
    if (v->nitems[G_BEAMS] > 0) compute_beams(v, sim);
    g = &v->g[G_JOINTS];
    for (int i = 0; i < v->nitems[G_JOINTS]; i++) {
        const fmb_joint_t *jt = &m->joints[v->items[G_JOINTS][i].joint];
        int body;
        double u[2], re[6];
        joint_point(jt, &body, u);
        point_at(sim, body, u, r);
        put3(g->pts + 3 * i, r[0], r[1]);
        fmb_sim_joint_reaction(sim, v->items[G_JOINTS][i].joint, re);
        const int side = jt->body[1] == FMB_GROUND ? 0 : 1;
        put3(g->f[0].buf + 3 * i, re[3 * side], re[3 * side + 1]);
        g->f[1].buf[i] = re[3 * side + 2];
    }
    g = &v->g[G_CONTACTS];
    for (int i = 0; i < v->nitems[G_CONTACTS]; i++) {
        const int j = v->items[G_CONTACTS][i].joint;
        const fmb_joint_t *jt = &m->joints[j];
        double c[2], e[2], nf[4] = {0}, ff[4] = {0}, z, vel;
        int body, mode;
        double u[2];
        joint_point(jt, &body, u);
        point_at(sim, body, u, c);
        slide_dir(m, sim, jt, e);
        if (fmb_sim_contact_state(sim, j, nf, ff, &mode, &z, &vel) < 0)
            memset(nf, 0, sizeof nf), memset(ff, 0, sizeof ff);
        const double n[2] = {-e[1], e[0]}, a = jt->friction.a, b = jt->friction.b;
        /* corners F1+, F2+ (lower face, pushed along +n), F1-, F2- (upper face, along -n);
         * corner 1 at -a e, corner 2 at +a e; friction on the block along -e */
        static const double sa[4] = {-1, 1, -1, 1}, sb[4] = {-1, -1, 1, 1};
        for (int k = 0; k < 4; k++) {
            put3(g->pts + 12 * i + 3 * k, c[0] + sa[k] * a * e[0] + sb[k] * b * n[0],
                 c[1] + sa[k] * a * e[1] + sb[k] * b * n[1]);
            const double sn = -sb[k]; /* +n on the lower face, -n on the upper */
            put3(g->f[0].buf + 12 * i + 3 * k, sn * nf[k] * n[0] - ff[k] * e[0],
                 sn * nf[k] * n[1] - ff[k] * e[1]);
        }
    }
    /* guide travel (every record, not only frames) */
    for (int i = 0; i < v->nguides; i++) {
        vguide_t *gd = &v->guides[i];
        point_at(sim, gd->body, gd->u, r);
        const double s = (r[0] - gd->p[0]) * gd->e[0] + (r[1] - gd->p[1]) * gd->e[1];
        gd->smin = fmin(gd->smin, s), gd->smax = fmax(gd->smax, s);
    }
}

/* Keep the frame just computed (record rec, time t) until the next sync. */
static int commit_frame(fmb_viz_t *v, long rec, double t, char *err, size_t errlen)
{
    if (v->nframes >= v->cap_times) {
        long cap = v->cap_times ? 2 * v->cap_times : 256;
        double *p = realloc(v->times, (size_t)cap * sizeof *p);
        if (!p) return vfail(err, errlen, FMB_ERR_NOMEM, "out of memory");
        v->times = p;
        v->cap_times = cap;
    }
    if (v->nbuf >= v->cap_buf) {
        long cap = v->cap_buf ? 2 * v->cap_buf : 16;
        for (int k = 0; k < v->nseries; k++) {
            vseries_t *sr = &v->series[k];
            double *p = realloc(sr->buf, (size_t)cap * sr->rowlen * sizeof *p);
            if (!p) return vfail(err, errlen, FMB_ERR_NOMEM, "out of memory");
            sr->buf = p;
        }
        v->cap_buf = cap;
    }
    v->cur[0] = t;
    v->cur[1] = (double)rec;
    for (int k = 0; k < v->nseries; k++) {
        vseries_t *sr = &v->series[k];
        memcpy(sr->buf + (size_t)v->nbuf * sr->rowlen, sr->src, sr->rowlen * sizeof *sr->buf);
    }
    v->nbuf++;
    v->times[v->nframes++] = t;
    v->pending = 0;
    return 0;
}

size_t fmb_viz_pending_bytes(const fmb_viz_t *v)
{
    size_t n = 0;
    for (int k = 0; v && k < v->nseries; k++)
        n += (size_t)v->nbuf * v->series[k].rowlen * sizeof(double);
    return n;
}

/* ---------------------------------------------------------------- public */

fmb_viz_t *fmb_viz_create(hid_t file, const char *h5path, const fmb_sim_t *sim, long every,
                          char *err, size_t errlen)
{
    fmb_viz_t *v = calloc(1, sizeof *v);
    if (!v) {
        vfail(err, errlen, FMB_ERR_NOMEM, "out of memory");
        return NULL;
    }
    v->file = file;
    v->h5path = h5path;
    v->m = fmb_sim_model(sim);
    v->every = every > 0 ? every : 1;
    v->ds_time = v->ds_record = -1;
    int st = plan(v, sim);
    if (st < 0) vfail(err, errlen, st, "out of memory");
    if (st >= 0) {
        v->gviz = H5Gcreate2(file, "viz", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        int every_i = v->every > 0x7fffffffL ? 0x7fffffff : (int)v->every;
        hid_t sp = H5Screate(H5S_SCALAR), at = -1;
        if (v->gviz >= 0 && sp >= 0)
            at = H5Acreate2(v->gviz, "every", H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT);
        if (at >= 0) {
            if (H5Awrite(at, H5T_NATIVE_INT, &every_i) < 0) st = -1;
            H5Aclose(at);
        }
        if (sp >= 0) H5Sclose(sp);
        if (v->gviz < 0 || at < 0 || st < 0 ||
            (v->ds_time = ds_make(v->gviz, "time", 0, 1, 0, 0)) < 0 ||
            (v->ds_record = ds_make(v->gviz, "record", 0, 1, 1, 0)) < 0)
            st = vfail(err, errlen, FMB_ERR_HDF5, "%s: cannot create group /viz", h5path);
        add_series(v, v->ds_time, &v->cur[0], 1);
        add_series(v, v->ds_record, &v->cur[1], 1);
    }
    if (st >= 0) st = create_grids(v, err, errlen);
    if (st >= 0) {
        v->x.path = fmb_xdmf_path_for(h5path);
        const char *slash = strrchr(h5path, '/');
        const char *base = slash ? slash + 1 : h5path;
        v->x.h5name = malloc(strlen(base) + 1);
        if (v->x.h5name) strcpy(v->x.h5name, base);
        if (!v->x.path || !v->x.h5name) st = vfail(err, errlen, FMB_ERR_NOMEM, "out of memory");
    }
    if (st < 0) {
        fmb_viz_destroy(&v);
        return NULL;
    }
    return v;
}

int fmb_viz_record(fmb_viz_t *v, const fmb_sim_t *sim, long rec, char *err, size_t errlen)
{
    compute_frame(v, sim);
    if (rec % v->every == 0) return commit_frame(v, rec, fmb_sim_time(sim), err, errlen);
    v->pending = 1;
    v->pending_rec = rec;
    v->pending_t = fmb_sim_time(sim);
    return 0;
}

int fmb_viz_finish(fmb_viz_t *v, char *err, size_t errlen)
{
    if (!v->pending) return 0;
    return commit_frame(v, v->pending_rec, v->pending_t, err, errlen);
}

int fmb_viz_sync(fmb_viz_t *v, char *err, size_t errlen)
{
    if (v->nbuf > 0) {
        for (int k = 0; k < v->nseries; k++)
            if (ds_append(v->series[k].ds, v->nwritten, v->nbuf, v->series[k].buf) < 0)
                return vfail(err, errlen, FMB_ERR_HDF5, "%s: cannot write visualization frames",
                             v->h5path);
        v->nwritten += v->nbuf;
        v->nbuf = 0;
    }
    vgrid_t *g = &v->g[G_GUIDES];
    if (g->ds < 0) return 0;
    for (int i = 0; i < v->nguides; i++) {
        const vguide_t *gd = &v->guides[i];
        const double s0 = (gd->smin <= gd->smax ? gd->smin : 0.0) - gd->margin;
        const double s1 = (gd->smin <= gd->smax ? gd->smax : 0.0) + gd->margin;
        put3(g->pts + 6 * i, gd->p[0] + s0 * gd->e[0], gd->p[1] + s0 * gd->e[1]);
        put3(g->pts + 6 * i + 3, gd->p[0] + s1 * gd->e[0], gd->p[1] + s1 * gd->e[1]);
    }
    if (H5Dwrite(g->ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, g->pts) < 0)
        return vfail(err, errlen, FMB_ERR_HDF5, "%s: cannot write /viz/guides", v->h5path);
    return 0;
}

int fmb_viz_update_sidecar(fmb_viz_t *v, int full, char *err, size_t errlen)
{
    return fmb_xdmf_update(&v->x, v->times, v->nwritten, full, err, errlen);
}

long fmb_viz_frames(const fmb_viz_t *v)
{
    return v ? v->nwritten : 0;
}

void fmb_viz_destroy(fmb_viz_t **pv)
{
    if (!pv || !*pv) return;
    fmb_viz_t *v = *pv;
    for (int g = 0; g < G_COUNT; g++) {
        vgrid_t *gr = &v->g[g];
        if (gr->ds >= 0) H5Dclose(gr->ds);
        free(gr->pts);
        for (int k = 0; k < gr->nf; k++) {
            if (gr->f[k].ds >= 0) H5Dclose(gr->f[k].ds);
            free(gr->f[k].buf);
            free(gr->f[k].ibuf);
        }
        free(v->items[g]);
    }
    for (int k = 0; k < v->nseries; k++)
        free(v->series[k].buf);
    if (v->ds_time >= 0) H5Dclose(v->ds_time);
    if (v->ds_record >= 0) H5Dclose(v->ds_record);
    if (v->gviz > 0) H5Gclose(v->gviz);
    free(v->guides);
    free(v->times);
    free(v->x.path);
    free(v->x.h5name);
    free(v);
    *pv = NULL;
}

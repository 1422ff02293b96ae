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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/viz_internal.h"

long fmb_viz_spacing(const fmb_sim_options_t *o, long expected_records)
{
    if (o->viz_every > 0) return o->viz_every;
    if (o->viz_frames < 2 || expected_records <= o->viz_frames) return 1;
    /* frames at 0, every, 2 every, ... plus the last record: at most viz_frames */
    const long n = o->viz_frames - 1;
    return (expected_records + n - 1) / n;
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

/* Keep the frame just computed (record rec, time t) until the next sync. */
static int commit_frame(fmb_viz_t *v, long rec, double t, char *err, size_t errlen)
{
    if (v->nframes >= v->cap_times) {
        long cap = v->cap_times ? 2 * v->cap_times : 256;
        double *p = realloc(v->times, (size_t)cap * sizeof *p);
        if (!p) return fmb_viz_fail(err, errlen, FMB_ERR_NOMEM, "out of memory");
        v->times = p;
        v->cap_times = cap;
    }
    if (v->nbuf >= v->cap_buf) {
        long cap = v->cap_buf ? 2 * v->cap_buf : 16;
        for (int k = 0; k < v->nseries; k++) {
            vseries_t *sr = &v->series[k];
            double *p = realloc(sr->buf, (size_t)cap * sr->rowlen * sizeof *p);
            if (!p) return fmb_viz_fail(err, errlen, FMB_ERR_NOMEM, "out of memory");
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

double fmb_viz_estimate_bytes(const fmb_viz_t *v, long nframes, double *sidecar)
{
    *sidecar = 0;
    if (!v || nframes <= 0) return 0;
    double row = 2 * sizeof(double); /* /viz/time and /viz/record */
    for (int k = 0; k < v->nseries; k++)
        row += (double)v->series[k].rowlen * sizeof(double);
    /* the sidecar is rewritten whole under a temporary name: twice its size at the end */
    *sidecar = 2 * (double)fmb_xdmf_frame_bytes(&v->x, nframes) * (double)nframes;
    return row * (double)nframes;
}

/* ---------------------------------------------------------------- public */

fmb_viz_t *fmb_viz_create(hid_t file, const char *h5path, const char *xmf_path, const char *h5name,
                          const fmb_sim_t *sim, long every, char *err, size_t errlen)
{
    fmb_viz_t *v = calloc(1, sizeof *v);
    if (!v) {
        fmb_viz_fail(err, errlen, FMB_ERR_NOMEM, "out of memory");
        return NULL;
    }
    v->file = file;
    v->h5path = h5path;
    v->m = fmb_sim_model(sim);
    v->every = every > 0 ? every : 1;
    v->ds_time = v->ds_record = -1;
    int st = fmb_viz_plan(v, sim);
    if (st < 0) fmb_viz_fail(err, errlen, st, "out of memory");
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
            (v->ds_time = fmb_viz_ds_make(v->gviz, "time", 0, 1, 0, 0)) < 0 ||
            (v->ds_record = fmb_viz_ds_make(v->gviz, "record", 0, 1, 1, 0)) < 0)
            st = fmb_viz_fail(err, errlen, FMB_ERR_HDF5, "%s: cannot create group /viz", h5path);
        fmb_viz_add_series(v, v->ds_time, &v->cur[0], 1);
        fmb_viz_add_series(v, v->ds_record, &v->cur[1], 1);
    }
    if (st >= 0) st = fmb_viz_create_grids(v, err, errlen);
    if (st >= 0) {
        v->x.path = malloc(strlen(xmf_path) + 1);
        if (v->x.path) strcpy(v->x.path, xmf_path);
        v->x.h5name = malloc(strlen(h5name) + 1);
        if (v->x.h5name) strcpy(v->x.h5name, h5name);
        if (!v->x.path || !v->x.h5name)
            st = fmb_viz_fail(err, errlen, FMB_ERR_NOMEM, "out of memory");
    }
    if (st < 0) {
        fmb_viz_destroy(&v);
        return NULL;
    }
    return v;
}

int fmb_viz_record(fmb_viz_t *v, const fmb_sim_t *sim, long rec, char *err, size_t errlen)
{
    fmb_viz_compute_frame(v, sim);
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
                return fmb_viz_fail(err, errlen, FMB_ERR_HDF5,
                                    "%s: cannot write visualization frames", v->h5path);
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
        return fmb_viz_fail(err, errlen, FMB_ERR_HDF5, "%s: cannot write /viz/guides", v->h5path);
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
    free(v->fout);
    free(v->times);
    free(v->x.path);
    free(v->x.h5name);
    free(v);
    *pv = NULL;
}

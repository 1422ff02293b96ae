/* What the visualization draws and its /viz datasets (docs/output.md, "Visualization";
 * the grids: src/io/viz.c). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/viz_internal.h"

static const char *const grid_names[G_COUNT] = {"links",  "blocks",   "beams",   "guides",
                                                "joints", "contacts", "markers", "forces"};
/* Output names drawn on the forces grid (VF_*) and the point data they become. */
static const char *const force_outputs[VF_COUNT] = {"position", "normal_force", "friction_force",
                                                    "penetration", "contact"};

int fmb_viz_fail(char *err, size_t errlen, int status, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return status;
}

/* ---------------------------------------------------------------- datasets */

/* [nframes x n (x ncomp)] extendible (or [n (x ncomp)] static) dataset. */
hid_t fmb_viz_ds_make(hid_t loc, const char *name, int n, int ncomp, int is_int, int is_static)
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

void fmb_viz_add_series(fmb_viz_t *v, hid_t ds, const double *src, size_t rowlen)
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
    return !jt->klass->no_point;
}

/* The joint's point: on body1, or on body2 when body1 is the ground (as /joints/position). */
void fmb_viz_joint_point(const fmb_joint_t *jt, int *body, double u[2])
{
    const int side = jt->body[0] == FMB_GROUND ? 1 : 0;
    *body = jt->body[side];
    u[0] = jt->point[side][0], u[1] = jt->point[side][1];
}

void fmb_viz_point_at(const fmb_sim_t *sim, int body, const double u[2], double r[2])
{
    if (body == FMB_GROUND)
        r[0] = u[0], r[1] = u[1];
    else
        fmb_sim_body_point(sim, body, u, r);
}

void fmb_viz_slide_dir(const fmb_model_t *m, const fmb_sim_t *sim, const fmb_joint_t *jt,
                       double e[2])
{
    const double *q = fmb_sim_q(sim), *qd = fmb_sim_qd(sim);
    fmb_bodyview_t vv[2] = {fmb_model_view(m, jt->body[0], q, qd),
                            fmb_model_view(m, jt->body[1], q, qd)};
    jt->klass->slide_direction(jt, vv, e);
}

static int frictional(const fmb_joint_t *jt)
{
    return fmb_friction_on(&jt->friction) && jt->klass && jt->klass->slide_direction;
}

/* Decide what is drawn, and the point and cell counts of every grid. */
int fmb_viz_plan(fmb_viz_t *v, const fmb_sim_t *sim)
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
        fmb_viz_joint_point(jt, &body, u);
        fmb_viz_point_at(sim, body, u, r);
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
            fmb_viz_slide_dir(m, sim, jt, gd->e);
            gd->smin = INFINITY, gd->smax = -INFINITY;
            gd->margin = fmax(half, 0.05 * (size > 0 ? size : 1.0));
        }
    }
    /* forces with a "position" output (clearance journals): a vertex with their outputs */
    int maxw = 0;
    for (int f = 0; f < m->nforces; f++) {
        const int no = fmb_model_force_num_outputs(m, f);
        int off[VF_COUNT], total = 0;
        for (int k = 0; k < VF_COUNT; k++)
            off[k] = -1;
        for (int k = 0; k < no; k++) {
            const char *name = fmb_model_force_output_name(m, f, k);
            const int w = fmb_model_force_output_width(m, f, k);
            for (int c = 0; c < VF_COUNT; c++)
                if (name && strcmp(name, force_outputs[c]) == 0 && w == (c == VF_POSITION ? 2 : 1))
                    off[c] = total;
            total += w;
        }
        if (off[VF_POSITION] < 0) continue;
        if (!(it = add_item(v, G_FORCES, &cap[G_FORCES]))) return FMB_ERR_NOMEM;
        it->k = f;
        memcpy(it->off, off, sizeof off);
        maxw = total > maxw ? total : maxw;
    }
    if (maxw > 0 && !(v->fout = calloc((size_t)maxw, sizeof *v->fout))) return FMB_ERR_NOMEM;
    /* point and cell counts */
    static const char *const topo[G_COUNT] = {"Polyline",   "Quadrilateral", "Polyline",
                                              "Polyline",   "Polyvertex",    "Polyvertex",
                                              "Polyvertex", "Polyvertex"};
    static const int npc[G_COUNT] = {2, 4, 2, 2, 1, 1, 1, 1};
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
            f->ibuf[c++] = grid == G_JOINTS || grid == G_CONTACTS ? it->joint
                           : grid == G_FORCES                     ? it->k
                                                                  : it->body;
    }
}

int fmb_viz_create_grids(fmb_viz_t *v, char *err, size_t errlen)
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
            add_field(gr, "stress", 1, 0, 0, 0);
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
        case G_FORCES: /* VF_NORMAL.. in order, then the force index */
            for (int c = VF_NORMAL; c < VF_COUNT; c++)
                add_field(gr, force_outputs[c], 1, 0, 0, 0);
            add_field(gr, "force", 1, 1, 1, 1);
            break;
        default:
            break;
        }
        hid_t grp = H5Gcreate2(v->gviz, grid_names[g], H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (grp < 0)
            return fmb_viz_fail(err, errlen, FMB_ERR_HDF5, "%s: cannot create group /viz/%s",
                                v->h5path, grid_names[g]);
        snprintf(gr->path, sizeof gr->path, "/viz/%s/points", grid_names[g]);
        gr->pts = calloc((size_t)gr->npoints * 3, sizeof *gr->pts);
        gr->ds = fmb_viz_ds_make(grp, "points", gr->npoints, 3, 0, gr->is_static);
        int bad = !gr->pts || gr->ds < 0;
        for (int k = 0; k < gr->nf && !bad; k++) {
            vfield_t *f = &gr->f[k];
            snprintf(f->path, sizeof f->path, "/viz/%s/%s", grid_names[g], f->name);
            f->ds = fmb_viz_ds_make(grp, f->name, f->n, f->ncomp, f->is_int, f->is_static);
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
            fmb_viz_add_series(v, gr->ds, gr->pts, (size_t)gr->npoints * 3);
            for (int k = 0; k < gr->nf; k++)
                if (!gr->f[k].is_static)
                    fmb_viz_add_series(v, gr->f[k].ds, gr->f[k].buf,
                                       (size_t)gr->f[k].n * gr->f[k].ncomp);
        }
        if (bad)
            return fmb_viz_fail(err, errlen, FMB_ERR_HDF5, "%s: cannot create /viz/%s", v->h5path,
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

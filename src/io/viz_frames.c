/* The shapes and fields of one visualization frame from the simulation's state
 * (conventions: src/io/viz.c, docs/output.md "Visualization"). */
#include <math.h>
#include <string.h>

#include "bodies/beam.h"
#include "io/viz_internal.h"

/* ---------------------------------------------------------------- frames */

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
            /* combined stress from the element's local forces, M linear along it */
            double n, ma, mb;
            fmb_beam_element_forces(bm, qb, e, &n, &ma, &mb);
            const double wc = bm->c > 0 ? bm->c / bm->I : NAN;
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
                    const double xi = (double)(s + end) / it->sub;
                    g->f[4].buf[p] = fabs(n) / bm->A + fabs(ma + (mb - ma) * xi) * wc;
                }
        }
    }
}

void fmb_viz_compute_frame(fmb_viz_t *v, const fmb_sim_t *sim)
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
            fmb_viz_joint_point(jt, &body, u);
            fmb_viz_point_at(sim, body, u, c);
            fmb_viz_slide_dir(m, sim, jt, e);
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
        fmb_viz_joint_point(jt, &body, u);
        fmb_viz_point_at(sim, body, u, r);
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
        fmb_viz_joint_point(jt, &body, u);
        fmb_viz_point_at(sim, body, u, c);
        fmb_viz_slide_dir(m, sim, jt, e);
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
    g = &v->g[G_FORCES];
    for (int i = 0; i < v->nitems[G_FORCES]; i++) {
        const vitem_t *it = &v->items[G_FORCES][i];
        fmb_sim_force_outputs(sim, it->k, v->fout);
        put3(g->pts + 3 * i, v->fout[it->off[VF_POSITION]], v->fout[it->off[VF_POSITION] + 1]);
        for (int c = VF_NORMAL; c < VF_COUNT; c++)
            g->f[c - VF_NORMAL].buf[i] = it->off[c] >= 0 ? v->fout[it->off[c]] : 0.0;
    }
    /* guide travel (every record, not only frames) */
    for (int i = 0; i < v->nguides; i++) {
        vguide_t *gd = &v->guides[i];
        fmb_viz_point_at(sim, gd->body, gd->u, r);
        const double s = (r[0] - gd->p[0]) * gd->e[0] + (r[1] - gd->p[1]) * gd->e[1];
        gd->smin = fmin(gd->smin, s), gd->smax = fmax(gd->smax, s);
    }
}

/* One record of the results writer: every dataset's row at the current time, into the
 * batch buffers (writer_commit.c writes the batches to the file). */
#include <math.h>
#include <string.h>

#include "io/writer_impl.h"
#include "model/model.h"

static double *row_d(fmb_writer_t *w, int k)
{
    wds_t *d = &w->ds[k];
    return (double *)(void *)d->buf + (size_t)w->nbuf * d->rowlen;
}

int fmb_writer_append(fmb_writer_t *w, const fmb_sim_t *sim)
{
    if (!w || !sim) return FMB_ERR_ARG;
    if (w->failed) return w->failed;
    const double t = fmb_sim_time(sim);
    const double *q = fmb_sim_q(sim), *qd = fmb_sim_qd(sim), *qdd = fmb_sim_qdd(sim);
    *row_d(w, w->ds_time) = t;
    fmb_sim_energy(sim, row_d(w, w->ds_energy));
    memcpy(w->last_energy, row_d(w, w->ds_energy), sizeof w->last_energy);
    w->has_energy = 1;
    ((int *)(void *)w->ds[w->ds_newton].buf)[w->nbuf] = fmb_sim_last_newton_iterations(sim);
    for (int i = 0; i < w->nbodies; i++) {
        const wbody_t *b = &w->bodies[i];
        size_t nb = (size_t)b->ndof * sizeof(double);
        memcpy(row_d(w, b->ds_q), q + b->offset, nb);
        memcpy(row_d(w, b->ds_qd), qd + b->offset, nb);
        memcpy(row_d(w, b->ds_qdd), qdd + b->offset, nb);
        fmb_sim_body_pose(sim, b->b, row_d(w, b->ds_pose));
        if (b->ds_points >= 0) {
            double *r = row_d(w, b->ds_points);
            for (int k = 0; k < b->npoints; k++)
                fmb_sim_body_point(sim, b->b, b->u + 2 * k, r + 2 * k);
        }
        if (b->ds_bpoints >= 0) {
            double *r = row_d(w, b->ds_bpoints);
            fmb_sim_beam_state(sim, b->b, b->bx, b->by, row_d(w, b->ds_bdefl));
            double *sl = row_d(w, b->ds_bslope);
            for (int k = 0; k < b->nnodes; k++) {
                r[3 * k + 0] = b->bx[k];
                r[3 * k + 1] = b->by[k];
                r[3 * k + 2] = 0.0;
                sl[k] = b->slope_col[k] >= 0 ? q[b->offset + b->slope_col[k]] : 0.0;
            }
            /* bx, by are free again: N and M, interleaved into forces */
            fmb_sim_beam_stress(sim, b->b, b->bx, b->by,
                                b->ds_bstress >= 0 ? row_d(w, b->ds_bstress) : NULL);
            double *nm = row_d(w, b->ds_bforces);
            for (int k = 0; k < b->nnodes; k++)
                nm[2 * k] = b->bx[k], nm[2 * k + 1] = b->by[k];
        }
    }
    for (int i = 0; i < w->njoints; i++) {
        const wjoint_t *j = &w->joints[i];
        double *re = row_d(w, j->ds_reaction);
        fmb_sim_joint_reaction(sim, j->j, re);
        /* the other axes from this reaction (one joint evaluation, not three) */
        fmb_sim_reaction_in_axes(sim, j->j, FMB_AXES_JOINT, re, row_d(w, j->ds_reaction_joint));
        fmb_sim_reaction_in_axes(sim, j->j, FMB_AXES_BODY, re, row_d(w, j->ds_reaction_body));
        *row_d(w, j->ds_force) = hypot(re[0], re[1]);
        if (j->ds_drive >= 0) *row_d(w, j->ds_drive) = re[j->drive_column];
        *row_d(w, j->ds_violation) = fmb_sim_joint_violation(sim, j->j);
        double *r = row_d(w, j->ds_position);
        if (j->body == FMB_GROUND) {
            r[0] = j->u[0];
            r[1] = j->u[1];
        } else {
            fmb_sim_body_point(sim, j->body, j->u, r);
        }
        if (j->noutputs > 0) {
            double val[WRITER_MAX_OUTPUTS + 64];
            int n = fmb_model_joint_num_outputs(w->model, j->j);
            if (n <= (int)(sizeof val / sizeof val[0])) {
                fmb_sim_joint_outputs(sim, j->j, val);
                for (int k = 0; k < j->noutputs; k++)
                    *row_d(w, j->ds_out[k]) = val[k];
            }
        }
        if (j->contact) {
            double *nf = row_d(w, j->ds_normal), *ff = row_d(w, j->ds_friction);
            double z = 0.0, v = 0.0;
            int mode = 0;
            if (fmb_sim_contact_state(sim, j->j, nf, ff, &mode, &z, &v) < 0) {
                memset(nf, 0, 4 * sizeof *nf);
                memset(ff, 0, 4 * sizeof *ff);
            }
            *row_d(w, j->ds_ftotal) = ff[0] + ff[1] + ff[2] + ff[3];
            ((int *)(void *)w->ds[j->ds_mode].buf)[w->nbuf] = mode;
            ((int *)(void *)w->ds[j->ds_stick].buf)[w->nbuf] = fabs(v) < j->v_stick;
            *row_d(w, j->ds_z) = z;
            *row_d(w, j->ds_v) = v;
        }
    }
    for (int i = 0; i < w->nforces; i++) {
        const wforce_t *wf = &w->forces[i];
        double val[64];
        if (wf->total > 64) continue;
        fmb_sim_force_outputs(sim, wf->f, val);
        for (int k = 0, o = 0; k < wf->n; o += wf->width[k], k++)
            memcpy(row_d(w, wf->ds[k]), val + o, (size_t)wf->width[k] * sizeof(double));
    }
    for (int i = 0; i < w->nsws; i++) {
        const struct wswitch *sw = &w->sws[i];
        int mode = -1;
        double fo = NAN, vr = NAN;
        fmb_sim_switch_state(sim, sw->f, &mode, &fo, &vr);
        ((int *)(void *)w->ds[sw->ds_mode].buf)[w->nbuf] = mode;
        *row_d(w, sw->ds_force) = fo;
        *row_d(w, sw->ds_v) = vr;
    }
    if (w->viz) {
        char msg[400];
        int st = fmb_viz_record(w->viz, sim, w->nrec + w->nbuf, msg, sizeof msg);
        if (st < 0) return w->failed = fmb_writer_err(w, st, "%s", msg);
    }
    return fmb_writer_record_done(w);
}

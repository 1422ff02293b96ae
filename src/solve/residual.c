/* The residual path: M qdd, Phi_q^T lambda - Q (with the joints' memo for the assembly
 * of the same iterate, sim.h fmb_joint_memo_t), Phi and its dense Jacobian, a contact's
 * views; and the messages naming the element behind a non-finite residual. The iteration
 * matrix is assemble.c's. */
#include "solve/sim_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A joint's Jacobian blocks at (q, t) into the scratch (J[b] is nrows x v[b].nc, on the
 * element's columns); returns nrows and fills the views. */
static int joint_jacobian(const fmb_sim_t *s, const fmb_joint_t *j, const double *q, double t,
                          fmb_bodyview_t v[2], double *J[2])
{
    fmb_sim_joint_views(s, j, q, NULL, v);
    const int nr = j->klass->nrows;
    J[0] = fmb_zeroed(s->as.sJ[0], (size_t)(nr * v[0].nc));
    J[1] = fmb_zeroed(s->as.sJ[1], (size_t)(nr * v[1].nc));
    j->klass->eval(j, v, t, s->as.sphi, J[0], J[1]);
    return nr;
}

/* Whether a joint's memo views v (built by an earlier residual) keep their columns: a
 * class without cols() whose columns are known (residual_views). */
static inline int views_kept(const fmb_joint_t *j, const fmb_bodyview_t v[2])
{
    return !j->klass->cols && j->colcache.ok && v[0].body;
}

/* Kept views' state pointers set to q and qd (either may be NULL), as model_views.c
 * view_state sets them. */
static inline void views_state(const fmb_sim_t *s, const fmb_joint_t *j, const double *q,
                               const double *qd, fmb_bodyview_t v[2])
{
    for (int b = 0; b < 2; b++) {
        const int o = s->model->bodies[j->body[b]].offset;
        if (o < 0) continue; /* ground: no state */
        v[b].q = q ? q + o : NULL;
        v[b].qd = qd ? qd + o : NULL;
    }
}

/* A joint's views for the residual into its memo slots v, which hold the views the last
 * residual built for it. A joint with the default columns (no class cols()) has the same
 * columns for the whole run: they follow from its points and its bodies' coordinate
 * counts, fixed when the model is built (model_views.c default_cols keeps them in the
 * joint), so once its views are built only their state pointers are set again, as
 * model_views.c view_state sets them. A class with its own cols() (columns that follow
 * the state: the slider on a beam) gets fmb_joint_views every time. */
static void residual_views(const fmb_sim_t *s, const fmb_joint_t *j, const double *q,
                           const double *qd, fmb_bodyview_t v[2])
{
    if (views_kept(j, v))
        views_state(s, j, q, qd, v);
    else
        fmb_sim_joint_views(s, j, q, qd, v);
}

int fmb_sim_functions_nonfinite(fmb_sim_t *s, double t)
{
    const fmb_model_t *md = s->model;
    for (int i = 0; i < md->njoints; i++) {
        const fmb_joint_t *j = &md->joints[i];
        if (!j->fn) continue;
        const fmb_jet_t f = fmb_expr_jet(j->fn, t);
        if (isfinite(f.v) && isfinite(f.d1) && isfinite(f.d2)) continue;
        int rc = fmb_sim_error(s, FMB_ERR_NONFINITE,
                               "joint '%s' (line %d, %s) is not finite at t = %.9g: function "
                               "'%s' = %g (f' = %g, f'' = %g)",
                               j->name, j->line, j->klass->name, t, fmb_expr_text(j->fn), f.v,
                               f.d1, f.d2);
        s->errline = j->line;
        return rc;
    }
    return 0;
}

/* After a non-finite residual: find the element that produced it (body forces, applied
 * forces, joints) by evaluating each alone, and say which, where (case line), when and,
 * for an expression, which expression. Returns FMB_ERR_NONFINITE. */
int fmb_sim_nonfinite_error(fmb_sim_t *s, const double *q, const double *qd, const double *qdd,
                            double t)
{
    const fmb_model_t *md = s->model;
    for (int i = 0; i < md->nforces; i++) {
        const fmb_force_t *f = &md->forces[i];
        fmb_bodyview_t v[2];
        fmb_force_views(md, f, q, qd, v);
        double *Q[2] = {fmb_zeroed(s->as.sQ[0], FMB_VIEW_COLS),
                        fmb_zeroed(s->as.sQ[1], FMB_VIEW_COLS)};
        f->klass->eval(f, v, t, Q[0], Q[1], NULL, NULL);
        int bad = 0;
        for (int b = 0; b < 2; b++)
            for (int k = 0; k < v[b].nc; k++)
                bad |= !isfinite(Q[b][k]);
        if (!bad) continue;
        char ex[300] = "";
        for (int e = 0; e < 2; e++)
            if (f->fn[e]) {
                const double val = fmb_expr_eval(f->fn[e], t, 0);
                if (!isfinite(val)) {
                    snprintf(ex, sizeof ex, ": expression '%s' = %g", fmb_expr_text(f->fn[e]), val);
                    break;
                }
            }
        int rc = fmb_sim_error(s, FMB_ERR_NONFINITE,
                               "force '%s' (line %d, %s) is not finite at t = %.9g%s", f->name,
                               f->line, f->klass->name, t, ex);
        s->errline = f->line;
        return rc;
    }
    for (int b = 1; b < md->nbodies; b++) {
        const fmb_body_t *bd = &md->bodies[b];
        double *Q = fmb_zeroed(s->as.sQ[0], (size_t)bd->ndof);
        bd->klass->forces(bd, q + bd->offset, qd + bd->offset, qdd + bd->offset, md->g, Q, NULL,
                          NULL, NULL);
        for (int k = 0; k < bd->ndof; k++)
            if (!isfinite(Q[k]) || !isfinite(q[bd->offset + k]) || !isfinite(qd[bd->offset + k])) {
                int rc = fmb_sim_error(s, FMB_ERR_NONFINITE,
                                       "body '%s' (line %d): non-finite coordinates or body forces "
                                       "at t = %.9g (coordinate %d)",
                                       bd->name, bd->line, t, k);
                s->errline = bd->line;
                return rc;
            }
    }
    for (int i = 0; i < md->njoints; i++) {
        const fmb_joint_t *j = &md->joints[i];
        fmb_bodyview_t v[2];
        fmb_sim_joint_views(s, j, q, qd, v);
        j->klass->eval(j, v, t, s->as.sphi, NULL, NULL);
        for (int r = 0; r < j->klass->nrows; r++)
            if (!isfinite(s->as.sphi[r])) {
                char ex[300] = "";
                if (j->fn)
                    snprintf(ex, sizeof ex, ": function '%s' = %g", fmb_expr_text(j->fn),
                             fmb_expr_eval(j->fn, t, 0));
                int rc = fmb_sim_error(s, FMB_ERR_NONFINITE,
                                       "joint '%s' (line %d, %s) is not finite at t = %.9g%s",
                                       j->name, j->line, j->klass->name, t, ex);
                s->errline = j->line;
                return rc;
            }
        if (j->fn) {
            const double d1 = fmb_expr_eval(j->fn, t, 1), d2 = fmb_expr_eval(j->fn, t, 2);
            if (!isfinite(d1) || !isfinite(d2)) {
                int rc = fmb_sim_error(s, FMB_ERR_NONFINITE,
                                       "joint '%s' (line %d): the derivatives of its function '%s' "
                                       "are not finite at t = %.9g (f' = %g, f'' = %g)",
                                       j->name, j->line, fmb_expr_text(j->fn), t, d1, d2);
                s->errline = j->line;
                return rc;
            }
        }
    }
    return fmb_sim_error(s, FMB_ERR_NONFINITE, "non-finite residual at t = %.9g", t);
}

void fmb_sim_eval_forces(const fmb_sim_t *s, const double *q, const double *qd, const double *qdd,
                         const double *lam, double t, double *Mqdd, double *F)
{
    fmb_sim_eval_residual(s, q, qd, qdd, lam, t, Mqdd, F, NULL);
}

void fmb_sim_eval_residual(const fmb_sim_t *s, const double *q, const double *qd,
                           const double *qdd, const double *lam, double t, double *Mqdd,
                           double *F, double *phi)
{
    const fmb_model_t *md = s->model;
    const int n = s->n;
    if (Mqdd) memset(Mqdd, 0, (size_t)n * sizeof *Mqdd);
    if (F) memset(F, 0, (size_t)n * sizeof *F);
    for (int b = 1; b < md->nbodies; b++) {
        const fmb_body_t *bd = &md->bodies[b];
        const int o = bd->offset, nd = bd->ndof;
        if (Mqdd && F && bd->klass->mass_forces) { /* both in one call (model.h) */
            double *Q = fmb_zeroed(s->as.sQ[0], (size_t)nd);
            bd->klass->mass_forces(bd, q + o, qd + o, qdd + o, md->g, Mqdd + o, Q);
            for (int r = 0; r < nd; r++)
                F[o + r] -= Q[r];
            continue;
        }
        if (Mqdd && bd->klass->mass_times) {
            bd->klass->mass_times(bd, q + o, qdd + o, Mqdd + o);
        } else if (Mqdd) { /* bodies without mass_times are small (s->as.maxd) */
            double *M = s->as.sM;
            bd->klass->mass(bd, q + o, M);
            if (nd == 3) { /* a rigid body: the same sums in the same order, unrolled */
                const double a0 = qdd[o], a1 = qdd[o + 1], a2 = qdd[o + 2];
                for (int r = 0; r < 3; r++) {
                    double x = Mqdd[o + r];
                    x += M[r] * a0;
                    x += M[r + 3] * a1;
                    x += M[r + 6] * a2;
                    Mqdd[o + r] = x;
                }
            } else {
                for (int c = 0; c < nd; c++)
                    for (int r = 0; r < nd; r++)
                        Mqdd[o + r] += M[r + nd * c] * qdd[o + c];
            }
        }
        if (F) {
            double *Q = fmb_zeroed(s->as.sQ[0], (size_t)nd);
            bd->klass->forces(bd, q + o, qd + o, qdd + o, md->g, Q, NULL, NULL, NULL);
            for (int r = 0; r < nd; r++)
                F[o + r] -= Q[r];
        }
    }
    fmb_joint_memo_t *jm = s->as.jm;
    jm->ok = 0;
    if (!F) return;
    for (int i = 0; i < md->nforces; i++) {
        const fmb_force_t *f = &md->forces[i];
        fmb_bodyview_t v[2];
        fmb_force_views(md, f, q, qd, v);
        double *Q[2] = {fmb_zeroed(s->as.sQ[0], FMB_VIEW_COLS),
                        fmb_zeroed(s->as.sQ[1], FMB_VIEW_COLS)};
        f->klass->eval(f, v, t, Q[0], Q[1], NULL, NULL);
        for (int b = 0; b < 2; b++)
            for (int k = 0; k < v[b].nc; k++)
                F[md->bodies[f->body[b]].offset + v[b].cols[k]] -= Q[b][k];
    }
    /* every joint's views and Jacobian (J_1 right after J_0) go into the memo, where the
     * assembly of the same iterate may take them (sim.h fmb_joint_memo_t) */
    for (int i = 0; i < md->njoints; i++) {
        const fmb_joint_t *j = &md->joints[i];
        fmb_bodyview_t *v = jm->v + 2 * i;
        residual_views(s, j, q, qd, v);
        const int nr = j->klass->nrows;
        double *J[2] = {fmb_zeroed(jm->J + jm->joff[i], (size_t)(nr * (v[0].nc + v[1].nc))), NULL};
        J[1] = J[0] + (size_t)nr * v[0].nc;
        j->klass->eval(j, v, t, phi ? phi + j->row : s->as.sphi, J[0], J[1]);
        const double *lj = lam + j->row;
        for (int b = 0; b < 2; b++) {
            /* F += J_b^T lambda_j, each entry summed over the rows in order in a register
             * (F, J and lambda do not overlap: the same sums as F[.] += ... row by row) */
            const int o = md->bodies[j->body[b]].offset, nc = v[b].nc;
            const int *cols = v[b].cols;
            const double *Jb = J[b];
            if (nr == 2) { /* most joints: the two rows unrolled, in order */
                const double l0 = lj[0], l1 = lj[1];
                for (int k = 0; k < nc; k++) {
                    double f = F[o + cols[k]];
                    f += Jb[2 * k] * l0;
                    f += Jb[2 * k + 1] * l1;
                    F[o + cols[k]] = f;
                }
                continue;
            }
            for (int k = 0; k < nc; k++) {
                double f = F[o + cols[k]];
                for (int r = 0; r < nr; r++)
                    f += Jb[r + nr * k] * lj[r];
                F[o + cols[k]] = f;
            }
        }
    }
    if (!jm->on) return;
    jm->qp = q, jm->qdp = qd, jm->t = t;
    memcpy(jm->q, q, (size_t)n * sizeof *q);
    jm->ok = 1;
}

double fmb_sim_eval_phi(const fmb_sim_t *s, const double *q, double t, double *phi, int *row)
{
    const fmb_model_t *md = s->model;
    double mx = 0.0;
    int at = -1;
    for (int i = 0; i < md->njoints; i++) {
        const fmb_joint_t *j = &md->joints[i];
        fmb_bodyview_t *mv = s->as.jm->v + 2 * i;
        if (!views_kept(j, mv)) {
            fmb_bodyview_t v[2];
            fmb_sim_joint_views(s, j, q, NULL, v);
            j->klass->eval(j, v, t, phi + j->row, NULL, NULL);
        } else {
            /* a joint with the default columns: the residual's memo views lent for the
             * call, their state pointers set to q (no qd, as fmb_sim_joint_views(q, NULL)
             * gives) and restored after it, so the memo the assembly may take stays the
             * residual's */
            const double *kq[2] = {mv[0].q, mv[1].q}, *kqd[2] = {mv[0].qd, mv[1].qd};
            views_state(s, j, q, NULL, mv);
            j->klass->eval(j, mv, t, phi + j->row, NULL, NULL);
            for (int b = 0; b < 2; b++)
                mv[b].q = kq[b], mv[b].qd = kqd[b];
        }
        for (int r = 0; r < j->klass->nrows; r++) {
            double a = fabs(phi[j->row + r]);
            if (!(a <= mx)) mx = a, at = j->row + r; /* NaN propagates */
        }
    }
    if (row) *row = at;
    return mx;
}

void fmb_sim_dense_jacobian(const fmb_sim_t *s, const double *q, double t, double *Jd)
{
    const fmb_model_t *md = s->model;
    const int m = s->m;
    memset(Jd, 0, (size_t)m * (size_t)s->n * sizeof *Jd);
    for (int i = 0; i < md->njoints; i++) {
        const fmb_joint_t *j = &md->joints[i];
        fmb_bodyview_t v[2];
        double *J[2];
        const int nr = joint_jacobian(s, j, q, t, v, J);
        for (int b = 0; b < 2; b++) {
            const int o = md->bodies[j->body[b]].offset;
            for (int k = 0; k < v[b].nc; k++)
                for (int r = 0; r < nr; r++)
                    Jd[(j->row + r) + (size_t)m * (o + v[b].cols[k])] += J[b][r + nr * k];
        }
    }
}

void fmb_sim_contact_views(const fmb_sim_t *s, const fmb_contact_t *c, const double *q,
                           const double *qd, fmb_bodyview_t v[2])
{
    const fmb_joint_t *j = &s->model->joints[c->joint];
    fmb_model_view_into(s->model, j->body[0], q, qd, &v[0]);
    fmb_model_view_into(s->model, j->body[1], q, qd, &v[1]);
    fmb_contact_cols(c, j, v);
}

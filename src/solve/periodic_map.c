/* The period map of the integrator and its exact derivative (docs/theory.md section 13,
 * "The discrete map", "Its exact derivative", "Convergence test"; the equations are in
 * periodic.c's opening comment). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solve/periodic.h"

/* The sim at state x, time t0, with a fresh step history (as after a restart). */
void fmb_periodic_set_state(fmb_periodic_t *p, const double *x)
{
    fmb_sim_t *s = p->s;
    const int n = p->n;
    memcpy(s->st.q, x, (size_t)n * sizeof *x);
    memcpy(s->st.qd, x + n, (size_t)n * sizeof *x);
    memcpy(s->st.acc, x + 2 * n, (size_t)n * sizeof *x);
    memcpy(s->st.qdd, x + 3 * n, (size_t)n * sizeof *x);
    memcpy(s->st.accp, s->st.acc, (size_t)n * sizeof *x);
    memcpy(s->st.lam, p->lam0, (size_t)p->m * sizeof *s->st.lam);
    s->st.t = p->t0;
    s->st.nhist = 0;
    s->st.h_prev = 0.0;
    s->ctl.newton_stale = 1;
    s->ctl.kkt_iter = 0;
    s->ctl.newton_K[0] = s->ctl.newton_K[1] = s->ctl.newton_K[2] = s->ctl.newton_K[3] = 0.0;
    s->st.W = 0.0;
    fmb_sim_force_history(s, 1);
    s->st.P = fmb_sim_power(s);
}

void fmb_periodic_get_state(const fmb_periodic_t *p, double *x)
{
    const fmb_sim_t *s = p->s;
    const int n = p->n;
    memcpy(x, s->st.q, (size_t)n * sizeof *x);
    memcpy(x + n, s->st.qd, (size_t)n * sizeof *x);
    memcpy(x + 2 * n, s->st.acc, (size_t)n * sizeof *x);
    memcpy(x + 3 * n, s->st.qdd, (size_t)n * sizeof *x);
}

/* Assemble the matrix with coefficients c into kkt k (its own pattern) at the candidate. */
static int assemble_into(fmb_periodic_t *p, fmb_kkt_t *k, const fmb_coeffs_t *c, double t1)
{
    fmb_sim_t *s = p->s;
    fmb_kkt_t keep = s->as.kkt;
    s->as.kkt = *k;
    fmb_sim_assemble(s, s->st.q, s->st.qd, s->st.qdd, s->st.lam, t1, c);
    int rc = fmb_kkt_pattern(&s->as.kkt);
    *k = s->as.kkt;
    s->as.kkt = keep;
    return rc;
}

/* Propagate the ncol columns of Y (dx_n, 4n each) through the converged step t_n -> t_n + h
 * (the candidate in s->st.q ...); unit: this is the first step and Y's columns (3n of them)
 * are the unit vectors of w_0 = (qh, qdh, c) (the dense monodromy). */
static int tangent_step(fmb_periodic_t *p, double h, double *Y, int ncol, int unit)
{
    fmb_sim_t *s = p->s;
    const int n = p->n, N = n + p->m, nw = ncol;
    const int first = unit;
    const size_t nx = 4 * (size_t)n;
    double am, af, beta, gamma;
    fmb_sim_integrator_coefficients(s, &am, &af, &beta, &gamma);
    const double r = (1.0 - af) / (1.0 - am), bp = beta * r, gp = gamma * r;
    const double bh2 = bp * h * h, t1 = s->st.t + h;
    const double ca = -am / (1.0 - am), cq = af / (1.0 - am);
    int rc;
    const fmb_coeffs_t cK = {0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0};
    const fmb_coeffs_t cC = {0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0}; /* top left -Cq */
    const fmb_coeffs_t cA = {1.0, bh2, bh2, gp * h, 1.0, 0.0, 0.0, 0};
    if ((rc = assemble_into(p, &p->kK, &cK, t1)) || (rc = assemble_into(p, &p->kC, &cC, t1)))
        return fmb_sim_error(s, rc, "periodic: cannot assemble the step's tangent at t = %.9g", t1);
    s->as.jm->handoff = 0;
    fmb_sim_assemble(s, s->st.q, s->st.qd, s->st.qdd, s->st.lam, t1, &cA);
    rc = fmb_kkt_factor(&s->as.kkt);
    s->ctl.kkt_iter = 0; /* not the integrator's iteration matrix any more */
    s->ctl.newton_stale = 1;
    if (rc)
        return rc == FMB_ERR_SINGULAR ? fmb_sim_singular_error(s, s->st.q, t1, "in the monodromy")
                                      : fmb_sim_error(s, rc, "periodic: factorization failed");
    double *tmp = p->v1; /* n + m */
    double *w = p->A;    /* n x 3n: the columns' dc */
    for (int j = 0; j < nw; j++) {
        double *Yj = Y + (size_t)j * nx, *b = p->B + (size_t)j * N;
        double *dc = w + (size_t)j * n;
        /* (qh, qdh) into Yj's q and qd parts, dc aside */
        if (first) { /* the unit vectors of w_0 = (qh, qdh, c) */
            memset(Yj, 0, nx * sizeof *Yj);
            memset(dc, 0, (size_t)n * sizeof *dc);
            if (j < 2 * n)
                Yj[j] = 1.0;
            else
                dc[j - 2 * n] = 1.0;
        } else {
            double *dq = Yj, *dv = Yj + n;
            const double *da = Yj + 2 * n, *dd = Yj + 3 * n;
            for (int i = 0; i < n; i++) {
                dc[i] = cq * dd[i] + ca * da[i];
                dq[i] += h * dv[i] + h * h * ((0.5 - beta) * da[i] + beta * dc[i]);
                dv[i] += h * ((1.0 - gamma) * da[i] + gamma * dc[i]);
            }
        }
        /* right-hand side: -bh2 (K qh - Cq qdh) and -Phi_q qh (kC's top left is -Cq) */
        fmb_kkt_matvec(&p->kK, n, Yj, b);
        fmb_kkt_matvec(&p->kC, n, Yj + n, tmp);
        for (int i = 0; i < n; i++)
            b[i] = -bh2 * (b[i] + tmp[i]);
        for (int i = n; i < N; i++)
            b[i] = -b[i];
    }
    if ((rc = fmb_kkt_solve_many(&s->as.kkt, nw, p->B)))
        return fmb_sim_error(s, rc, "periodic: tangent solve failed at t = %.9g", t1);
    const double gv = gp / (bp * h);
    for (int j = 0; j < nw; j++) {
        double *Yj = Y + (size_t)j * nx;
        const double *yv = p->B + (size_t)j * N, *dc = w + (size_t)j * n;
        for (int i = 0; i < n; i++) {
            const double dqdd = yv[i] / bh2;
            Yj[i] += yv[i];
            Yj[n + i] += gv * yv[i];
            Yj[2 * n + i] = r * dqdd + dc[i];
            Yj[3 * n + i] = dqdd;
        }
    }
    return 0;
}

/* One pass over the period from x: y = P(x); with ncol > 0 the columns of Y propagated too
 * (unit: Y = dx_N/dw_0, the dense monodromy; else Y's columns dx_0 -> J dx_0). */
int fmb_periodic_pass(fmb_periodic_t *p, const double *x, double *y, double *Y, int ncol, int unit,
                      volatile const int *stop)
{
    const int tangent = ncol > 0;
    fmb_sim_t *s = p->s;
    const int n = p->n;
    const size_t nx = 4 * (size_t)n;
    fmb_periodic_set_state(p, x);
    for (size_t i = 0; i < nx; i++)
        p->scale[i] = fabs(x[i]);
    p->passes++;
    if (tangent) p->tpasses++;
    for (long k = 0; k < p->N; k++) {
        if (stop && *stop)
            return fmb_sim_error(s, FMB_ERR_INTERRUPTED, "periodic: interrupted at t = %g",
                                 s->st.t);
        /* every step by full Newton to its increment test: no Newton constants carried from
         * the step before and no kept matrix (newton_stale), so that P(x) is the same
         * function of x in every pass and its rounding stays at the increment test's */
        s->ctl.newton_stale = 1;
        int rc = fmb_sim_try_step(s, p->h);
        if (rc) return rc;
        if (tangent && (rc = tangent_step(p, p->h, Y, ncol, unit && k == 0))) {
            fmb_sim_reject_step(s);
            return rc;
        }
        fmb_sim_commit_step(s, p->h);
        s->st.t = p->t0 + (double)(k + 1) * p->h;
        for (int i = 0; i < n; i++) {
            p->scale[i] = fmax(p->scale[i], fabs(s->st.q[i]));
            p->scale[n + i] = fmax(p->scale[n + i], fabs(s->st.qd[i]));
            p->scale[2 * n + i] = fmax(p->scale[2 * n + i], fabs(s->st.acc[i]));
            p->scale[3 * n + i] = fmax(p->scale[3 * n + i], fabs(s->st.qdd[i]));
        }
    }
    fmb_periodic_get_state(p, y);
    if (tangent && unit) p->have_J = 1;
    return 0;
}

/* G = P(x) - x (carrier angles modulo 2 pi) and its size. The convergence test measures
 * the state (q, qd): each entry against the largest value over the period of its group,
 * per body its carrier position (x, y), its carrier angle and its elastic coordinates (a
 * carrier angle against 1 rad). a and qdd follow from q through the Newmark relations
 * (qdd_{n+1} = (q_{n+1} - qh) / bh2): their rounding is that of q amplified by 1/(beta h^2)
 * (measured: 1e-6 of their scale on the quick-return at h = 1e-4), so they are reported
 * (*acc_res) but not tested. */
double fmb_periodic_residual_norm(fmb_periodic_t *p, double *acc_res)
{
    const int n = p->n;
    const fmb_model_t *md = p->s->model;
    double worst = 0.0, wacc = 0.0;
    for (int blk = 0; blk < 4; blk++)
        for (int i = 0; i < n; i++) {
            const int k = blk * n + i;
            double d = p->y[k] - p->x[k];
            if (blk == 0 && p->angle[i]) d -= 2.0 * M_PI * nearbyint(d / (2.0 * M_PI));
            p->g[k] = d;
        }
    /* group scales: the largest value over the period in the group, floored at 1e-6 of
     * the largest group of its block (a coordinate pinned at zero, as a crank's centre, is
     * measured against the mechanism's scale, not its own rounding) */
    double big[4] = {0.0, 0.0, 0.0, 0.0};
    for (int blk = 0; blk < 4; blk++)
        for (int i = 0; i < n; i++)
            if (!(blk == 0 && p->angle[i])) big[blk] = fmax(big[blk], p->scale[blk * n + i]);
    for (int b = 1; b < md->nbodies; b++) {
        const int o = md->bodies[b].offset, nd = md->bodies[b].ndof;
        if (o < 0) continue;
        for (int blk = 0; blk < 4; blk++) {
            /* groups: [o, o+2) position, o+2 angle, [o+3, o+nd) elastic */
            const int lo[3] = {o, o + 2, o + 3}, hi[3] = {o + 2, o + 3, o + nd};
            for (int gi = 0; gi < 3; gi++) {
                if (hi[gi] > o + nd || lo[gi] >= hi[gi]) continue;
                double sc = 0.0, r = 0.0;
                for (int i = lo[gi]; i < hi[gi]; i++) {
                    sc = fmax(sc, p->scale[blk * n + i]);
                    r = fmax(r, fabs(p->g[blk * n + i]));
                }
                sc = blk == 0 && gi == 1 ? 1.0 : fmax(sc, 1e-6 * big[blk]); /* angle: 1 rad */
                for (int i = lo[gi]; i < hi[gi]; i++)
                    p->sig[blk * n + i] = sc > 0 ? sc : 1.0;
                if (r == 0.0) continue;
                const double e = r / fmax(sc, 1e-300);
                if (blk < 2)
                    worst = fmax(worst, e);
                else
                    wacc = fmax(wacc, e);
            }
        }
    }
    if (acc_res) *acc_res = wacc;
    return worst;
}

/* A pass at the present iterate that, when it fails (a step that cannot be completed from
 * an update too long for the nonlinear map: the index-3 steps from a state far from a
 * consistent one), retries at the update's halves towards the last iterate that passed
 * (p->xlast), at most FMB_PERIODIC_BACKTRACK times: damped Newton. it: the iteration (0:
 * nothing to go back to). */
int fmb_periodic_pass_damped(fmb_periodic_t *p, int it, double *Y, int ncol, int unit,
                             volatile const int *stop)
{
    const size_t nx = 4 * (size_t)p->n;
    int rc = fmb_periodic_pass(p, p->x, p->y, Y, ncol, unit, stop);
    for (int b = 0; rc && rc != FMB_ERR_INTERRUPTED && it > 0 && b < FMB_PERIODIC_BACKTRACK; b++) {
        for (size_t i = 0; i < nx; i++)
            p->x[i] = p->xlast[i] + 0.5 * (p->x[i] - p->xlast[i]);
        p->backtracks++;
        rc = fmb_periodic_pass(p, p->x, p->y, Y, ncol, unit, stop);
    }
    if (rc == 0) memcpy(p->xlast, p->x, nx * sizeof *p->x);
    return rc;
}

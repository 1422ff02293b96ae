/*
 * Time integration: index-3 generalized-alpha family (HHT-alpha, Newmark, Chung-Hulbert)
 * on the sparse KKT system, in the form of Arnold and Bruls (2007) (docs/theory.md 4):
 *   M(q_{n+1}) qdd_{n+1} + F(q_{n+1}, qd_{n+1}, lambda_{n+1}, t_{n+1}) = 0,
 *   F = Phi_q^T lambda - Q,   Phi(q_{n+1}, t_{n+1}) = 0,
 *   q_{n+1}  = q_n + h qd_n + h^2 (1/2 - beta) a_n + h^2 beta a_{n+1}
 *   qd_{n+1} = qd_n + h (1 - gamma) a_n + h gamma a_{n+1}
 *   (1 - am) a_{n+1} + am a_n = (1 - af) qdd_{n+1} + af qdd_n
 * HHT: am = 0, af = -alpha, beta = (1 - alpha)^2 / 4, gamma = 1/2 - alpha. The true
 * accelerations and multipliers hold at t_{n+1}, which keeps the scheme second order
 * with the carrier frame's M(q) (the form M qdd + (1+alpha) F_{n+1} - alpha F_n = 0 of
 * Negrut et al. 2007 is only first order there).
 *
 * Newton iteration in dq = beta' h^2 dqdd (beta' = beta (1 - af)/(1 - am), likewise
 * gamma'), with the first block row multiplied by beta' h^2 and the multiplier scaled as
 * dlt = beta' h^2 dlambda (Bottasso, Bauchau, Cardona 2007):
 *   [ M + bh2 (Kmq + Kc - Kq) - gamma' h Cq   Phi_q^T ] [ dq  ]   [ -bh2 (M qdd + F) ]
 *   [ Phi_q                                   0       ] [ dlt ] = [ -Phi             ]
 * with Kmq = d(M qdd)/dq, Kq = dQ/dq, Cq = dQ/dqd and Kc = d(Phi_q^T lambda)/dq.
 * Converged when max_i |dq_i| / (atol + rtol |q_i|) <= 1 and max |Phi| <= phi_tol. The
 * friction state (sliding velocity, LuGre z, mu) is that of the last iterate: near
 * v = 0, where LuGre friction is steep, the reported friction can differ from the one in
 * the converged dynamics by the Newton tolerance times d(mu N)/dv (docs/validation.md).
 */
#include "solve/sim_internal.h"
#include "solve/step_loops.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Generalized-alpha family (Chung and Hulbert 1993; Arnold and Bruels 2007):
 *   (1 - am) a_{n+1} + am a_n = (1 - af) qdd_{n+1} + af qdd_n
 * HHT-alpha is am = 0, af = -alpha, beta = (1 - alpha)^2 / 4, gamma = 1/2 - alpha;
 * Newmark is am = af = 0. */
static void coefficients(const fmb_sim_t *s, double *am, double *af, double *beta, double *gamma)
{
    const fmb_sim_options_t *o = &s->opts;
    if (o->integrator == FMB_HHT) {
        *am = 0.0;
        *af = -o->alpha;
        *beta = 0.25 * (1.0 - o->alpha) * (1.0 - o->alpha);
        *gamma = 0.5 - o->alpha;
    } else if (o->integrator == FMB_GENERALIZED_ALPHA) {
        const double rho = o->rho_inf;
        *am = (2.0 * rho - 1.0) / (rho + 1.0);
        *af = rho / (rho + 1.0);
        *gamma = 0.5 - *am + *af;
        *beta = 0.25 * (1.0 - *am + *af) * (1.0 - *am + *af);
    } else {
        *am = 0.0;
        *af = 0.0;
        *beta = o->beta;
        *gamma = o->gamma;
    }
}

static void save_state(fmb_sim_t *s)
{
    const size_t n = (size_t)s->n, m = (size_t)s->m;
    memcpy(s->st.save, s->st.q, n * sizeof(double));
    memcpy(s->st.save + n, s->st.qd, n * sizeof(double));
    memcpy(s->st.save + 2 * n, s->st.qdd, n * sizeof(double));
    memcpy(s->st.save + 3 * n, s->st.acc, n * sizeof(double));
    memcpy(s->st.save + 4 * n, s->st.lam, m * sizeof(double));
}

static void restore_state(fmb_sim_t *s)
{
    const size_t n = (size_t)s->n, m = (size_t)s->m;
    memcpy(s->st.q, s->st.save, n * sizeof(double));
    memcpy(s->st.qd, s->st.save + n, n * sizeof(double));
    memcpy(s->st.qdd, s->st.save + 2 * n, n * sizeof(double));
    memcpy(s->st.acc, s->st.save + 3 * n, n * sizeof(double));
    memcpy(s->st.lam, s->st.save + 4 * n, m * sizeof(double));
    s->el.cv_ok = 0;
}

/* The validity of the candidate (joints with a valid member: a slider still on its guide).
 * Their views at the candidate are kept in s->el.cv (cv_ok) for the step control of the same
 * joints (stepctl.c events), which views the same q and qd. */
static int invalid_state(fmb_sim_t *s, double t)
{
    const fmb_model_t *md = s->model;
    for (int k = 0; k < s->el.njvalid; k++) {
        const fmb_joint_t *j = &md->joints[s->el.jvalid[k]];
        fmb_bodyview_t *v = s->el.cv + 2 * k;
        fmb_sim_joint_views(s, j, s->st.q, s->st.qd, v);
        char msg[512];
        int rc = j->klass->valid(j, v, t, msg, sizeof msg);
        if (rc) {
            fmb_sim_error(s, rc, "%s (line %d)", msg, j->line);
            s->errline = j->line;
            return rc;
        }
    }
    s->el.cv_ok = 1;
    return 0;
}

/* fmax(a, b) without the libm call (GCC calls it unless NaNs are ruled out): the same value
 * for every pair this file passes, NaN handling included (a NaN argument yields the other
 * one; equal arguments yield b, as x86-64's maxsd in libm does for +0 / -0) */
static inline double fmax_inline(double a, double b)
{
    return a > b || b != b ? a : b;
}

/* The elements' own coordinates in the estimate (docs/theory.md "Local error estimate",
 * element coordinates; the forces with step_error, adaptive runs): the coordinates' signed
 * local errors e_i = sgn(da_i) max(0, k |da_i| - noise_i) (fmb_step_error's, the same
 * da_i from a_{n+1} in acc1) on the element's bodies, viewed as velocities; the element
 * returns its coordinates' errors over their scales, and r = err t_span / (h rtol_step)
 * enters the step's ratio as a coordinate's does. err_coord = n + k names element k of
 * the list (fmb_sim_coord_name). */
static void element_error(fmb_sim_t *s, const fmb_step_err_t *p)
{
    const fmb_model_t *md = s->model;
    const int n = s->n, two = p->hp > 0;
    const double hs = p->h + p->hp;
    for (int k = 0; k < s->el.nferr; k++) {
        const fmb_force_t *f = &md->forces[s->el.ferr[k]];
        fmb_bodyview_t v[2], dv[2];
        for (int b = 0; b < 2; b++) {
            const fmb_body_t *B = &md->bodies[f->body[b]];
            if (f->body[b] != FMB_GROUND)
                for (int i = B->offset; i < B->offset + B->ndof; i++) {
                    const double da = two ? (s->ctl.acc1[i] - s->st.accp[i]) * p->h / hs
                                          : s->ctl.acc1[i] - s->st.acc[i];
                    const double noise = 2.0 * (p->natol + p->nrtol * fabs(s->st.q[i]) + p->phit);
                    const double e = fmax_inline(0.0, p->k * fabs(da) - noise);
                    s->ctl.eq[i] = da < 0 ? -e : e;
                }
            v[b] = fmb_model_view(md, f->body[b], s->st.q, s->st.qd);
            dv[b] = fmb_model_view(md, f->body[b], s->st.q, s->ctl.eq);
        }
        const double r = f->klass->step_error(f, v, dv) * p->ts / p->h / p->rt;
        if (r > s->ctl.err_ratio) s->ctl.err_ratio = r, s->ctl.err_coord = n + k;
    }
}

/* Local error estimate of the candidate step (docs/theory.md, "Local error estimate"):
 * with a_n = qdd(t_n + D h) + O(h^2), D = am - af, the scheme's one-step errors are
 *   e_q = (beta + D/2 - 1/6) h^3 q''' ,  e_qd = (gamma + D - 1/2) h^2 q'''
 * (e_qd = 0 for the second-order members, gamma = 1/2 - D), and h q''' = a_{n+1} - a_n
 * + O(h^2). The error per unit step, scaled by the run's length t_span, is compared with
 * atol_step + rtol_step max|q| (the largest |q_i| of the run so far, so that a coordinate
 * passing through zero keeps the scale of its motion): a ratio <= 1 at every step bounds the sum of the local errors
 * over the run by the tolerance. e_qd enters through its effect over one step, h e_qd. */
static void error_estimate(fmb_sim_t *s, double h, double am, double af, double beta, double gamma)
{
    const int n = s->n;
    const double D = am - af;
    const double cq = fabs(beta + 0.5 * D - 1.0 / 6.0), cv = fabs(gamma + D - 0.5);
    /* a_{n+1} (from the saved qdd_n and a_n; the division by 1 - am = 1 skipped for HHT and
     * Newmark: exact, the same bits), h q''' from the two-step difference
     * (a_{n+1} - a_{n-1}) h / (h + h_{n-1}), which removes the alternating part of a (the
     * index-3 start-up transient and the unresolved modes, omega h >> 1, that the scheme
     * damps by design: not a truncation error of the resolved motion; the first step has
     * only a_0), the next qscale (swapped in by fmb_sim_commit_step), and Newton's own
     * tolerance on q, which enters a through 1/(beta' h^2): the part of the estimate below
     * it is iteration noise, not truncation error. One pass (step_loops.c). */
    const fmb_step_err_t p = {.am = am,
                              .af = af,
                              .h = h,
                              .hp = s->st.h_prev,
                              .k = (cq + cv) * h * h,
                              .at = s->opts.atol_step,
                              .rt = s->opts.rtol_step,
                              .natol = s->opts.atol,
                              .nrtol = s->opts.rtol,
                              .phit = s->opts.phi_tol,
                              .ts = s->ctl.t_span};
    int wi;
    const double worst = fmb_step_error(n, &p, s->st.qdd, s->st.save + 2 * (size_t)n,
                                        s->st.save + 3 * (size_t)n, s->st.acc, s->st.accp, s->st.q,
                                        s->ctl.qscale, s->ctl.acc1, s->ctl.qscale1, &wi);
    s->ctl.err_ratio = worst;
    s->ctl.err_coord = wi;
    if (s->el.nferr) element_error(s, &p);
    /* the worst coordinate's accelerations alternate over three successive changes and by
     * more than their two-step change: the period-2 index-3 transient of a velocity
     * mismatch (a resolved oscillation cannot alternate three times in a row) */
    s->ctl.err_alt = 0;
    if (wi >= 0 && wi < n && s->st.nhist >= 2) {
        const double d1 = s->ctl.acc1[wi] - s->st.acc[wi], d0 = s->st.acc[wi] - s->st.accp[wi];
        const double d2 = s->st.accp[wi] - s->st.accpp[wi];
        s->ctl.err_alt =
            d1 * d0 < 0 && d0 * d2 < 0 && fabs(d1) > fabs(s->ctl.acc1[wi] - s->st.accp[wi]);
    }
}

void fmb_sim_commit_step(fmb_sim_t *s, double h)
{
    s->st.t += h;
    s->diag.last_iters = s->ctl.cand_iters;
    s->diag.stats.newton_iterations += s->ctl.cand_iters;
    s->diag.stats.steps++;
    if (s->ctl.cand_viol > s->diag.stats.max_violation)
        s->diag.stats.max_violation = s->ctl.cand_viol;
    /* a_{n-2} <- a_{n-1} <- a_n <- a_{n+1} by turning the arrays (the oldest becomes acc1's
     * scratch), and the candidate's qscale (error_estimate) swapped in: no copies */
    double *old = s->st.accpp;
    s->st.accpp = s->st.accp, s->st.accp = s->st.acc, s->st.acc = s->ctl.acc1, s->ctl.acc1 = old;
    s->st.nhist++;
    memcpy(s->st.lamp, s->st.save + 4 * s->n, (size_t)s->m * sizeof(double)); /* lambda_n */
    s->st.h_prev = h;
    double *qs = s->ctl.qscale;
    s->ctl.qscale = s->ctl.qscale1, s->ctl.qscale1 = qs;
    s->el.cv_ok = 0;
    for (int ic = 0; ic < s->ct.ncontacts; ic++) {
        fmb_contact_t *c = &s->ct.contacts[ic];
        c->z_n = c->z;
        c->v_n = c->v;
        c->mode = fmb_contact_mode(c->F);
        if (c->fk->accept) c->fk->accept(c); /* Coulomb: held or sliding (static level) */
    }
    fmb_sim_force_history(s, 0);
    fmb_sim_switch_accept(s);
    double P = fmb_sim_power(s);
    s->st.W += 0.5 * h * (s->st.P + P) + fmb_sim_switch_work(s, h);
    s->st.P = P;
}

void fmb_sim_reject_step(fmb_sim_t *s)
{
    restore_state(s);
    s->ctl.newton_stale = 1;
}

/* Predictor (docs/theory.md "Predictor"). With one accepted step behind (nhist >= 1),
 * a and lambda are extrapolated linearly from t_{n-1} and t_n,
 *   a_{n+1} = a_n + (h / h_{n-1}) (a_n - a_{n-1}),  lambda likewise,
 * and qdd_{n+1} follows from (1 - am) a_{n+1} + am a_n = (1 - af) qdd_{n+1} + af qdd_n;
 * otherwise qdd_{n+1} = qdd_n, lambda_{n+1} = lambda_n. q and qd follow from Newmark's
 * formulas. The predictor is only the iteration's starting point: the converged step is
 * the same to the Newton tolerance (the scheme's stability is untouched). */
static void predict(fmb_sim_t *s, double h, double am, double af, double beta, double gamma)
{
    const int n = s->n, m = s->m;
    const double ex = s->st.nhist >= 1 && s->st.h_prev > 0 ? h / s->st.h_prev : 0.0;
    double *q = s->st.q, *qd = s->st.qd, *qdd = s->st.qdd;
    const double *acc = s->st.acc, *accp = s->st.accp;
    /* two loops: a_{n+1} extrapolated, or from qdd_n (the division by 1 - am only there) */
    if (ex > 0) { /* step_loops.c */
        fmb_step_predict(n, h, ex, am, af, beta, gamma, q, qd, qdd, acc, accp);
        fmb_step_extrapolate(m, ex, s->st.lam, s->st.lamp);
    } else {
        for (int i = 0; i < n; i++) {
            const double a0 = acc[i];
            const double a1 = (qdd[i] - am * a0) / (1.0 - am);
            q[i] += h * qd[i] + h * h * ((0.5 - beta) * a0 + beta * a1);
            qd[i] += h * ((1.0 - gamma) * a0 + gamma * a1);
        }
    }
}

/* Keeping a factorization across steps (reuse_jacobian): at most FMB_KEEP_ITERS
 * iterations of a step on a kept matrix, refactor when an increment is above
 * FMB_KEEP_RATIO times the previous one, and after a kept matrix was given up refactor at
 * the start of the next FMB_KEEP_PAUSE steps. Chosen by instruction counts
 * (docs/performance.md "Newton iterations per step"): a refresh (assembly +
 * factorization) cost 3.8-5.5 Newton iterations at 10 elements. */
#define FMB_KEEP_ITERS 6
#define FMB_KEEP_RATIO 0.25
#define FMB_KEEP_PAUSE 4
/* A kept factorization serves at most FMB_KEEP_AGE steps after the one that made it, and a
 * step on it stops when its last state increment is at most FMB_KEEP_TARGET tolerance units.
 * Why: the kept iteration x <- x - K0^-1 F(x) has the error map G = I - K0^-1 K, whose
 * spectral radius is small (0.05-0.13) but which is far from normal in the tolerance-
 * weighted max norm (an increment in slider D's coordinates leaves errors several times its
 * size in the rocker's elastic ones), so the increments are not monotone: the error left
 * after an increment is about the *next* increment G d, which was up to 1.7 times the last
 * one (quick-return, 80 elements: increments 1.5e4, 140, 0.66, then 1.15) while the ratio
 * of the last two was 0.005. The DASSL/IDA-style contraction bound r / (1 - r) |d| on that
 * ratio leaves steps 10.5 units (80 elements) and 14.4 units (320) from the exact discrete
 * step.
 * G grows with dK = K - K0, i.e. with the matrix's age: on a matrix one step old the error
 * after the accepted increment was at most 0.85 times it (80 and 320 elements, over a
 * revolution, steps with errors above 0.03 units), and with the target 1/2 every step ended
 * within 0.15 / 0.24 units of the exact step. Both limits together also cost less than kept
 * matrices of any age under the r / (1 - r) bound (fewer kept matrices given up after
 * failing to contract: 58 against 382 at 80 elements): callgrind, one revolution at 80
 * elements 4,771 M against 5,222 M instructions, residuals 9,704 against 10,561,
 * factorizations 1,727 against 1,920. The increment test is what
 * makes the steps accurate (with it alone, any age: 80 elements 0.50 units), the age limit
 * what makes it cheap (that variant: 10,914 residuals, 2,035 factorizations, 5,447 M instructions)
 * (docs/performance.md "Kept matrices";
 * tests/test_newton_once.c). */
#define FMB_KEEP_AGE 1
#define FMB_KEEP_TARGET 0.5
/* ... and only in KKT systems of more than FMB_KEEP_MIN_N unknowns (KLU's small/large
 * boundary, kkt.h), unless s->ctl.keep_force (tests): in smaller ones a refresh (assembly +
 * factorization) at every step's start, with one-increment acceptance on the carried
 * constants, is cheaper than the 4-5 linearly contracting increments of a kept matrix
 * (callgrind, one revolution of the quick-return, with the per-block one-increment test
 * below: 10 elements (n = 60) -2.0 %, 20 (n = 90) -2.2 %; every step within 0.1 tolerance
 * units of the exact step instead of 3.84 with kept matrices; docs/performance.md
 * "Kept matrices"). */
#define FMB_KEEP_MIN_N FMB_KKT_LARGE

/* One Newton iteration on a matrix factored at the step's predictor. From a matrix
 * factored at the iterate, Newton's second increment is bounded by the first, |d_2| <= K
 * |d_1|^2 (Newton-Kantorovich: K = beta gamma / 2, beta a bound of the inverse iteration
 * matrix, gamma the Lipschitz constant of the residual's Jacobian, in the scaled norm),
 * and the error left after the first increment is ~|d_2|. K belongs to the problem near
 * its solution, not to one matrix: it is measured (for the state, and for the multipliers
 * in their own units against the state's first increment) on every step that takes a
 * second increment on its predictor's matrix. A later step whose first increment gives
 * FMB_NEWTON_K_SAFETY K |d_1|^2 <= 1 for both, with K the larger of the last two
 * measurements, i.e. an estimated remaining error 100 times below the tolerance (the
 * multipliers: 50, FMB_NEWTON_K_SAFETY_L below), is accepted after that increment (and
 * the Phi check). The constants are used for
 * FMB_NEWTON_K_AGE steps after the last measurement; after that the next step on a fresh
 * matrix measures anew, and the new measurement is paired with the expired one (the larger
 * of the two still decides: the old one can only make the test stricter), so that one
 * measurement, not two, renews them (with kept matrices between fresh steps every expiry
 * would cost two measuring steps: 10 elements 9,106 against 9,003 residuals per revolution;
 * docs/performance.md "One-increment acceptance"); a measurement
 * older than FMB_NEWTON_K_KEEP steps is not paired. They are forgotten entirely on every
 * event that changes h or the problem: h changed, a step rejected or restarted
 * (newton_stale), an element changed its discrete state (stepctl.c: a slider crossing a
 * beam element's end; a candidate accepted after one increment across it is retried), and
 * they are never used with contacts or switching elements. Measured increments below
 * FMB_NEWTON_K_FLOOR units (the solve's rounding, ~3e-7 of the first increment here) count
 * as that floor, which overestimates K. docs/performance.md "One-increment
 * acceptance" (the measurements, and tests/test_newton_once.c, which checks every such
 * step against the exact discrete step).
 * The error after one increment is quadratic in the first increment's *direction* too:
 * measured in the whole increment's scaled max norm, K can be off by 77x (quick-return,
 * 13 steps after a slider crossing: the error is ~K' d_D^2 in slider D's coordinates,
 * whose scaled increment is 1/13-1/130 of a rocker elastic coordinate's, which sets the
 * norm but not the error). So the first increment is measured per block (each body's
 * rigid coordinates, its elastic ones, the multipliers: largest scaled entry of each),
 * and a measurement (first-increment blocks B_m, remaining error E_m ~ |d_2|) predicts
 * E_m a^2 with a = max over blocks of |d_b| / max(B_m,b, FMB_NEWTON_B_FLOOR max B_m): the
 * error of a quadratic form driven by any one block, scaled by the block that grew most
 * (one block: exactly K |d_1|^2 as before, checked decision for decision). A block below
 * FMB_NEWTON_B_FLOOR of the largest at the measurement counts as that floor.
 * docs/performance.md "One-increment acceptance".
 * Not all of the error after one increment is quadratic: a part falls only like the
 * increment itself when the increment shrinks (1e-7-1e-6 of the first increment in the
 * steps below, the size of the index-3 solve's rounding). With a < 1 the model
 * E_m a^2 then underestimates: over a revolution of the quick-return (10 elements), steps
 * whose first increment was 1/10-1/50 of the measurement's had 10-25 times the predicted
 * error (0.01-0.03 units), and the worst misses of steps with errors above 0.01 units were
 * 84x (1 %) and 600x (largest). The prediction is E_m a for a < 1 (E_m a^2 above): the
 * bound of any mix of a linear and a quadratic part; those misses fell to 10x and 28x,
 * and the worst steps accepted at 80 elements from 0.21 to 0.05 units in lambda (same
 * safety factors). That tighter tail is what pays for the multipliers' smaller safety
 * factor, FMB_NEWTON_K_SAFETY_L (the state keeps 100), and for constants used 32 steps
 * instead of 16: 10 elements 2,023 -> 2,188 one-increment steps of 3,142, worst one-
 * increment step 0.026 / 0.068 -> 0.027 / 0.053 units (q / lambda); 320 elements 0.028 /
 * 0.100 -> 0.028 / 0.084 (tests/test_newton_once.c; docs/performance.md "One-increment
 * acceptance"). */
#define FMB_NEWTON_B_FLOOR 1e-2
#define FMB_NEWTON_K_SAFETY 100.0
#define FMB_NEWTON_K_SAFETY_L 50.0
#define FMB_NEWTON_K_AGE 32
#define FMB_NEWTON_K_KEEP 64
#define FMB_NEWTON_K_FLOOR 1e-3

/* Multiplier increment tolerance under modified Newton across steps, relative to the
 * largest multiplier (docs/performance.md). */
#define FMB_LAMBDA_RTOL 1e-8

/* trace: a failed convergence test (criteria f: bit 1 dq, 2 phi, 4 lambda) on a matrix
 * factored in the step (fresh) or kept; lambda alone on a fresh matrix is not a failure */
static void trace_fail(fmb_newton_trace_t *tr, int f, int fresh, int *lastfail)
{
    if (!(f & 3) && fresh) return;
    tr->fail[fresh ? 0 : 1][f]++;
    *lastfail = f | (fresh ? 0 : 8);
}

/* Restore t_n's state but keep the error message (and line) just set; returns rc. */
static int restore_with_error(fmb_sim_t *s, int rc)
{
    char msg[sizeof s->errmsg];
    const int line = s->errline;
    snprintf(msg, sizeof msg, "%s", s->errmsg);
    restore_state(s);
    snprintf(s->errmsg, sizeof s->errmsg, "%s", msg);
    s->errline = line;
    return rc;
}

/* Phi is not finite at t1: a driver function that is not finite fails every step size
 * (returns its error, the state restored); 0 when no driver is to blame. */
static int phi_nonfinite(fmb_sim_t *s, double t1)
{
    int rc = fmb_sim_functions_nonfinite(s, t1);
    return rc ? restore_with_error(s, rc) : 0;
}

/* The first increment (scaled as the state's test: |x_i| / (atol + rtol |q_i|), q the
 * iterate after it; the update loop of fmb_sim_try_step left these in s->ctl.wq) per block into
 * newton_B[0..nb): each body's rigid coordinates, its elastic ones, then the multipliers
 * (dl: their scaled increment). See FMB_NEWTON_B_FLOOR. */
static void first_blocks(fmb_sim_t *s, double dl)
{
    const fmb_model_t *md = s->model;
    const double *wq = s->ctl.wq;
    double *b = s->ctl.newton_B;
    int k = 0;
    for (int ib = 0; ib < md->nbodies; ib++) {
        const fmb_body_t *bd = &md->bodies[ib];
        if (bd->offset < 0) continue;
        for (int part = 0; part < 2; part++) {
            const int i0 = bd->offset + (part ? 3 : 0);
            const int i1 =
                part ? bd->offset + bd->ndof : bd->offset + (bd->ndof < 3 ? bd->ndof : 3);
            if (i1 <= i0) continue;
            double w = 0.0;
            for (int i = i0; i < i1; i++) {
                const double wi = wq[i];
                if (!(wi <= w)) w = wi;
            }
            b[k++] = w;
        }
    }
    b[k++] = dl;
    for (; k < s->ctl.newton_nb; k++)
        b[k] = 0.0;
}

/* The divisors of the one-increment test for the measurement just made (newton_B's second
 * row), max(B_m,b, FMB_NEWTON_B_FLOOR max_b B_m,b), into newton_D's first row, the last
 * measurement's moved to the second: they change only with a measurement, and the test
 * reads them at every step. */
static void measurement_divisors(fmb_sim_ctl_t *c)
{
    const int nb = c->newton_nb;
    const double *bm = c->newton_B + nb;
    double *d = c->newton_D;
    memcpy(d + nb, d, (size_t)nb * sizeof(double));
    double big = 0.0;
    for (int k = 0; k < nb; k++)
        big = fmax_inline(big, bm[k]);
    big *= FMB_NEWTON_B_FLOOR;
    for (int k = 0; k < nb; k++)
        d[k] = fmax_inline(bm[k], big);
}

/* One step of size h from the current state (t_n): on success the candidate state at
 * t_n + h is in place (s->st.t unchanged) with its error estimate; on failure the state is
 * restored. */
int fmb_sim_try_step(fmb_sim_t *s, double h)
{
    const int n = s->n, m = s->m, N = n + m;
    double am, af, beta, gamma;
    coefficients(s, &am, &af, &beta, &gamma);
    /* qdd_{n+1} is the unknown; a_{n+1} = ((1-af) qdd_{n+1} + af qdd_n - am a_n)/(1-am),
     * so dq = beta' h^2 dqdd and dqd = gamma' h dqdd with the primed coefficients. */
    const double r = (1.0 - af) / (1.0 - am), bp = beta * r, gp = gamma * r;
    const double bh2 = bp * h * h, t1 = s->st.t + h;
    double *R = s->ctl.work, *x = s->ctl.work + N, *phi = s->ctl.work + 2 * N;
    double *Mqdd = phi + m; /* n entries after phi inside the third block */
    save_state(s);
    s->el.cv_ok = 0;
    s->jammed = 0;
    /* the friction models' state for the step (Coulomb: static coefficient after a stick,
     * kinetic while sliding) */
    for (int ic = 0; ic < s->ct.ncontacts; ic++)
        if (s->ct.contacts[ic].fk->begin_step)
            s->ct.contacts[ic].fk->begin_step(&s->ct.contacts[ic]);
    predict(s, h, am, af, beta, gamma);
    const fmb_coeffs_t c = {1.0, bh2, bh2, gp * h, 1.0, 0.0, 0.0, 0};
    double dq_norm = INFINITY, dq_prev = INFINITY, dl_norm = INFINITY;
    int it, fresh = 0;          /* the factorization belongs to this step's current iterate */
    int fresh0 = 0;             /* ... and was factored at the predictor (it = 0) */
    double dq_first = INFINITY; /* the first increment (scaled) */
    /* Newton's quadratic constant carried from an earlier step (see FMB_NEWTON_K_SAFETY):
     * forgotten on every event that changes the problem or h (newton_stale: h changed, a
     * step was rejected, a restart), with contacts or switching elements (non-smooth), and
     * FMB_NEWTON_K_KEEP steps after the last measurement; usable while the last measurement
     * is at most FMB_NEWTON_K_AGE steps old and has one before it */
    if (s->ctl.newton_stale || s->ct.ncontacts || s->ct.nsw ||
        s->ctl.newton_K_age >= FMB_NEWTON_K_KEEP)
        s->ctl.newton_K[0] = s->ctl.newton_K[1] = s->ctl.newton_K[2] = s->ctl.newton_K[3] = 0.0;
    s->ctl.newton_K_age++;
    const int K_ok = s->ctl.newton_K[2] > 0.0 && s->ctl.newton_K_age <= FMB_NEWTON_K_AGE;
    /* Modified Newton across steps (reuse_jacobian): the factorization of an earlier
     * step is kept when it is this integrator's (nobody factored since), h is unchanged
     * and no step was rejected since (newton_stale, set by the step loop), no frictional
     * contact is active (its LCP is built on the factorization) and no kept matrix
     * failed to contract in the last FMB_KEEP_PAUSE steps (keep_pause), and it was made at
     * most FMB_KEEP_AGE steps ago (keep_age). */
    const int keep = s->opts.reuse_jacobian && !s->ctl.newton_stale && !s->ct.ncontacts &&
                     s->ctl.kkt_iter > 0 && s->ctl.kkt_iter == s->as.kkt.nnumeric &&
                     s->ctl.keep_pause == 0 && s->ctl.keep_age < FMB_KEEP_AGE &&
                     (N > FMB_KEEP_MIN_N || s->ctl.keep_force);
    if (s->ctl.keep_pause > 0) s->ctl.keep_pause--;
    if (keep) s->ctl.keep_age++;
    fmb_newton_trace_t *tr = &s->diag.trace;
    const int tk = keep ? 1 : 0;
    int lastfail = -1; /* criteria of the last failed test (trace) */
    tr->steps[tk]++;
    for (it = 0; it <= s->opts.max_newton; it++) {
        /* On a kept matrix the iteration contracts linearly but not monotonically (see
         * FMB_KEEP_TARGET): its state increment is held to FMB_KEEP_TARGET units. The
         * multipliers keep their increment test (relative to the largest multiplier,
         * FMB_LAMBDA_RTOL): with a kept matrix they converge linearly too. Elsewhere
         * (matrix factored in this step) the increment is the test, as before. */
        double eq = dq_norm, el = dl_norm;
        int once = 0; /* accepted after one increment on the carried constants */
        if (fresh0 && it == 1 && K_ok) {
            /* the remaining error predicted by each of the two measurements (see
             * FMB_NEWTON_B_FLOOR), the larger decides */
            const int nb = s->ctl.newton_nb;
            const double *b = s->ctl.newton_B;
            double pq = 0.0, pl = 0.0;
            for (int j = 0; j < 2; j++) {
                const double *dm = s->ctl.newton_D + j * nb; /* made with the measurement */
                double a = 0.0;
                for (int k = 0; k < nb; k++)
                    a = fmax_inline(a, b[k] / dm[k]);
                const double f = a < 1.0 ? a : a * a; /* linear below 1 (FMB_NEWTON_K_SAFETY_L) */
                pq = fmax_inline(pq, f * s->ctl.newton_K[2 * j]);
                pl = fmax_inline(pl, f * s->ctl.newton_K[2 * j + 1]);
            }
            once = FMB_NEWTON_K_SAFETY * pq <= 1.0 && FMB_NEWTON_K_SAFETY_L * pl <= 1.0;
        }
        if (!fresh) eq *= 1.0 / FMB_KEEP_TARGET;
        /* with a kept (older) matrix the multipliers converge linearly too: then their
         * increment must also be small (dl_norm, relative to the largest multiplier). Once
         * the step has refactored (fresh), its increments are those of a step that started
         * on a new matrix, which has no multiplier test */
        const int inc_ok = once || (it > 0 && eq <= 1.0 && (fresh || el <= 1.0));
        /* Phi on its own only when it can decide convergence (the increments passed);
         * otherwise it comes with the residual below (fmb_sim_eval_residual evaluates
         * every joint anyway) */
        double viol = NAN;
        if (inc_ok) {
            viol = fmb_sim_eval_phi(s, s->st.q, t1, phi, NULL);
            tr->phi_evals++;
            if (!isfinite(viol)) {
                int rc = phi_nonfinite(s, t1);
                if (rc) return rc;
                break;
            }
            if (viol > s->opts.phi_tol) trace_fail(tr, 2, fresh, &lastfail);
        }
        if (inc_ok && viol <= s->opts.phi_tol) {
            tr->iters[tk][it < FMB_TRACE_MAXIT ? it : FMB_TRACE_MAXIT]++;
            if (lastfail >= 0) tr->last[lastfail >> 3][lastfail & 7]++;
            int bad = invalid_state(s, t1);
            if (bad) {
                restore_state(s);
                return bad;
            }
            /* candidate: a_{n+1} and its error estimate (one pass); fmb_sim_commit_step
             * accepts it, fmb_sim_reject_step restores t_n */
            error_estimate(s, h, am, af, beta, gamma);
            s->ctl.cand_iters = it;
            s->ctl.cand_once = once ? 1 + s->ctl.newton_K_old : 0;
            s->ctl.cand_viol = viol;
            return 0;
        }
        if (it == s->opts.max_newton) break;
        if (s->ct.ncontacts) fmb_sim_contact_update(s, h);
        if (inc_ok) {
            fmb_sim_eval_forces(s, s->st.q, s->st.qd, s->st.qdd, s->st.lam, t1, Mqdd, R);
        } else {
            fmb_sim_eval_residual(s, s->st.q, s->st.qd, s->st.qdd, s->st.lam, t1, Mqdd, R, phi);
            viol = 0.0;
            for (int k = 0; k < m; k++) {
                const double a = fabs(phi[k]);
                if (!(a <= viol)) viol = a; /* NaN propagates */
            }
            if (!isfinite(viol)) {
                int rc = phi_nonfinite(s, t1);
                if (rc) return rc;
                break;
            }
            if (it > 0) /* trace: which criteria hold the step back */
                trace_fail(tr, (eq > 1.0) | (viol > s->opts.phi_tol) << 1 | (el > 1.0) << 2, fresh,
                           &lastfail);
        }
        tr->force_evals++;
        /* R + M qdd scaled by -bh2, and its sum in the same pass: NaN or Inf anywhere makes
         * the sum non-finite (R is unused then) */
        const double rsum = fmb_step_scale_residual(n, bh2, R, Mqdd);
        if (!isfinite(rsum))
            return restore_with_error(s,
                                      fmb_sim_nonfinite_error(s, s->st.q, s->st.qd, s->st.qdd, t1));
        for (int k = 0; k < m; k++)
            R[n + k] = -phi[k];
        /* Modified Newton: keep the step's first factorization while the increments
         * contract fast (ratio <= 1/4); refactor otherwise. A step that refactors is
         * stopped by the plain increment test, one on a kept matrix by the stricter
         * FMB_KEEP_TARGET (above). */
        int rc = 0;
        const int have = fresh || (keep && it < FMB_KEEP_ITERS);
        const int refactor =
            !s->opts.reuse_jacobian || !have || dq_norm > FMB_KEEP_RATIO * dq_prev;
        if (refactor) {
            /* a kept matrix that stopped contracting: refresh at every step's start for
             * a while before trying to keep one again (the iteration matrix is changing
             * fast: slider crossing elements, large rotation per step) */
            if (keep && !fresh) {
                s->ctl.keep_pause = FMB_KEEP_PAUSE;
                if (it >= FMB_KEEP_ITERS) tr->drop_limit++;
                else tr->drop_ratio++;
            }
            s->ctl.keep_age = 0;
            /* at the iterate of the residual just evaluated: the assembly may take the
             * joints' views and Jacobians from it (sim.h fmb_joint_memo_t) */
            s->as.jm->handoff = 1;
            fmb_sim_assemble(s, s->st.q, s->st.qd, s->st.qdd, s->st.lam, t1, &c);
            s->as.jm->handoff = 0;
            rc = fmb_kkt_factor(&s->as.kkt);
            s->diag.stats.factorizations = s->as.kkt.nnumeric;
            s->diag.stats.symbolic = s->as.kkt.nsymbolic;
            s->ctl.kkt_iter = rc ? 0 : s->as.kkt.nnumeric;
            s->ctl.newton_stale = 0;
            fresh = 1;
            fresh0 = it == 0;
        }
        if (rc == 0) rc = fmb_kkt_solve(&s->as.kkt, R, x);
        if (rc == 0 && s->ct.ncontacts) { /* with switching elements: both LCPs coupled */
            rc = s->ct.nswz ? fmb_sim_lcp_coupled(s, bh2, gp / (bp * h), t1, x)
                            : fmb_sim_contact_lcp(s, bh2, gp / (bp * h), t1, x);
            if (rc) {
                /* an iterate far from the solution can make the contact LCP unsolvable
                 * (friction-induced normal forces beyond the unit response, as in
                 * jamming): treat it as a failed step, so that step halving retries */
                restore_state(s);
                return rc == FMB_ERR_SINGULAR || rc == FMB_ERR_LINSOLVE ? FMB_ERR_CONVERGENCE : rc;
            }
        }
        if (rc == 0 && s->ct.nswz && !s->ct.ncontacts) {
            rc = fmb_sim_switch_lcp(s, bh2, gp / (bp * h), s->st.qd, 1.0, t1, x);
            if (rc) { /* as for the contacts: a failed step, retried with halving */
                restore_state(s);
                return rc == FMB_ERR_SINGULAR || rc == FMB_ERR_LINSOLVE ? FMB_ERR_CONVERGENCE : rc;
            }
        }
        if (rc) {
            restore_state(s);
            if (rc == FMB_ERR_SINGULAR)
                return fmb_sim_singular_error(s, s->st.q, t1, "during the step");
            return fmb_sim_error(s, rc, "linear solver failure at t = %.9g", t1);
        }
        dq_prev = dq_norm;
        /* the update and its scaled increments (kept in s->ctl.wq for first_blocks), the
         * multipliers' (step_loops.c) */
        dq_norm = fmb_step_update(n, x, gp / (bp * h), bh2, s->opts.atol, s->opts.rtol, s->st.q,
                                  s->st.qd, s->st.qdd, s->ctl.wq);
        double lmax, dl;
        fmb_step_update_lam(m, x + n, bh2, s->st.lam, &lmax, &dl);
        dl_norm = dl / (s->opts.atol + FMB_LAMBDA_RTOL * lmax);
        if (it == 0) dq_first = dq_norm;
        if (fresh0 && it == 0 && !s->ct.ncontacts && !s->ct.nsw) first_blocks(s, dl_norm);
        /* the second increment on the predictor's matrix: Newton's quadratic constant */
        if (fresh0 && it == 1 && dq_first > 0.0) {
            const int nb = s->ctl.newton_nb;
            memcpy(s->ctl.newton_B + 2 * nb, s->ctl.newton_B + nb, (size_t)nb * sizeof(double));
            memcpy(s->ctl.newton_B + nb, s->ctl.newton_B, (size_t)nb * sizeof(double));
            measurement_divisors(&s->ctl);
            s->ctl.newton_K[2] = s->ctl.newton_K[0], s->ctl.newton_K[3] = s->ctl.newton_K[1];
            s->ctl.newton_K[0] = fmax(dq_norm, FMB_NEWTON_K_FLOOR);
            s->ctl.newton_K[1] = fmax(dl_norm, FMB_NEWTON_K_FLOOR);
            /* the measurement before may be older than FMB_NEWTON_K_AGE (the pair was
             * forgotten for use, not for pairing): then the pair is a renewed one */
            s->ctl.newton_K_old = s->ctl.newton_K_age > FMB_NEWTON_K_AGE;
            s->ctl.newton_K_age = 0;
        }
    }
    int row = -1, line = 0;
    double viol = fmb_sim_eval_phi(s, s->st.q, t1, phi, &row);
    const char *nm = row >= 0 ? fmb_sim_row_name(s, row, &line) : "-";
    restore_state(s);
    fmb_sim_error(s, FMB_ERR_CONVERGENCE,
                  "Newton iteration did not converge at t = %.9g (h = %.3g) after %d "
                  "iterations: increment norm %.3g (tolerance 1), constraint violation "
                  "%.3g in joint '%s' (line %d) (tolerance %.3g); try a smaller time step",
                  t1, h, it, dq_norm, viol, nm, line, s->opts.phi_tol);
    s->errline = line;
    return FMB_ERR_CONVERGENCE;
}

/* ------------------------------------------------------------ access */

void fmb_sim_integrator_coefficients(const fmb_sim_t *s, double *am, double *af, double *beta,
                                     double *gamma)
{
    coefficients(s, am, af, beta, gamma);
}

/*
 * One Newton iteration on a fresh matrix (step.c, FMB_NEWTON_K_SAFETY): each accepted step
 * against the exact discrete step from the same state.
 *
 * Run A is the quick-return (cases/quick_return.yaml, 10 elements) as users run it
 * (reuse_jacobian: 1, fixed steps through fmb_sim_step: kept matrices, element crossings,
 * and steps accepted after one increment when Newton's carried quadratic constants
 * predict a remaining error 100 times below the tolerance). At every accepted step of A
 * (the step loop's test hook), run B takes A's state at t_n (q, qd, qdd, a, lambda) and
 * the same step with full Newton at tolerances 100 times tighter and no carried constant
 * (newton_stale set: B refactors and iterates to ~1e-2 of A's tolerance): B's step is the
 * exact discrete step from A's state. The differences are measured in A's tolerance
 * units: max_i |q_A,i - q_B,i| / (atol + rtol |q_i|) (a converged step is within 1,
 * docs/theory.md) and max_k |dlambda_k| / (atol + 1e-8 max |lambda|) (the modified
 * Newton's multiplier tolerance, step.c FMB_LAMBDA_RTOL).
 *
 * Asserted: every step accepted after one increment is within 0.25 units in q and lambda
 * (the design predicts <= 0.01; measured <= 0.1), at the case's h = 1e-4 s, at h = 4e-4 s
 * (first increments 100 times larger) and with h switched between the two every 2.5 ms
 * (the constants must be forgotten at each change); every accepted step, whatever its path
 * (kept matrices: step.c's FMB_KEEP_AGE / FMB_KEEP_TARGET), is within 1 unit; one-increment
 * steps occur (>= 20), and so do steps on kept matrices (min_kept).
 * Checked to fail: with every first increment accepted (safety factor ~0) the runs had
 * one-increment steps 3.3, 214 and 14 units off in lambda; without the retry of a
 * one-increment step across an element crossing (stepctl.c) the h = 4e-4 s run had one
 * 0.38 units off in lambda; with the kept-matrix bound on the rate of the last two
 * increments only it had a step 1.18 units off in q. (With the
 * constants of one measurement instead of the larger of two and a keep pause of 16 steps,
 * the switching run had one 0.77 units off in q.)
 * Constants renewed after they expired (step.c FMB_NEWTON_K_AGE: the new measurement paired
 * with the expired one; cand_once == 2): such steps occur (>= 3 at h = 1e-4 s, >= 50 in a
 * revolution; measured 18 of 50 and 7 of 51 one-increment steps at 1e-4 and 4e-4 s, 411 of
 * 843 in the revolution with kept matrices) and are within 0.25 units (measured <= 0.026).
 * The revolution (3,142 steps, every slider crossing) holds all one-increment steps within
 * 0.25 units. Checked to fail: with both safety factors removed (FMB_NEWTON_K_SAFETY and
 * FMB_NEWTON_K_SAFETY_L at 1e-6) the renewed steps are 1.58 (h = 1e-4 s, and the revolution
 * with kept matrices) and 2.53 (the revolution) units off in lambda, and every run has a
 * one-increment step 6.2 to 170 units off in lambda; with constants that never expire (no
 * FMB_NEWTON_K_AGE / FMB_NEWTON_K_KEEP) the revolution has a one-increment step 0.56 units
 * off in lambda. Renewing on the new measurement alone did not fail here (<= 0.08 units).
 * As users run it (this 60-unknown system is below step.c's FMB_KEEP_MIN_N: a refresh at
 * every step's start), a revolution at h = 1e-4 and at 4e-4 s holds every step within 1
 * unit and every one-increment step within 0.25 (measured: all steps <= 0.027 q / 0.099
 * lambda at 1e-4 s, 1,975 one-increment steps, 944 on a renewed pair; <= 0.0064 / 0.023 at
 * 4e-4 s, 111; full Newton, reuse_jacobian 0, is itself 0.0030 / 0.096 and 0.0016 / 0.015
 * units from B). Checked to fail: with the constants measured in the whole first
 * increment's max norm (one block, no FMB_NEWTON_B_FLOOR) the 1e-4 s
 * revolution has a one-increment step 0.563 units off in lambda (t = 0.2265 s, 77 times
 * the prediction); the 4e-4 s one had 143 one-increment steps, all within 0.08.
 * Kept matrices at 80 and 320 elements (270 and 630 unknowns, above FMB_KEEP_MIN_N: as
 * users run them), one revolution at h = 1e-4 and 4e-4 s, and the 10-element kept-matrix
 * runs above: every step within 1 unit. Measured (q / lambda units): 80 el 0.147 / 0.128 and
 * 0.075 / 0.013, 320 el 0.237 / 0.110 and 0.057 / 0.016; 10 el kept revolution 0.065 /
 * 0.095, switching run 0.023 / 0.095. Checked to fail with a
 * kept matrix of any age, stopped on r / (1 - r) times the last increment, r the largest
 * ratio of successive increments): 80 el 10.5 / 0.98 and 3.12 / 0.15, 320 el 14.4 / 1.31
 * and 1.3 / 0.11, 10 el kept revolution 3.84 / 0.65, switching run 1.1 / 0.26 (six
 * scenarios fail); with the age limit alone (the r / (1 - r) stopping test) 80 el had a step 3.23
 * units off. Not singled out: the age limit removed (the increment test alone) passes (80 el 0.50
 * units) at +12 % residuals: a cost choice (docs/performance.md "Kept matrices"); target 1 instead
 * of 1/2 passes too (320 el 0.88). The 0.06 s kept scenario does not assert renewed pairs: a kept
 * matrix lasts one step, so every other step measures and no pair expires in 0.06 s (the
 * revolutions still count them: >= 50 with kept matrices at 10 el, >= 500 refreshing, >= 20 at 80
 * el). Linear below a = 1 (step.c FMB_NEWTON_K_SAFETY_L): the one-increment steps of the 10- and
 * 80-element revolutions at h = 1e-4 s are held within 0.1 units (measured 0.027 / 0.053 and 0.023
 * / 0.049 units q / lambda, 2,188 and 617 one-increment steps). Checked to fail: with the
 * prediction E_m a^2 for every a (no linear part) and the multipliers' safety factor 50, the
 * 80-element revolution has a one-increment step 0.21 units off in lambda. Diagnostics (not part of
 * the test): FMB_NEWTON_ONCE_MEASURE="n_el t_end h" runs one scenario and reports;
 * FMB_NEWTON_ONCE_TRACE=1 prints every step (t, increments, after one increment, started on a kept
 * matrix, distance q, lambda).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flexmb/flexmb.h"
#include "solve/test_hooks.h"

static int failures = 0;
#include "check.h"

#include "case_run.h"

typedef case_run_t run_t;

static int start(run_t *r, int reuse, int tight, int n_el)
{
    char nel[32];
    snprintf(nel, sizeof nel, "n_el=%d", n_el);
    const char *ov[] = {nel};
    fmb_sim_options_t o;
    if (case_run_load(r, "quick_return.yaml", ov, 1, &o)) return 1;
    o.reuse_jacobian = reuse;
    if (tight) o.rtol = 1e-12, o.atol = 1e-14, o.phi_tol = 1e-13;
    return case_run_create(r, &o) || case_run_init(r);
}

/* Per-run comparison state: B (the reference) and the worst differences seen. */
typedef struct cmp {
    fmb_sim_t *B;
    double wq, wl, wq1, wl1; /* worst q and lambda errors (units): all steps; one-increment */
    double wq2, wl2;         /* ... one-increment steps on a renewed pair of constants */
    long once, renewed, steps, fail;
    long k0; /* A's count of steps started on a kept matrix before the current step */
    long o0; /* A's count of one-increment steps before the current step */
} cmp_t;

/* Called by A's step loop with each accepted candidate: B takes A's state at t_n (from
 * A's backup) and the same step; A's candidate is compared with B's. */
static void hook(fmb_sim_t *A, double h, void *user)
{
    cmp_t *c = user;
    fmb_sim_t *B = c->B;
    const fmb_model_t *md = fmb_sim_model(A);
    const size_t n = (size_t)fmb_model_num_coords(md), m = (size_t)fmb_model_num_constraints(md);
    const fmb_sim_options_t *oA = fmb_sim_options(A);
    fmb_test_take_state(B, A);
    if (fmb_test_try_step(B, h)) {
        c->fail++;
        return;
    }
    fmb_test_newton_t nw;
    fmb_test_newton(A, &nw);
    const double *qA = fmb_sim_q(A), *qB = fmb_sim_q(B);
    const double *lA = fmb_sim_lambda(A), *lB = fmb_sim_lambda(B);
    const int one = nw.once > c->o0;
    const int renewed = one && nw.cand_once == 2;
    c->o0 = nw.once;
    c->once += one;
    c->renewed += renewed;
    c->steps++;
    double lmax = 0;
    for (size_t k = 0; k < m; k++)
        lmax = fmax(lmax, fabs(lB[k]));
    for (size_t i = 0; i < n; i++) {
        const double e = fabs(qA[i] - qB[i]) / (oA->atol + oA->rtol * fabs(qB[i]));
        c->wq = fmax(c->wq, e);
        if (one) c->wq1 = fmax(c->wq1, e);
        if (renewed) c->wq2 = fmax(c->wq2, e);
    }
    for (size_t k = 0; k < m; k++) {
        const double e = fabs(lA[k] - lB[k]) / (oA->atol + 1e-8 * lmax);
        c->wl = fmax(c->wl, e);
        if (one) c->wl1 = fmax(c->wl1, e);
        if (renewed) c->wl2 = fmax(c->wl2, e);
    }
    if (getenv("FMB_NEWTON_ONCE_TRACE")) {
        double eq = 0, el = 0;
        for (size_t i = 0; i < n; i++)
            eq = fmax(eq, fabs(qA[i] - qB[i]) / (oA->atol + oA->rtol * fabs(qB[i])));
        for (size_t k = 0; k < m; k++)
            el = fmax(el, fabs(lA[k] - lB[k]) / (oA->atol + 1e-8 * lmax));
        printf("T %.6f %d %d %d %.4g %.4g\n", fmb_sim_time(A) + h, nw.cand_iters, one,
               nw.kept > c->k0, eq, el);
    }
    c->k0 = nw.kept;
    fmb_test_reject_step(B); /* B's state is replaced before its next step anyway */
}

/* the quick-return at step h for t_end; the h of the case is changed to h1 at t_switch
 * and back at 2 t_switch, ... when t_switch > 0 */
static void scenario(const char *name, double h, double t_end, double h1, double t_switch,
                     int all_within, long min_once, long min_renewed, int keep_force, int n_el,
                     long min_kept, double one_bound)
{
    run_t a = {0}, b = {0};
    if (start(&a, 1, 0, n_el) || start(&b, 0, 1, n_el)) {
        failures++;
        return;
    }
    fmb_sim_t *A = a.s;
    fmb_test_set_keep_force(A, keep_force);
    cmp_t c = {.B = b.s};
    fmb_test_set_accept_hook(A, hook, &c);
    fmb_test_set_h(A, h, 0);
    int k = 0;
    while (fmb_sim_time(A) < t_end - 1e-12) {
        if (t_switch > 0 && fmb_sim_time(A) >= (k + 1) * t_switch - 1e-12) {
            k++;
            fmb_test_set_h(A, k % 2 ? h1 : h, 1);
        }
        if (fmb_sim_step(A)) {
            CHECK(0, "%s: step failed at t = %g: %s", name, fmb_sim_time(A), fmb_sim_last_error(A));
            break;
        }
    }
    fmb_test_newton_t nw;
    fmb_test_newton(A, &nw);
    fmb_sim_stats_t st;
    fmb_sim_get_stats(A, &st);
    printf("%s (%d el): residuals %ld, factorizations %ld, kept-matrix steps %ld (given up: %ld "
           "on the ratio, %ld on the iteration limit)\n",
           name, n_el, nw.force_evals, st.factorizations, nw.kept, nw.drop_ratio, nw.drop_limit);
    printf("%s: %ld steps, %ld after one increment (%ld on a renewed pair); worst step: q %.3g, "
           "lambda %.3g tolerance units (one-increment steps: q %.3g, lambda %.3g; on a renewed "
           "pair: q %.3g, lambda %.3g)\n",
           name, c.steps, c.once, c.renewed, c.wq, c.wl, c.wq1, c.wl1, c.wq2, c.wl2);
    CHECK(c.fail == 0, "%s: %ld reference steps failed", name, c.fail);
    CHECK(c.wq1 <= one_bound && c.wl1 <= one_bound,
          "%s: a one-increment step %.3g (q), %.3g (lambda) tolerance units from the exact step "
          "(bound %.3g)",
          name, c.wq1, c.wl1, one_bound);
    if (all_within)
        CHECK(c.wq <= 1.0 && c.wl <= 1.0,
              "%s: a step %.3g (q), %.3g (lambda) tolerance units from the exact step", name, c.wq,
              c.wl);
    if (min_once) CHECK(c.once >= min_once, "%s: only %ld one-increment steps", name, c.once);
    CHECK(c.wq2 <= 0.25 && c.wl2 <= 0.25,
          "%s: a one-increment step on a renewed pair %.3g (q), %.3g (lambda) tolerance units from "
          "the exact step",
          name, c.wq2, c.wl2);
    if (min_kept)
        CHECK(nw.kept >= min_kept, "%s: only %ld steps started on a kept matrix", name, nw.kept);
    if (min_renewed)
        CHECK(c.renewed >= min_renewed, "%s: only %ld one-increment steps on a renewed pair", name,
              c.renewed);
    case_run_finish(&a);
    case_run_finish(&b);
}

int main(void)
{
    const char *meas = getenv("FMB_NEWTON_ONCE_MEASURE"); /* "n_el t_end h": one run, report */
    if (meas) {
        int ne = 80;
        double te = 0.314159, hh = 1e-4;
        sscanf(meas, "%d %lf %lf", &ne, &te, &hh);
        scenario("measure", hh, te, 0, 0, 0, 0, 0, 0, ne, 0, 0.25);
        return 0;
    }
    /* factorizations kept across steps (keep_force: as in systems above step.c's
     * FMB_KEEP_MIN_N unknowns; this one has 60) */
    scenario("h 1e-4", 1e-4, 0.06, 0, 0, 1, 20, 0, 1, 10, 200, 0.25);
    scenario("h 4e-4", 4e-4, 0.12, 0, 0, 1, 20, 0, 1, 10, 100, 0.25);
    scenario("h 1e-4 / 4e-4 every 2.5 ms", 1e-4, 0.12, 4e-4, 2.5e-3, 1, 0, 0, 1, 10, 200, 0.25);
    /* one revolution (2 pi / 20 rad/s): every slider crossing of an element end */
    scenario("h 1e-4, one revolution, kept matrices", 1e-4, 0.314159, 0, 0, 1, 500, 50, 1, 10, 1000,
             0.25);
    /* the same as users run it (60 unknowns: a refresh at every step's start, no kept
     * matrix across steps): every step within 1 unit, one-increment steps within 0.1 (full
     * Newton's own stop leaves 0.096 in lambda) */
    scenario("h 1e-4, one revolution", 1e-4, 0.314159, 0, 0, 1, 1500, 500, 0, 10, 0, 0.1);
    scenario("h 4e-4, one revolution", 4e-4, 0.314159, 0, 0, 1, 80, 0, 0, 10, 0, 0.25);
    /* 80 and 320 elements (270 and 630 unknowns: kept matrices as users run them) */
    scenario("80 el, h 1e-4, one revolution", 1e-4, 0.314159, 0, 0, 1, 200, 20, 0, 80, 1000, 0.1);
    scenario("80 el, h 4e-4, one revolution", 4e-4, 0.314159, 0, 0, 1, 0, 0, 0, 80, 150, 0.25);
    scenario("320 el, h 1e-4, one revolution", 1e-4, 0.314159, 0, 0, 1, 50, 0, 0, 320, 1000, 0.25);
    scenario("320 el, h 4e-4, one revolution", 4e-4, 0.314159, 0, 0, 1, 0, 0, 0, 320, 150, 0.25);
    printf(failures ? "FAIL\n" : "OK\n");
    return failures != 0;
}

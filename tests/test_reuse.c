/*
 * Modified Newton (reuse_jacobian: the iteration matrix kept inside a step and across
 * steps, docs/performance.md) against full Newton, and KLU against UMFPACK, on the
 * quick-return linkage with its elastic rocker (cases/quick_return.yaml, 10 elements,
 * h = 1e-4 s, 300 steps = 0.03 s, covering steps on kept matrices and refreshes).
 *
 * Independent reference: full Newton with the factorization refreshed every iteration,
 * run with tolerances 100 times tighter (rtol 1e-12, atol 1e-14, phi_tol 1e-13), i.e.
 * the exact discrete solution to ~1e-12 |q|. (1000 times tighter is below the residual's
 * rounding floor: an increment of ~1.5e-15 on the rocker's end slope 2-cycles at 1.3-1.5
 * tolerance units in one of the 300 steps, which is then halved.) The case's runs stop
 * each step when the scaled increment max |dq_i| / (atol + rtol |q_i|) is <= 1 (rtol
 * 1e-10), so each accepted step is within ~rtol |q| of the exact discrete solution (a
 * linearly contracting iteration with ratio <= 1/4 leaves at most 1/3 of its last
 * increment). Over 300 steps of a stable scheme these per-step differences add up
 * to at most ~300 rtol |q|: the bound asserted is 300 * 1e-10 * max|q|, and for the
 * multipliers (whose increments are held to 1e-8 of the largest multiplier under
 * modified Newton) 300 * 1e-8 * max|lambda|. Both the modified Newton run and full
 * Newton at the case's tolerance are held to these bounds against the tight reference
 * (and, as before, against each other). KLU and UMFPACK solve the same systems to
 * round-off, so their runs must agree to the same bounds.
 * The reuse run keeps factorizations across steps although this system is small enough
 * for step.c to refresh at every step (keep_force: the path of systems above
 * FMB_KEEP_MIN_N unknowns).
 * Checked to fail: with the stopping test on kept matrices loosened to a scaled increment
 * of 1e4 and no multiplier test, the multipliers differ by 6.5e-3 (bound 9.3e-5); the
 * factorizations-per-step assertion fails if the kept factorization is never used.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flexmb/flexmb.h"
#include "solve/test_hooks.h"

#include "case_run.h"

typedef case_run_t run_t;

/* the case as shipped (the test steps 300 times itself; the "t_end=0.03" override this
 * once listed was never applied: it was passed with a count of 0) */
static int start(run_t *r, int reuse, fmb_linear_solver ls, int tight)
{
    fmb_sim_options_t o;
    if (case_run_load(r, "quick_return.yaml", NULL, 0, &o)) return 1;
    o.reuse_jacobian = reuse;
    o.linear_solver = ls;
    if (tight) o.rtol = 1e-12, o.atol = 1e-14, o.phi_tol = 1e-13;
    return case_run_create(r, &o) || case_run_init(r);
}

static int compare(const char *what, run_t *a, run_t *b, int n, int m)
{
    const double *qa = fmb_sim_q(a->s), *qb = fmb_sim_q(b->s);
    const double *la = fmb_sim_lambda(a->s), *lb = fmb_sim_lambda(b->s);
    double qmax = 0, dq = 0, lmax = 0, dl = 0;
    for (int i = 0; i < n; i++)
        qmax = fmax(qmax, fabs(qa[i])), dq = fmax(dq, fabs(qa[i] - qb[i]));
    for (int k = 0; k < m; k++)
        lmax = fmax(lmax, fabs(la[k])), dl = fmax(dl, fabs(la[k] - lb[k]));
    const double tq = 300 * 1e-10 * qmax, tl = 300 * 1e-8 * lmax;
    printf("%s: max |dq| %.3g (bound %.3g), max |dlambda| %.3g (bound %.3g)\n", what, dq, tq, dl,
           tl);
    return !(dq <= tq) || !(dl <= tl);
}

int main(void)
{
    run_t full = {0}, reuse = {0}, umf = {0}, ref = {0};
    if (start(&full, 0, FMB_LINEAR_KLU, 0) || start(&reuse, 1, FMB_LINEAR_KLU, 0) ||
        start(&umf, 0, FMB_LINEAR_UMFPACK, 0) || start(&ref, 0, FMB_LINEAR_KLU, 1))
        return 1;
    /* this 60-unknown system is below step.c's FMB_KEEP_MIN_N: keep factorizations across
     * steps anyway, so that the path large systems take is the one compared here */
    fmb_test_set_keep_force(reuse.s, 1);
    const int n = fmb_model_num_coords(fmb_case_model(full.c));
    const int m = fmb_model_num_constraints(fmb_case_model(full.c));
    for (int k = 0; k < 300; k++)
        if (fmb_sim_step(full.s) || fmb_sim_step(reuse.s) || fmb_sim_step(umf.s) ||
            fmb_sim_step(ref.s)) {
            fprintf(stderr, "step %d failed\n", k);
            return 1;
        }
    int fails = compare("reuse vs full Newton", &reuse, &full, n, m);
    fails += compare("reuse vs tight full Newton", &reuse, &ref, n, m);
    fails += compare("full Newton vs tight full Newton", &full, &ref, n, m);
    fails += compare("UMFPACK vs KLU", &umf, &full, n, m);
    fmb_sim_stats_t st;
    fmb_sim_get_stats(reuse.s, &st);
    const double fps = (double)st.factorizations / st.steps;
    printf("reuse: %.3f factorizations per step\n", fps);
    if (!(fps < 0.9)) {
        printf("FAIL: the kept factorization was not used\n");
        fails++;
    }
    case_run_finish(&full), case_run_finish(&reuse), case_run_finish(&umf);
    case_run_finish(&ref);
    printf(fails ? "FAIL\n" : "OK\n");
    return fails != 0;
}

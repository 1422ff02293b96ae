/*
 * The slider's reach as a window (model.h reach(), fmb_reach_elements; assemble.c
 * reserve_reach). Above FMB_KKT_LARGE unknowns the assembler reserves, as explicit zeros,
 * the slider's Jacobian rows and Hessian on the guide columns it can reach. Reserved on the
 * whole guide they made the slider's rows dense and doubled the factorization's flops at
 * 1,000 elements; now only the elements within fmb_reach_elements(nel) of the slider's
 * present one are reserved, and the pattern is rebuilt (kkt.c) when the slider leaves them.
 *
 * Two scenarios: the quick-return at 400 elements (1,230 unknowns, window 50), 0.15 s, and
 * the frictional quick-return (cases/quick_return_friction.yaml: Coulomb slider, whose
 * contact points on the guide take the guide's axial columns as well) at 240 elements
 * (window 30), 0.2 s. In each, run A as users run it (the window) and run B with every
 * guide column reserved (fmb_test_set_reach_all), same options. Asserted:
 *  - the slider travels more than a window (so A rebuilt its pattern), and A analysed its
 *    pattern at least twice and at most once per half window travelled plus the start (a
 *    rebuild per window travelled; back and forth across a window's edge may rebuild
 *    twice, kkt.c FMB_KKT_KEEP_RECENT);
 *  - A's pattern lacks the reach outside its windows: B has, for every guide v / v' column
 *    outside the union of A's last two windows, the slider's two Jacobian rows and their
 *    transposes (4 entries) that A does not, so nnz(B) - nnz(A) >= 4 times that count;
 *  - the two runs agree: the linear systems are the same and only their rounding differs
 *    (another pattern, another order); each step of either run is within its Newton
 *    tolerance (atol + rtol |q|) of the exact discrete step. Asserted at the end of every
 *    100th step: positions within 1 tolerance unit, atol + rtol |q| (measured 0.018 and
 *    0.023).
 *    Checked to fail: with the window off in A as well (reach_all) the analyses and the
 *    pattern tests fail (one analysis, the same nnz); with a window of the whole guide
 *    (FMB_REACH_DIV 1) the travel and analyses tests fail; with a window of the v, v'
 *    columns only (the slider's own, as first written) the frictional scenario analysed
 *    its pattern 121 times for 151 elements travelled (bound 13): its contact's entries on
 *    the axial columns rebuilt the pattern at every element change.
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

static int start(run_t *r, const char *file, int n_el, int all)
{
    char nel[32];
    snprintf(nel, sizeof nel, "n_el=%d", n_el);
    const char *ov[] = {nel};
    fmb_sim_options_t o;
    if (case_run_load(r, file, ov, 1, &o) || case_run_create(r, &o)) return 1;
    fmb_test_set_reach_all(r->s, all); /* before the first assembly reserves the reach */
    return case_run_init(r);
}

/* The slider joint's present element (its output "element"). */
static int slider_element(const fmb_sim_t *s, int joint)
{
    double val[8]; /* the slider's outputs: s, element, x */
    fmb_sim_joint_outputs(s, joint, val);
    return (int)val[1];
}

static void scenario(const char *file, int n_el, double t_end)
{
    run_t a = {0}, b = {0};
    if (start(&a, file, n_el, 0) || start(&b, file, n_el, 1)) {
        CHECK(0, "%s: the runs did not start", file);
        return;
    }
    fmb_sim_t *A = a.s, *B = b.s;
    int j = -1, nel = 0, W = 0;
    const int found = fmb_test_reach_joint(A, &j, &nel, &W) == 0;
    const int e_start = found ? slider_element(A, j) : -1;
    CHECK(found && e_start >= 0, "%s: no slider on a beam in the case", file);
    if (!found) return;
    int emin = e_start, emax = e_start, prev = e_start;
    long travelled = 0;
    double worst = 0.0;
    int nstep = 0;
    const fmb_sim_options_t *oA = fmb_sim_options(A);
    const int n = fmb_model_num_coords(fmb_sim_model(A));
    while (fmb_sim_time(A) < t_end - 1e-12) {
        if (fmb_sim_step(A) || fmb_sim_step(B)) {
            CHECK(0, "step failed at t = %g: %s / %s", fmb_sim_time(A), fmb_sim_last_error(A),
                  fmb_sim_last_error(B));
            break;
        }
        const int e = slider_element(A, j);
        travelled += abs(e - prev);
        prev = e;
        if (e < emin) emin = e;
        if (e > emax) emax = e;
        if (++nstep % 100 == 0) {
            const double *qA = fmb_sim_q(A), *qB = fmb_sim_q(B);
            for (int i = 0; i < n; i++) {
                const double tol = oA->atol + oA->rtol * fabs(qB[i]);
                const double d = fabs(qA[i] - qB[i]) / tol;
                if (d > worst) worst = d;
            }
        }
    }
    long nA, nB;
    int nzA, nzB;
    fmb_test_kkt_pattern(A, &nA, &nzA);
    fmb_test_kkt_pattern(B, &nB, &nzB);
    printf("%s, %d elements, window %d: slider elements %d..%d, %ld element ends crossed; symbolic "
           "analyses %ld (window) / %ld (whole guide); pattern nnz %d / %d; positions apart "
           "at most %.3g tolerance units\n",
           file, nel, W, emin, emax, travelled, nA, nB, nzA, nzB, worst);
    CHECK(emax - emin > W, "the slider travelled %d elements, not more than a window (%d)",
          emax - emin, W);
    CHECK(nA >= 2, "the windowed run analysed its pattern %ld times (the window was left)", nA);
    CHECK(nA <= 1 + 2 * (travelled / W + 1),
          "%ld analyses for %ld elements travelled with a window of %d", nA, travelled, W);
    /* guide v / v' columns outside the union of two windows (the present one and the one
     * before, which kkt.c may keep): at most 2 (2 W + 2) nodes inside, 2 columns each */
    const int inside = 2 * (2 * (2 * W + 2));
    const int outside = 2 * (nel + 1) - inside;
    CHECK(nzB - nzA >= 4 * outside,
          "the windowed pattern has %d entries, the whole guide's %d: fewer than 4 x %d apart", nzA,
          nzB, outside);
    CHECK(worst <= 1.0, "positions %.3g tolerance units apart (bound 1)", worst);
    case_run_finish(&a);
    case_run_finish(&b);
}

int main(void)
{
    scenario("quick_return.yaml", 400, 0.15);
    /* a frictional slider (its contact's points on the guide take the axial columns too) */
    scenario("quick_return_friction.yaml", 240, 0.2);
    printf(failures ? "FAIL\n" : "OK\n");
    return failures != 0;
}

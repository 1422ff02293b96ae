/*
 * The step's per-coordinate loops (src/solve/step_loops.c: predictor, multiplier
 * extrapolation, residual scaling, Newton update with its norm, the multipliers' update,
 * the candidate's a_{n+1} with the error estimate) must give bitwise the results of the
 * scalar loops, which are copied here as the reference with their plain expressions
 * (h * h * (...), -bh2 * ri, x / bh2, the
 * fmax_inline of step.c, ...).
 *
 * Data: lengths 0-13 (even and odd: the vector loops take two coordinates at a time, an
 * odd last one goes through the scalar tail), 200 random draws each, entries of mixed
 * magnitudes and signs with +-0, +-Inf and NaN mixed in (about one entry in eight), ties
 * (repeated values: the maxima's `if (!(w <= max))` keeps the first of equal values, the
 * NaN rules pick an order-dependent result), and the error estimate under HHT (am = 0,
 * division skipped) and generalized-alpha (am != 0), on the first step (h_prev = 0) and
 * later ones. Every output array and every returned value (sums, maxima, the worst
 * coordinate) is compared bit for bit (memcmp), so a -0 for a +0 or another NaN fails.
 * Checked to fail: summing the residual's lanes as r[1] then r[0], or the update's maximum
 * on the lanes in the wrong order, or fmax_inline's NaN rule left out of one vector
 * selection, each makes this test report mismatches.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solve/step_loops.h"

static int failures = 0;
#include "check.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static double urand(void) /* [0, 1) */
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}
/* mixed magnitudes and signs, with special values and repeats */
static double val(const double *prev, int i)
{
    const double u = urand();
    if (u < 0.02) return 0.0;
    if (u < 0.04) return -0.0;
    if (u < 0.05) return INFINITY;
    if (u < 0.06) return -INFINITY;
    if (u < 0.08) return NAN;
    if (u < 0.12 && i > 0) return prev[i - 1];
    const double m = pow(10.0, 6.0 * urand() - 3.0);
    return (urand() < 0.5 ? -1.0 : 1.0) * m * urand();
}
static void fill(double *a, int n)
{
    for (int i = 0; i < n; i++)
        a[i] = val(a, i);
}
static double pos(void) /* a positive parameter */
{
    return pow(10.0, 4.0 * urand() - 2.0) * (0.5 + urand());
}

/* ---- the reference: step.c's scalar loops as they were */
static inline double fmax_inline(double a, double b)
{
    return a > b || b != b ? a : b;
}
static void ref_predict(int n, double h, double ex, double am, double af, double beta, double gamma,
                        double *q, double *qd, double *qdd, const double *acc, const double *accp)
{
    for (int i = 0; i < n; i++) {
        const double a0 = acc[i];
        const double a1 = a0 + ex * (a0 - accp[i]);
        qdd[i] = ((1.0 - am) * a1 + am * a0 - af * qdd[i]) / (1.0 - af);
        q[i] += h * qd[i] + h * h * ((0.5 - beta) * a0 + beta * a1);
        qd[i] += h * ((1.0 - gamma) * a0 + gamma * a1);
    }
}
static double ref_scale(int n, double bh2, double *R, const double *Mqdd)
{
    double rsum = 0.0;
    for (int i = 0; i < n; i++) {
        const double ri = R[i] + Mqdd[i];
        rsum += ri;
        R[i] = -bh2 * ri;
    }
    return rsum;
}
static double ref_update(int n, const double *x, double cvel, double bh2, double atol, double rtol,
                         double *q, double *qd, double *qdd, double *wq)
{
    double dq_norm = 0.0;
    for (int i = 0; i < n; i++) {
        const double d = x[i];
        q[i] += d;
        qd[i] += cvel * d;
        qdd[i] += d / bh2;
        const double w = fabs(d) / (atol + rtol * fabs(q[i]));
        wq[i] = w;
        if (!(w <= dq_norm)) dq_norm = w;
    }
    return dq_norm;
}
static void ref_update_lam(int m, const double *x, double bh2, double *lam, double *lmax,
                           double *dl)
{
    *lmax = 0.0, *dl = 0.0;
    for (int k = 0; k < m; k++) {
        const double dlk = x[k] / bh2;
        lam[k] += dlk;
        *lmax = fmax_inline(*lmax, fabs(lam[k]));
        *dl = fmax_inline(*dl, fabs(dlk));
    }
}
/* step.c's candidate loop and error_estimate's loop (qscale's update from
 * fmb_sim_commit_step) */
static double ref_error(int n, double h, double hp, double am, double af, double beta, double gamma,
                        double at, double rt, double natol, double nrtol, double phit, double ts,
                        const double *qn, const double *qs, const double *as, const double *acc,
                        const double *accp, const double *q, const double *qscale, double *a1,
                        double *qs1, int *wi)
{
    if (am == 0.0)
        for (int i = 0; i < n; i++)
            a1[i] = (1.0 - af) * qn[i] + af * qs[i] - am * as[i];
    else
        for (int i = 0; i < n; i++)
            a1[i] = ((1.0 - af) * qn[i] + af * qs[i] - am * as[i]) / (1.0 - am);
    const double D = am - af;
    const double cq = fabs(beta + 0.5 * D - 1.0 / 6.0), cv = fabs(gamma + D - 0.5);
    double worst = 0.0;
    *wi = -1;
    for (int i = 0; i < n; i++) {
        const double da = hp > 0 ? fabs(a1[i] - accp[i]) * h / (h + hp) : fabs(a1[i] - acc[i]);
        const double w = at + rt * fmax_inline(qscale[i], fabs(q[i]));
        const double noise = 2.0 * (natol + nrtol * fabs(q[i]) + phit);
        const double e = fmax_inline(0.0, (cq + cv) * h * h * da - noise);
        const double r = e * ts / h / w;
        if (!(r <= worst)) worst = r, *wi = i;
    }
    for (int i = 0; i < n; i++) {
        qs1[i] = qscale[i];
        if (fabs(q[i]) > qs1[i]) qs1[i] = fabs(q[i]);
    }
    return worst;
}

#define NMAX 16
static int same(const double *a, const double *b, int n)
{
    return memcmp(a, b, (size_t)n * sizeof *a) == 0;
}
static int same1(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

int main(void)
{
    long compared = 0;
    for (int n = 0; n <= 13; n++)
        for (int rep = 0; rep < 200; rep++) {
            double q[NMAX], qd[NMAX], qdd[NMAX], acc[NMAX], accp[NMAX], x[NMAX];
            double q2[NMAX], qd2[NMAX], qdd2[NMAX], w1[NMAX], w2[NMAX];
            fill(q, n), fill(qd, n), fill(qdd, n), fill(acc, n), fill(accp, n), fill(x, n);
            const double h = pos(), ex = pos(), alpha = -0.3 * urand();
            const double am = rep % 2 ? 0.0 : -0.4 * urand(), af = -alpha;
            const double beta = 0.25 * (1 - alpha) * (1 - alpha), gamma = 0.5 - alpha;
            /* predictor */
            memcpy(q2, q, sizeof q), memcpy(qd2, qd, sizeof qd), memcpy(qdd2, qdd, sizeof qdd);
            ref_predict(n, h, ex, am, af, beta, gamma, q, qd, qdd, acc, accp);
            fmb_step_predict(n, h, ex, am, af, beta, gamma, q2, qd2, qdd2, acc, accp);
            CHECK(same(q, q2, n) && same(qd, qd2, n) && same(qdd, qdd2, n), "predict n %d rep %d",
                  n, rep);
            /* multipliers' extrapolation */
            memcpy(q2, q, sizeof q);
            for (int k = 0; k < n; k++)
                q[k] += ex * (q[k] - accp[k]);
            fmb_step_extrapolate(n, ex, q2, accp);
            CHECK(same(q, q2, n), "extrapolate n %d rep %d", n, rep);
            /* residual scaling */
            const double bh2 = pos();
            memcpy(q2, q, sizeof q);
            const double s1 = ref_scale(n, bh2, q, acc),
                         s2 = fmb_step_scale_residual(n, bh2, q2, acc);
            CHECK(same(q, q2, n) && same1(s1, s2), "scale n %d rep %d", n, rep);
            /* Newton update */
            fill(q, n), fill(qd, n), fill(qdd, n);
            memcpy(q2, q, sizeof q), memcpy(qd2, qd, sizeof qd), memcpy(qdd2, qdd, sizeof qdd);
            const double cvel = pos(), atol = rep % 3 ? 1e-6 * pos() : 0.0, rtol = 1e-6 * pos();
            const double d1 = ref_update(n, x, cvel, bh2, atol, rtol, q, qd, qdd, w1);
            const double d2 = fmb_step_update(n, x, cvel, bh2, atol, rtol, q2, qd2, qdd2, w2);
            CHECK(same(q, q2, n) && same(qd, qd2, n) && same(qdd, qdd2, n) && same(w1, w2, n) &&
                      same1(d1, d2),
                  "update n %d rep %d: max %.17g vs %.17g", n, rep, d1, d2);
            /* multipliers' update */
            double l1, dl1, l2, dl2;
            memcpy(q2, q, sizeof q);
            ref_update_lam(n, x, bh2, q, &l1, &dl1);
            fmb_step_update_lam(n, x, bh2, q2, &l2, &dl2);
            CHECK(same(q, q2, n) && same1(l1, l2) && same1(dl1, dl2), "update_lam n %d rep %d", n,
                  rep);
            /* candidate and error estimate: accelerations of moderate size mostly, so that
             * the estimate is above the noise floor on some coordinates */
            double qs[NMAX], as[NMAX], qsc[NMAX], a1a[NMAX], a1b[NMAX], s1a[NMAX], s1b[NMAX];
            fill(qs, n), fill(as, n), fill(qsc, n);
            for (int i = 0; i < n; i++)
                qsc[i] = fabs(qsc[i]);
            const double hp = rep % 4 < 2 ? 0.0 : pos(), hh = 1e-3 * pos();
            const double at = rep % 5 ? 1e-6 : 0.0, rt = 1e-3, natol = 1e-8, nrtol = 1e-8;
            const double phit = 1e-9, ts = pos();
            int wa, wb;
            const double ea = ref_error(n, hh, hp, am, af, beta, gamma, at, rt, natol, nrtol, phit,
                                        ts, qdd, qs, as, acc, accp, q, qsc, a1a, s1a, &wa);
            const double D = am - af;
            const double cq = fabs(beta + 0.5 * D - 1.0 / 6.0), cv = fabs(gamma + D - 0.5);
            const fmb_step_err_t p = {.am = am,
                                      .af = af,
                                      .h = hh,
                                      .hp = hp,
                                      .k = (cq + cv) * hh * hh,
                                      .at = at,
                                      .rt = rt,
                                      .natol = natol,
                                      .nrtol = nrtol,
                                      .phit = phit,
                                      .ts = ts};
            const double eb = fmb_step_error(n, &p, qdd, qs, as, acc, accp, q, qsc, a1b, s1b, &wb);
            CHECK(same(a1a, a1b, n) && same(s1a, s1b, n) && same1(ea, eb) && wa == wb,
                  "error n %d rep %d (am %g, hp %g): worst %.17g at %d vs %.17g at %d", n, rep, am,
                  hp, ea, wa, eb, wb);
            compared++;
        }
    printf("%ld draws compared, %d failures\n", compared, failures);
    return failures ? 1 : 0;
}

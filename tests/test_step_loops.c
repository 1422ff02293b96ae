/*
 * The step's per-coordinate loops (src/solve/step_loops.c: predictor, multiplier
 * extrapolation, residual scaling, Newton update with its norm, the multipliers' update,
 * the candidate's a_{n+1} with the error estimate) against the plain scalar loops, which
 * are copied here as the reference with their plain expressions (h * h * (...), -bh2 * ri,
 * x / bh2, the fmax_inline of step.c, ...), to rounding (tests/near.h).
 *
 * Tolerance: each compared value within (k + 1) eps m of the reference, where m is the
 * value's formula evaluated on the absolute values of its terms (computed here next to the
 * reference) and k bounds the number of roundings on its longest path, counting the
 * derived coefficients (1 - am, h h, 0.5 - beta, ...) as one each: predictor 12,
 * extrapolation 3, residual entries 2, the residual's sum n over n coordinates (a
 * reduction in any order is within 2 gamma_n sum |terms| of another), Newton update 4, the
 * multipliers' update 2, the candidate 8, the error ratio 24. A maximum over coordinates
 * (the update's norm, the multipliers' maxima, the worst error ratio) selects one of its
 * values, so it agrees to the largest tolerance among them; the worst coordinate must be
 * one whose reference ratio is that close to the reference maximum (a near tie may pick
 * either). A selection that rounds nothing (the new qscale, max(qscale, |q|)) must agree
 * exactly. NaN and infinities by class: the loops' NaN rules (a NaN norm is kept only as
 * the last value, fmax_inline ignores a NaN argument) decide which of them a maximum
 * returns, and a NaN lost or made is a defect. The operation order is not fixed: another
 * grouping of the lanes, an FMA contraction or the compiler's operand order pass.
 *
 * Data: lengths 0-13 (even and odd: the vector loops take two coordinates at a time, an
 * odd last one goes through the scalar tail), 200 random draws each, entries of mixed
 * magnitudes (1e-3 to 1e3) and signs with +-0, +-Inf and NaN mixed in (about one entry in
 * eight), ties (repeated values), and the error estimate under HHT (am = 0, division
 * skipped) and generalized-alpha (am != 0), on the first step (h_prev = 0) and later ones.
 * Checked to fail (step_loops.c's two-lane forms mutated; the same counts at -O2 -g and
 * -O3): lane r[1] left out of the residual's sum fails "scale" in 1,417 of 2,800 draws;
 * the predictor's q with beta for 0.5 - beta fails "predict" in 2,382; the update's norm
 * without lane 1 fails "update" in 743; fmb_v2_max's NaN rule left out of the error
 * estimate's e (a plain a > b selection) fails "error" in 382; the multipliers' update
 * with dl scaled by 1 + 1e-14 (45 eps) fails "update_lam" in 1,946. A reordering passes:
 * the residual's lanes summed as r[1] then r[0], and the whole file built with
 * -march=native -ffp-contract=fast (FMA), which a bitwise comparison failed in 11 draws;
 * a -O3 build of that comparison failed 31 draws on the sign of a NaN sum alone.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solve/step_loops.h"

static int failures = 0;
#include "check.h"
#include "near.h"

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

/* ---- the reference: step.c's scalar loops, each value with its magnitude m (the formula
 * on the absolute values of its terms) */
static inline double fmax_inline(double a, double b)
{
    return a > b || b != b ? a : b;
}
static void ref_predict(int n, double h, double ex, double am, double af, double beta, double gamma,
                        double *q, double *qd, double *qdd, const double *acc, const double *accp,
                        double *mq, double *mqd, double *mqdd)
{
    for (int i = 0; i < n; i++) {
        const double a0 = acc[i];
        const double a1 = a0 + ex * (a0 - accp[i]);
        const double ma1 = fabs(a0) + fabs(ex) * (fabs(a0) + fabs(accp[i]));
        mqdd[i] = (fabs(1.0 - am) * ma1 + fabs(am * a0) + fabs(af * qdd[i])) / fabs(1.0 - af);
        mq[i] = fabs(q[i]) + fabs(h * qd[i]) + h * h * (fabs((0.5 - beta) * a0) + fabs(beta) * ma1);
        mqd[i] = fabs(qd[i]) + fabs(h) * (fabs((1.0 - gamma) * a0) + fabs(gamma) * ma1);
        qdd[i] = ((1.0 - am) * a1 + am * a0 - af * qdd[i]) / (1.0 - af);
        q[i] += h * qd[i] + h * h * ((0.5 - beta) * a0 + beta * a1);
        qd[i] += h * ((1.0 - gamma) * a0 + gamma * a1);
    }
}
static double ref_scale(int n, double bh2, double *R, const double *Mqdd, double *mR, double *msum)
{
    double rsum = 0.0;
    *msum = 0.0;
    for (int i = 0; i < n; i++) {
        const double ri = R[i] + Mqdd[i], mi = fabs(R[i]) + fabs(Mqdd[i]);
        rsum += ri;
        *msum += mi;
        R[i] = -bh2 * ri;
        mR[i] = bh2 * mi;
    }
    return rsum;
}
/* the norm's terms w = |d| / D, D = atol + rtol |q + d|: an error of q + d (1 rounding of
 * |q| + |d|) and D's own roundings move w by w (1 + (atol + rtol (|q| + |d|)) / D) times u
 * per rounding (mw) */
static double ref_update(int n, const double *x, double cvel, double bh2, double atol, double rtol,
                         double *q, double *qd, double *qdd, double *wq, double *mq, double *mqd,
                         double *mqdd, double *mw)
{
    double dq_norm = 0.0;
    for (int i = 0; i < n; i++) {
        const double d = x[i];
        mq[i] = fabs(q[i]) + fabs(d);
        mqd[i] = fabs(qd[i]) + fabs(cvel * d);
        mqdd[i] = fabs(qdd[i]) + fabs(d / bh2);
        q[i] += d;
        qd[i] += cvel * d;
        qdd[i] += d / bh2;
        const double D = atol + rtol * fabs(q[i]);
        const double w = fabs(d) / D;
        mw[i] = w * (1.0 + (atol + rtol * mq[i]) / D);
        wq[i] = w;
        if (!(w <= dq_norm)) dq_norm = w;
    }
    return dq_norm;
}
static void ref_update_lam(int m, const double *x, double bh2, double *lam, double *lmax,
                           double *dl, double *mlam)
{
    *lmax = 0.0, *dl = 0.0;
    for (int k = 0; k < m; k++) {
        const double dlk = x[k] / bh2;
        mlam[k] = fabs(lam[k]) + fabs(dlk);
        lam[k] += dlk;
        *lmax = fmax_inline(*lmax, fabs(lam[k]));
        *dl = fmax_inline(*dl, fabs(dlk));
    }
}
/* step.c's candidate loop and error_estimate's loop (qscale's update from
 * fmb_sim_commit_step); r: each coordinate's ratio, ma and mr the magnitudes of a1 and r */
static double ref_error(int n, double h, double hp, double am, double af, double beta, double gamma,
                        double at, double rt, double natol, double nrtol, double phit, double ts,
                        const double *qn, const double *qs, const double *as, const double *acc,
                        const double *accp, const double *q, const double *qscale, double *a1,
                        double *qs1, int *wi, double *r_, double *ma, double *mr)
{
    for (int i = 0; i < n; i++)
        ma[i] = fabs((1.0 - af) * qn[i]) + fabs(af * qs[i]) + fabs(am * as[i]);
    if (am == 0.0)
        for (int i = 0; i < n; i++)
            a1[i] = (1.0 - af) * qn[i] + af * qs[i] - am * as[i];
    else
        for (int i = 0; i < n; i++) {
            a1[i] = ((1.0 - af) * qn[i] + af * qs[i] - am * as[i]) / (1.0 - am);
            ma[i] /= fabs(1.0 - am);
        }
    const double D = am - af;
    const double cq = fabs(beta + 0.5 * D - 1.0 / 6.0), cv = fabs(gamma + D - 0.5);
    double worst = 0.0;
    *wi = -1;
    for (int i = 0; i < n; i++) {
        const double da = hp > 0 ? fabs(a1[i] - accp[i]) * h / (h + hp) : fabs(a1[i] - acc[i]);
        const double mda = hp > 0 ? (ma[i] + fabs(accp[i])) * h / (h + hp) : ma[i] + fabs(acc[i]);
        const double w = at + rt * fmax_inline(qscale[i], fabs(q[i]));
        const double noise = 2.0 * (natol + nrtol * fabs(q[i]) + phit);
        const double e = fmax_inline(0.0, (cq + cv) * h * h * da - noise);
        const double r = e * ts / h / w;
        r_[i] = r;
        mr[i] = ((cq + cv) * h * h * mda + noise) * ts / h / w;
        if (!(r <= worst)) worst = r, *wi = i;
    }
    for (int i = 0; i < n; i++) {
        qs1[i] = qscale[i];
        if (fabs(q[i]) > qs1[i]) qs1[i] = fabs(q[i]);
    }
    return worst;
}

#define NMAX 16
/* a[i] within (k + 1) eps m[i] of b[i] for every i (tests/near.h); *tmax: the largest
 * tolerance among them (a maximum over the values agrees to it) */
static int near_all(const double *a, const double *b, const double *m, int k, int n, double *tmax)
{
    int ok = 1;
    double t = 0.0;
    for (int i = 0; i < n; i++) {
        const double ti = m ? near_bound(k, m[i]) : 0.0;
        ok &= near_tol(a[i], b[i], ti);
        if (!(ti <= t)) t = ti;
    }
    if (tmax) *tmax = t;
    return ok;
}

int main(void)
{
    long compared = 0;
    for (int n = 0; n <= 13; n++)
        for (int rep = 0; rep < 200; rep++) {
            double q[NMAX], qd[NMAX], qdd[NMAX], acc[NMAX], accp[NMAX], x[NMAX];
            double q2[NMAX], qd2[NMAX], qdd2[NMAX], w1[NMAX], w2[NMAX];
            double m1[NMAX], m2[NMAX], m3[NMAX], m4[NMAX], t1, t2;
            fill(q, n), fill(qd, n), fill(qdd, n), fill(acc, n), fill(accp, n), fill(x, n);
            const double h = pos(), ex = pos(), alpha = -0.3 * urand();
            const double am = rep % 2 ? 0.0 : -0.4 * urand(), af = -alpha;
            const double beta = 0.25 * (1 - alpha) * (1 - alpha), gamma = 0.5 - alpha;
            /* predictor */
            memcpy(q2, q, sizeof q), memcpy(qd2, qd, sizeof qd), memcpy(qdd2, qdd, sizeof qdd);
            ref_predict(n, h, ex, am, af, beta, gamma, q, qd, qdd, acc, accp, m1, m2, m3);
            fmb_step_predict(n, h, ex, am, af, beta, gamma, q2, qd2, qdd2, acc, accp);
            CHECK(near_all(q2, q, m1, 12, n, NULL) && near_all(qd2, qd, m2, 12, n, NULL) &&
                      near_all(qdd2, qdd, m3, 12, n, NULL),
                  "predict n %d rep %d", n, rep);
            /* multipliers' extrapolation */
            memcpy(q2, q, sizeof q);
            for (int k = 0; k < n; k++) {
                m1[k] = fabs(q[k]) + ex * (fabs(q[k]) + fabs(accp[k]));
                q[k] += ex * (q[k] - accp[k]);
            }
            fmb_step_extrapolate(n, ex, q2, accp);
            CHECK(near_all(q2, q, m1, 3, n, NULL), "extrapolate n %d rep %d", n, rep);
            /* residual scaling */
            const double bh2 = pos();
            double msum;
            memcpy(q2, q, sizeof q);
            const double s1 = ref_scale(n, bh2, q, acc, m1, &msum),
                         s2 = fmb_step_scale_residual(n, bh2, q2, acc);
            CHECK(near_all(q2, q, m1, 2, n, NULL) && near_tol(s2, s1, near_bound(n, msum)),
                  "scale n %d rep %d: sum %.17g vs %.17g", n, rep, s2, s1);
            /* Newton update */
            fill(q, n), fill(qd, n), fill(qdd, n);
            memcpy(q2, q, sizeof q), memcpy(qd2, qd, sizeof qd), memcpy(qdd2, qdd, sizeof qdd);
            const double cvel = pos(), atol = rep % 3 ? 1e-6 * pos() : 0.0, rtol = 1e-6 * pos();
            const double d1 =
                ref_update(n, x, cvel, bh2, atol, rtol, q, qd, qdd, w1, m1, m2, m3, m4);
            const double d2 = fmb_step_update(n, x, cvel, bh2, atol, rtol, q2, qd2, qdd2, w2);
            CHECK(near_all(q2, q, m1, 1, n, NULL) && near_all(qd2, qd, m2, 2, n, NULL) &&
                      near_all(qdd2, qdd, m3, 2, n, NULL) && near_all(w2, w1, m4, 4, n, &t1) &&
                      near_tol(d2, d1, t1),
                  "update n %d rep %d: max %.17g vs %.17g", n, rep, d2, d1);
            /* multipliers' update: the maxima of |lam| (2 roundings) and |dl| (1) */
            double l1, dl1, l2, dl2;
            memcpy(q2, q, sizeof q);
            ref_update_lam(n, x, bh2, q, &l1, &dl1, m1);
            fmb_step_update_lam(n, x, bh2, q2, &l2, &dl2);
            for (int k = 0; k < n; k++)
                m2[k] = fabs(x[k] / bh2);
            double t3, t4;
            near_all(q2, q, m2, 1, n, &t4);
            CHECK(near_all(q2, q, m1, 2, n, &t3) && near_tol(l2, l1, t3) && near_tol(dl2, dl1, t4),
                  "update_lam n %d rep %d", n, rep);
            /* candidate and error estimate: accelerations of moderate size mostly, so that
             * the estimate is above the noise floor on some coordinates */
            double qs[NMAX], as[NMAX], qsc[NMAX], a1a[NMAX], a1b[NMAX], s1a[NMAX], s1b[NMAX];
            double ra[NMAX];
            fill(qs, n), fill(as, n), fill(qsc, n);
            for (int i = 0; i < n; i++)
                qsc[i] = fabs(qsc[i]);
            const double hp = rep % 4 < 2 ? 0.0 : pos(), hh = 1e-3 * pos();
            const double at = rep % 5 ? 1e-6 : 0.0, rt = 1e-3, natol = 1e-8, nrtol = 1e-8;
            const double phit = 1e-9, ts = pos();
            int wa, wb;
            const double ea =
                ref_error(n, hh, hp, am, af, beta, gamma, at, rt, natol, nrtol, phit, ts, qdd, qs,
                          as, acc, accp, q, qsc, a1a, s1a, &wa, ra, m1, m2);
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
            /* the ratios' tolerance (t2: the largest); the worst coordinate: -1 only if no
             * ratio is above 0 to that tolerance, else one whose ratio is the maximum's */
            for (int i = 0; i < n; i++)
                m3[i] = 0.0;
            near_all(m3, m3, m2, 24, n, &t2);
            const int wok =
                wb < 0 ? wa < 0 || near_tol(ea, 0.0, t2) : wb < n && near_tol(ra[wb], ea, t2);
            CHECK(near_all(a1b, a1a, m1, 8, n, NULL) && near_all(s1b, s1a, NULL, 0, n, NULL) &&
                      near_tol(eb, ea, t2) && wok,
                  "error n %d rep %d (am %g, hp %g): worst %.17g at %d vs %.17g at %d", n, rep, am,
                  hp, eb, wb, ea, wa);
            compared++;
        }
    printf("%ld draws compared to rounding, %d failures\n", compared, failures);
    return failures ? 1 : 0;
}

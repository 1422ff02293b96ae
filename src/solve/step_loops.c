/*
 * The per-coordinate loops of a step (step_loops.h): two coordinates per vector operation
 * where the compiler has GCC's vector types, the scalar form for the rest (an odd last
 * coordinate, or every coordinate elsewhere). The vector forms do the scalar form's
 * operations lane by lane (IEEE add, subtract, multiply and divide round each lane as the
 * scalar instruction does; fabs and the selections are bit operations), and every max or
 * sum across coordinates is taken lane by lane in ascending order, so both forms give the
 * same bits (tests/test_step_loops.c). Why: these loops were ~5 k instructions per step at
 * 10 rocker elements, and their divisions the step's own hottest instructions
 * (docs/performance.md "The step's own loops").
 */
#include "solve/step_loops.h"

#include <math.h>

#ifdef FMB_STEP_LOOPS_SCALAR /* the scalar loops only (also: FMB_SIMD_SCALAR) */
#define FMB_SIMD_SCALAR
#endif
#include "core/simd.h"

static inline double fmax_inline(double a, double b) /* as in step.c */
{
    return a > b || b != b ? a : b;
}

void fmb_step_predict(int n, double h, double ex, double am, double af, double beta, double gamma,
                      double *q, double *qd, double *qdd, const double *acc, const double *accp)
{
    const double c1m = 1.0 - am, c1f = 1.0 - af, hh = h * h, hb = 0.5 - beta, g1 = 1.0 - gamma;
    int i = 0;
#ifdef FMB_SIMD
    for (; i + 2 <= n; i += 2) {
        const fmb_v2d a0 = fmb_v2_ld(acc + i);
        const fmb_v2d a1 = a0 + ex * (a0 - fmb_v2_ld(accp + i));
        const fmb_v2d qdi = fmb_v2_ld(qd + i);
        fmb_v2_st(qdd + i, (c1m * a1 + am * a0 - af * fmb_v2_ld(qdd + i)) / c1f);
        fmb_v2_st(q + i, fmb_v2_ld(q + i) + (h * qdi + hh * (hb * a0 + beta * a1)));
        fmb_v2_st(qd + i, qdi + h * (g1 * a0 + gamma * a1));
    }
#endif
    for (; i < n; i++) {
        const double a0 = acc[i];
        const double a1 = a0 + ex * (a0 - accp[i]);
        qdd[i] = (c1m * a1 + am * a0 - af * qdd[i]) / c1f;
        q[i] += h * qd[i] + hh * (hb * a0 + beta * a1);
        qd[i] += h * (g1 * a0 + gamma * a1);
    }
}

void fmb_step_extrapolate(int m, double ex, double *lam, const double *lamp)
{
    int k = 0;
#ifdef FMB_SIMD
    for (; k + 2 <= m; k += 2) {
        const fmb_v2d l = fmb_v2_ld(lam + k);
        fmb_v2_st(lam + k, l + ex * (l - fmb_v2_ld(lamp + k)));
    }
#endif
    for (; k < m; k++)
        lam[k] += ex * (lam[k] - lamp[k]);
}

double fmb_step_scale_residual(int n, double bh2, double *R, const double *Mqdd)
{
    double rsum = 0.0;
    const double c = -bh2;
    int i = 0;
#ifdef FMB_SIMD
    for (; i + 2 <= n; i += 2) {
        const fmb_v2d r = fmb_v2_ld(R + i) + fmb_v2_ld(Mqdd + i);
        rsum += r[0];
        rsum += r[1];
        fmb_v2_st(R + i, c * r);
    }
#endif
    for (; i < n; i++) {
        const double ri = R[i] + Mqdd[i];
        rsum += ri;
        R[i] = c * ri;
    }
    return rsum;
}

double fmb_step_update(int n, const double *x, double cvel, double bh2, double atol, double rtol,
                       double *q, double *qd, double *qdd, double *wq)
{
    double mx = 0.0;
    int i = 0;
#ifdef FMB_SIMD
    for (; i + 2 <= n; i += 2) {
        const fmb_v2d d = fmb_v2_ld(x + i);
        const fmb_v2d qi = fmb_v2_ld(q + i) + d;
        fmb_v2_st(q + i, qi);
        fmb_v2_st(qd + i, fmb_v2_ld(qd + i) + cvel * d);
        fmb_v2_st(qdd + i, fmb_v2_ld(qdd + i) + d / bh2);
        const fmb_v2d w = fmb_v2_abs(d) / (atol + rtol * fmb_v2_abs(qi));
        fmb_v2_st(wq + i, w);
        if (!(w[0] <= mx)) mx = w[0];
        if (!(w[1] <= mx)) mx = w[1];
    }
#endif
    for (; i < n; i++) {
        const double d = x[i];
        q[i] += d;
        qd[i] += cvel * d;
        qdd[i] += d / bh2;
        const double w = fabs(d) / (atol + rtol * fabs(q[i]));
        wq[i] = w;
        if (!(w <= mx)) mx = w;
    }
    return mx;
}

void fmb_step_update_lam(int m, const double *x, double bh2, double *lam, double *lmax,
                         double *dlmax)
{
    double lm = 0.0, dm = 0.0;
    int k = 0;
#ifdef FMB_SIMD
    for (; k + 2 <= m; k += 2) {
        const fmb_v2d dl = fmb_v2_ld(x + k) / bh2;
        const fmb_v2d nl = fmb_v2_ld(lam + k) + dl;
        fmb_v2_st(lam + k, nl);
        const fmb_v2d l = fmb_v2_abs(nl), a = fmb_v2_abs(dl);
        lm = fmax_inline(lm, l[0]);
        dm = fmax_inline(dm, a[0]);
        lm = fmax_inline(lm, l[1]);
        dm = fmax_inline(dm, a[1]);
    }
#endif
    for (; k < m; k++) {
        const double dlk = x[k] / bh2;
        lam[k] += dlk;
        lm = fmax_inline(lm, fabs(lam[k]));
        dm = fmax_inline(dm, fabs(dlk));
    }
    *lmax = lm, *dlmax = dm;
}

double fmb_step_error(int n, const fmb_step_err_t *p, const double *qn, const double *qs,
                      const double *as, const double *acc, const double *accp, const double *q,
                      const double *qsc, double *a1, double *qs1, int *wi)
{
    const double am = p->am, af = p->af, c1f = 1.0 - af, c1m = 1.0 - am, h = p->h;
    const double hs = h + p->hp, k = p->k, at = p->at, rt = p->rt, ts = p->ts;
    const double natol = p->natol, nrtol = p->nrtol, phit = p->phit;
    const int am0 = am == 0.0, two = p->hp > 0;
    double worst = 0.0;
    int wk = -1, i = 0;
#ifdef FMB_SIMD
    const fmb_v2d zero = fmb_v2_splat(0.0);
    for (; i + 2 <= n; i += 2) {
        const fmb_v2d ai =
            c1f * fmb_v2_ld(qn + i) + af * fmb_v2_ld(qs + i) - am * fmb_v2_ld(as + i);
        const fmb_v2d a = am0 ? ai : ai / c1m;
        fmb_v2_st(a1 + i, a);
        const fmb_v2d da =
            two ? fmb_v2_abs(a - fmb_v2_ld(accp + i)) * h / hs : fmb_v2_abs(a - fmb_v2_ld(acc + i));
        const fmb_v2d aq = fmb_v2_abs(fmb_v2_ld(q + i)), qc = fmb_v2_ld(qsc + i);
        fmb_v2_st(qs1 + i, fmb_v2_sel(fmb_v2_gt(aq, qc), aq, qc));
        const fmb_v2d w = at + rt * fmb_v2_max(qc, aq);
        const fmb_v2d noise = 2.0 * (natol + nrtol * aq + phit);
        const fmb_v2d e = fmb_v2_max(zero, k * da - noise);
        const fmb_v2d r = e * ts / h / w;
        if (!(r[0] <= worst)) worst = r[0], wk = i;
        if (!(r[1] <= worst)) worst = r[1], wk = i + 1;
    }
#endif
    for (; i < n; i++) {
        const double ai = c1f * qn[i] + af * qs[i] - am * as[i];
        const double a = am0 ? ai : ai / c1m;
        a1[i] = a;
        const double da = two ? fabs(a - accp[i]) * h / hs : fabs(a - acc[i]);
        const double aq = fabs(q[i]);
        qs1[i] = aq > qsc[i] ? aq : qsc[i];
        const double w = at + rt * fmax_inline(qsc[i], aq);
        const double noise = 2.0 * (natol + nrtol * aq + phit);
        const double e = fmax_inline(0.0, k * da - noise);
        const double r = e * ts / h / w;
        if (!(r <= worst)) worst = r, wk = i;
    }
    *wi = wk;
    return worst;
}

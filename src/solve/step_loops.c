/*
 * The per-coordinate loops of a step (step_loops.h): two coordinates per vector operation
 * where the compiler has GCC's vector types, the scalar form for the rest (an odd last
 * coordinate, or every coordinate elsewhere). The vector forms do the scalar form's
 * operations lane by lane (IEEE add, subtract, multiply and divide round each lane as the
 * scalar instruction does; fabs and the selections are bit operations), and every max or
 * sum across coordinates is taken lane by lane in ascending order, so both forms give the
 * same bits (tests/test_step_loops.c). Why: these loops were ~5 k instructions per step at
 * 10 rocker elements, and their divisions the step's own hottest instructions
 * (docs/performance.md "The step's own work, session 7").
 */
#include "solve/step_loops.h"

#include <math.h>
#include <string.h>

#if defined(__GNUC__) && !defined(FMB_STEP_LOOPS_SCALAR)
#define FMB_VEC 1
#ifdef __SSE2__
#include <emmintrin.h>
#endif
typedef double v2d __attribute__((vector_size(16)));
typedef long long v2i __attribute__((vector_size(16)));

static inline v2d ld(const double *p) /* unaligned */
{
    v2d x;
    memcpy(&x, p, sizeof x);
    return x;
}
static inline void st(double *p, v2d x)
{
    memcpy(p, &x, sizeof x);
}
static inline v2d splat(double a)
{
    const v2d x = {a, a};
    return x;
}
static inline v2d vabs(v2d x) /* fabs: the sign bit cleared */
{
    const v2i m = {0x7fffffffffffffffLL, 0x7fffffffffffffffLL};
    return (v2d)((v2i)x & m);
}
/* Selections: m ? a : b per lane (m all ones or zero). With SSE2 the comparisons and the
 * selection are written as their instructions: GCC turns the generic form of an or of two
 * comparisons into scalar moves, lane by lane. */
#ifdef __SSE2__
static inline v2d sel(__m128d m, v2d a, v2d b)
{
    return (v2d)_mm_or_pd(_mm_and_pd(m, (__m128d)a), _mm_andnot_pd(m, (__m128d)b));
}
static inline __m128d gt(v2d a, v2d b) /* a > b */
{
    return _mm_cmpgt_pd((__m128d)a, (__m128d)b);
}
/* step.c's fmax_inline(a, b) = a > b || b != b ? a : b, per lane */
static inline v2d vfmax(v2d a, v2d b)
{
    return sel(_mm_or_pd(gt(a, b), _mm_cmpunord_pd((__m128d)b, (__m128d)b)), a, b);
}
#else
static inline v2d sel(v2i m, v2d a, v2d b)
{
    return (v2d)(((v2i)a & m) | ((v2i)b & ~m));
}
static inline v2i gt(v2d a, v2d b)
{
    return a > b;
}
static inline v2d vfmax(v2d a, v2d b)
{
    return sel((a > b) | (b != b), a, b);
}
#endif
#endif

static inline double fmax_inline(double a, double b) /* as in step.c */
{
    return a > b || b != b ? a : b;
}

void fmb_step_predict(int n, double h, double ex, double am, double af, double beta, double gamma,
                      double *q, double *qd, double *qdd, const double *acc, const double *accp)
{
    const double c1m = 1.0 - am, c1f = 1.0 - af, hh = h * h, hb = 0.5 - beta, g1 = 1.0 - gamma;
    int i = 0;
#ifdef FMB_VEC
    for (; i + 2 <= n; i += 2) {
        const v2d a0 = ld(acc + i);
        const v2d a1 = a0 + ex * (a0 - ld(accp + i));
        const v2d qdi = ld(qd + i);
        st(qdd + i, (c1m * a1 + am * a0 - af * ld(qdd + i)) / c1f);
        st(q + i, ld(q + i) + (h * qdi + hh * (hb * a0 + beta * a1)));
        st(qd + i, qdi + h * (g1 * a0 + gamma * a1));
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
#ifdef FMB_VEC
    for (; k + 2 <= m; k += 2) {
        const v2d l = ld(lam + k);
        st(lam + k, l + ex * (l - ld(lamp + k)));
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
#ifdef FMB_VEC
    for (; i + 2 <= n; i += 2) {
        const v2d r = ld(R + i) + ld(Mqdd + i);
        rsum += r[0];
        rsum += r[1];
        st(R + i, c * r);
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
#ifdef FMB_VEC
    for (; i + 2 <= n; i += 2) {
        const v2d d = ld(x + i);
        const v2d qi = ld(q + i) + d;
        st(q + i, qi);
        st(qd + i, ld(qd + i) + cvel * d);
        st(qdd + i, ld(qdd + i) + d / bh2);
        const v2d w = vabs(d) / (atol + rtol * vabs(qi));
        st(wq + i, w);
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
#ifdef FMB_VEC
    for (; k + 2 <= m; k += 2) {
        const v2d dl = ld(x + k) / bh2;
        const v2d nl = ld(lam + k) + dl;
        st(lam + k, nl);
        const v2d l = vabs(nl), a = vabs(dl);
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
#ifdef FMB_VEC
    const v2d zero = splat(0.0);
    for (; i + 2 <= n; i += 2) {
        const v2d ai = c1f * ld(qn + i) + af * ld(qs + i) - am * ld(as + i);
        const v2d a = am0 ? ai : ai / c1m;
        st(a1 + i, a);
        const v2d da = two ? vabs(a - ld(accp + i)) * h / hs : vabs(a - ld(acc + i));
        const v2d aq = vabs(ld(q + i)), qc = ld(qsc + i);
        st(qs1 + i, sel(gt(aq, qc), aq, qc));
        const v2d w = at + rt * vfmax(qc, aq);
        const v2d noise = 2.0 * (natol + nrtol * aq + phit);
        const v2d e = vfmax(zero, k * da - noise);
        const v2d r = e * ts / h / w;
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

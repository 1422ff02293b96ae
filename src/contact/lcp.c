/* Small dense LCPs: Siconos lexicographic Lemke with an independent check, and a
 * brute-force enumeration of complementary bases as the reference (see lcp.h and
 * docs/lcp.md). */
#include "contact/lcp.h"

#include <float.h>
#include <stdarg.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <LCP_Solvers.h>
#include <LinearComplementarityProblem.h>
#include <NumericsMatrix.h>
#include <SolverOptions.h>
#include <lcp_cst.h>

#include "flexmb/flexmb.h"

/* Relative tolerance of the check applied to Lemke's answer. */
#define LCP_CHECK_TOL 1e-9
/* Feasibility tolerance of the enumeration, relative to the problem scale. */
#define ENUM_FEAS_TOL 1e-12
/* Two enumerated solutions closer than this (relative) are the same solution. */
#define ENUM_SAME_TOL 1e-9

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void
set_msg(char *msg, size_t len, const char *fmt, ...)
{
    if (!msg || !len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, len, fmt, ap);
    va_end(ap);
}

/* Infinity norm (largest absolute row sum) of the column-major n x n matrix M. */
static double norm_inf_mat(int n, const double *M)
{
    double best = 0.0;
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < n; j++)
            s += fabs(M[i + (size_t)j * n]);
        if (s > best) best = s;
    }
    return best;
}

static double norm_inf_vec(int n, const double *v)
{
    double best = 0.0;
    for (int i = 0; i < n; i++)
        if (fabs(v[i]) > best) best = fabs(v[i]);
    return best;
}

/* (M z + q)_i for column-major M. */
static double row_residual(int n, const double *M, const double *q, const double *z, int i)
{
    double r = q[i];
    for (int j = 0; j < n; j++)
        r += M[i + (size_t)j * n] * z[j];
    return r;
}

static bool all_finite(size_t count, const double *v)
{
    for (size_t k = 0; k < count; k++)
        if (!isfinite(v[k])) return false;
    return true;
}

/* Check (z, w) against the LCP and clean round-off. Returns the worst relative violation
 * (of w = M z + q, z >= 0, w >= 0 and complementarity; infinite for non-finite values).
 * If it is at most LCP_CHECK_TOL, z and w are overwritten with the cleaned solution
 * (w = M z + q recomputed, exact complementarity, no negative entries). */
static double check_and_clean(int n, const double *M, const double *q, double *z, double *w)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(z[i]) || !isfinite(w[i])) return INFINITY;
    double zs = norm_inf_vec(n, z);
    double ws = norm_inf_vec(n, q) + norm_inf_mat(n, M) * zs;
    if (!isfinite(ws)) return INFINITY;
    double rz = zs > 0.0 ? 1.0 / zs : 0.0, rw = ws > 0.0 ? 1.0 / ws : 0.0;
    double worst = 0.0;
    for (int i = 0; i < n; i++) {
        double r = row_residual(n, M, q, z, i);
        worst = fmax(worst, fabs(w[i] - r) * rw);
        worst = fmax(worst, -z[i] * rz);
        worst = fmax(worst, -r * rw);
        /* Complementarity: one of z_i, w_i is zero relative to its own scale. */
        worst = fmax(worst, fmin(fabs(z[i]) * rz, fabs(r) * rw));
    }
    if (!(worst <= LCP_CHECK_TOL)) return worst;
    for (int i = 0; i < n; i++) {
        double r = row_residual(n, M, q, z, i);
        if (fabs(z[i]) * rz <= fabs(r) * rw) {
            z[i] = 0.0;
            w[i] = r > 0.0 ? r : 0.0;
        } else {
            z[i] = z[i] > 0.0 ? z[i] : 0.0;
            w[i] = 0.0;
        }
    }
    return worst;
}

/* Validate the arguments of the solvers; 0 or FMB_ERR_ARG with a message. */
static int check_args(int n, const double *M, const double *q, const double *z, const double *w,
                      char *msg, size_t len)
{
    if (n < 0 || (n > 0 && (!M || !q || !z || !w))) {
        set_msg(msg, len, "LCP (n = %d): invalid argument", n);
        return FMB_ERR_ARG;
    }
    if (n > 0 && (!all_finite((size_t)n * (size_t)n, M) || !all_finite((size_t)n, q))) {
        set_msg(msg, len, "LCP (n = %d): M or q is not finite", n);
        return FMB_ERR_ARG;
    }
    return 0;
}

int fmb_lcp_lemke(int n, const double *M, const double *q, double *z, double *w, char *msg,
                  size_t len)
{
    int rc = check_args(n, M, q, z, w, msg, len);
    if (rc != 0 || n == 0) return rc;

    /* Wrap the caller's arrays without copying: Siconos only reads M and q. The matrix
     * header lives on the stack and is not cleared (it does not own matrix0). */
    NumericsMatrix nm;
    NM_null(&nm);
    nm.storageType = NM_DENSE;
    nm.size0 = n;
    nm.size1 = n;
    nm.matrix0 = (double *)M;
    LinearComplementarityProblem lcp = {.size = n, .M = &nm, .q = (double *)q};

    /* Solver options on the stack (no allocation); lexicolemke reads iparam[MAX_ITER]
     * and the pivoting parameters set by lcp_lexicolemke_set_default. */
    int iparam[OPTIONS_PARAM_SIZE] = {0};
    double dparam[OPTIONS_PARAM_SIZE] = {0};
    SolverOptions opt;
    memset(&opt, 0, sizeof opt);
    opt.solverId = SICONOS_LCP_LEMKE;
    opt.isSet = true;
    opt.iSize = OPTIONS_PARAM_SIZE;
    opt.iparam = iparam;
    opt.dSize = OPTIONS_PARAM_SIZE;
    opt.dparam = dparam;
    opt.filterOn = false;
    int itermax = 1000 + 100 * n;
    iparam[SICONOS_IPARAM_MAX_ITER] = itermax;
    dparam[SICONOS_DPARAM_TOL] = LCP_CHECK_TOL;
    lcp_lexicolemke_set_default(&opt);

    /* lexicolemke writes z_i, w_i for every basic variable but the artificial z0: an
     * entry left NaN means z0 is still basic, i.e. ray termination or the pivot limit.
     * (Siconos 4.4 reports info = 0 at a ray termination, so info alone is not enough.) */
    for (int i = 0; i < n; i++)
        z[i] = w[i] = NAN;
    int info = -1;
    lcp_lexicolemke(&lcp, z, w, &info, &opt);
    int pivots = iparam[SICONOS_IPARAM_ITER_DONE];
    bool z0_basic = false;
    for (int i = 0; i < n; i++)
        if (isnan(z[i]) && isnan(w[i])) z0_basic = true;
    const char *why = NULL;
    double viol = 0.0;
    if (pivots >= itermax)
        why = "pivot limit reached";
    else if (z0_basic)
        why = "artificial variable z0 still basic";
    else if (info != 0)
        why = "failure reported by Siconos";
    else if (!((viol = check_and_clean(n, M, q, z, w)) <= LCP_CHECK_TOL))
        why = "result violates w = Mz+q, z >= 0, w >= 0, z'w = 0 (relative";
    if (!why) return 0;
    if (viol > 0.0)
        set_msg(msg, len,
                "LCP (n = %d): Siconos lcp_lexicolemke info %d after %d pivots: no solution "
                "found (M not a P-matrix? ray termination): %s %.3g > %.0e)",
                n, info, pivots, why, viol, LCP_CHECK_TOL);
    else
        set_msg(msg, len,
                "LCP (n = %d): Siconos lcp_lexicolemke info %d after %d pivots: no solution "
                "found (M not a P-matrix? ray termination): %s",
                n, info, pivots, why);
    return FMB_ERR_LINSOLVE;
}

int fmb_lcp_solve(int n, const double *M, const double *q, double *z, double *w, char *msg,
                  size_t len)
{
    int rc = fmb_lcp_lemke(n, M, q, z, w, msg, len);
    if (rc != FMB_ERR_LINSOLVE || n > FMB_LCP_FALLBACK_MAX_N) return rc;
    /* Lemke failed: the enumeration either finds a solution or shows there is none. */
    int ns = fmb_lcp_enumerate(n, M, q, z, w);
    if (ns > 0) return 0;
    if (ns == FMB_ERR_NOMEM) return FMB_ERR_NOMEM;
    size_t used = msg ? strlen(msg) : 0;
    if (msg && used + 1 < len)
        set_msg(msg + used, len - used, "; enumeration of the %d complementary bases found none",
                1 << n);
    return FMB_ERR_LINSOLVE;
}

/* Solve the k x k system A x = b in place (A column-major, leading dimension k) by
 * Gaussian elimination with partial pivoting. Returns -1 if a pivot is below tol. */
static int gauss_solve(int k, double *A, double *b, double tol)
{
    for (int c = 0; c < k; c++) {
        int p = c;
        double best = fabs(A[c + (size_t)c * k]);
        for (int r = c + 1; r < k; r++) {
            double v = fabs(A[r + (size_t)c * k]);
            if (v > best) best = v, p = r;
        }
        if (!(best > tol)) return -1;
        if (p != c) {
            for (int j = c; j < k; j++) {
                double t = A[c + (size_t)j * k];
                A[c + (size_t)j * k] = A[p + (size_t)j * k];
                A[p + (size_t)j * k] = t;
            }
            double t = b[c];
            b[c] = b[p];
            b[p] = t;
        }
        double piv = A[c + (size_t)c * k];
        for (int r = c + 1; r < k; r++) {
            double f = A[r + (size_t)c * k] / piv;
            if (f == 0.0) continue;
            for (int j = c + 1; j < k; j++)
                A[r + (size_t)j * k] -= f * A[c + (size_t)j * k];
            b[r] -= f * b[c];
        }
    }
    for (int c = k - 1; c >= 0; c--) {
        double s = b[c];
        for (int j = c + 1; j < k; j++)
            s -= A[c + (size_t)j * k] * b[j];
        b[c] = s / A[c + (size_t)c * k];
    }
    return 0;
}

int fmb_lcp_enumerate_all(int n, const double *M, const double *q, double *zs, int max_sol)
{
    if (n < 0 || n > FMB_LCP_ENUM_MAX_N || (n > 0 && (!M || !q)) || (max_sol > 0 && !zs))
        return FMB_ERR_ARG;
    if (n == 0) return 1; /* the empty solution */

    size_t nn = (size_t)n;
    double *A = malloc(nn * nn * sizeof *A);
    double *b = malloc(nn * sizeof *b);
    double *z = malloc(nn * sizeof *z);
    int *idx = malloc(nn * sizeof *idx);
    double *found = NULL; /* distinct solutions, n doubles each */
    int nfound = 0, cap = 0, status = 0;
    if (!A || !b || !z || !idx) {
        status = FMB_ERR_NOMEM;
        goto done;
    }

    double mmax = 0.0;
    for (size_t k = 0; k < nn * nn; k++)
        if (fabs(M[k]) > mmax) mmax = fabs(M[k]);
    double qs = norm_inf_vec(n, q), mn = norm_inf_mat(n, M);
    /* Below this, a z entry is zero at the scale of the problem. */
    double zfloor = mn > 0.0 ? ENUM_FEAS_TOL * qs / mn : 0.0;

    for (unsigned long mask = 0; mask < (1UL << n); mask++) {
        int k = 0;
        for (int i = 0; i < n; i++)
            if (mask & (1UL << i)) idx[k++] = i;
        double amax = 0.0;
        for (int c = 0; c < k; c++) {
            for (int r = 0; r < k; r++) {
                double v = M[idx[r] + (size_t)idx[c] * nn];
                A[r + (size_t)c * k] = v;
                if (fabs(v) > amax) amax = fabs(v);
            }
            b[c] = -q[idx[c]];
        }
        if (k > 0 && gauss_solve(k, A, b, 64.0 * DBL_EPSILON * k * amax) != 0) continue;
        memset(z, 0, nn * sizeof *z);
        for (int c = 0; c < k; c++)
            z[idx[c]] = b[c];

        double zn = norm_inf_vec(n, z);
        double tz = ENUM_FEAS_TOL * zn + zfloor, tw = ENUM_FEAS_TOL * (qs + mn * zn);
        bool ok = true;
        for (int i = 0; i < n && ok; i++) {
            if (mask & (1UL << i))
                ok = z[i] >= -tz;
            else
                ok = row_residual(n, M, q, z, i) >= -tw;
        }
        if (!ok) continue;
        for (int i = 0; i < n; i++)
            if (z[i] < 0.0) z[i] = 0.0;

        bool dup = false;
        for (int s = 0; s < nfound && !dup; s++) {
            const double *o = found + (size_t)s * nn;
            double d = 0.0, sc = fmax(zn, norm_inf_vec(n, o));
            for (int i = 0; i < n; i++)
                d = fmax(d, fabs(z[i] - o[i]));
            dup = d <= ENUM_SAME_TOL * sc + zfloor;
        }
        if (dup) continue;
        if (nfound == cap) {
            int ncap = cap ? 2 * cap : 8;
            double *nf = realloc(found, (size_t)ncap * nn * sizeof *nf);
            if (!nf) {
                status = FMB_ERR_NOMEM;
                goto done;
            }
            found = nf, cap = ncap;
        }
        memcpy(found + (size_t)nfound * nn, z, nn * sizeof *z);
        if (nfound < max_sol) memcpy(zs + (size_t)nfound * nn, z, nn * sizeof *z);
        nfound++;
    }
    status = nfound;
done:
    free(A), free(b), free(z), free(idx), free(found);
    return status;
}

int fmb_lcp_enumerate(int n, const double *M, const double *q, double *z, double *w)
{
    if (n < 0 || n > FMB_LCP_ENUM_MAX_N) return FMB_ERR_ARG;
    double *first = NULL;
    if (n > 0) {
        first = calloc((size_t)n, sizeof *first);
        if (!first) return FMB_ERR_NOMEM;
    }
    int count = fmb_lcp_enumerate_all(n, M, q, first, 1);
    if (count > 0 && n > 0) {
        for (int i = 0; i < n; i++) {
            if (z) z[i] = first[i];
            if (w) w[i] = first[i] > 0.0 ? 0.0 : fmax(row_residual(n, M, q, first, i), 0.0);
        }
    }
    free(first);
    return count;
}

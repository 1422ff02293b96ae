/* Small dense linear complementarity problems (LCP), private to flexmb.
 *
 * Find z, w in R^n with
 *     w = M z + q,   w >= 0,   z >= 0,   w^T z = 0,
 * M dense n x n stored column-major (M(i, j) = M[i + j * n]).
 *
 * fmb_lcp_solve is the production solver: Siconos numerics' lexicographic Lemke
 * (fmb_lcp_lemke), checked, with the enumeration as fallback for small n.
 * fmb_lcp_enumerate / fmb_lcp_enumerate_all try every complementary basis and are the
 * independent reference used by the tests (exponential cost: small n only).
 * See docs/lcp.md. */
#ifndef FMB_CONTACT_LCP_H
#define FMB_CONTACT_LCP_H

#include <stddef.h>

/* Largest n accepted by the enumeration (2^n bases, each an O(n^3) solve). */
#define FMB_LCP_ENUM_MAX_N 20
/* Largest n for which fmb_lcp_solve falls back to the enumeration when Lemke fails
 * (4096 bases, about a millisecond). */
#define FMB_LCP_FALLBACK_MAX_N 12

/* Solve the LCP (M, q) with lexicographic Lemke (Siconos lcp_lexicolemke) only.
 * n >= 0; M (n x n, column-major) and q (n) are read only; z and w (n each) receive the
 * solution. The result is checked independently (w recomputed as M z + q, feasibility and
 * complementarity relative to |q|_inf + |M|_inf |z|_inf for w and |z|_inf for z, 1e-9);
 * round-off below that tolerance is cleaned on return (z, w >= 0, z_i w_i = 0 exactly).
 * Returns 0 on success; FMB_ERR_ARG for a bad argument or a non-finite M or q;
 * FMB_ERR_LINSOLVE when Lemke finds no solution (ray termination or pivot limit: M not
 * a P-matrix, the LCP infeasible, or round-off on a degenerate singular problem) or its
 * answer fails the check. On failure msg (len bytes, may be NULL) says why, with n, the
 * Siconos info code and the pivot count; z, w are then not a solution.
 * Thread-safe; allocates only inside Siconos (O(n^2) doubles per call). */
int fmb_lcp_lemke(int n, const double *M, const double *q, double *z, double *w, char *msg,
                  size_t len);

/* As fmb_lcp_lemke, and when Lemke fails with n <= FMB_LCP_FALLBACK_MAX_N, fall back to
 * fmb_lcp_enumerate: its first solution is returned (0) or, if it finds none, the LCP has
 * no solution and FMB_ERR_LINSOLVE is returned with Lemke's message followed by
 * "; enumeration of the 2^n complementary bases found none". FMB_ERR_NOMEM if the
 * fallback cannot allocate. */
int fmb_lcp_solve(int n, const double *M, const double *q, double *z, double *w, char *msg,
                  size_t len);

/* Brute-force reference: for every subset B of {0..n-1} solve M_BB z_B = -q_B (Gaussian
 * elimination with partial pivoting; near-singular M_BB skipped), z_N = 0, and keep the
 * basis if z_B >= 0 and w_N = (M z + q)_N >= 0 (relative tolerance 1e-12). Distinct
 * solutions (z within 1e-9 relative of one already found) are counted once.
 * Stores the first solution found in z and w (either may be NULL).
 * Returns the number of distinct solutions (0: none found), FMB_ERR_ARG if n < 0 or
 * n > FMB_LCP_ENUM_MAX_N or M, q are NULL with n > 0, FMB_ERR_NOMEM on allocation
 * failure. Meant for tests and as a documented last-resort fallback for tiny n. */
int fmb_lcp_enumerate(int n, const double *M, const double *q, double *z, double *w);

/* As fmb_lcp_enumerate, and also stores up to max_sol distinct solutions z (n each,
 * solution k at zs[k * n]) in zs (may be NULL when max_sol is 0). The return value
 * counts all distinct solutions, including those beyond max_sol. */
int fmb_lcp_enumerate_all(int n, const double *M, const double *q, double *zs, int max_sol);

#endif

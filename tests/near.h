/* A fast path against its reference, to rounding (the C tests that check an unrolled,
 * inlined or two-lane form of a computation against its plain form).
 *
 * Two evaluations of one formula in different operation orders differ by their rounding:
 * each is within gamma_k * m of the exact value, where k is the number of operations on
 * the longest path, gamma_k = k u / (1 - k u), u = DBL_EPSILON / 2 the unit roundoff, and
 * m the formula evaluated on the absolute values of its terms (sum |terms| for a sum,
 * |a| |b| for a product: Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed.,
 * sections 3.1-3.4). So the two differ by at most 2 gamma_k m ~ k eps m. The tests state
 * k (or a bound for it) and the magnitude m of every compared value; a fast path that drops
 * a term, uses a wrong coefficient or reads a stale value is off by about the size of a
 * term, orders of magnitude above k eps m.
 *
 * Special values are compared by class, not by bits: a NaN must be a NaN in both (a NaN's
 * sign and payload depend on the order of the operands, which the compiler may swap), an
 * infinity the same infinity, and a finite value finite in both. */
#ifndef FMB_TESTS_NEAR_H
#define FMB_TESTS_NEAR_H

#include <float.h>
#include <math.h>

#define NEAR_EPS DBL_EPSILON

/* a and b agree to tol (finite), or are both NaN, or the same infinity */
static inline int near_tol(double a, double b, double tol)
{
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    if (isinf(a) || isinf(b)) return a == b;
    return fabs(a - b) <= tol;
}

/* the bound of a formula of k operations on values of magnitude m: (k + 1) eps m, above
 * 2 gamma_k m = k eps m / (1 - k u) for any k < 2^51; a non-finite magnitude (an Inf or NaN among
 * the terms) leaves the class check of near_tol */
static inline double near_bound(int k, double m)
{
    return isfinite(m) ? (k + 1) * NEAR_EPS * m : INFINITY;
}

#endif

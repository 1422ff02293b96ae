/* The per-coordinate loops of a step (step.c): the predictor, the residual's scaling, the
 * Newton update with its increment norm, and the candidate's a_{n+1} with its error
 * estimate. Each computes exactly the operations of its scalar form (stated with each
 * function, the form step.c had), in the same order per coordinate, and its maxima and
 * sums over the coordinates in ascending order, so the results are bitwise those of the
 * scalar form; two coordinates share one instruction where the compiler has vector types
 * (GCC, Clang: SSE2 on x86-64, every IEEE lane rounding as the scalar instruction does).
 * tests/test_step_loops.c compares each with its scalar form to rounding (the results do
 * not depend on that order beyond it). */
#ifndef FMB_SOLVE_STEP_LOOPS_H
#define FMB_SOLVE_STEP_LOOPS_H

/* Predictor with extrapolated a_{n+1} = a0 + ex (a0 - accp), for i < n:
 *   qdd = ((1 - am) a1 + am a0 - af qdd) / (1 - af)
 *   q  += h qd + h h ((1/2 - beta) a0 + beta a1)     (qd: before its update)
 *   qd += h ((1 - gamma) a0 + gamma a1) */
void fmb_step_predict(int n, double h, double ex, double am, double af, double beta, double gamma,
                      double *q, double *qd, double *qdd, const double *acc, const double *accp);
/* lam[k] += ex (lam[k] - lamp[k]), k < m */
void fmb_step_extrapolate(int m, double ex, double *lam, const double *lamp);
/* r_i = R_i + Mqdd_i; R_i = -bh2 r_i; returns the sum of the r_i in ascending order */
double fmb_step_scale_residual(int n, double bh2, double *R, const double *Mqdd);
/* Newton update of the state by the increment x, i < n:
 *   q += x; qd += cvel x; qdd += x / bh2; wq = |x| / (atol + rtol |q|)
 * returns the largest wq by `if (!(w <= max)) max = w` in ascending order from 0 */
double fmb_step_update(int n, const double *x, double cvel, double bh2, double atol, double rtol,
                       double *q, double *qd, double *qdd, double *wq);
/* Multipliers: dl = x / bh2, lam += dl; *lmax and *dlmax (from 0) the largest |lam| and
 * |dl| by fmax_inline (step.c) in ascending order */
void fmb_step_update_lam(int m, const double *x, double bh2, double *lam, double *lmax,
                         double *dlmax);

/* The error estimate's pass (step.c error_estimate), i < n:
 *   ai = (1 - af) qn + af qs - am as;  a1 = am == 0 ? ai : ai / (1 - am)   (stored)
 *   da = hp > 0 ? |a1 - accp| h / (h + hp) : |a1 - acc|
 *   qs1 = |q| > qsc ? |q| : qsc                                            (stored)
 *   w = at + rt fmax(qsc, |q|);  noise = 2 (natol + nrtol |q| + phit)
 *   e = fmax(0, k da - noise) with k = (cq + cv) h h;  r = e ts / h / w
 * returns the worst r (`if (!(r <= worst))`, from 0) and its coordinate in *wi (-1: none) */
typedef struct fmb_step_err {
    double am, af, h, hp, k, at, rt, natol, nrtol, phit, ts;
} fmb_step_err_t;
double fmb_step_error(int n, const fmb_step_err_t *p, const double *qn, const double *qs,
                      const double *as, const double *acc, const double *accp, const double *q,
                      const double *qsc, double *a1, double *qs1, int *wi);

#endif

/* The periodic solver's private state and the functions its three files share
 * (docs/theory.md section 13): periodic.c (the API: set-up, the solve's driver, results),
 * periodic_map.c (the period map and its exact derivative), periodic_newton.c (Newton with
 * the dense monodromy, Newton-Picard, Floquet multipliers). */
#ifndef FMB_SOLVE_PERIODIC_H
#define FMB_SOLVE_PERIODIC_H

#include "flexmb/periodic.h"
#include "solve/sim_internal.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

extern void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
                   const int *ldb, int *info);
extern void dgeev_(const char *jobvl, const char *jobvr, const int *n, double *a, const int *lda,
                   double *wr, double *wi, double *vl, const int *ldvl, double *vr, const int *ldvr,
                   double *work, const int *lwork, int *info);

#define PER_MAXIT 64
/* largest Newton-Picard subspace */
#define FMB_PERIODIC_PMAX 16
/* halvings of an update whose pass failed (pass_damped) */
#define FMB_PERIODIC_BACKTRACK 4
/* a Ritz pair with |J v - mu v| / |v| above this is not taken as a multiplier */
#define FMB_PERIODIC_RITZ_TOL 1e-6
/* passes of the subspace method's Floquet analysis at most */
#define FMB_PERIODIC_FLOQUET_PASSES 12
/* directions of the subspace method's Floquet analysis */
#define FMB_PERIODIC_FLOQUET_DIM 8

struct fmb_periodic {
    fmb_sim_t *s;
    int n, m;
    double t0, T, h;
    long N;
    double *x;            /* 4n: current iterate */
    double *y;            /* 4n: P(x) */
    double *g;            /* 4n: residual P(x) - x */
    double *scale;        /* 4n: largest |x_i| over the last pass */
    double *lam0;         /* m: multipliers at the start (Newton's first guess) */
    unsigned char *angle; /* n: carrier angle coordinates (periodic modulo 2 pi) */
    double *Y;            /* 4n x 3n: dx_n / dw_0 */
    double *J;            /* 4n x 4n: monodromy at the last tangent pass */
    double *A;            /* (4n)^2 scratch (Newton matrix, eigen problem) */
    double *B;            /* (n + m) x 3n: right-hand sides of the tangent solves */
    double *v1, *v2;      /* n + m each: products */
    fmb_kkt_t kK, kC;
    int have_J;
    int iters, passes, tpasses;
    double res[PER_MAXIT + 1];
    double res_acc; /* the (a, qdd) part of the last residual (not tested) */
    double *sig;    /* 4n: the residual's scale of each state entry (group scales) */
    double *sigV;   /* 4n: the Newton-Picard space's scales (the first pass's sig) */
    /* Newton-Picard: basis V, its images Z = J V, S = V^T Z (scaled state), scratch */
    int pmax, np_dim, ritz, method;
    double ritz_res;    /* |J v - mu v| / |v| of the largest Ritz pair at the orbit */
    int project;        /* 1: the first guess was given (fmb_periodic_set_guess): project it */
    int np_failed;      /* a subspace pass failed: the dense method took over */
    int backtracks;     /* halved updates (pass_damped) */
    double *xlast;      /* 4n: the last iterate whose pass completed */
    int floquet_passes; /* passes of the subspace Floquet analysis */
    int vstride;        /* V's column length for the Ritz vectors (4n) */
    double *V, *Z, *S, *rs, *vr, *dp, *Za;
    int *ipiv;
    int nmult;
    double *mre, *mim; /* 3n: multipliers by decreasing modulus */
    double *mvec;      /* 3n x 3n: eigenvectors of W Y (dgeev layout), sorted like the values */
    int *order;
    double bound;
};

double *fmb_periodic_dalloc(size_t n);
/* Eigenvector i of the last eigen problem (size ld, p->mvec): its real and imaginary
 * columns (*im NULL when real), *conj when it is the conjugate of the stored one. */
void fmb_periodic_eigvec(const fmb_periodic_t *p, int i, int ld, const double **re,
                         const double **im, int *conj);

/* ---- periodic_map.c */
/* The sim at state x (4n), time t0, with a fresh step history (as after a restart). */
void fmb_periodic_set_state(fmb_periodic_t *p, const double *x);
void fmb_periodic_get_state(const fmb_periodic_t *p, double *x);
/* One pass over the period from x: y = P(x); with ncol > 0 the columns of Y propagated too
 * (unit: Y = dx_N/dw_0, the dense monodromy; else Y's columns dx_0 -> J dx_0). */
int fmb_periodic_pass(fmb_periodic_t *p, const double *x, double *y, double *Y, int ncol, int unit,
                      volatile const int *stop);
/* The same at p->x, halving a failed update towards p->xlast (damped Newton). */
int fmb_periodic_pass_damped(fmb_periodic_t *p, int it, double *Y, int ncol, int unit,
                             volatile const int *stop);
/* G = P(x) - x into p->g, its scaled max norm over (q, qd); *acc_res: over (a, qdd). */
double fmb_periodic_residual_norm(fmb_periodic_t *p, double *acc_res);

/* ---- periodic_newton.c */
void fmb_periodic_form_monodromy(fmb_periodic_t *p); /* J = Y W */
int fmb_periodic_newton_step(fmb_periodic_t *p);     /* (J - I) dx = -G */
double fmb_periodic_algorithmic_radius(const fmb_sim_t *s, double h);
int fmb_periodic_floquet_dense(fmb_periodic_t *p);
/* 0 converged, 1 hand over to the dense method (dense non-NULL) or not converged, < 0 */
int fmb_periodic_newton_picard(fmb_periodic_t *p, const fmb_periodic_options_t *o, int maxit,
                               int *dense);
int fmb_periodic_floquet_dominant(fmb_periodic_t *p, const fmb_periodic_options_t *o, int k0);
int fmb_periodic_dense_newton(fmb_periodic_t *p, const fmb_periodic_options_t *o, int it0,
                              int maxit);

#endif

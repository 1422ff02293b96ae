/*
 * Periodic steady state of a driven mechanism and its stability (src/solve/periodic.c;
 * docs/theory.md section 13, docs/case-format.md "flexmb periodic").
 *
 * The integrator's own discrete map over one period T, x_0 -> x_N (N fixed steps of
 * h = T / N), acts on the full algorithmic state x = (q, qd, a, qdd) (coordinates,
 * velocities, the generalized-alpha variable a and the accelerations). A periodic orbit is
 * a fixed point x = P(x), carrier angles taken modulo 2 pi. It is found by shooting:
 * Newton on P(x) - x with the exact monodromy J = dP/dx, propagated through every step's
 * linearization with the step's KKT matrix factored at the converged state (no finite
 * differences). The Floquet multipliers are the eigenvalues of J.
 *
 * Scope: smooth models (rigid and elastic bodies, joints, drivers, springs, damping,
 * sliders on elastic guides). Frictional slider contacts, switching elements (gap,
 * ratchet, dry friction, screw) and forces with events or history (clearance joints) make
 * the map non-smooth: fmb_periodic_create refuses them, naming the element.
 */
#ifndef FLEXMB_PERIODIC_H
#define FLEXMB_PERIODIC_H

#include "flexmb/flexmb.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fmb_periodic fmb_periodic_t;

/* Newton's matrix: FMB_PERIODIC_DENSE the whole monodromy (3n columns propagated per pass,
 * every multiplier); FMB_PERIODIC_SUBSPACE Newton-Picard (a few columns: Newton on the
 * dominant multipliers' subspace, fixed-point iteration on the rest; the largest
 * multipliers only); FMB_PERIODIC_AUTO (default) subspace, switching to dense when the
 * rest does not contract and 3n <= FMB_PERIODIC_DENSE_MAX (docs/theory.md section 13). */
typedef enum {
    FMB_PERIODIC_AUTO = 0,
    FMB_PERIODIC_DENSE,
    FMB_PERIODIC_SUBSPACE
} fmb_periodic_method;
#define FMB_PERIODIC_DENSE_MAX 600 /* columns (3 n) of the dense monodromy */

typedef struct fmb_periodic_options {
    double period;              /* s; 0 (default): 2 pi / |f'| of the constant-rate drivers */
    fmb_periodic_method method; /* default FMB_PERIODIC_AUTO */
    double tol;                 /* residual / state scale to stop at; default 1e-8 */
    int max_iter;               /* Newton iterations; default 12 */
    int floquet; /* 1 (default): multipliers of the converged orbit (the subspace method: its
                    Ritz values, the largest moduli); 2: every multiplier (the subspace
                    method then adds one dense pass at the orbit); 0: none */
    /* called after every Newton iteration with its residual (may be NULL) */
    void (*progress)(int iteration, double residual, void *user);
    void *user;
    volatile const int *stop; /* polled every step (may be NULL) */
} fmb_periodic_options_t;

void fmb_periodic_options_default(fmb_periodic_options_t *o);

/* A shooting solver for sim (initialized: its state is the first guess). Returns NULL
 * with the reason in fmb_sim_last_error(sim) for a model outside the scope above. */
fmb_periodic_t *fmb_periodic_create(fmb_sim_t *sim);
void fmb_periodic_destroy(fmb_periodic_t **p);

/* The period of the case's drivers (constant-rate drivers: 2 pi / |f'|), or
 * FMB_ERR_NOTFOUND with a message when there is none or they disagree. */
int fmb_periodic_detect_period(fmb_periodic_t *p, double *period);

/* Replace the first guess by a state x (4 n values: q, qd, a, qdd; n =
 * fmb_model_num_coords) at the sim's start time, e.g. a neighbouring orbit. */
int fmb_periodic_set_guess(fmb_periodic_t *p, const double *x);

/* Shooting. 0 when converged (the sim is then at the orbit's start state, time t0);
 * FMB_ERR_CONVERGENCE (message in fmb_sim_last_error) when not, or another negative
 * status. */
int fmb_periodic_solve(fmb_periodic_t *p, const fmb_periodic_options_t *o);

/* After a solve: the sim set at the orbit's start (time t0, fresh step history, zero
 * statistics and work), to run `periods` periods with the shooting's fixed step
 * (opts.h = T / N, opts.t_end = t0 + periods T, fixed steps) with fmb_sim_run. */
int fmb_periodic_prepare_run(fmb_periodic_t *p, int periods);

/* Results (after fmb_periodic_solve). */
double fmb_periodic_period(const fmb_periodic_t *p);
long fmb_periodic_steps(const fmb_periodic_t *p);     /* steps per period N */
int fmb_periodic_iterations(const fmb_periodic_t *p); /* Newton iterations made */
/* residual of iterate k = 0 .. iterations (the scaled max norm of P(x_k) - x_k) */
double fmb_periodic_residual(const fmb_periodic_t *p, int k);
const double *fmb_periodic_state(const fmb_periodic_t *p); /* x (4 n), the last iterate */
/* Floquet multipliers, by decreasing modulus: count, and the k-th (re, im). */
int fmb_periodic_num_multipliers(const fmb_periodic_t *p);
void fmb_periodic_multiplier(const fmb_periodic_t *p, int k, double *re, double *im);
/* Modulus below which a multiplier cannot be told from the integrator's own decay of
 * constrained directions and of its spurious root (its amplification at infinite
 * frequency, to the power N). */
double fmb_periodic_algorithmic_bound(const fmb_periodic_t *p);
/* The eigenvector of multiplier k restricted to the coordinates (n values: real part,
 * then n: imaginary part), scaled to unit largest modulus; 0 or FMB_ERR_ARG. */
int fmb_periodic_mode(const fmb_periodic_t *p, int k, double *re, double *im);
/* Cost: nonlinear passes over the period, and those that propagated the monodromy (whole
 * or a subspace). */
void fmb_periodic_passes(const fmb_periodic_t *p, int *passes, int *tangent_passes);
/* The method the solve ended with (FMB_PERIODIC_DENSE or FMB_PERIODIC_SUBSPACE) and, for the
 * subspace method, its dimension at the end (the multipliers are its Ritz values). */
fmb_periodic_method fmb_periodic_method_used(const fmb_periodic_t *p, int *subspace_dim);
/* 1 when the multipliers are the subspace's Ritz values (the largest moduli only), 0 when
 * they are every eigenvalue of the dense monodromy at the orbit. */
int fmb_periodic_multipliers_are_ritz(const fmb_periodic_t *p);
/* The monodromy J (4 n x 4 n, column-major) at the last tangent pass (NULL: none). */
const double *fmb_periodic_monodromy(const fmb_periodic_t *p);
/* The period map alone at state x (4 n): y = P(x) (tests: finite differences). */
int fmb_periodic_map(fmb_periodic_t *p, const double *x, double *y);

#ifdef __cplusplus
}
#endif
#endif

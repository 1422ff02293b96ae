/* What a run records about itself (fmb_sim_get_stats, the failure advice, bench/fmb_bench
 * -v) and the tests' observer of accepted steps: the statistics, the Newton trace, the error
 * estimate's history and the counters of limited and rejected steps. Written by the step and
 * step control (step.c, stepctl.c), the start (start.c, static_start.c) and the restarts
 * (restart.c); read by sim_access.c, the failure messages (stepctl.c) and the writer
 * (io/writer_attrs.c). Nothing the integrator decides depends on it, except the accept hook
 * that tests set. Part `diag` of struct fmb_sim (solve/sim.h). */
#ifndef FMB_SOLVE_SIM_DIAG_H
#define FMB_SOLVE_SIM_DIAG_H

#include "flexmb/flexmb.h"

/* Newton iteration counts of fmb_sim_try_step, by the matrix the step started on (index
 * 0: factored in the step, 1: kept from an earlier step) -- bench/fmb_bench -v. */
#define FMB_TRACE_MAXIT 12
typedef struct fmb_newton_trace {
    long steps[2];                      /* try_step calls */
    long iters[2][FMB_TRACE_MAXIT + 1]; /* histogram of iterations per step (last bin: more) */
    /* failed convergence tests after an increment, by the criteria that failed (bit 1:
     * scaled increment of q, 2: |Phi|, 4: multiplier increment, also where it is not
     * required), index: the matrix of the increment (0 factored in this step, 1 kept) */
    long fail[2][8];
    long last[2][8];             /* the same, each step's last failed test only */
    long drop_limit, drop_ratio; /* kept matrices refreshed: iteration limit, contraction */
    long phi_evals, force_evals; /* evaluations of Phi and of the residual */
} fmb_newton_trace_t;

typedef struct fmb_sim_diag {
    fmb_sim_stats_t stats;
    fmb_newton_trace_t trace; /* where the Newton iterations go (step.c; bench/fmb_bench -v) */
    int last_iters;           /* Newton iterations of the last accepted step */
    double err_hist_max;      /* largest error ratio seen, accepted or not (failure advice) */
    double err_hist_h;        /* the step that gave it */
    long n_over;              /* accepted steps with a ratio above stepctl.c's RESCUE_LIMIT */
    long *err_lim;            /* adaptive: accepted steps whose error ratio was above
                                 ERR_LIMITED (stepctl.c) counted per worst coordinate (n) */
    long n_err_lim;           /* their total */
    int static_iterations;    /* iterations of the quasi-static start (0: rigid start) */
    double rej_h, rej_t, rej_ratio; /* last rejection by the error estimate */
    double restart_t;               /* time of the last restart (fmb_sim_restart), -1: none */
    /* tests only: called by the step loop with each accepted candidate before it is
     * committed (s->st.save: the state at t_n; s->st.q...: the candidate at t_n + h) */
    void (*accept_hook)(fmb_sim_t *s, double h, void *user);
    void *accept_hook_user;
} fmb_sim_diag_t;

#endif

/* The integrator's state (docs/theory.md sections 4-6): the accepted state at t and, while a
 * step is tried, the candidate at t + h in the same arrays with the accepted one in save;
 * the accepted steps' history that the predictor and the error estimate read; the work
 * column. Written by the start (start.c, static_start.c), the step (step.c: try_step writes
 * the candidate, fmb_sim_commit_step the history, fmb_sim_reject_step restores save), the
 * restarts (restart.c, start_lcp.c, switch_step.c) and the periodic map (periodic_map.c);
 * read everywhere. Part `st` of struct fmb_sim (solve/sim.h). */
#ifndef FMB_SOLVE_SIM_STATE_H
#define FMB_SOLVE_SIM_STATE_H

typedef struct fmb_sim_state {
    double t;
    double *q, *qd, *qdd, *lam; /* n, n, n, m */
    double *acc;                /* n: the generalized-alpha acceleration-like variable a_n */
    double *save;               /* backup of q, qd, qdd, acc, lam for step rejection */
    double *accp;               /* a_{n-1} (the two-step difference of the estimate) */
    double *accpp;              /* a_{n-2} (alternation test of the estimate) */
    double *lamp;       /* lambda_{n-1} (the predictor's extrapolation; valid when nhist >= 1) */
    long nhist;         /* accepted steps since the start or the last restart */
    double h_prev;      /* the last accepted step (0 before the first) */
    double W, P;        /* work of non-conservative forces and drivers; last power */
    double *vel_change; /* 3 per body: start projection minus given velocity (inertial) */
} fmb_sim_state_t;

#endif

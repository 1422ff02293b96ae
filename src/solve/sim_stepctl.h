/* Step control and the integrator's workspace (docs/theory.md "Local error estimate and
 * step control"): the candidate step's error estimate and Newton record, the proposed next
 * step, the constants that decide whether a factorization is kept across steps, and the
 * scratch arrays of a step. Written by the step (step.c: try_step the candidate's fields,
 * the Newton constants and the keep counters; fmb_sim_commit_step qscale), by step control
 * (stepctl.c: h_next, ev_cap) and by the start and the restarts (start.c, restart.c: reset);
 * sim.c allocates the arrays. Part `ctl` of struct fmb_sim (solve/sim.h). */
#ifndef FMB_SOLVE_SIM_STEPCTL_H
#define FMB_SOLVE_SIM_STEPCTL_H

/* Scale of a coordinate a driver prescribes (fixed steps): left out of the error estimate */
#define FMB_DRIVEN_SCALE 1e300

typedef struct fmb_sim_ctl {
    double *zero;       /* m zeros */
    double *work;       /* scratch: 4 * (n + m) (residual, increment, phi + M qdd, contact rhs) */
    double *qscale;     /* largest |q_i| so far (the scale of rtol_step) */
    double *qscale1;    /* n: qscale with the candidate's |q| (error_estimate; swapped in by
                           fmb_sim_commit_step) */
    double *acc1;       /* a_{n+1} of the candidate step (committed into acc on acceptance) */
    double *wq;         /* n: the first increment's scaled entries (first_blocks) */
    double *eq;         /* n: the coordinates' local errors for step_error (NULL: none) */
    double err_ratio;   /* error estimate of the candidate step / tolerance (1: at it) */
    int err_coord;      /* its worst coordinate */
    int err_alt;        /* 1: its accelerations alternate over the last three steps (the index-3
                           transient of a velocity mismatch; stepctl.c restarts) */
    double cand_viol;   /* constraint violation of the candidate */
    int cand_iters;     /* Newton iterations of the candidate */
    int cand_once;      /* 1: the candidate was accepted after one increment (step.c); 2: the
                           same on a renewed pair of constants (newton_K_old) */
    double t_span;      /* t_end - start time: the error per unit step is scaled by it */
    double h_next;      /* proposed next step (adaptive) */
    double ev_cap;      /* elements' cap on the next step (step_control; 0: none), kept
                           across record targets and fmb_sim_step calls */
    double h_last_try;  /* h of the previous try_step (newton_stale when it changes) */
    int newton_stale;   /* 1: h changed or a step was rejected since the last factorization;
                           a solver that keeps its iteration matrix across steps must refactor
                           (and clear it) */
    int keep_pause;     /* steps before a factorization may be kept across steps again */
    int keep_age;       /* steps started on the factorization since it was made (step.c
                           FMB_KEEP_AGE) */
    int keep_force;     /* tests: keep factorizations across steps whatever the system's size
                           (step.c FMB_KEEP_MIN_N) */
    long kkt_iter;      /* kkt.nnumeric of the integrator's last iteration matrix (0: none) */
    double newton_K[4]; /* Newton's observed second increments |dq_2|, |dlambda_2| on a
                           matrix factored at the step's predictor (floored, step.c), the
                           last measurement and the one before (0: none) */
    double *newton_B;   /* 3 x newton_nb: the first increment's largest scaled entry per
                           block (each body's rigid and elastic coordinates, the
                           multipliers): this step's, the last measurement's, the one before */
    double *newton_D;   /* 2 x newton_nb: the divisors of the last two measurements,
                           max(B_m,b, FMB_NEWTON_B_FLOOR max B_m) (step.c), made when they
                           are measured instead of at every step */
    int newton_nb;
    int newton_K_age; /* steps since newton_K was measured */
    int newton_K_old; /* 1: newton_K[2..3] were measured more than FMB_NEWTON_K_AGE steps
                         before newton_K[0..1] (a pair renewed after it expired; step.c) */
} fmb_sim_ctl_t;

#endif

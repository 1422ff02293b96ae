/* The one header through which tests reach the solver's internals (not part of the public
 * API, not installed): test-only switches and observers of a run, as functions on the
 * opaque fmb_sim_t, so that a solver-level test includes flexmb/flexmb.h and this header
 * alone and does not depend on the layout of struct fmb_sim (solve/sim.h).
 *
 * Tests that check the solver's internal functions on states they build include
 * solve/sim_internal.h instead: the residual, the assembly and the joints' memo
 * (test_joint_memo.c, test_phi_views.c, both through tests/kkt_dense.h, and the beam tests
 * that drive the beam kernels through them: test_beam_resid.c, test_beam_simd.c,
 * test_beam_tangent.c, test_beam_tangent_pos.c, test_slider_cache.c). Element-level unit
 * tests (beam kernels, the KKT matrix, the joints, the contact laws) include their
 * module's private header. */
#ifndef FMB_SOLVE_TEST_HOOKS_H
#define FMB_SOLVE_TEST_HOOKS_H

#include "flexmb/flexmb.h"

/* Called by the step loop with each accepted candidate before it is committed: fmb_sim_time
 * is still t_n, h the step, fmb_sim_q/qd/qdd the candidate at t_n + h. NULL: none. */
typedef void (*fmb_test_accept_fn)(fmb_sim_t *sim, double h, void *user);
void fmb_test_set_accept_hook(fmb_sim_t *sim, fmb_test_accept_fn fn, void *user);

/* Keep factorizations across steps whatever the system's size (step.c FMB_KEEP_MIN_N);
 * set before fmb_sim_initialize. */
void fmb_test_set_keep_force(fmb_sim_t *sim, int on);

/* The generalized-alpha acceleration-like variable a_n of the accepted state (n values;
 * inside the accept hook: still a_n). */
const double *fmb_test_acc(const fmb_sim_t *sim);

/* The LCP unknowns z[0..3] (totals) of the last iterate of the switching element of model
 * force `force` (solve/sim_contact.h fmb_switch_t); FMB_ERR_NOTFOUND if it is none. */
int fmb_test_switch_z(const fmb_sim_t *sim, int force, double z[4]);

/* The run's frictional sliding contacts (contact/friction.h fmb_contact_t): their number;
 * contact k's Delassus value w of the sliding direction at the last step's contact
 * problem (1/kg, 0 before a step), its sliding velocity at the last accepted state (v_n)
 * and at the current iterate (v), m/s, the law's stick velocity (model/params.h
 * fmb_friction_stick_velocity), corner normal forces F (N) and LuGre bristle state z at
 * the current iterate; FMB_ERR_NOTFOUND if k is out of range. */
typedef struct fmb_test_contact {
    double minv, v_n, v, v_stick, F[4], z;
} fmb_test_contact_t;
int fmb_test_num_contacts(const fmb_sim_t *sim);
int fmb_test_contact(const fmb_sim_t *sim, int k, fmb_test_contact_t *out);

/* The contacts' step cap at the present state (contact_stepctl.c
 * fmb_sim_contact_step_control): lowers *h_max, says why in why[len]. */
int fmb_test_contact_step_control(fmb_sim_t *sim, double h, double *h_max, char *why, size_t len);

/* Reserve in the iteration matrix's pattern every column the moving elements (a slider on
 * a beam guide) can ever reach instead of the window near their state (model.h reach(),
 * fmb_reach_elements); set before fmb_sim_initialize (the first assembly). */
void fmb_test_set_reach_all(fmb_sim_t *sim, int on);

/* The first joint with a reach (a slider on a beam guide: model.h reach()), its guide's
 * number of elements and its window fmb_reach_elements(nel); FMB_ERR_NOTFOUND if none. */
int fmb_test_reach_joint(const fmb_sim_t *sim, int *joint, int *nel, int *window);

/* The iteration matrix (kkt.c): symbolic analyses so far and entries of its pattern. */
void fmb_test_kkt_pattern(const fmb_sim_t *sim, long *nsymbolic, int *nnz);

/* Forget the accepted state's accelerations and forces: qdd and lambda set to 0, and
 * contact k's corner normal forces (with coulomb != 0 its Coulomb face forces beta too),
 * so that a restart must re-solve them. */
void fmb_test_zero_forces(fmb_sim_t *sim, int k, int coulomb);

/* Restart at the current state (restart.c fmb_sim_restart: velocity projection,
 * accelerations, multipliers and contact forces re-solved, fresh step history). */
int fmb_test_restart(fmb_sim_t *sim);

/* The velocities v projected in the mass metric onto the velocity constraints at the
 * current state (start.c fmb_sim_mass_projection; with the drivers' Phi_t): x, n + m
 * values ([projected v; multipliers]); the run's velocities are left as they are. */
int fmb_test_mass_projection(fmb_sim_t *sim, const double *v, double *x);

/* A beam body's nodes (bodies/beam.h fmb_beam_t): their number, positions along the
 * body's x axis, and for each node the columns of (u, v, phi) in the body's q (3 per node,
 * -1: removed); FMB_ERR_NOTFOUND for a body that is no beam. */
int fmb_test_beam_nodes(const fmb_sim_t *sim, int body, int *nnodes, const double **x,
                        const int **dof);

/* The coordinates q of the current state, writable (n values): a test sets a state, then
 * fmb_test_assemble_positions. */
double *fmb_test_q(fmb_sim_t *sim);

/* Newton on the position constraints from the current q (start.c
 * fmb_sim_assemble_positions, unregularized). */
int fmb_test_assemble_positions(fmb_sim_t *sim);

/* Contact k's friction columns at the current state (contact/friction.h
 * fmb_contact_columns) with its friction coefficient set to mu (the run's contact is left
 * as it is): cols, nn x 4 column-major (allocated; the caller frees), nn the contact's
 * element columns (fmb_contact_cols: body 0's nc0 first, rigid columns first per body);
 * the two bodies' angles theta in the contact's views, the sliding direction e (inertial;
 * the joint's slide_direction) and the block's half-height b. */
typedef struct fmb_test_columns {
    double *cols;
    int nn, nc0;
    double theta[2], e[2], b;
} fmb_test_columns_t;
int fmb_test_friction_columns(fmb_sim_t *sim, int k, double mu, fmb_test_columns_t *out);

/* One step of size h from t_n (step.c fmb_sim_try_step: the candidate at t_n + h in place,
 * fmb_sim_time still t_n) and its rejection (the state at t_n restored). */
int fmb_test_try_step(fmb_sim_t *sim, double h);
void fmb_test_reject_step(fmb_sim_t *sim);

/* dst takes src's state at t_n: inside src's accept hook, the accepted state the candidate
 * was stepped from (q, qd, qdd, the acceleration-like a, lambda; src's backup) and t; and
 * dst's next step refactors and carries no Newton constants (newton_stale). Both runs of
 * the same model. */
void fmb_test_take_state(fmb_sim_t *dst, const fmb_sim_t *src);

/* The step h of the options; with next != 0 the step control's next step as well. */
void fmb_test_set_h(fmb_sim_t *sim, double h, int next);

/* The candidate's Newton and the run's counts (step.c; solve/sim_diag.h
 * fmb_newton_trace_t). */
typedef struct fmb_test_newton {
    int cand_iters; /* Newton iterations of the candidate */
    int cand_once;  /* 1: accepted after one increment, 2: the same on a renewed pair of
                       constants, 0: neither */
    long once;      /* steps started on a matrix factored in the step that took one
                       iteration (the histogram's bin 1) */
    long kept;      /* steps started on a matrix kept from an earlier step */
    long force_evals, drop_ratio, drop_limit; /* residuals; kept matrices given up on the
                                                 contraction, on the iteration limit */
} fmb_test_newton_t;
void fmb_test_newton(const fmb_sim_t *sim, fmb_test_newton_t *out);

#endif

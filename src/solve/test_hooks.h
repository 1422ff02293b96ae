/* The one header through which tests reach the solver's internals (not part of the public
 * API, not installed): test-only switches and observers of a run, as functions on the
 * opaque fmb_sim_t, so that a solver-level test includes flexmb/flexmb.h and this header
 * alone and does not depend on the layout of struct fmb_sim (solve/sim.h).
 *
 * Tests that check the solver's internal functions on states they build include
 * solve/sim_internal.h instead: the residual, the assembly and the joints' memo
 * (test_joint_memo.c, test_phi_views.c, and the beam tests that drive the beam kernels
 * through them: test_beam_resid.c, test_beam_simd.c, test_beam_tangent.c,
 * test_beam_tangent_pos.c, test_slider_cache.c); the contact LCPs
 * (test_friction_beam.c); one Newton iteration against another run's
 * (test_newton_once.c). Element-level unit tests (beam kernels, the KKT matrix, the
 * joints, the contact laws) include their module's private header. */
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

#endif

/* The one header through which tests reach the solver's internals (not part of the public
 * API, not installed): test-only switches and observers of a run, as functions on the
 * opaque fmb_sim_t, so that a solver-level test includes flexmb/flexmb.h and this header
 * alone and does not depend on the layout of struct fmb_sim (solve/sim.h).
 *
 * Tests that check the solver's internal functions on states they build include
 * solve/sim_internal.h instead: the residual, the assembly and the joints' memo
 * (test_joint_memo.c, test_phi_views.c, test_slider_reach.c, and the beam tests that drive
 * the beam kernels through them: test_beam_resid.c, test_beam_simd.c, test_beam_tangent.c,
 * test_beam_tangent_pos.c, test_slider_cache.c); the restart and the contact LCPs
 * (test_restart.c, test_contact_stepctl.c, test_friction_beam.c); one Newton iteration
 * against another run's (test_newton_once.c). Element-level unit tests (beam kernels, the
 * KKT matrix, the joints, the contact laws) include their module's private header. */
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

#endif

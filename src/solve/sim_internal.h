/* Declarations shared by the files of the time integrator (src/solve): sim.c (object),
 * residual.c (residual pieces), assemble.c (KKT assembly), start.c (consistent start), step.c
 * (generalized-alpha step and run loop), contact_step.c (frictional contacts inside a
 * step), sim_access.c (public accessors). Not part of the public API. */
#ifndef FMB_SOLVE_SIM_INTERNAL_H
#define FMB_SOLVE_SIM_INTERNAL_H

#include <string.h>

#include "solve/sim.h"

static inline double *fmb_zeroed(double *p, size_t n)
{
    memset(p, 0, n * sizeof *p);
    return p;
}

/* Views of a joint's two bodies at (q, qd) (inline: the residual's and the assembly's
 * joint loops call it per joint and iterate). */
static inline void fmb_sim_joint_views(const fmb_sim_t *s, const fmb_joint_t *j, const double *q,
                                       const double *qd, fmb_bodyview_t v[2])
{
    fmb_joint_views(s->model, j, q, qd, v);
}

/* ---- residual.c (residual pieces, Phi, non-finite messages) */
/* Views of a frictional contact's joint with the contact's element columns
 * (fmb_contact_cols: the joint's plus the guide's face points). */
void fmb_sim_contact_views(const fmb_sim_t *s, const fmb_contact_t *c, const double *q,
                           const double *qd, fmb_bodyview_t v[2]);
/* A driver function (or one of its two derivatives) that is not finite at t: the error
 * naming the joint, its line, the expression and t (FMB_ERR_NONFINITE), else 0. */
int fmb_sim_functions_nonfinite(fmb_sim_t *s, double t);
/* Name the element whose values are not finite at (q, qd, qdd, t): FMB_ERR_NONFINITE. */
int fmb_sim_nonfinite_error(fmb_sim_t *s, const double *q, const double *qd, const double *qdd,
                            double t);

/* ---- assemble.c (iteration matrix, factor + solve) */
/* Assemble the KKT matrix with coefficients c. Bodies and elements with fixed columns
 * emit the same entries in the same order every time; elements whose columns follow the
 * state (class member cols) are placed by search (kkt.h). */
void fmb_sim_assemble(fmb_sim_t *s, const double *q, const double *qd, const double *qdd,
                      const double *lam, double t, const fmb_coeffs_t *c);
/* Name and case line of the joint owning constraint row `row`, for messages. */
const char *fmb_sim_row_name(const fmb_sim_t *s, int row, int *line);
/* Explain a singular KKT matrix by the dependent constraint rows. */
int fmb_sim_singular_error(fmb_sim_t *s, const double *q, double t, const char *when);
/* Factor the assembled matrix and solve; errors name the phase `when`. */
int fmb_sim_solve_kkt(fmb_sim_t *s, const double *rhs, double *x, const double *q, double t,
                      const char *when);

/* ---- start.c */
/* Velocities at the start: elastic ones as given, carrier ones projected on the
 * velocity constraints (docs/theory.md, "Consistent start"). */
/* Velocities projected onto the velocity constraints in the mass metric, into x (start.c). */
int fmb_sim_mass_projection(fmb_sim_t *s, double *x, const char *when);
int fmb_sim_start_velocities(fmb_sim_t *s);
/* Accelerations and multipliers consistent with (q, qd, t); factor = 0 reuses the last
 * factorization; ee as in fmb_coeffs_t (0: the plain mass matrix). */
int fmb_sim_accel_solve(fmb_sim_t *s, int factor, double ee, double *qdd, double *lam);

/* ---- static_start.c */
/* Quasi-static start (start: static): elastic coordinates in equilibrium with the loads
 * and the inertia of the initial rigid motion; on return q, qd, qdd, lam are consistent. */
int fmb_sim_static_start(fmb_sim_t *s);

/* ---- step.c */
/* One step of size h from t_n: on success the candidate at t_n + h is in place with its
 * error estimate (s->ctl.err_ratio, s->ctl.err_coord) and s->st.t unchanged; commit or reject it.
 * On failure the state is restored and the status returned. */
int fmb_sim_try_step(fmb_sim_t *s, double h);
void fmb_sim_commit_step(fmb_sim_t *s, double h);
void fmb_sim_reject_step(fmb_sim_t *s);

/* ---- start.c */
/* Power of non-conservative forces and drivers at the current state. */
double fmb_sim_power(const fmb_sim_t *s);
/* History of the force laws (fmb_force_class_t nstate/reset/accept) at the current state:
 * reset = 1 when the run starts, 0 after each accepted step. */
void fmb_sim_force_history(fmb_sim_t *s, int reset);

/* ---- start_lcp.c */
/* The slider contacts' and switching elements' LCPs on the accelerations at the current
 * state (docs/theory.md "Friction at the start"; [M Phi_q^T; Phi_q 0] factored at (q, t),
 * s->st.qdd, s->st.lam the frictionless accelerations): keep = 0 at the start (LuGre bristles
 * from the start state), 1 at a restart (bristle states kept). */
int fmb_sim_start_lcps(fmb_sim_t *s, int keep);

/* ---- restart.c: restart at a constraint kink (velocity projection, consistent
 * accelerations, fresh step history; adaptive runs, stepctl.c) */
int fmb_sim_restart(fmb_sim_t *s);
/* After a located switch of an LCP element (step_control returned 3; docs/switching.md
 * "Switch events"): accelerations, multipliers and the elements' forces re-solved at the
 * accepted state with the switching LCP on the accelerations (as at the start), and a
 * fresh step history; velocities untouched. Models with slider contacts: nothing. */
int fmb_sim_switch_restart(fmb_sim_t *s);

/* ---- fastmode.c: largest omega of K x = omega^2 M x on Phi_q x = 0 at the current state
 * by power iteration (coord: the coordinate with the largest kinetic share, iters) */
int fmb_sim_fastest_mode_estimate(fmb_sim_t *s, double *omega_max, int *coord, int *iters);

/* ---- contact_step.c */
/* LuGre coefficients of every contact at the current iterate (velocity qd, step h). */
void fmb_sim_contact_update(fmb_sim_t *s, double h);
/* Corner forces from the contact LCP inside a Newton iteration; corrects x. */
int fmb_sim_contact_lcp(fmb_sim_t *s, double bh2, double gfac, double t, double *x);
/* LuGre breakaway step control on the candidate (1: reject; *h_max lowered to the limit,
 * why: the contact); see contact_step.c. */
int fmb_sim_contact_step_control(fmb_sim_t *s, double h, double *h_max, char *why, size_t len);
/* Located stop of a Coulomb slider on the candidate (contact_stepctl.c): 1 reject (*h_max
 * lowered to the stop), 3 accept and restart at the accepted stop (fmb_sim_switch_restart),
 * 4 the stop is at the step's start: reject, restart at t_n and retry; 0 nothing; fixed and
 * adaptive runs. */
int fmb_sim_contact_stop_control(fmb_sim_t *s, double h, double *h_max, char *why, size_t len);
/* A step that failed with a LuGre slider whose last coefficient exceeds a/b (the block
 * wedges: constant sigma1's spike at a reversal): the cause into buf (0 when none). */
int fmb_sim_contact_diagnosis(const fmb_sim_t *s, char *buf, size_t len);

/* ---- switch_step.c */
/* Set up the switching elements (after the scratch sizes are known). */
int fmb_sim_switch_create(fmb_sim_t *s);
void fmb_sim_switch_free(fmb_sim_t *s);
/* Set-valued forces from their LCP inside a Newton iteration; corrects x. base: the
 * velocity the increment gfac x is added to (the step passes qd); bscale multiplies the
 * rows' constants b (force capacities: 1 for forces, 0 for impulses). */
int fmb_sim_switch_lcp(fmb_sim_t *s, double bh2, double gfac, const double *base, double bscale,
                       double t, double *x);
/* The two halves of the coupled LCP and its stopping rule (switch_step.c,
 * fmb_sim_lcp_blocks): contact(y) adds the slider contacts' part to y, switching(x) the
 * switching elements' part to x; each with the problem's bh2, gfac, t. Stop when the
 * switching part changes by at most rtol_part |part| + rtol_total |x| + atol (max norms). */
typedef struct fmb_lcp_blocks {
    int (*contact)(fmb_sim_t *s, const struct fmb_lcp_blocks *p, double *y);
    int (*switching)(fmb_sim_t *s, const struct fmb_lcp_blocks *p, double *x);
    double bh2, gfac, t;
    double rtol_part, rtol_total, atol;
    const char *when; /* in the failure message ("at the start"), NULL: "at t = ..." */
} fmb_lcp_blocks_t;
/* Both LCPs to a common solution by block Gauss-Seidel on x = x0 + c + w (x0: x on entry,
 * c: contact part, w: switching part); x (n + m) on exit. work: 3 (n + m) doubles. */
int fmb_sim_lcp_blocks(fmb_sim_t *s, const fmb_lcp_blocks_t *p, double *x, double *work);
/* Both LCPs (slider contacts and switching elements) to a common solution (block
 * Gauss-Seidel); corrects x like each of them. */
int fmb_sim_lcp_coupled(fmb_sim_t *s, double bh2, double gfac, double t, double *x);
/* Record modes, forces and relative velocities at the accepted state. */
void fmb_sim_switch_accept(fmb_sim_t *s);
/* Consistent start: the LCP on the accelerations, then the modes. */
int fmb_sim_switch_start(fmb_sim_t *s);
/* Work of the LCP forces over the accepted step t_n -> t_n + h (commit_step, after
 * fmb_sim_switch_accept): h (Q_n + Q_{n+1})/2 . (qd_n + qd_{n+1})/2 with qd_n at
 * s->st.save + n; stores Q_{n+1}. */
double fmb_sim_switch_work(fmb_sim_t *s, double h);
/* Impacts at the start (velocities that violate a switching element's complementarity,
 * e.g. a freewheel's input faster than its output): impulses from the velocity-level LCP
 * on the factorized [M Phi_q^T; Phi_q 0], the kinetic energy lost into the work column.
 * Returns 1 when the velocities changed, 0 when not, or a negative status. */
int fmb_sim_switch_impulse(fmb_sim_t *s);

#endif

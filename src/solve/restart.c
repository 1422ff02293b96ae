/* Restart of the integrator at a kink of a constraint (docs/theory.md, "Element
 * crossings and restarts"; called by stepctl.c in adaptive runs). */
#include "solve/sim_internal.h"

#include <string.h>

/* The step history starts anew at the current state, as at t = 0: a_n = a_{n-1} = qdd, no
 * previous step, the iteration matrix not kept (the last factorization was the
 * restart's own), the power at the new state. */
static void history_anew(fmb_sim_t *s)
{
    memcpy(s->st.acc, s->st.qdd, (size_t)s->n * sizeof *s->st.qdd);
    memcpy(s->st.accp, s->st.qdd, (size_t)s->n * sizeof *s->st.qdd);
    s->st.h_prev = 0.0;
    s->st.nhist = 0;
    s->ctl.newton_stale = 1;
    s->ctl.kkt_iter = 0;
    s->st.P = fmb_sim_power(s);
    s->diag.stats.restarts++;
}

/* Restart at a kink of a constraint (docs/theory.md, "Element crossings"): the velocities
 * are projected onto the constraint's velocity manifold in the mass metric,
 *   [M Phi_q^T; Phi_q 0] [qd+; mu] = [M qd-; -Phi_t]
 * (the impulse of a perfectly constrained impact: it changes qd only along Phi_q^T), and
 * the accelerations and multipliers recomputed from the constraint's second derivative;
 * the step history (a_n, a_{n-1}, the last step) starts anew, as at t = 0. The kinetic
 * energy the projection changes is booked as work of the constraint impulse (the energy
 * balance T + V - W stays closed). Frictional slider contacts: the projection is
 * frictionless (the kink's impulse is a couple along the slope constraint's normal; the
 * Coulomb impulse it could carry is bounded by mu0 |corner impulses| and measured far
 * below the step's own friction impulse: docs/theory.md), and the contact LCP is solved on
 * the accelerations at the accepted state as at the start, with the LuGre bristles' z kept
 * (fmb_sim_start_lcps, keep = 1): corner forces, friction (Coulomb: stick/slip decided
 * anew) and accelerations consistent. Models with switching elements keep their state. */
int fmb_sim_restart(fmb_sim_t *s)
{
    if (s->ct.nsw) return 0;
    const int n = s->n, m = s->m, N = n + m;
    double e0[FMB_ENERGY_COLUMNS], e1[FMB_ENERGY_COLUMNS];
    fmb_sim_energy(s, e0);
    double *x = s->ctl.work + N;
    int rc = fmb_sim_mass_projection(s, x, "while projecting the velocities at a kink");
    if (rc) return rc;
    memcpy(s->st.qd, x, (size_t)n * sizeof *x);
    if ((rc = fmb_sim_accel_solve(s, 0, 0.0, s->st.qdd, s->st.lam))) return rc;
    if (s->ct.ncontacts && (rc = fmb_sim_start_lcps(s, 1))) return rc;
    fmb_sim_energy(s, e1);
    s->st.W += e1[0] - e0[0];
    history_anew(s);
    return 0;
}

/* After a located switch (docs/switching.md "Switch events"): the step that ends at the
 * switch carries the old mode's accelerations in a_{n+1} (the trapezoidal update made the
 * element's velocity zero with them), and the next step would spread the jump of the
 * accelerations over its length (an O(h) error; the error estimate's two-step difference
 * would span it). The accelerations, multipliers and LCP forces are re-solved at the
 * accepted state exactly as at the start (fmb_sim_accel_solve, then the switching LCP on
 * v / tau + D . qdd: an element at zero relative velocity decides on its acceleration),
 * and the step history starts anew. The velocities are not changed (the element's
 * velocity is already at its switch), so the energy balance is untouched. */
int fmb_sim_switch_restart(fmb_sim_t *s)
{
    if (!s->ct.ncontacts && !s->ct.nsw) return 0; /* a gap's located onset has no LCP either */
    int rc = fmb_sim_accel_solve(s, 1, 0.0, s->st.qdd, s->st.lam);
    if (rc) return rc;
    if (s->ct.ncontacts) { /* contacts at rest on v / tau + dv/dt, as the elements' rows */
        for (int ic = 0; ic < s->ct.ncontacts; ic++)
            s->ct.contacts[ic].tau_rest = 1e-3 * s->opts.h;
        rc = fmb_sim_start_lcps(s, 1);
        for (int ic = 0; ic < s->ct.ncontacts; ic++)
            s->ct.contacts[ic].tau_rest = 0.0;
    } else {
        rc = fmb_sim_switch_start(s);
    }
    if (rc) return rc;
    history_anew(s);
    return 0;
}

/* Friction and switching elements at the start and at restarts (restart.c): the contacts'
 * states at the start (sliding velocity, bristles, Coulomb level, dv/dq qd) and the start's
 * LCPs, slider contacts and switching elements coupled by the step's block Gauss-Seidel
 * (fmb_sim_lcp_blocks) on x = [qdd; lambda] with the acceleration matrix of start.c. */
#include "solve/sim_internal.h"

#include <string.h>

/* Sliding velocity of contact c at (q, qd). */
static double sliding_velocity(const fmb_sim_t *s, const fmb_contact_t *c, const double *q,
                               const double *qd)
{
    const fmb_joint_t *j = &s->model->joints[c->joint];
    fmb_bodyview_t v[2];
    fmb_sim_joint_views(s, j, q, qd, v);
    double e[2], vt, ug[2];
    fmb_contact_kinematics(j, v, e, &vt, ug);
    return vt;
}

/* Friction at the start (docs/theory.md, "Friction at the start"). The accelerations of
 * fmb_sim_accel_solve leave the sliding contacts' friction out; here the contact LCP of the
 * step (fmb_sim_contact_lcp) is solved on the acceleration matrix [M Phi_q^T; Phi_q 0]
 * (still factored at (q, t)) with x = [qdd; lambda] (bh2 = 1, gfac = 1, multipliers from
 * x alone), so the corner forces, the friction and the accelerations are consistent:
 *   LuGre: mu of the continuous law at the start state (h = 0; bristles at rest, or in
 *          their steady state when sliding: mu = g(v) sign(v) + sigma2 v);
 *   Coulomb: sliding (|v| >= v_stick) -mu N sign(v); at rest the stick/slip decision on
 *          the sliding acceleration dv/dt = Dv qdd + (dv/dq) qd with mu0 (as the first
 *          step: its coefficient after a stick), contact/friction_coulomb.c.
 * (dv/dq) qd, the acceleration of a contact at rest when qdd = 0, is a central difference
 * of the sliding velocity along q +- d qd (d = 1e-6 s: truncation ~d^2, rounding
 * ~1e-16 |v| / d). It vanishes when the slider and a rigid guide move as one rigid body
 * (v = 0): the sliding velocity is invariant under rigid motions; on an elastic guide it
 * carries what the deformation rates add (no test has a start where it matters).
 * At a restart (keep = 1, restart.c) the same problem is solved at the accepted state with
 * the bristles' z_n kept: the law at h = 0 from z_n = z_{n+1} of the accepted step is the
 * backward Euler step's own coefficient (zd = v - a z_{n+1} in both), so mu is continuous
 * across the restart but for the projection's change of v. */
static void start_contact_states(fmb_sim_t *s, double *qp, double *qm, int keep)
{
    const int n = s->n;
    const double d = 1e-6;
    for (int i = 0; i < n; i++)
        qp[i] = s->st.q[i] + d * s->st.qd[i], qm[i] = s->st.q[i] - d * s->st.qd[i];
    for (int ic = 0; ic < s->ct.ncontacts; ic++) {
        fmb_contact_t *c = &s->ct.contacts[ic];
        const double vt = sliding_velocity(s, c, s->st.q, s->st.qd);
        c->v = c->v_n = vt;
        if (keep) { /* a restart: the bristles keep their state (continuous in time) */
            c->z = c->z_n;
        } else { /* the model's state (LuGre: bristles at rest, or steady when sliding) */
            c->z = c->z_n = 0.0;
            if (c->fk->start) c->fk->start(c, vt);
        }
        if (c->fk->begin_step) c->fk->begin_step(c); /* Coulomb: mu0 at rest, else mu */
        c->vq =
            (sliding_velocity(s, c, qp, s->st.qd) - sliding_velocity(s, c, qm, s->st.qd)) / (2 * d);
        c->at_start = 1;
    }
    fmb_sim_contact_update(s, 0.0); /* mu at the start state (continuous law) */
}

/* The start's halves of the coupled LCP (fmb_sim_lcp_blocks) on x = [qdd; lambda]: the
 * contact LCP takes its multipliers from x alone (s->st.lam + x with s->st.lam = 0); the
 * switching start (fmb_sim_switch_start) works on s->st.qdd and s->st.lam. */
static int start_contact(fmb_sim_t *s, const fmb_lcp_blocks_t *p, double *y)
{
    memset(s->st.lam, 0, (size_t)s->m * sizeof *s->st.lam);
    return fmb_sim_contact_lcp(s, p->bh2, p->gfac, p->t, y);
}

static int start_switching(fmb_sim_t *s, const fmb_lcp_blocks_t *p, double *x)
{
    (void)p;
    memcpy(s->st.qdd, x, (size_t)s->n * sizeof *x);
    memcpy(s->st.lam, x + s->n, (size_t)s->m * sizeof *x);
    const int rc = fmb_sim_switch_start(s);
    memcpy(x, s->st.qdd, (size_t)s->n * sizeof *x);
    memcpy(x + s->n, s->st.lam, (size_t)s->m * sizeof *x);
    return rc;
}

/* The start's LCPs: slider contacts (above) and switching elements (fmb_sim_switch_start:
 * stick/slip and engagement decided on qd / tau + qdd). With both, they are iterated to a
 * common solution by the step's block Gauss-Seidel (fmb_sim_lcp_blocks, docs/switching.md)
 * on x = [qdd; lambda] with bh2 = gfac = 1, until the switching part changes by less than
 * 1e-12 of |x|. keep = 1 at a restart (restart.c): the LuGre bristles keep z_n, the
 * contacts' sliding velocities are those of the (projected) state. */
int fmb_sim_start_lcps(fmb_sim_t *s, int keep)
{
    if (!s->ct.ncontacts) return fmb_sim_switch_start(s);
    const int n = s->n, m = s->m, N = n + m;
    double *x = s->ct.cstart, *work = x + N, *scratch = work + 3 * (size_t)N; /* sim.c */
    start_contact_states(s, scratch, scratch + n, keep);
    memcpy(x, s->st.qdd, (size_t)n * sizeof *x);
    memcpy(x + n, s->st.lam, (size_t)m * sizeof *x);
    const fmb_lcp_blocks_t p = {.contact = start_contact,
                                .switching = start_switching,
                                .bh2 = 1.0,
                                .gfac = 1.0,
                                .t = s->st.t,
                                .rtol_total = 1e-12,
                                .when = "at the start"};
    const int rc = fmb_sim_lcp_blocks(s, &p, x, work);
    if (!rc) {
        memcpy(s->st.qdd, x, (size_t)n * sizeof *x);
        memcpy(s->st.lam, x + n, (size_t)m * sizeof *x);
    }
    for (int ic = 0; ic < s->ct.ncontacts; ic++) {
        fmb_contact_t *c = &s->ct.contacts[ic];
        c->at_start = 0;
        c->mode = fmb_contact_mode(c->F);
    }
    if (rc) return rc;
    return s->ct.nswz ? 0 : fmb_sim_switch_start(s);
}

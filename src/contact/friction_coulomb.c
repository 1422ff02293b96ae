/* Coulomb friction with static friction in a sliding joint (seed 000's corner model with
 * stick through complementarity; docs/theory.md section 9): the case keys of the model and
 * its part of the contact LCP.
 *
 * Unknowns of a contact after its upper-face corner forces F1-, F2- (offsets from u0):
 *   2, 3: beta_l1, beta_l2 (lower face, friction +e / -e on the slider), 4: sigma_l,
 *   5, 6: beta_u1, beta_u2 (upper face), 7: sigma_u.
 * Rows, per face f with normal force N_f (lower: F1+ + F2+, upper: F1- + F2-) and the
 * sliding velocity v at the end of the step:
 *   beta_f1 >= 0 _|_ v + sigma_f >= 0,  beta_f2 >= 0 _|_ -v + sigma_f >= 0,
 *   sigma_f >= 0 _|_ mu_e N_f - beta_f1 - beta_f2 >= 0.
 * Levels (docs/theory.md section 9, "Static and kinetic levels"): the static coefficient
 * mu0 holds a slider at rest, a sliding one has the kinetic mu. mu_e = mu0 while the slider
 * is held (`stuck`: the accepted state's LCP held it, |v| < v_stick), else mu; the LCP is
 * solved again (`coulomb_level`, at most twice) when its solution says otherwise:
 *   - held at the start of the step, and the LCP at mu0 slides it: a breakaway, which
 *     slides at mu;
 *   - sliding at the start, and the LCP at mu reverses the sliding velocity: the slider
 *     passed rest inside the step, where mu0 holds it: solved at mu0; if that slides too,
 *     the reversal at mu stands.
 * A slider that slides slower than v_stick keeps mu (it is not held). */
#include <math.h>

#include "contact/friction.h"
#include "contact/friction_models.h"

static const fmb_param_t coulomb_params[] = {
    FMB_FRICTION_BLOCK_PARAMS, FMB_FRICTION_VSTICK_PARAM(FMB_V_STICK_COULOMB), {0}};

static double stick_velocity(const fmb_contact_t *c)
{
    return fmb_friction_stick_velocity(&c->d);
}

/* The level of the step's state: mu0 while held, mu while sliding. */
static void coulomb_begin_step(fmb_contact_t *c)
{
    c->mu_e = c->stuck ? c->d.mu0 : c->d.mu;
}

/* The start: a slider at rest (|v| < v_stick) is held. */
static void coulomb_start(fmb_contact_t *c, double v)
{
    c->stuck = fabs(v) < stick_velocity(c);
    c->slip = 0;
    c->vh[0] = v, c->hh = 0.0, c->nvh = 1;
}

/* The LCP slides the slider on a loaded face (sigma_f = |v| > 0 with beta_f1 + beta_f2 =
 * mu_e N_f > 0; above 1e-6 v_stick: round-off slip counts as none). */
static int coulomb_slipping(const fmb_contact_t *c, const double *u)
{
    const double tiny = 1e-6 * stick_velocity(c);
    return (u[4] > tiny && u[2] + u[3] > 0.0) || (u[7] > tiny && u[5] + u[6] > 0.0);
}

static int coulomb_level(fmb_contact_t *c, int pass, const double *u, double v)
{
    if (pass == 0) {
        coulomb_begin_step(c);
        return 0;
    }
    if (!(c->d.mu0 > c->d.mu)) return 0; /* one level */
    if (c->mu_e == c->d.mu0) {           /* held (or passing rest): a slide is at mu */
        if (!coulomb_slipping(c, u)) return 0;
        c->mu_e = c->d.mu;
        return 1;
    }
    /* sliding at mu: a reversal passed rest inside the step (not at the start, whose rows
     * see the start velocity) */
    if (pass == 1 && !c->stuck && !c->at_start && v * c->v_n < 0.0) {
        c->mu_e = c->d.mu0;
        return 1;
    }
    return 0;
}

/* held: the accepted state's LCP did not slide it and it is slower than v_stick. The
 * velocity history for locating a stop (contact_stepctl.c) moves on by the accepted step
 * (c->h, that of the step's last update). */
static void coulomb_accept(fmb_contact_t *c)
{
    c->stuck = !c->slip && fabs(c->v) < stick_velocity(c);
    if (c->h > 0) {
        c->vh[1] = c->vh[0], c->vh[0] = c->v, c->hh = c->h;
        if (c->nvh < 2) c->nvh++;
    }
}

/* friction through beta in the LCP, none through mu */
static void coulomb_update(fmb_contact_t *c, double v, double h)
{
    (void)h;
    c->v = v;
    c->mu = c->dmu = 0.0;
}

/* columns 4..7: unit friction forces +e, -e at the lower face, +e, -e at the upper face */
static const int coulomb_col_unknown[4] = {2, 3, 5, 6};

/* At the start (c->at_start, the LCP in accelerations: gfac = 1, x = [qdd; lambda]) the
 * "velocity" of the rows is the start state's: sliding (|v| >= v_stick), the rows see the
 * velocity v alone (vrow 0), so that beta = mu_e N_f on the side opposing v: f = -mu N
 * sign(v) whatever the acceleration; at rest, the sliding acceleration
 * dv/dt = Dv qdd + (dv/dq) qd (L->v0 - v + vq): stick (dv/dt = 0) while the friction
 * needed stays within mu_e N_f (mu_e = mu0 at rest), else slip against dv/dt. At a located
 * switch's restart (c->tau_rest > 0, restart.c) the rows at rest are on v / tau_rest +
 * dv/dt, the form of a switching element's stuck rows: with both in a model, two parallel
 * stuck frictions then agree on a round-off v (with dv/dt alone they pushed against each
 * other without end: docs/theory.md "Element crossings and restarts"). */
static void coulomb_rows(const fmb_contact_t *c, const fmb_friction_lcp_t *L)
{
    const int nu = L->nu, nf = L->nf, u0 = L->u0, ic = L->ic;
    const double *P = L->P, *p0 = L->p0;
    double *M = L->M, *qv = L->q;
    const int sliding_start = c->at_start && fabs(c->v) >= stick_velocity(c);
    const double v0 = !c->at_start ? L->v0
                      : sliding_start
                          ? c->v
                          : L->v0 - c->v + c->vq + (c->tau_rest > 0 ? c->v / c->tau_rest : 0.0);
    for (int face = 0; face < 2; face++) { /* 0 lower: normal forces F+, 1 upper: F- */
        const int b1 = u0 + 2 + 3 * face, b2 = b1 + 1, sg = b1 + 2;
        for (int cc = 0; cc < nu; cc++) {
            const double vr = sliding_start ? 0.0 : L->vrow[cc];
            M[b1 + nu * cc] = vr;
            M[b2 + nu * cc] = -vr;
            /* mu_e N_face - beta_f1 - beta_f2; N_lower = F+_1 + F+_2 = P u + p0 */
            M[sg + nu * cc] =
                face ? 0.0 : c->mu_e * (P[(2 * ic) + nf * cc] + P[(2 * ic + 1) + nf * cc]);
        }
        M[b1 + nu * sg] += 1.0, M[b2 + nu * sg] += 1.0;
        if (face) M[sg + nu * (u0 + 0)] += c->mu_e, M[sg + nu * (u0 + 1)] += c->mu_e;
        M[sg + nu * b1] -= 1.0, M[sg + nu * b2] -= 1.0;
        qv[b1] = v0, qv[b2] = -v0;
        qv[sg] = face ? 0.0 : c->mu_e * (p0[2 * ic] + p0[2 * ic + 1]);
    }
}

static void coulomb_decode(fmb_contact_t *c, const double *u)
{
    c->beta[0] = u[2], c->beta[1] = u[3];
    c->beta[2] = u[5], c->beta[3] = u[6];
    c->slip = coulomb_slipping(c, u);
}

static double coulomb_face_force(const fmb_contact_t *c, int face, double Nf)
{
    (void)Nf;
    return c->beta[2 * face] - c->beta[2 * face + 1];
}

const fmb_friction_class_t fmb_friction_coulomb_class = {
    .name = "coulomb",
    .v_stick = FMB_V_STICK_COULOMB,
    .params = coulomb_params,
    .prepare = fmb_friction_prepare_block,
    .check = fmb_friction_check_block,
    .start = coulomb_start,
    .begin_step = coulomb_begin_step,
    .update = coulomb_update,
    .ncols_extra = 4,
    .nunknowns_extra = 6,
    .col_unknown = coulomb_col_unknown,
    .extra_columns = fmb_contact_beta_columns,
    .lcp_rows = coulomb_rows,
    .decode = coulomb_decode,
    .level = coulomb_level,
    .accept = coulomb_accept,
    .face_force = coulomb_face_force,
    .stops = 1,
};

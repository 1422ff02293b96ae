/*
 * Rigid body in carrier-frame coordinates q = [rbar (2), theta] (docs/theory.md 1).
 *
 * With S0 = m com (first moment about the body origin) and c = m rbar + S0:
 *   M = [ m I2        Itil c ]      Mtt = m |rbar|^2 + 2 rbar.S0 + J_O,
 *       [ (Itil c)^T  Mtt    ]      J_O = J_c + m |com|^2
 * M does not depend on theta. Generalized body forces (inertia force = M qdd - Q):
 *   Q_r = -2 thd m Itil rbard + thd^2 c + m A^T g
 *   Q_t = -2 thd c.rbard + (Itil c).(A^T g)
 * Tangents (a = A^T g, Itil^T a = (a_y, -a_x)):
 *   dQ_r/drbar = thd^2 m I2     dQ_r/dtheta = m Itil^T a
 *   dQ_t/drbar = -2 thd m rbard^T + m (Itil^T a)^T     dQ_t/dtheta = -c.a
 *   dQ_r/drbard = -2 thd m Itil dQ_r/dthd = -2 m Itil rbard + 2 thd c
 *   dQ_t/drbard = -2 thd c^T    dQ_t/dthd = -2 c.rbard
 *   d(M qdd)/drbar: rows r: m thdd Itil; row t: m (Itil^T rbardd)^T + 2 thdd c^T
 * Gravity potential V = -g.(A c).
 * Iteration matrix (the class's tangent list): the 3 x 3 block cf0 M + cf1 Kmq - cf2 Kq
 * - cf3 Cq of the matrices above, each entry computed as the assembler's dense path does
 * (the same terms and expression: the same values bitwise), added straight into the KKT
 * matrix at its recorded places.
 */
#include "bodies/rigid.h"

#include <math.h>
#include <string.h>

static int rigid_ndof(const fmb_body_t *b)
{
    (void)b;
    return 3;
}

static void first_moment(const fmb_body_t *b, const double *q, double c[2])
{
    c[0] = b->mass * (q[0] + b->com[0]);
    c[1] = b->mass * (q[1] + b->com[1]);
}

static void rigid_mass(const fmb_body_t *b, const double *q, double *M)
{
    const double m = b->mass;
    double c[2];
    first_moment(b, q, c);
    double JO = b->inertia_c + m * (b->com[0] * b->com[0] + b->com[1] * b->com[1]);
    double Mtt =
        m * (q[0] * q[0] + q[1] * q[1]) + 2.0 * m * (q[0] * b->com[0] + q[1] * b->com[1]) + JO;
    M[0] = m, M[1] = 0, M[2] = -c[1];
    M[3] = 0, M[4] = m, M[5] = c[0];
    M[6] = -c[1], M[7] = c[0], M[8] = Mtt;
}

#define IDX(i, j) ((i) + 3 * (j))

/* Q += the body forces; c and a = A^T g for the tangents (inline: rigid_mass_forces's
 * too) */
static inline void rigid_q(const fmb_body_t *b, const double *q, const double *qd,
                           const double g[2], double *Q, double c[2], double a[2])
{
    const double m = b->mass, w = qd[2];
    double A[4];
    first_moment(b, q, c);
    fmb_body_rot(b, q[2], A); /* the body's cached cos, sin (point.c) */
    a[0] = A[0] * g[0] + A[1] * g[1], a[1] = A[2] * g[0] + A[3] * g[1]; /* A^T g */
    const double *rd = qd;
    /* Itil v = (-v_y, v_x) */
    Q[0] += -2.0 * w * m * (-rd[1]) + w * w * c[0] + m * a[0];
    Q[1] += -2.0 * w * m * (rd[0]) + w * w * c[1] + m * a[1];
    Q[2] += -2.0 * w * (c[0] * rd[0] + c[1] * rd[1]) + (-c[1] * a[0] + c[0] * a[1]);
}

static void rigid_forces(const fmb_body_t *b, const double *q, const double *qd, const double *qdd,
                         const double g[2], double *Q, double *Kq, double *Cq, double *Kmq)
{
    const double m = b->mass, w = qd[2];
    double c[2], a[2];
    rigid_q(b, q, qd, g, Q, c, a);
    double ita[2] = {a[1], -a[0]}; /* Itil^T a */
    const double *rd = qd;
    if (Kq) {
        Kq[IDX(0, 0)] += w * w * m;
        Kq[IDX(1, 1)] += w * w * m;
        Kq[IDX(0, 2)] += m * ita[0];
        Kq[IDX(1, 2)] += m * ita[1];
        Kq[IDX(2, 0)] += -2.0 * w * m * rd[0] + m * ita[0];
        Kq[IDX(2, 1)] += -2.0 * w * m * rd[1] + m * ita[1];
        Kq[IDX(2, 2)] += -(c[0] * a[0] + c[1] * a[1]);
    }
    if (Cq) {
        /* -2 w m Itil = [0 2wm; -2wm 0] */
        Cq[IDX(0, 1)] += 2.0 * w * m;
        Cq[IDX(1, 0)] += -2.0 * w * m;
        Cq[IDX(0, 2)] += -2.0 * m * (-rd[1]) + 2.0 * w * c[0];
        Cq[IDX(1, 2)] += -2.0 * m * (rd[0]) + 2.0 * w * c[1];
        Cq[IDX(2, 0)] += -2.0 * w * c[0];
        Cq[IDX(2, 1)] += -2.0 * w * c[1];
        Cq[IDX(2, 2)] += -2.0 * (c[0] * rd[0] + c[1] * rd[1]);
    }
    if (Kmq) {
        const double tdd = qdd[2];
        /* m tdd Itil = [0 -m tdd; m tdd 0] */
        Kmq[IDX(0, 1)] += -m * tdd;
        Kmq[IDX(1, 0)] += m * tdd;
        Kmq[IDX(2, 0)] += m * qdd[1] + 2.0 * tdd * c[0];
        Kmq[IDX(2, 1)] += -m * qdd[0] + 2.0 * tdd * c[1];
    }
}

/* The residual's M v and Q in one call (model.h mass_forces): the product of the mass
 * matrix and v, and rigid_forces's Q (rigid_q). tests/test_beam_resid.c compares the
 * residual with it against the residual's own product of `mass` and `forces`, to rounding. */
static void rigid_mass_forces(const fmb_body_t *b, const double *q, const double *qd,
                              const double *v, const double g[2], double *Mv, double *Q)
{
    double M[9];
    rigid_mass(b, q, M);
    for (int r = 0; r < 3; r++) {
        double x = 0.0;
        x += M[r] * v[0];
        x += M[r + 3] * v[1];
        x += M[r + 6] * v[2];
        Mv[r] = x;
    }
    double c[2], a[2];
    rigid_q(b, q, qd, g, Q, c, a); /* rigid_forces's Q */
}

static double rigid_potential(const fmb_body_t *b, const double *q, const double g[2])
{
    double c[2], A[4];
    first_moment(b, q, c);
    fmb_body_rot(b, q[2], A); /* the body's cached cos, sin (point.c) */
    double r[2] = {A[0] * c[0] + A[2] * c[1], A[1] * c[0] + A[3] * c[1]};
    return -(g[0] * r[0] + g[1] * r[1]);
}

/* The 3 x 3 block as one list, column by column (model.h tangent_pattern). */
static const int rigid_Jp[4] = {0, 3, 6, 9}, rigid_Ii[9] = {0, 1, 2, 0, 1, 2, 0, 1, 2};

static int rigid_tangent_pattern(const fmb_body_t *b, const int **Jp, const int **Ii)
{
    (void)b;
    *Jp = rigid_Jp, *Ii = rigid_Ii;
    return 9;
}

/* cf0 M + cf1 Kmq - cf2 Kq - cf3 Cq entry by entry: rigid_mass's and rigid_forces's terms
 * (the dense path's matrices start at zero and get one term each) in the dense path's
 * expression ((cf0 M + cf1 Km) - cf2 Kq) - cf3 Cq, the structurally zero terms left out
 * (x + 0 = x - 0 = x: the same values, up to the sign of an exact zero). */
static void rigid_tangent_add(const fmb_body_t *b, const double *q, const double *qd,
                              const double *qdd, const double g[2], const double cf[4],
                              const int *pos, double *A)
{
    const double m = b->mass, w = qd[2], tdd = qdd[2], *rd = qd;
    const double cM = cf[0], cKm = cf[1], cK = cf[2], cC = cf[3];
    double c[2], R[4];
    first_moment(b, q, c);
    const double JO = b->inertia_c + m * (b->com[0] * b->com[0] + b->com[1] * b->com[1]);
    const double Mtt =
        m * (q[0] * q[0] + q[1] * q[1]) + 2.0 * m * (q[0] * b->com[0] + q[1] * b->com[1]) + JO;
    fmb_body_rot(b, q[2], R);
    const double a[2] = {R[0] * g[0] + R[1] * g[1], R[2] * g[0] + R[3] * g[1]}; /* A^T g */
    const double ita[2] = {a[1], -a[0]};
    A[pos[IDX(0, 0)]] += cM * m - cK * (w * w * m);
    A[pos[IDX(1, 0)]] += cKm * (m * tdd) - cC * (-2.0 * w * m);
    A[pos[IDX(2, 0)]] += cM * -c[1] + cKm * (m * qdd[1] + 2.0 * tdd * c[0]) -
                         cK * (-2.0 * w * m * rd[0] + m * ita[0]) - cC * (-2.0 * w * c[0]);
    A[pos[IDX(0, 1)]] += cKm * (-m * tdd) - cC * (2.0 * w * m);
    A[pos[IDX(1, 1)]] += cM * m - cK * (w * w * m);
    A[pos[IDX(2, 1)]] += cM * c[0] + cKm * (-m * qdd[0] + 2.0 * tdd * c[1]) -
                         cK * (-2.0 * w * m * rd[1] + m * ita[1]) - cC * (-2.0 * w * c[1]);
    A[pos[IDX(0, 2)]] +=
        cM * -c[1] - cK * (m * ita[0]) - cC * (-2.0 * m * (-rd[1]) + 2.0 * w * c[0]);
    A[pos[IDX(1, 2)]] += cM * c[0] - cK * (m * ita[1]) - cC * (-2.0 * m * (rd[0]) + 2.0 * w * c[1]);
    A[pos[IDX(2, 2)]] += cM * Mtt - cK * (-(c[0] * a[0] + c[1] * a[1])) -
                         cC * (-2.0 * (c[0] * rd[0] + c[1] * rd[1]));
}

const fmb_body_class_t fmb_rigid_body_class = {
    .name = "rigid",
    .ndof = rigid_ndof,
    .mass = rigid_mass,
    .forces = rigid_forces,
    .potential = rigid_potential,
    .tangent_pattern = rigid_tangent_pattern,
    .tangent_add = rigid_tangent_add,
    .mass_forces = rigid_mass_forces,
};

/* ---- building: the public fmb_model_add_body (model.h: the model's side) */

static int finite3_(const double *v)
{
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

int fmb_model_add_body(fmb_model_t *m, const fmb_body_desc_t *d)
{
    char name[FMB_NAME_MAX];
    int rc = fmb_model_new_body_name(m, d->name, name);
    if (rc) return rc;
    if (!(d->mass > 0) || !isfinite(d->mass))
        return fmb_model_error(m, FMB_ERR_MODEL, "body '%s': mass must be positive (got %g kg)",
                               name, d->mass);
    if (!(d->inertia > 0) || !isfinite(d->inertia))
        return fmb_model_error(m, FMB_ERR_MODEL,
                               "body '%s': inertia must be positive (got %g kg m^2)", name,
                               d->inertia);
    if (!finite3_(d->pose) || !finite3_(d->vel) || !isfinite(d->com[0]) || !isfinite(d->com[1]))
        return fmb_model_error(m, FMB_ERR_MODEL, "body '%s': non-finite pose or velocity", name);
    fmb_body_t body, *b = &body;
    memset(b, 0, sizeof *b);
    strcpy(b->name, name);
    b->klass = &fmb_rigid_body_class;
    b->ndof = b->klass->ndof(b);
    b->mass = d->mass;
    b->inertia_c = d->inertia;
    memcpy(b->com, d->com, sizeof b->com);
    memcpy(b->block, d->block, sizeof b->block);
    memcpy(b->pose0, d->pose, sizeof b->pose0);
    memcpy(b->vel0, d->vel, sizeof b->vel0);
    b->vel_given = d->vel_given;
    b->line = d->line;
    return fmb_model_push_body(m, b);
}

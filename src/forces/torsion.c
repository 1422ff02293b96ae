/*
 * Torsional spring-damper between body 0 and body 1 (body 1 may be the ground):
 *   M = -k (theta0 - theta1 - angle0) - c (thetad0 - thetad1)   on body 0, -M on body 1
 *   Q0_theta = M,  Q1_theta = -M
 *   dQ/dq:  d(Q0_t)/d(theta0) = -k, d(Q0_t)/d(theta1) = k, and the opposite for Q1
 *   dQ/dqd: the same with c
 * Potential k (theta0 - theta1 - angle0)^2 / 2; non-conservative power
 * -c (thetad0 - thetad1)^2. (The rest angle angle0 is the force's rest_length field.)
 * Blocks on the element's columns (model.h): theta sits at column 2 of each body.
 */
#include "forces/forces.h"

static double rel_angle(const fmb_bodyview_t v[2])
{
    return fmb_body_angle(&v[0]) - fmb_body_angle(&v[1]);
}

static double rel_rate(const fmb_bodyview_t v[2])
{
    return (v[0].ndof ? v[0].qd[2] : 0.0) - (v[1].ndof ? v[1].qd[2] : 0.0);
}

static void torsion_eval(const fmb_force_t *f, const fmb_bodyview_t v[2], double t, double *Q0,
                         double *Q1, double *K, double *C)
{
    (void)t;
    const double M = -f->k * (rel_angle(v) - f->l0) - f->c * rel_rate(v);
    const int n0 = v[0].nc, n = n0 + v[1].nc;
    if (n0) Q0[2] += M;
    if (v[1].ndof) Q1[2] -= M;
    /* theta rows/columns of the two-body block */
    const int t0 = n0 ? 2 : -1, t1 = v[1].ndof ? n0 + 2 : -1;
    const int idx[2] = {t0, t1};
    const double sgn[2] = {1.0, -1.0};
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) {
            if (idx[a] < 0 || idx[b] < 0) continue;
            const double s = -sgn[a] * sgn[b];
            if (K) K[idx[a] + (size_t)n * idx[b]] += s * f->k;
            if (C) C[idx[a] + (size_t)n * idx[b]] += s * f->c;
        }
}

static double torsion_potential(const fmb_force_t *f, const fmb_bodyview_t v[2])
{
    const double d = rel_angle(v) - f->l0;
    return 0.5 * f->k * d * d;
}

static double torsion_power(const fmb_force_t *f, const fmb_bodyview_t v[2], double t)
{
    (void)t;
    const double w = rel_rate(v);
    return -f->c * w * w;
}

static int torsion_check(const fmb_force_t *f, char *msg, size_t len)
{
    if (f->k < 0 || f->c < 0) {
        snprintf(msg, len, "torsion '%s': stiffness and damping must be >= 0", f->name);
        return FMB_ERR_MODEL;
    }
    if (f->body[0] == f->body[1]) {
        snprintf(msg, len, "torsion '%s' connects a body to itself", f->name);
        return FMB_ERR_MODEL;
    }
    if (f->body[0] == FMB_GROUND) {
        snprintf(msg, len, "torsion '%s': the first body must not be the ground", f->name);
        return FMB_ERR_MODEL;
    }
    return 0;
}

/* Case keys; 'angle' (the rest relative angle) is stored in rest_length and defaults to
 * the relative angle of the initial poses. */
static const fmb_param_t torsion_params[] = {
    FMB_FORCE_NUM("stiffness", stiffness, FMB_PARAM_MIN, 0, 0, "N m/rad", "torsional stiffness"),
    FMB_FORCE_NUM("damping", damping, FMB_PARAM_MIN, 0, 0, "N m s/rad", "torsional damping"),
    FMB_FORCE_NUM("angle", rest_length, FMB_PARAM_DERIVED, 0, 0, "rad",
                  "rest relative angle theta_1 - theta_2 (default: initial poses)"),
    {0}};

static int torsion_prepare(fmb_item_env_t *env, fmb_force_desc_t *d)
{
    if (!fmb_item_given(env, "angle")) d->rest_length = env->pose[0][2] - env->pose[1][2];
    return 0;
}

const fmb_force_class_t fmb_torsion_class = {
    .name = "torsion",
    .nbodies = 2,
    .eval = torsion_eval,
    .potential = torsion_potential,
    .power = torsion_power,
    .check = torsion_check,
    .case_type = "torsion",
    .item_flags = FMB_ITEM_BODIES | FMB_ITEM_ONE_OR_TWO | FMB_ITEM_NOT_GROUND0,
    .params = torsion_params,
    .prepare = torsion_prepare,
};

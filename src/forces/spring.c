/*
 * Linear spring-damper between point P0 on body 0 and P1 on body 1.
 *   d = r_P1 - r_P0, l = |d|, e = d / l, ldot = e . (rdot_P1 - rdot_P0)
 *   f = k (l - l0) + c ldot                     (tension positive)
 *   force f e on body 0 at P0, -f e on body 1 at P1:
 *   Q = G^T F with F = f e, G = [J_P0, -J_P1]
 * With D = dd/dq = [-J_P0, J_P1], Dv = d(ddot)/dq = [-Jv_P0, Jv_P1], P = I - e e^T:
 *   df/dq  = k e^T D + c (ddot^T P D / l + e^T Dv),   df/dqd = c e^T D
 *   dF/dq  = e df/dq + f P D / l,                      dF/dqd = e df/dqd
 *   dQ/dq  = G^T dF/dq + blockdiag(H_P0(F), -H_P1(F)), dQ/dqd = G^T dF/dqd
 * Potential k (l - l0)^2 / 2; non-conservative power -c ldot^2.
 * All blocks column-compressed on the element's columns (model.h): n = v[0].nc + v[1].nc.
 */
#include "forces/forces.h"

#include <string.h>

typedef struct spring_geom {
    double d[2], dd[2], l, e[2], ldot;
} spring_geom_t;

static void spring_geometry(const fmb_force_t *f, const fmb_bodyview_t v[2], spring_geom_t *s)
{
    double r0[2], r1[2], v0[2], v1[2];
    fmb_point_pos(&v[0], f->point[0], r0);
    fmb_point_pos(&v[1], f->point[1], r1);
    fmb_point_vel(&v[0], f->point[0], v0);
    fmb_point_vel(&v[1], f->point[1], v1);
    s->d[0] = r1[0] - r0[0], s->d[1] = r1[1] - r0[1];
    s->dd[0] = v1[0] - v0[0], s->dd[1] = v1[1] - v0[1];
    s->l = hypot(s->d[0], s->d[1]);
    double il = s->l > 0 ? 1.0 / s->l : 0.0; /* coincident points: no direction, no force */
    s->e[0] = s->d[0] * il, s->e[1] = s->d[1] * il;
    s->ldot = s->e[0] * s->dd[0] + s->e[1] * s->dd[1];
}

static void spring_eval(const fmb_force_t *f, const fmb_bodyview_t v[2], double t, double *Q0,
                        double *Q1, double *K, double *C)
{
    (void)t;
    spring_geom_t s;
    spring_geometry(f, v, &s);
    if (s.l <= 0) return;
    const double fo = f->k * (s.l - f->l0) + f->c * s.ldot;
    const double F[2] = {fo * s.e[0], fo * s.e[1]};
    const int n0 = v[0].nc, n1 = v[1].nc, n = n0 + n1;
    double G[2 * FMB_ELEM_COLS], D[2 * FMB_ELEM_COLS], Dv[2 * FMB_ELEM_COLS]; /* 2 x n */
    fmb_point_jac(&v[0], f->point[0], G);
    fmb_point_jac(&v[1], f->point[1], G + 2 * n0);
    fmb_point_veljac(&v[0], f->point[0], Dv);
    fmb_point_veljac(&v[1], f->point[1], Dv + 2 * n0);
    for (int k = 0; k < 2 * n; k++) {
        int body1 = k >= 2 * n0;
        D[k] = body1 ? G[k] : -G[k];
        Dv[k] = body1 ? Dv[k] : -Dv[k];
        G[k] = body1 ? -G[k] : G[k];
    }
    for (int k = 0; k < n0; k++)
        Q0[k] += G[2 * k] * F[0] + G[2 * k + 1] * F[1];
    for (int k = 0; k < n1; k++)
        Q1[k] += G[2 * (n0 + k)] * F[0] + G[2 * (n0 + k) + 1] * F[1];
    if (!K && !C) return;
    const double il = 1.0 / s.l;
    const double P[4] = {1 - s.e[0] * s.e[0], -s.e[0] * s.e[1], -s.e[0] * s.e[1],
                         1 - s.e[1] * s.e[1]};
    double dFq[2 * FMB_ELEM_COLS], dFqd[2 * FMB_ELEM_COLS];
    for (int c = 0; c < n; c++) {
        const double *Dc = D + 2 * c, *Dvc = Dv + 2 * c;
        double PD[2] = {P[0] * Dc[0] + P[2] * Dc[1], P[1] * Dc[0] + P[3] * Dc[1]};
        double eD = s.e[0] * Dc[0] + s.e[1] * Dc[1];
        double dfq = f->k * eD + f->c * ((s.dd[0] * PD[0] + s.dd[1] * PD[1]) * il +
                                         s.e[0] * Dvc[0] + s.e[1] * Dvc[1]);
        double dfqd = f->c * eD;
        dFq[2 * c] = s.e[0] * dfq + fo * PD[0] * il;
        dFq[2 * c + 1] = s.e[1] * dfq + fo * PD[1] * il;
        dFqd[2 * c] = s.e[0] * dfqd;
        dFqd[2 * c + 1] = s.e[1] * dfqd;
    }
    for (int c = 0; c < n; c++)
        for (int r = 0; r < n; r++) {
            const double *Gr = G + 2 * r;
            if (K) K[r + n * c] += Gr[0] * dFq[2 * c] + Gr[1] * dFq[2 * c + 1];
            if (C) C[r + n * c] += Gr[0] * dFqd[2 * c] + Gr[1] * dFqd[2 * c + 1];
        }
    if (K) {
        double mF[2] = {-F[0], -F[1]};
        fmb_point_hess(&v[0], f->point[0], F, K, n);
        fmb_point_hess(&v[1], f->point[1], mF, K + n0 + (size_t)n0 * n, n);
    }
}

static double spring_potential(const fmb_force_t *f, const fmb_bodyview_t v[2])
{
    spring_geom_t s;
    spring_geometry(f, v, &s);
    return 0.5 * f->k * (s.l - f->l0) * (s.l - f->l0);
}

static double spring_power(const fmb_force_t *f, const fmb_bodyview_t v[2], double t)
{
    (void)t;
    spring_geom_t s;
    spring_geometry(f, v, &s);
    return -f->c * s.ldot * s.ldot;
}

static int spring_check(const fmb_force_t *f, char *msg, size_t len)
{
    if (f->k < 0 || f->c < 0 || f->l0 < 0) {
        snprintf(msg, len, "spring '%s': stiffness, damping and rest length must be >= 0", f->name);
        return FMB_ERR_MODEL;
    }
    if (f->body[0] == f->body[1]) {
        snprintf(msg, len, "spring '%s' connects a body to itself", f->name);
        return FMB_ERR_MODEL;
    }
    return 0;
}

/* Case keys; the rest length defaults to the distance of the points at the initial poses. */
static const fmb_param_t spring_params[] = {
    FMB_FORCE_NUM("stiffness", stiffness, FMB_PARAM_REQUIRED | FMB_PARAM_MIN, 0, 0, "N/m",
                  "spring constant"),
    FMB_FORCE_NUM("damping", damping, FMB_PARAM_MIN, 0, 0, "N s/m", "damping coefficient"),
    FMB_FORCE_NUM("rest_length", rest_length, FMB_PARAM_MIN | FMB_PARAM_DERIVED, 0, 0, "m",
                  "free length (default: the initial distance)"),
    {0}};

static int spring_prepare(fmb_item_env_t *env, fmb_force_desc_t *d)
{
    if (!fmb_item_given(env, "rest_length")) {
        double r0[2], r1[2];
        fmb_item_point0(env, 0, d->point[0], r0);
        fmb_item_point0(env, 1, d->point[1], r1);
        d->rest_length = hypot(r1[0] - r0[0], r1[1] - r0[1]);
    }
    return 0;
}

const fmb_force_class_t fmb_spring_class = {
    .name = "spring",
    .nbodies = 2,
    .eval = spring_eval,
    .potential = spring_potential,
    .power = spring_power,
    .check = spring_check,
    .case_type = "spring",
    .item_flags = FMB_ITEM_BODIES | FMB_ITEM_POINTS | FMB_ITEM_DISTINCT,
    .params = spring_params,
    .prepare = spring_prepare,
};

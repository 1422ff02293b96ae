/*
 * Prismatic joint on a rigid straight guide (seed 001, eq 15). Body 0 is the slider,
 * body 1 the guide (ground allowed). The guide line passes through point u1 of body 1
 * with unit direction a (body-1 frame); n = Itil a is its normal.
 *
 *   theta_r = theta0 - theta1,  B = A(theta_r),  p0 = rbar0 + u0,  p1 = rbar1 + u1
 *   Phi_1 = theta_r - angle                               (relative rotation locked)
 *   Phi_2 = n . (B p0 - p1)                               (slider point on the guide line)
 * B p0 - p1 is the slider point relative to the guide point in the guide's body frame,
 * since A1^T r_P0 = A(theta0 - theta1) p0. On the manifold Phi_1 = 0, Phi_2 is linear in
 * the carrier coordinates.
 *
 *   dPhi_2/drbar0 = n^T B          dPhi_2/dtheta0 =  n^T B Itil p0 =: kp
 *   dPhi_2/drbar1 = -n^T           dPhi_2/dtheta1 = -kp
 * Second derivatives (w = weight of Phi_2; k = n^T B Itil, e = n^T B p0):
 *   d2/drbar0 dtheta0 = k^T, d2/drbar0 dtheta1 = -k^T,
 *   d2/dtheta0^2 = d2/dtheta1^2 = -e, d2/dtheta0 dtheta1 = e.
 * Multipliers: lambda_1 is a moment, lambda_2 a force along n (guide axes).
 * Both bodies are rigid: the blocks are on the rigid columns 0 1 2 (model.h).
 */
#include "joints/joints.h"

static void prismatic_parts(const fmb_joint_t *j, const fmb_bodyview_t v[2], double B[4],
                            double n[2], double p0[2], double p1[2])
{
    /* on a ground guide theta0 - 0 is theta0 bitwise: the slider body's cached rotation */
    if (!v[1].ndof && v[0].ndof)
        fmb_view_rot(&v[0], B);
    else
        fmb_rot(fmb_body_angle(&v[0]) - fmb_body_angle(&v[1]), B);
    n[0] = -j->axis[1], n[1] = j->axis[0];
    p0[0] = j->point[0][0] + (v[0].ndof ? v[0].q[0] : 0.0);
    p0[1] = j->point[0][1] + (v[0].ndof ? v[0].q[1] : 0.0);
    p1[0] = j->point[1][0] + (v[1].ndof ? v[1].q[0] : 0.0);
    p1[1] = j->point[1][1] + (v[1].ndof ? v[1].q[1] : 0.0);
}

static void prismatic_eval(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, double *phi,
                           double *J0, double *J1)
{
    (void)t;
    double B[4], n[2], p0[2], p1[2];
    prismatic_parts(j, v, B, n, p0, p1);
    double Bp[2] = {B[0] * p0[0] + B[2] * p0[1], B[1] * p0[0] + B[3] * p0[1]};
    phi[0] = fmb_body_angle(&v[0]) - fmb_body_angle(&v[1]) - j->ref;
    phi[1] = n[0] * (Bp[0] - p1[0]) + n[1] * (Bp[1] - p1[1]);
    double nB[2] = {n[0] * B[0] + n[1] * B[1], n[0] * B[2] + n[1] * B[3]}; /* n^T B */
    double kp = -nB[0] * p0[1] + nB[1] * p0[0];                            /* n^T B Itil p0 */
    /* 2 x 3 blocks on the rigid columns, column-major: entry (row, col) at row + 2*col */
    if (J0 && v[0].ndof) {
        J0[0] = 0, J0[1] = nB[0];
        J0[2] = 0, J0[3] = nB[1];
        J0[4] = 1, J0[5] = kp;
    }
    if (J1 && v[1].ndof) {
        J1[0] = 0, J1[1] = -n[0];
        J1[2] = 0, J1[3] = -n[1];
        J1[4] = -1, J1[5] = -kp;
    }
}

static void prismatic_hess(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t,
                           const double *w, double *H)
{
    (void)t;
    double B[4], n[2], p0[2], p1[2];
    prismatic_parts(j, v, B, n, p0, p1);
    const double w2 = w[1];
    const int n0 = v[0].nc, ld = n0 + v[1].nc;
    double nB[2] = {n[0] * B[0] + n[1] * B[1], n[0] * B[2] + n[1] * B[3]};
    double k[2] = {nB[1], -nB[0]}; /* n^T B Itil */
    double e = nB[0] * p0[0] + nB[1] * p0[1];
    int t0 = n0 ? 2 : -1, t1 = v[1].nc ? n0 + 2 : -1;
#define ADD(r, c, val)                                                                             \
    do {                                                                                           \
        H[(r) + (size_t)(c)*ld] += (val);                                                          \
        if ((r) != (c)) H[(c) + (size_t)(r)*ld] += (val);                                          \
    } while (0)
    if (t0 >= 0) {
        ADD(0, t0, w2 * k[0]);
        ADD(1, t0, w2 * k[1]);
        ADD(t0, t0, -w2 * e);
        if (t1 >= 0) {
            ADD(0, t1, -w2 * k[0]);
            ADD(1, t1, -w2 * k[1]);
            ADD(t0, t1, w2 * e);
        }
    }
    if (t1 >= 0) ADD(t1, t1, -w2 * e);
#undef ADD
}

/* The guide's material point under the slider point (guide body frame, undeformed):
 * u1 = A1^T r_P0 - rbar1 = B p0 - rbar1. */
static void prismatic_reaction_point(const fmb_joint_t *j, const fmb_bodyview_t v[2], int b,
                                     double u[2])
{
    if (b == 0) {
        u[0] = j->point[0][0], u[1] = j->point[0][1];
        return;
    }
    double B[4], n[2], p0[2], p1[2];
    prismatic_parts(j, v, B, n, p0, p1);
    u[0] = B[0] * p0[0] + B[2] * p0[1] - (v[1].ndof ? v[1].q[0] : 0.0);
    u[1] = B[1] * p0[0] + B[3] * p0[1] - (v[1].ndof ? v[1].q[1] : 0.0);
}

/* Sliding direction: the guide axis in inertial axes. */
static void prismatic_slide_direction(const fmb_joint_t *j, const fmb_bodyview_t v[2], double e[2])
{
    double A[4];
    fmb_rot(fmb_body_angle(&v[1]), A);
    e[0] = A[0] * j->axis[0] + A[2] * j->axis[1];
    e[1] = A[1] * j->axis[0] + A[3] * j->axis[1];
}

/* Case keys: the guide axis (body 2's frame), the locked angle, friction. */
static const fmb_param_t prismatic_params[] = {
    {.key = "axis",
     .kind = FMB_PARAM_VECTOR,
     .flags = FMB_PARAM_NONZERO,
     .n = 2,
     .offset = offsetof(fmb_joint_desc_t, axis),
     .dflt = {1, 0},
     .unit = "-",
     .doc = "guide direction in the guide body's frame (need not be unit)"},
    FMB_JOINT_ANGLE_PARAM,
    FMB_JOINT_FRICTION_PARAM,
    {0}};

const fmb_joint_class_t fmb_prismatic_class = {
    .name = "prismatic",
    .nrows = 2,
    .eval = prismatic_eval,
    .hess = prismatic_hess,
    .time = NULL,
    .bodies = {FMB_BODY_GROUND | FMB_BODY_RIGID, FMB_BODY_GROUND | FMB_BODY_RIGID},
    .distinct = 1, /* a beam slides a slider_beam joint */
    .reaction_point = prismatic_reaction_point,
    .slide_direction = prismatic_slide_direction,
    .case_type = "prismatic",
    .item_flags = FMB_ITEM_BODIES | FMB_ITEM_POINTS | FMB_ITEM_DISTINCT,
    .params = prismatic_params,
    .prepare = fmb_joint_prepare_angle,
};

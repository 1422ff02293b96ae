/*
 * Kinematics of a material point on a body in carrier-frame coordinates.
 *
 *   q = [rbar_x, rbar_y, theta],  p = rbar + u  (carrier axes),  r = A(theta) p
 *   J  = dr/dq   = A [ I2 , Itil p ]                      (2 x 3)
 *   rd = A (rbard + thetad Itil p)
 *   Jv = drd/dq  = A [ thetad Itil , Itil (rbard + thetad Itil p) ]
 *   H(w) = d(J^T w)/dq, with a = A^T w and b = Itil^T a = (a_y, -a_x):
 *        [ 0    0    b_x  ]
 *        [ 0    0    b_y  ]
 *        [ b_x  b_y  -p.a ]
 * Ground (ndof 0) is the identity: r = u, no coordinates.
 */
#include "model/model.h"

double fmb_body_angle(const fmb_bodyview_t *v) { return v->ndof ? v->q[2] : 0.0; }

static void carrier_point(const fmb_bodyview_t *v, const double u[2], double p[2])
{
    p[0] = u[0] + (v->ndof ? v->q[0] : 0.0);
    p[1] = u[1] + (v->ndof ? v->q[1] : 0.0);
}

void fmb_point_pos(const fmb_bodyview_t *v, const double u[2], double r[2])
{
    double p[2], A[4];
    carrier_point(v, u, p);
    fmb_rot(fmb_body_angle(v), A);
    r[0] = A[0] * p[0] + A[2] * p[1];
    r[1] = A[1] * p[0] + A[3] * p[1];
}

void fmb_point_jac(const fmb_bodyview_t *v, const double u[2], double *J)
{
    if (!v->ndof) return;
    double p[2], A[4];
    carrier_point(v, u, p);
    fmb_rot(v->q[2], A);
    J[0] = A[0], J[1] = A[1]; /* column rbar_x */
    J[2] = A[2], J[3] = A[3]; /* column rbar_y */
    double ip[2] = {-p[1], p[0]};
    J[4] = A[0] * ip[0] + A[2] * ip[1];
    J[5] = A[1] * ip[0] + A[3] * ip[1];
}

void fmb_point_hess(const fmb_bodyview_t *v, const double u[2], const double w[2], double *H,
                    int n)
{
    if (!v->ndof) return;
    double p[2], A[4];
    carrier_point(v, u, p);
    fmb_rot(v->q[2], A);
    double a[2] = {A[0] * w[0] + A[1] * w[1], A[2] * w[0] + A[3] * w[1]};
    double b[2] = {a[1], -a[0]};
    H[0 + 2 * n] += b[0];
    H[1 + 2 * n] += b[1];
    H[2 + 0 * n] += b[0];
    H[2 + 1 * n] += b[1];
    H[2 + 2 * n] += -(p[0] * a[0] + p[1] * a[1]);
}

void fmb_point_vel(const fmb_bodyview_t *v, const double u[2], double rd[2])
{
    if (!v->ndof) {
        rd[0] = rd[1] = 0.0;
        return;
    }
    double p[2], A[4];
    carrier_point(v, u, p);
    fmb_rot(v->q[2], A);
    double w = v->qd[2];
    double c[2] = {v->qd[0] - w * p[1], v->qd[1] + w * p[0]};
    rd[0] = A[0] * c[0] + A[2] * c[1];
    rd[1] = A[1] * c[0] + A[3] * c[1];
}

void fmb_point_veljac(const fmb_bodyview_t *v, const double u[2], double *Jv)
{
    if (!v->ndof) return;
    double p[2], A[4];
    carrier_point(v, u, p);
    fmb_rot(v->q[2], A);
    double w = v->qd[2];
    /* A * (w Itil): columns w*A*(0,1) and w*A*(-1,0) */
    Jv[0] = w * A[2], Jv[1] = w * A[3];
    Jv[2] = -w * A[0], Jv[3] = -w * A[1];
    double c[2] = {v->qd[0] - w * p[1], v->qd[1] + w * p[0]};
    double ic[2] = {-c[1], c[0]};
    Jv[4] = A[0] * ic[0] + A[2] * ic[1];
    Jv[5] = A[1] * ic[0] + A[3] * ic[1];
}

/*
 * Kinematics of a material point on a body in carrier-frame coordinates.
 *
 *   q = [rbar_x, rbar_y, theta, U],  p = rbar + u + N(u) U  (carrier axes),  r = A(theta) p
 *   N(u) is the body's shape-function row pair at the undeformed point u (empty for a
 *   rigid body; Hermite/linear beam shape functions for a beam body).
 *   J  = dr/dq   = A [ I2 , Itil p , N ]                  (2 x nc, compressed below)
 *   pd = rbard + N Ud,  rd = A (pd + thetad Itil p)
 *   Jv = drd/dq  = A [ thetad Itil , Itil (pd + thetad Itil p) , thetad Itil N ]
 *   H(w) = d(J^T w)/dq, with a = A^T w and b = Itil^T a = (a_y, -a_x):
 *        rows/cols  rbar   theta      U
 *        rbar       0      b          0
 *        theta      b^T    -p.a       b^T N
 *        U          0      N^T b      0
 * Ground (ndof 0) is the identity: r = u, no coordinates.
 * J, Jv and H are returned column-compressed on the view's columns v->cols[0..nc)
 * (model.h): column 0 1 2 are rbar_x, rbar_y, theta; the shape columns N.col[k] sit at
 * their position among v->cols (fmb_view_col). Nothing here is sized by the body's ndof.
 */
#include "model/model.h"

void fmb_body_rot_update(const fmb_body_t *body, double th)
{
    fmb_body_t *b = (fmb_body_t *)body;
    b->rot_c = cos(th), b->rot_s = sin(th); /* one sincos */
    b->rot_th = th, b->rot_ok = 1;
}

void fmb_view_rigid(fmb_bodyview_t *v)
{
    v->nc = v->ndof ? 3 : 0;
    v->cols[0] = 0, v->cols[1] = 1, v->cols[2] = 2;
}

void fmb_view_add_cols(fmb_bodyview_t *v, int n, const int *cols)
{
    for (int k = 0; k < n; k++) { /* insertion: ascending, no duplicates */
        const int c = cols[k];
        int at = v->nc;
        for (int i = 0; i < v->nc; i++)
            if (v->cols[i] >= c) {
                at = i;
                break;
            }
        if (at < v->nc && v->cols[at] == c) continue;
        if (v->nc == FMB_VIEW_COLS) continue; /* cannot happen for FMB_SHAPE_MAX shapes */
        for (int i = v->nc; i > at; i--)
            v->cols[i] = v->cols[i - 1];
        v->cols[at] = c;
        v->nc++;
    }
}

void fmb_view_add_point(fmb_bodyview_t *v, const double u[2])
{
    int cols[3 + FMB_SHAPE_MAX];
    const int n = fmb_point_support(v, u, cols);
    fmb_view_add_cols(v, n, cols);
}

int fmb_view_col(const fmb_bodyview_t *v, int c)
{
    if (c < 3) return c < v->nc && v->cols[c] == c ? c : -1;
    int lo = 3, hi = v->nc - 1;
    while (lo <= hi) {
        const int mid = (lo + hi) / 2;
        if (v->cols[mid] == c) return mid;
        if (v->cols[mid] < c)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

double fmb_body_angle(const fmb_bodyview_t *v)
{
    return v->ndof ? v->q[2] : 0.0;
}

static int shape(const fmb_bodyview_t *v, const double u[2], fmb_shape_t *N)
{
    N->n = 0;
    if (v->ndof && v->body && v->body->klass && v->body->klass->shape)
        v->body->klass->shape(v->body, u, N);
    return N->n;
}

static inline void carrier_point(const fmb_bodyview_t *v, const double u[2], const fmb_shape_t *N,
                                 double p[2])
{
    p[0] = u[0] + (v->ndof ? v->q[0] : 0.0);
    p[1] = u[1] + (v->ndof ? v->q[1] : 0.0);
    for (int k = 0; k < N->n; k++) {
        p[0] += N->Nx[k] * v->q[N->col[k]];
        p[1] += N->Ny[k] * v->q[N->col[k]];
    }
}

/* J from the point's shape functions N, carrier position p and rotation A. */
static inline void jac_of(const fmb_bodyview_t *v, const fmb_shape_t *N, const double p[2],
                          const double A[4], double *J)
{
    for (int k = 6; k < 2 * v->nc; k++) /* the shape columns (0 1 2 are set below) */
        J[k] = 0.0;
    J[0] = A[0], J[1] = A[1]; /* column rbar_x */
    J[2] = A[2], J[3] = A[3]; /* column rbar_y */
    double ip[2] = {-p[1], p[0]};
    J[4] = A[0] * ip[0] + A[2] * ip[1];
    J[5] = A[1] * ip[0] + A[3] * ip[1];
    for (int k = 0; k < N->n; k++) {
        const int c = fmb_view_col(v, N->col[k]);
        if (c < 0) continue; /* not among the element's columns: a class error */
        J[2 * c] += A[0] * N->Nx[k] + A[2] * N->Ny[k];
        J[2 * c + 1] += A[1] * N->Nx[k] + A[3] * N->Ny[k];
    }
}

int fmb_point_shape(const fmb_bodyview_t *v, const double u[2], fmb_shape_t *N)
{
    return shape(v, u, N);
}

void fmb_point_posjac_n(const fmb_bodyview_t *v, const double u[2], const fmb_shape_t *N,
                        double r[2], double *J)
{
    double p[2], A[4];
    carrier_point(v, u, N, p);
    fmb_view_rot(v, A);
    r[0] = A[0] * p[0] + A[2] * p[1];
    r[1] = A[1] * p[0] + A[3] * p[1];
    if (J && v->ndof) jac_of(v, N, p, A, J);
}

void fmb_point_posjac(const fmb_bodyview_t *v, const double u[2], double r[2], double *J)
{
    fmb_shape_t N;
    shape(v, u, &N);
    fmb_point_posjac_n(v, u, &N, r, J);
}

void fmb_point_hess_n(const fmb_bodyview_t *v, const double u[2], const fmb_shape_t *N,
                      const double w[2], double *H, int n)
{
    if (!v->ndof) return;
    double p[2], A[4];
    carrier_point(v, u, N, p);
    fmb_view_rot(v, A);
    double a[2] = {A[0] * w[0] + A[1] * w[1], A[2] * w[0] + A[3] * w[1]};
    double b[2] = {a[1], -a[0]};
    H[0 + 2 * n] += b[0];
    H[1 + 2 * n] += b[1];
    H[2 + 0 * n] += b[0];
    H[2 + 1 * n] += b[1];
    H[2 + 2 * n] += -(p[0] * a[0] + p[1] * a[1]);
    for (int k = 0; k < N->n; k++) {
        const int c = fmb_view_col(v, N->col[k]);
        if (c < 0) continue;
        double bn = b[0] * N->Nx[k] + b[1] * N->Ny[k];
        H[2 + (size_t)c * n] += bn;
        H[c + 2 * (size_t)n] += bn;
    }
}

void fmb_point_hess(const fmb_bodyview_t *v, const double u[2], const double w[2], double *H, int n)
{
    if (!v->ndof) return;
    fmb_shape_t N;
    shape(v, u, &N);
    fmb_point_hess_n(v, u, &N, w, H, n);
}

int fmb_point_support(const fmb_bodyview_t *v, const double u[2], int *cols)
{
    if (!v->ndof) return 0;
    fmb_shape_t N;
    shape(v, u, &N);
    int n = 3;
    cols[0] = 0, cols[1] = 1, cols[2] = 2;
    for (int k = 0; k < N.n; k++) { /* insertion: ascending, no duplicates */
        int c = N.col[k], at = n;
        for (int i = 3; i < n; i++)
            if (cols[i] >= c) {
                at = i;
                break;
            }
        if (at < n && cols[at] == c) continue;
        for (int i = n; i > at; i--)
            cols[i] = cols[i - 1];
        cols[at] = c;
        n++;
    }
    return n;
}

static void carrier_velocity(const fmb_bodyview_t *v, const fmb_shape_t *N, double pd[2])
{
    pd[0] = v->qd[0], pd[1] = v->qd[1];
    for (int k = 0; k < N->n; k++) {
        pd[0] += N->Nx[k] * v->qd[N->col[k]];
        pd[1] += N->Ny[k] * v->qd[N->col[k]];
    }
}

void fmb_point_vel(const fmb_bodyview_t *v, const double u[2], double rd[2])
{
    if (!v->ndof) {
        rd[0] = rd[1] = 0.0;
        return;
    }
    double p[2], pd[2], A[4];
    fmb_shape_t N;
    shape(v, u, &N);
    carrier_point(v, u, &N, p);
    carrier_velocity(v, &N, pd);
    fmb_view_rot(v, A);
    double w = v->qd[2];
    double c[2] = {pd[0] - w * p[1], pd[1] + w * p[0]};
    rd[0] = A[0] * c[0] + A[2] * c[1];
    rd[1] = A[1] * c[0] + A[3] * c[1];
}

void fmb_point_veljac(const fmb_bodyview_t *v, const double u[2], double *Jv)
{
    if (!v->ndof) return;
    double p[2], pd[2], A[4];
    fmb_shape_t N;
    shape(v, u, &N);
    carrier_point(v, u, &N, p);
    carrier_velocity(v, &N, pd);
    fmb_view_rot(v, A);
    for (int k = 0; k < 2 * v->nc; k++)
        Jv[k] = 0.0;
    double w = v->qd[2];
    /* A * (w Itil): columns w*A*(0,1) and w*A*(-1,0) */
    Jv[0] = w * A[2], Jv[1] = w * A[3];
    Jv[2] = -w * A[0], Jv[3] = -w * A[1];
    double c[2] = {pd[0] - w * p[1], pd[1] + w * p[0]};
    double ic[2] = {-c[1], c[0]};
    Jv[4] = A[0] * ic[0] + A[2] * ic[1];
    Jv[5] = A[1] * ic[0] + A[3] * ic[1];
    for (int k = 0; k < N.n; k++) {
        const int col = fmb_view_col(v, N.col[k]);
        if (col < 0) continue;
        double in[2] = {-w * N.Ny[k], w * N.Nx[k]}; /* w Itil N */
        Jv[2 * col] += A[0] * in[0] + A[2] * in[1];
        Jv[2 * col + 1] += A[1] * in[0] + A[3] * in[1];
    }
}

/* Material rotation of the section through u: theta + phi(u), with phi = -d(p_x)/dy0 the
 * rotation of the plane section (for a beam phi = v'(x), the Hermite slope; 0 for a rigid
 * body). The shape functions are linear in the cross-section coordinate y0 (plane sections),
 * so the difference of the rows at y0 + 1 and y0 is the derivative. Linear in q: W is
 * d(theta + phi)/dq on the view's columns (the section at u has the shape columns of u),
 * and the rotation rate is W qd (fmb_point_rotrate, on any view). */
void fmb_point_rotjac(const fmb_bodyview_t *v, const double u[2], double *W)
{
    if (!v->ndof) return;
    for (int k = 0; k < v->nc; k++)
        W[k] = 0.0;
    W[2] = 1.0;
    fmb_shape_t N0, N1;
    const double u1[2] = {u[0], u[1] + 1.0};
    shape(v, u, &N0);
    shape(v, u1, &N1);
    for (int k = 0; k < N1.n; k++) {
        const int c = fmb_view_col(v, N1.col[k]);
        if (c >= 0) W[c] -= N1.Nx[k];
    }
    for (int k = 0; k < N0.n; k++) {
        const int c = fmb_view_col(v, N0.col[k]);
        if (c >= 0) W[c] += N0.Nx[k];
    }
}

double fmb_point_rotrate(const fmb_bodyview_t *v, const double u[2])
{
    if (!v->ndof || !v->qd) return 0.0;
    fmb_shape_t N0, N1;
    const double u1[2] = {u[0], u[1] + 1.0};
    shape(v, u, &N0);
    shape(v, u1, &N1);
    double w = v->qd[2];
    for (int k = 0; k < N1.n; k++)
        w -= N1.Nx[k] * v->qd[N1.col[k]];
    for (int k = 0; k < N0.n; k++)
        w += N0.Nx[k] * v->qd[N0.col[k]];
    return w;
}

/* the position alone, or the Jacobian alone: the same evaluation (bitwise) */
void fmb_point_pos(const fmb_bodyview_t *v, const double u[2], double r[2])
{
    fmb_point_posjac(v, u, r, NULL);
}

void fmb_point_jac(const fmb_bodyview_t *v, const double u[2], double *J)
{
    double r[2];
    if (v->ndof) fmb_point_posjac(v, u, r, J);
}

/*
 * The fast path of the revolute joint (revolute.c is the reference: its equations, its
 * plain evaluation through bodies/point.c). The class of runs, fmb_revolute_class, is
 * revolute.c's class with this file's eval and hess:
 *   - the shape functions of the joint points and the places of their columns among a
 *     view's columns are kept in the joint (evalcache, fmb_pin_memo_t in revolute_fast.h),
 *   - a pin side on a rigid body, on ground and on a beam's default columns is point.c's
 *     fmb_point_posjac_n / fmb_point_hess_n inlined, its J entries written once.
 * The same values as revolute.c's to rounding (tests/test_pin_rigid.c, tests/test_pin_beam.c
 * compare the two class tables), and both pass the finite-difference checks of
 * tests/test_conformance.c. The weld joint's fast path (weld_fast.c) shares the memo and
 * fmb_joint_pin_hess.
 */
#include "joints/revolute_fast.h"

#include <string.h>

/* The joint points' shape functions (fmb_point_shape: a beam's Hermite functions at a fixed
 * material point; none on a rigid body) depend on the body and the point alone, so they are
 * kept in the joint (evalcache), keyed on the body, its data, its ndof and the point's bit
 * patterns: every evaluation (residual, Phi, assembly) reuses them, bitwise the same values.
 * At 10 rocker elements the two pins on the rocker searched the element and evaluated its
 * shape functions ~14 times per step. */
_Static_assert(2 * sizeof(fmb_pin_memo_t) <= sizeof(((fmb_joint_t *)0)->evalcache),
               "the pin joints' shape cache must fit the joint's evalcache");

fmb_pin_memo_t *fmb_joint_pin_memo_fill(const fmb_joint_t *j, const fmb_bodyview_t *v, int b)
{
    fmb_pin_memo_t *m = (fmb_pin_memo_t *)(void *)((fmb_joint_t *)j)->evalcache + b;
    fmb_point_shape(v, j->point[b], &m->N);
    m->body = v->body, m->data = v->body ? v->body->data : NULL, m->ndof = v->ndof, m->ok = 1;
    m->pnc = -1; /* the places are found at their first use */
    memcpy(m->u, j->point[b], sizeof m->u);
    return m;
}

/* The places of N's columns among the view's columns into the memo (fmb_view_col), and
 * whether they cover 3 .. nc - 1 once each. 0: a column is not among them (a class error,
 * which point.c's general path skips). */
_Static_assert(FMB_VIEW_COLS < 32, "a view's columns fit pin_places_find's bit set");
static int pin_places_find(fmb_pin_memo_t *m, const fmb_bodyview_t *v)
{
    const fmb_shape_t *N = &m->N;
    unsigned long seen = 0;
    int cover = 1;
    m->pnc = -1;
    for (int k = 0; k < N->n; k++) {
        const int c = fmb_view_col(v, N->col[k]);
        if (c < 0) return 0;
        cover &= c >= 3 && !(seen >> c & 1ul);
        seen |= 1ul << c;
        m->pos[k] = c;
    }
    m->cover = cover && seen == (((1ul << v->nc) - 1) & ~7ul);
    m->pnc = v->nc;
    return 1;
}

/* The memo's places, valid for v: each kept place holds its column in v (the columns of a
 * view are distinct, so that is the place fmb_view_col finds), else found again. */
static inline int pin_places(fmb_pin_memo_t *m, const fmb_bodyview_t *v)
{
    if (m->pnc == v->nc) {
        int ok = 1;
        for (int k = 0; k < m->N.n; k++)
            ok &= v->cols[m->pos[k]] == m->N.col[k];
        if (ok) return 1;
    }
    return pin_places_find(m, v);
}

/* A beam side of the pin (shape functions N): point.c's fmb_point_posjac_n with the memo's
 * places of the shape columns (pin_places, no search); when they cover the view's elastic
 * columns once each (a pin's default columns) each of those J entries is written as
 * 0.0 + its one term, the bits of jac_of's zeroing and adding, and negated when neg as the
 * negation after it (the two pins on the quick-return's rocker: ~4.6 evaluations per step,
 * 360 instructions each through point.c); otherwise point.c's evaluation. */
static void pin_side_beam(const fmb_bodyview_t *v, const double u[2], fmb_pin_memo_t *m,
                          double r[2], double *J, int neg)
{
    const fmb_shape_t *N = &m->N;
    if (J && !(pin_places(m, v) && m->cover)) {
        fmb_point_posjac_n(v, u, N, r, J);
        if (neg)
            for (int k = 0; k < 2 * v->nc; k++)
                J[k] = -J[k];
        return;
    }
    double p[2], A[4];
    p[0] = u[0] + v->q[0]; /* a body with shape functions has coordinates */
    p[1] = u[1] + v->q[1];
    for (int k = 0; k < N->n; k++) {
        p[0] += N->Nx[k] * v->q[N->col[k]];
        p[1] += N->Ny[k] * v->q[N->col[k]];
    }
    fmb_view_rot(v, A);
    r[0] = A[0] * p[0] + A[2] * p[1];
    r[1] = A[1] * p[0] + A[3] * p[1];
    if (!J) return;
    const double ip[2] = {-p[1], p[0]};
    const double j4 = A[0] * ip[0] + A[2] * ip[1], j5 = A[1] * ip[0] + A[3] * ip[1];
    for (int k = 0; k < N->n; k++) {
        const int c = m->pos[k];
        const double x0 = 0.0 + (A[0] * N->Nx[k] + A[2] * N->Ny[k]);
        const double x1 = 0.0 + (A[1] * N->Nx[k] + A[3] * N->Ny[k]);
        J[2 * c] = neg ? -x0 : x0;
        J[2 * c + 1] = neg ? -x1 : x1;
    }
    if (neg) {
        J[0] = -A[0], J[1] = -A[1], J[2] = -A[2], J[3] = -A[3], J[4] = -j4, J[5] = -j5;
    } else {
        J[0] = A[0], J[1] = A[1], J[2] = A[2], J[3] = A[3], J[4] = j4, J[5] = j5;
    }
}

/* One side of the pin: r = A p and J = A [I2, Itil p, N] (negated when neg: body 1's side
 * of Phi = r_P0 - r_P1). On a rigid body or ground (no shape functions) it is evaluated here,
 * inline: the expressions of point.c's fmb_point_posjac_n (carrier_point, jac_of) in the same
 * order, so the same bits, and -x of each entry, as the negation after it gave (the rigid
 * pins are 10 of the seven-bar's 11 joints, evaluated ~3.4 times per step); on a beam
 * pin_side_beam. */
static inline void pin_side(const fmb_bodyview_t *v, const double u[2], fmb_pin_memo_t *m,
                            double r[2], double *J, int neg)
{
    if (m->N.n) {
        pin_side_beam(v, u, m, r, J, neg);
        return;
    }
    double p[2], A[4];
    p[0] = u[0] + (v->ndof ? v->q[0] : 0.0);
    p[1] = u[1] + (v->ndof ? v->q[1] : 0.0);
    fmb_view_rot(v, A);
    r[0] = A[0] * p[0] + A[2] * p[1];
    r[1] = A[1] * p[0] + A[3] * p[1];
    if (!J || !v->ndof) return;
    const double ip[2] = {-p[1], p[0]};
    const double j4 = A[0] * ip[0] + A[2] * ip[1], j5 = A[1] * ip[0] + A[3] * ip[1];
    if (neg) {
        for (int k = 6; k < 2 * v->nc; k++) /* columns beyond the rigid ones (none by default) */
            J[k] = -0.0;
        J[0] = -A[0], J[1] = -A[1], J[2] = -A[2], J[3] = -A[3], J[4] = -j4, J[5] = -j5;
    } else {
        for (int k = 6; k < 2 * v->nc; k++)
            J[k] = 0.0;
        J[0] = A[0], J[1] = A[1], J[2] = A[2], J[3] = A[3], J[4] = j4, J[5] = j5;
    }
}

static void revolute_fast_eval(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t,
                               double *phi, double *J0, double *J1)
{
    (void)t;
    double r0[2], r1[2];
    pin_side(&v[0], j->point[0], fmb_joint_pin_memo(j, &v[0], 0), r0, J0, 0);
    pin_side(&v[1], j->point[1], fmb_joint_pin_memo(j, &v[1], 1), r1, J1, 1);
    phi[0] = r0[0] - r1[0];
    phi[1] = r0[1] - r1[1];
}

/* The carrier part of one side's H(w) at the point p (carrier coordinates): with a = A w
 * and b = (a_y, -a_x), the (x, theta), (y, theta) entries and their transposes b and the
 * (theta, theta) entry -p . a, added at H (leading dimension n); b is returned for the
 * shape columns' entries. point.c's fmb_point_hess_n's expressions in its order. */
static inline void hess_carrier(const fmb_bodyview_t *v, const double p[2], const double w[2],
                                double *H, int n, double b[2])
{
    double A[4];
    fmb_view_rot(v, A);
    const double a[2] = {A[0] * w[0] + A[1] * w[1], A[2] * w[0] + A[3] * w[1]};
    b[0] = a[1], b[1] = -a[0];
    H[0 + 2 * n] += b[0];
    H[1 + 2 * n] += b[1];
    H[2 + 0 * n] += b[0];
    H[2 + 1 * n] += b[1];
    H[2 + 2 * n] += -(p[0] * a[0] + p[1] * a[1]);
}

/* A beam side's H(w) (shape functions N): point.c's fmb_point_hess_n (the same expressions
 * and additions in the same order) with the memo's places of the shape columns
 * (pin_places; point.c's evaluation if a column is not among the view's). */
static void pin_hess_beam(const fmb_bodyview_t *v, const double u[2], fmb_pin_memo_t *m,
                          const double w[2], double *H, int n)
{
    const fmb_shape_t *N = &m->N;
    if (!pin_places(m, v)) {
        fmb_point_hess_n(v, u, N, w, H, n);
        return;
    }
    double p[2];
    p[0] = u[0] + v->q[0];
    p[1] = u[1] + v->q[1];
    for (int k = 0; k < N->n; k++) {
        p[0] += N->Nx[k] * v->q[N->col[k]];
        p[1] += N->Ny[k] * v->q[N->col[k]];
    }
    double b[2];
    hess_carrier(v, p, w, H, n, b);
    for (int k = 0; k < N->n; k++) {
        const int c = m->pos[k];
        const double bn = b[0] * N->Nx[k] + b[1] * N->Ny[k];
        H[2 + (size_t)c * n] += bn;
        H[c + 2 * (size_t)n] += bn;
    }
}

/* One side's H(w) added at H (leading dimension ld): on a rigid body point.c's
 * fmb_point_hess_n inline (the same expressions and additions in the same order), on a beam
 * pin_hess_beam. */
static inline void pin_hess_side(const fmb_bodyview_t *v, const double u[2], fmb_pin_memo_t *m,
                                 const double w[2], double *H, int n)
{
    if (m->N.n) {
        pin_hess_beam(v, u, m, w, H, n);
        return;
    }
    if (!v->ndof) return;
    double p[2], b[2];
    p[0] = u[0] + v->q[0];
    p[1] = u[1] + v->q[1];
    hess_carrier(v, p, w, H, n, b);
}

void fmb_joint_pin_hess(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, const double *w,
                        double *H)
{
    (void)t;
    const int n0 = v[0].nc, ld = n0 + v[1].nc;
    double mw[2] = {-w[0], -w[1]};
    pin_hess_side(&v[0], j->point[0], fmb_joint_pin_memo(j, &v[0], 0), w, H, ld);
    pin_hess_side(&v[1], j->point[1], fmb_joint_pin_memo(j, &v[1], 1), mw, H + n0 + (size_t)n0 * ld,
                  ld);
}

const fmb_joint_class_t fmb_revolute_class = {
    .name = "revolute",
    .nrows = 2,
    .eval = revolute_fast_eval,
    .hess = fmb_joint_pin_hess,
    .hess_kind = FMB_HESS_POINTS,
    .time = NULL,
    .distinct = 1,
    .case_type = "revolute",
    .item_flags = FMB_ITEM_BODIES | FMB_ITEM_POINTS | FMB_ITEM_DISTINCT,
};

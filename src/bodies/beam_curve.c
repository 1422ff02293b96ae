/*
 * The deformed centre line of a beam near a body-frame point s = (s_x, s_y): the element,
 * the material coordinate xi of the curve point matched with s, the offset f0 of s across
 * the curve and the curve's tangent angle f1 (both zero-order, with exact first and second
 * derivatives over y = (s_x, s_y, z), z = (u_a, v_a, phi_a, u_b, v_b, phi_b) the element's
 * dofs). The slider on an elastic guide (joints/slider_beam.c) is Phi_1 = f0,
 * Phi_2 = theta0 - theta1 - angle - f1. Each geometry has its own centre line, the one its
 * elastic forces describe (docs/theory.md section 8):
 *
 * Linear beams (body-frame interpolation, beam.c): the material point xi sits at
 * (xi + u(xi), v(xi)), u linear and v cubic Hermite in the element on [X_a, X_b],
 * l = X_b - X_a. s is matched with the xi of the same axial position, xi + u(xi) = s_x,
 * exact in closed form:
 *   b = 1 + (u_b - u_a)/l,   xi = X_a + (s_x - X_a - u_a)/b,
 * after a binary search over the deformed node positions X_k + u_k. Then
 *   f0 = s_y - v(xi),   f1 = v'(xi)   (the Hermite interpolant of the nodal rotations),
 *   dxi/dy = (1, 0, -(1 - zeta), 0, 0, -zeta, 0, 0)/b,  zeta = (xi - X_a)/l,
 *   d2xi/dy2 = -(dxi db^T + db dxi^T)/b,  db/dy = (0, 0, -1, 0, 0, 1, 0, 0)/l,
 *   df0 = e_sy - v' dxi - H(xi) on V,  df1 = v'' dxi + H'(xi) on V  (V = v_a phi_a v_b phi_b),
 *   d2f0 = -(v'' dxi dxi^T + v' d2xi + H' dxi^T + dxi H'^T),
 *   d2f1 = v''' dxi dxi^T + v'' d2xi + H'' dxi^T + dxi H''^T.
 *
 * Nonlinear beams (co-rotational elements, beam_corot.c): the element's curve lies in the
 * frame of its chord d = (l + u_b - u_a, v_b - v_a), length ln, direction t = d/ln,
 * normal n = Itil t, angle beta = atan2(d_y, d_x). With the local rotations
 * theta_a = phi_a - beta, theta_b = phi_b - beta (small) and the unit Hermite functions
 * h2 = zeta - 2 zeta^2 + zeta^3, h4 = zeta^3 - zeta^2, the curve is
 *   r(zeta) = r_a + zeta d + ln W(zeta) n,   W = h2 theta_a + h4 theta_b,
 * whose tangent angle beta + atan(W') is the nodal rotation phi at both ends (C1 across
 * elements: no corners where the elements meet). s, with p = s - r_a, is matched with the
 * zeta of the same position along the chord:
 *   zeta = p.d / ln^2,  eta = p.n,  xi = X_a + zeta l,
 *   f0 = eta - ln W(zeta),   f1 = beta + W'(zeta).
 * The element under s is the one with 0 <= zeta < 1: the body-frame search's element,
 * moved to a neighbour while zeta leaves [0, 1) and the neighbour takes s. The
 * derivatives are taken over x = (p, d, phi_a, phi_b), linear in y (p = s - r_a,
 * d = (l + u_b - u_a, v_b - v_a)), with
 *   dln = t (on d),   dbeta = n/ln,   d2ln = (I - t t^T)/ln,   d2beta = -(t n^T + n t^T)/ln^2,
 *   dzeta = (t/ln, (p - 2 zeta d)/ln^2),   d2zeta: pd (I - 2 t t^T)/ln^2,
 *       dd [8 zeta d d^T - 2 (p d^T + d p^T)]/ln^4 - 2 zeta I/ln^2,
 *   deta = (n, (P - eta t)/ln),  P = Itil^T p,   d2eta: pd (Itil - n t^T)/ln,
 *       dd [3 eta t t^T - eta I - (P t^T + t P^T)]/ln^2,
 * and the chain rule through W, W' (theta_a, theta_b: d = e_phi - dbeta).
 */
#include "bodies/beam_curve.h"

#include <math.h>
#include <string.h>

/* q[col] (0 for a removed dof, col < 0), recorded in rd. */
static inline double read_q(const double *q, int col, fmb_beam_curve_reads_t *rd)
{
    if (col < 0) return 0.0;
    if (rd && rd->n >= 0) {
        if (rd->n < FMB_CURVE_READS) {
            rd->col[rd->n] = col, rd->val[rd->n] = q[col];
            rd->n++;
        } else {
            rd->n = -1;
        }
    }
    return q[col];
}

/* The largest e with X_e + u_e <= x, clamped to [0, nel - 1]. */
static int element_at_deformed(const fmb_beam_t *bm, const double *q, double x,
                               fmb_beam_curve_reads_t *rd)
{
    int lo = 0, hi = bm->nnodes - 1;
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        if (bm->x[mid] + read_q(q, bm->dof[3 * mid], rd) <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* y for element e: s and the element's six dofs (removed ones 0). */
static void gather(const fmb_beam_t *bm, const double *q, const double s[2], int e,
                   fmb_beam_curve_t *c, fmb_beam_curve_reads_t *rd)
{
    c->e = e;
    c->y[0] = s[0], c->y[1] = s[1];
    for (int k = 0; k < 6; k++) {
        c->col[k] = bm->dof[3 * e + k];
        c->y[2 + k] = read_q(q, c->col[k], rd);
    }
}

/* Add a * (x y^T + y x^T) to the n x n matrix H (column-major). */
static void add_sym(double *H, int n, double a, const double *x, const double *y)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            H[i + n * j] += a * (x[i] * y[j] + y[i] * x[j]);
}

/* Add a * (x y^T + y x^T) on the entries of x at ix[0..nx) and of y at iy[0..ny) only (the
 * others are zero). */
static void add_sym_at(double *H, int n, double a, const double *x, const int *ix, int nx,
                       const double *y, const int *iy, int ny)
{
    for (int p = 0; p < nx; p++)
        for (int r = 0; r < ny; r++) {
            const double v = a * x[ix[p]] * y[iy[r]];
            H[ix[p] + n * iy[r]] += v;
            H[iy[r] + n * ix[p]] += v;
        }
}

/* ---- linear beams: body-frame interpolation ---- */

static void bodyframe(const fmb_beam_t *bm, fmb_beam_curve_t *c, const double *w, double *H)
{
    const int e = c->e;
    const double *y = c->y;
    const double Xa = bm->x[e], l = bm->x[e + 1] - Xa;
    const double b = 1.0 + (y[5] - y[2]) / l;
    const double d = (y[0] - Xa - y[2]) / b, zeta = d / l;
    c->xi = Xa + d, c->zeta = zeta, c->stretch = b;
    double Hm[4][4];
    fmb_beam_hermite_all(bm, e, c->xi, Hm);
    static const int vk[4] = {3, 4, 6, 7}; /* V's places in y */
    double vv[4] = {0, 0, 0, 0}, hv[3][FMB_CURVE_NY] = {{0}};
    for (int k = 0; k < 4; k++) {
        for (int r = 0; r < 4; r++)
            vv[r] += Hm[r][k] * y[vk[k]];
        for (int r = 0; r < 3; r++)
            hv[r][vk[k]] = Hm[r][k];
    }
    double dxi[FMB_CURVE_NY] = {0}, db[FMB_CURVE_NY] = {0};
    dxi[0] = 1.0 / b, dxi[2] = -(1.0 - zeta) / b, dxi[5] = -zeta / b;
    db[2] = -1.0 / l, db[5] = 1.0 / l;
    c->f[0] = y[1] - vv[0];
    c->f[1] = vv[1];
    for (int k = 0; k < FMB_CURVE_NY; k++) {
        c->g[0][k] = (k == 1) - vv[1] * dxi[k] - hv[0][k];
        c->g[1][k] = vv[2] * dxi[k] + hv[1][k];
    }
    if (!H) return;
    /* w0 d2f0 + w1 d2f1 = A dxi dxi^T + C d2xi + (G dxi^T + dxi G^T) */
    const double A = w[1] * vv[3] - w[0] * vv[2], C = w[1] * vv[2] - w[0] * vv[1];
    double G[FMB_CURVE_NY];
    for (int k = 0; k < FMB_CURVE_NY; k++)
        G[k] = w[1] * hv[2][k] - w[0] * hv[1][k];
    static const int ix[3] = {0, 2, 5}, ib[2] = {2, 5}, ig[4] = {3, 4, 6, 7}; /* nonzeros */
    const int n = FMB_CURVE_NY;
    add_sym_at(H, n, 0.5 * A, dxi, ix, 3, dxi, ix, 3);
    add_sym_at(H, n, -C / b, dxi, ix, 3, db, ib, 2);
    add_sym_at(H, n, 1.0, G, ig, 4, dxi, ix, 3);
}

/* ---- nonlinear beams: the co-rotational element's curve ---- */

enum { PX, PY, DX, DY, FA, FB, NX }; /* x = (p, d, phi_a, phi_b) */

static void corot(const fmb_beam_t *bm, fmb_beam_curve_t *c, const double *w, double *H)
{
    const int e = c->e;
    const double *y = c->y;
    const double Xa = bm->x[e], l = bm->x[e + 1] - Xa;
    const double p[2] = {y[0] - Xa - y[2], y[1] - y[3]};
    const double d[2] = {l + y[5] - y[2], y[6] - y[3]};
    const double ln2 = d[0] * d[0] + d[1] * d[1], ln = sqrt(ln2);
    const double t[2] = {d[0] / ln, d[1] / ln}, nn[2] = {-t[1], t[0]};
    const double zeta = (p[0] * d[0] + p[1] * d[1]) / ln2;
    const double eta = p[0] * nn[0] + p[1] * nn[1];
    const double beta = atan2(d[1], d[0]);
    const double ra = y[4] - beta, rb = y[7] - beta;
    const double ta = atan2(sin(ra), cos(ra)), tb = atan2(sin(rb), cos(rb));
    const double z = zeta, z2 = z * z;
    const double h2 = z - 2 * z2 + z2 * z, h4 = z2 * z - z2;
    const double h2p = 1 - 4 * z + 3 * z2, h4p = 3 * z2 - 2 * z;
    const double h2pp = -4 + 6 * z, h4pp = 6 * z - 2;
    const double W = h2 * ta + h4 * tb, Wz = h2p * ta + h4p * tb, Wzz = h2pp * ta + h4pp * tb;
    const double Wzzz = 6 * (ta + tb);
    c->xi = Xa + zeta * l, c->zeta = zeta, c->stretch = ln / l;
    c->f[0] = eta - ln * W;
    c->f[1] = beta + Wz;
    /* first derivatives over x */
    const double P[2] = {p[1], -p[0]}; /* Itil^T p */
    double dln[NX] = {0}, dbe[NX] = {0}, dze[NX] = {0}, det[NX] = {0}, dta[NX], dtb[NX];
    dln[DX] = t[0], dln[DY] = t[1];
    dbe[DX] = nn[0] / ln, dbe[DY] = nn[1] / ln;
    dze[PX] = t[0] / ln, dze[PY] = t[1] / ln;
    dze[DX] = (p[0] - 2 * z * d[0]) / ln2, dze[DY] = (p[1] - 2 * z * d[1]) / ln2;
    det[PX] = nn[0], det[PY] = nn[1];
    det[DX] = (P[0] - eta * t[0]) / ln, det[DY] = (P[1] - eta * t[1]) / ln;
    for (int k = 0; k < NX; k++)
        dta[k] = (k == FA) - dbe[k], dtb[k] = (k == FB) - dbe[k];
    double dW[NX], dS[NX], g0[NX], g1[NX];
    for (int k = 0; k < NX; k++) {
        dW[k] = Wz * dze[k] + h2 * dta[k] + h4 * dtb[k];
        dS[k] = Wzz * dze[k] + h2p * dta[k] + h4p * dtb[k];
        g0[k] = det[k] - W * dln[k] - ln * dW[k];
        g1[k] = dbe[k] + dS[k];
    }
    /* y -> x: p = (s_x - u_a, s_y - v_a) - X_a, d = (u_b - u_a, v_b - v_a) + l */
    static const double L[NX][FMB_CURVE_NY] = {{1, 0, -1, 0, 0, 0, 0, 0}, {0, 1, 0, -1, 0, 0, 0, 0},
                                               {0, 0, -1, 0, 0, 1, 0, 0}, {0, 0, 0, -1, 0, 0, 1, 0},
                                               {0, 0, 0, 0, 1, 0, 0, 0},  {0, 0, 0, 0, 0, 0, 0, 1}};
    for (int k = 0; k < FMB_CURVE_NY; k++) {
        c->g[0][k] = c->g[1][k] = 0.0;
        for (int i = 0; i < NX; i++)
            c->g[0][k] += L[i][k] * g0[i], c->g[1][k] += L[i][k] * g1[i];
    }
    if (!H) return;
    /* second derivatives of the pieces over x (only the p and d blocks are nonzero) */
    double Hln[NX * NX] = {0}, Hbe[NX * NX] = {0}, Hze[NX * NX] = {0}, Het[NX * NX] = {0};
    static const double It[2][2] = {{0, -1}, {1, 0}}; /* Itil */
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            const double dij = i == j;
            Hln[(DX + i) + NX * (DX + j)] = (dij - t[i] * t[j]) / ln;
            Hbe[(DX + i) + NX * (DX + j)] = -(t[i] * nn[j] + nn[i] * t[j]) / ln2;
            const double zpd = (dij - 2 * t[i] * t[j]) / ln2;
            Hze[(PX + i) + NX * (DX + j)] = Hze[(DX + j) + NX * (PX + i)] = zpd;
            Hze[(DX + i) + NX * (DX + j)] =
                (8 * z * d[i] * d[j] - 2 * (p[i] * d[j] + d[i] * p[j])) / (ln2 * ln2) -
                2 * z * dij / ln2;
            const double epd = (It[i][j] - nn[i] * t[j]) / ln;
            Het[(PX + i) + NX * (DX + j)] = Het[(DX + j) + NX * (PX + i)] = epd;
            Het[(DX + i) + NX * (DX + j)] =
                (3 * eta * t[i] * t[j] - eta * dij - (P[i] * t[j] + t[i] * P[j])) / ln2;
        }
    /* Hx = w0 d2f0 + w1 d2f1:
     * d2f0 = d2eta - W d2ln - (dln dW^T + dW dln^T) - ln d2W,
     * d2W = Wzz dze dze^T + Wz d2ze + h2'(dze dta^T + sym) + h4'(dze dtb^T + sym) - (h2 + h4) d2be,
     * d2f1 = d2be + d2S,
     * d2S = Wzzz dze dze^T + Wzz d2ze + h2''(dze dta^T + sym) + h4''(dze dtb^T + sym)
     *       - (h2' + h4') d2be */
    const double w0 = w[0], w1 = w[1];
    double Hx[NX * NX];
    for (int k = 0; k < NX * NX; k++)
        Hx[k] = w0 * (Het[k] - W * Hln[k] - ln * (Wz * Hze[k] - (h2 + h4) * Hbe[k])) +
                w1 * (Hbe[k] + Wzz * Hze[k] - (h2p + h4p) * Hbe[k]);
    add_sym(Hx, NX, -w0, dln, dW);
    add_sym(Hx, NX, 0.5 * (-w0 * ln * Wzz + w1 * Wzzz), dze, dze);
    add_sym(Hx, NX, -w0 * ln * h2p + w1 * h2pp, dze, dta);
    add_sym(Hx, NX, -w0 * ln * h4p + w1 * h4pp, dze, dtb);
    /* H += L^T Hx L */
    double T[NX * FMB_CURVE_NY];
    for (int j = 0; j < FMB_CURVE_NY; j++)
        for (int i = 0; i < NX; i++) {
            double a = 0.0;
            for (int k = 0; k < NX; k++)
                a += Hx[i + NX * k] * L[k][j];
            T[i + NX * j] = a;
        }
    for (int j = 0; j < FMB_CURVE_NY; j++)
        for (int i = 0; i < FMB_CURVE_NY; i++) {
            double a = 0.0;
            for (int k = 0; k < NX; k++)
                a += L[k][i] * T[k + NX * j];
            H[i + FMB_CURVE_NY * j] += a;
        }
}

static void evaluate(const fmb_beam_t *bm, fmb_beam_curve_t *c, const double *w, double *H)
{
    if (bm->geometry == FMB_BEAM_NONLINEAR)
        corot(bm, c, w, H);
    else
        bodyframe(bm, c, w, H);
}

void fmb_beam_curve_at(const fmb_beam_t *bm, const double *q, const double s[2],
                       fmb_beam_curve_t *c, fmb_beam_curve_reads_t *reads)
{
    const int nel = bm->nnodes - 1;
    if (reads) reads->n = 0;
    int e = element_at_deformed(bm, q, s[0], reads);
    gather(bm, q, s, e, c, reads);
    evaluate(bm, c, NULL, NULL);
    if (bm->geometry != FMB_BEAM_NONLINEAR) return;
    /* the co-rotated curves of neighbouring elements meet at an angle to the body x axis:
     * move to the neighbour that takes s while zeta leaves [0, 1) */
    fmb_beam_curve_t nb;
    for (int dir = -1; dir <= 1; dir += 2)
        for (int it = 0; it < nel; it++) {
            const int out = dir < 0 ? c->zeta < 0 : c->zeta >= 1;
            if (!out || e + dir < 0 || e + dir >= nel) break;
            gather(bm, q, s, e + dir, &nb, reads);
            evaluate(bm, &nb, NULL, NULL);
            if (dir < 0 ? nb.zeta > 1 : nb.zeta < 0) break; /* between the two: stay */
            e += dir;
            *c = nb;
        }
}

void fmb_beam_curve_hess(const fmb_beam_t *bm, const fmb_beam_curve_t *c, const double w[2],
                         double *H)
{
    fmb_beam_curve_t tmp = *c;
    memset(H, 0, FMB_CURVE_NY * FMB_CURVE_NY * sizeof *H);
    evaluate(bm, &tmp, w, H);
}

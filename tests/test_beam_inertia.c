/*
 * Beam inertia from per-element shape integrals (src/bodies/beam_inertia.c) against a
 * direct Gauss quadrature of the formulas in src/bodies/beam.c's header, written here
 * independently of the library (own Hermite shape functions, own 4-point Gauss rule from
 * its closed form, own dof map of the reference conditions, own element stiffness):
 * at every mass point of mass w (4 Gauss points per element; with rotary inertia each
 * split into y0 = +-sqrt(I/A) of half mass), p = rbar + (x, y0) + N U,
 * L = [I2, Itil p, N], P = [I2, 0, N], a = A^T g, f = a - 2 thd Itil pd + thd^2 p:
 *   M += w L^T L,  Q += w L^T f,
 *   dQ/dq  += w [ e_t (Itil^T f)^T P + L^T (Itil^T a e_t^T + thd^2 P) ]
 *   dQ/dqd += w L^T [ -2 thd Itil P + (-2 Itil pd + 2 thd p) e_t^T ]
 *   d(M qdd)/dq += w [ e_t (Itil^T (L qdd))^T P + thdd L^T Itil P ]
 *   V = -sum w g.(A p) + 1/2 U^T K U
 * plus, for linear beams, the elastic and Rayleigh terms Q -= K U + (alpha Muu + beta K) Ud
 * (K from the textbook element stiffness). For co-rotational beams the elastic part is
 * taken from the class at rest without gravity (where every inertia term above is zero),
 * and the beam is undamped.
 * Compared: mass, mass_times, forces (Q, dQ/dq, dQ/dqd, d(M qdd)/dq), blocks (summed to a
 * dense matrix, against cf0 M + cf1 Km - cf2 K - cf3 C, each term alone and combined) and
 * potential, at random states
 * of non-uniform meshes with both reference conditions, to 1e-12 relative after scaling
 * rows and columns by diag(M)^(-1/2) (units of the coordinates differ). The library sums
 * the same mass points in a different order (and with cancellation between m |rbar|^2,
 * 2 rbar.s0 and J0), so agreement is to rounding, not bitwise; a wrong or missing shape
 * integral gives errors of order 1e-3 or more (checked by changing the sign of Sbar).
 * Usage: test_beam_inertia linear|rotary|corot
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bodies/beam.h"
#include "flexmb/flexmb.h"
#include "model/model.h"

static int failures = 0;
#include "check.h"

#define NNODES 6
#define MAXD (3 + 3 * NNODES)

static double urand(double a, double b)
{
    return a + (b - a) * (rand() / (double)RAND_MAX);
}

typedef struct ref {
    int nd, dof[3 * NNODES];
    double x[NNODES], E, rho, A, I, alpha, beta;
    int rotary, corot;
    double M[MAXD * MAXD], Q[MAXD], K[MAXD * MAXD], C[MAXD * MAXD], Km[MAXD * MAXD], V;
} ref_t;

/* Local shape functions (u1 v1 phi1 u2 v2 phi2) of element [x1, x1 + l] at (x, y0). */
static void shape(double x1, double l, double x, double y0, double nx[6], double ny[6])
{
    const double s = (x - x1) / l, s2 = s * s, s3 = s2 * s;
    const double H[4] = {1 - 3 * s2 + 2 * s3, l * (s - 2 * s2 + s3), 3 * s2 - 2 * s3,
                         l * (s3 - s2)};
    const double dH[4] = {(-6 * s + 6 * s2) / l, 1 - 4 * s + 3 * s2, (6 * s - 6 * s2) / l,
                          -2 * s + 3 * s2};
    nx[0] = 1 - s, nx[1] = -y0 * dH[0], nx[2] = -y0 * dH[1];
    nx[3] = s, nx[4] = -y0 * dH[2], nx[5] = -y0 * dH[3];
    ny[0] = 0, ny[1] = H[0], ny[2] = H[1], ny[3] = 0, ny[4] = H[2], ny[5] = H[3];
}

/* The reference quadrature at body coordinates q, qd, qdd, gravity g. */
static void reference(ref_t *r, const double *q, const double *qd, const double *qdd,
                      const double g[2])
{
    const int nd = r->nd;
    memset(r->M, 0, sizeof r->M), memset(r->Q, 0, sizeof r->Q), memset(r->K, 0, sizeof r->K);
    memset(r->C, 0, sizeof r->C), memset(r->Km, 0, sizeof r->Km);
    r->V = 0;
    /* Gauss-Legendre, 4 points: +-sqrt(3/7 -+ 2/7 sqrt(6/5)), weights (18 +- sqrt(30))/36 */
    const double gx[4] = {
        -sqrt(3.0 / 7 + 2.0 / 7 * sqrt(6.0 / 5)), -sqrt(3.0 / 7 - 2.0 / 7 * sqrt(6.0 / 5)),
        sqrt(3.0 / 7 - 2.0 / 7 * sqrt(6.0 / 5)), sqrt(3.0 / 7 + 2.0 / 7 * sqrt(6.0 / 5))};
    const double gw[4] = {(18 - sqrt(30.0)) / 36, (18 + sqrt(30.0)) / 36, (18 + sqrt(30.0)) / 36,
                          (18 - sqrt(30.0)) / 36};
    const double c = cos(q[2]), s = sin(q[2]);
    const double a[2] = {c * g[0] + s * g[1], -s * g[0] + c * g[1]}; /* A^T g */
    const double th = qd[2], tdd = qdd[2];
    for (int e = 0; e + 1 < NNODES; e++) {
        const double x1 = r->x[e], l = r->x[e + 1] - x1;
        for (int k = 0; k < 4; k++)
            for (int sg = 0; sg < (r->rotary ? 2 : 1); sg++) {
                const double x = x1 + 0.5 * l * (1 + gx[k]);
                double w = r->rho * r->A * 0.5 * l * gw[k], y0 = 0;
                if (r->rotary) w *= 0.5, y0 = (sg ? 1 : -1) * sqrt(r->I / r->A);
                double nx[6], ny[6];
                shape(x1, l, x, y0, nx, ny);
                /* L, P on all nd columns */
                double L[2][MAXD] = {{0}}, P[2][MAXD] = {{0}};
                double p[2] = {q[0] + x, q[1] + y0}, pd[2] = {qd[0], qd[1]};
                for (int i = 0; i < 6; i++) {
                    const int col = r->dof[3 * e + i];
                    if (col < 0) continue;
                    L[0][col] = P[0][col] = nx[i], L[1][col] = P[1][col] = ny[i];
                    p[0] += nx[i] * q[col], p[1] += ny[i] * q[col];
                    pd[0] += nx[i] * qd[col], pd[1] += ny[i] * qd[col];
                }
                L[0][0] = L[1][1] = P[0][0] = P[1][1] = 1;
                L[0][2] = -p[1], L[1][2] = p[0];
                const double f[2] = {a[0] + 2 * th * pd[1] + th * th * p[0],
                                     a[1] - 2 * th * pd[0] + th * th * p[1]};
                const double itf[2] = {f[1], -f[0]}, ita[2] = {a[1], -a[0]};
                double Lq[2] = {0, 0};
                for (int j = 0; j < nd; j++)
                    Lq[0] += L[0][j] * qdd[j], Lq[1] += L[1][j] * qdd[j];
                const double itl[2] = {Lq[1], -Lq[0]};
                const double z[2] = {2 * pd[1] + 2 * th * p[0], -2 * pd[0] + 2 * th * p[1]};
                for (int i = 0; i < nd; i++) {
                    r->Q[i] += w * (L[0][i] * f[0] + L[1][i] * f[1]);
                    for (int j = 0; j < nd; j++) {
                        const size_t ij = (size_t)i + (size_t)nd * j;
                        r->M[ij] += w * (L[0][i] * L[0][j] + L[1][i] * L[1][j]);
                        double kq = th * th * (L[0][i] * P[0][j] + L[1][i] * P[1][j]);
                        if (i == 2) kq += itf[0] * P[0][j] + itf[1] * P[1][j];
                        if (j == 2) kq += L[0][i] * ita[0] + L[1][i] * ita[1];
                        r->K[ij] += w * kq;
                        /* -2 thd Itil P column j = (2 thd P_y, -2 thd P_x) */
                        double cq = L[0][i] * 2 * th * P[1][j] - L[1][i] * 2 * th * P[0][j];
                        if (j == 2) cq += L[0][i] * z[0] + L[1][i] * z[1];
                        r->C[ij] += w * cq;
                        double km = tdd * (-L[0][i] * P[1][j] + L[1][i] * P[0][j]);
                        if (i == 2) km += itl[0] * P[0][j] + itl[1] * P[1][j];
                        r->Km[ij] += w * km;
                    }
                }
                /* A p = (c p_x - s p_y, s p_x + c p_y) */
                r->V -= w * (g[0] * (c * p[0] - s * p[1]) + g[1] * (s * p[0] + c * p[1]));
            }
    }
    if (r->corot) return;
    /* linear elastic and Rayleigh terms on the elastic block (Muu from M above) */
    static double Kg[MAXD * MAXD];
    memset(Kg, 0, sizeof Kg);
    for (int e = 0; e + 1 < NNODES; e++) {
        const double l = r->x[e + 1] - r->x[e], ea = r->E * r->A / l;
        const double ei = r->E * r->I / (l * l * l);
        double ke[36] = {0};
        ke[0] = ke[21] = ea, ke[3] = ke[18] = -ea;
        const int v[4] = {1, 2, 4, 5};
        const double kb[16] = {12,  6 * l,  -12, 6 * l,  6 * l, 4 * l * l, -6 * l, 2 * l * l,
                               -12, -6 * l, 12,  -6 * l, 6 * l, 2 * l * l, -6 * l, 4 * l * l};
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++)
                ke[v[i] + 6 * v[j]] = ei * kb[i + 4 * j];
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) {
                const int ci = r->dof[3 * e + i], cj = r->dof[3 * e + j];
                if (ci >= 0 && cj >= 0) Kg[ci + nd * cj] += ke[i + 6 * j];
            }
    }
    double D[MAXD * MAXD];
    for (int i = 3; i < nd; i++)
        for (int j = 3; j < nd; j++)
            D[i + nd * j] = r->alpha * r->M[i + nd * j] + r->beta * Kg[i + nd * j];
    for (int i = 3; i < nd; i++)
        for (int j = 3; j < nd; j++) {
            r->Q[i] -= Kg[i + nd * j] * q[j] + D[i + nd * j] * qd[j];
            r->K[i + nd * j] -= Kg[i + nd * j];
            r->C[i + nd * j] -= D[i + nd * j];
            r->V += 0.5 * q[i] * Kg[i + nd * j] * q[j];
        }
}

/* max |a - b| / max |b| after scaling entry (i, j) by 1 / sqrt(d_i d_j) (vectors: d_i). */
static double scaled_err(const double *a, const double *b, int n, int ncols, const double *d)
{
    double err = 0, scale = 0;
    for (int j = 0; j < ncols; j++)
        for (int i = 0; i < n; i++) {
            const double sc = 1.0 / sqrt(d[i] * (ncols > 1 ? d[j] : 1.0));
            err = fmax(err, fabs(a[i + (size_t)n * j] - b[i + (size_t)n * j]) * sc);
            scale = fmax(scale, fabs(b[i + (size_t)n * j]) * sc);
        }
    return scale > 0 ? err / scale : err;
}

static void check(const char *what, const char *cfg, const double *a, const double *b, int n,
                  int ncols, const double *d)
{
    const double rel = scaled_err(a, b, n, ncols, d);
    printf("%s %-8s %-28s rel. error %.2e\n", rel <= 1e-12 ? "ok  " : "FAIL", cfg, what, rel);
    CHECK(rel <= 1e-12, "%s %s: %.3e > 1e-12", cfg, what, rel);
}

typedef struct sum_ctx {
    int nd;
    double *A;
} sum_ctx_t;

static void sum_emit(void *vctx, int n, const int *cols, const double *B)
{
    sum_ctx_t *c = vctx;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            c->A[cols[i] + (size_t)c->nd * cols[j]] += B[i + n * j];
}

static void run(const char *cfg, int rotary, int corot, fmb_beam_reference refc, unsigned seed)
{
    srand(seed);
    ref_t *r = calloc(1, sizeof *r);
    r->rotary = rotary, r->corot = corot;
    r->E = 2.1e11, r->rho = 7850, r->A = 3e-4, r->I = 2.5e-8;
    r->alpha = corot ? 0 : 0.7, r->beta = corot ? 0 : 2e-4;
    const double xs[NNODES] = {-0.1, 0.05, 0.22, 0.3, 0.48, 0.7}; /* non-uniform */
    memcpy(r->x, xs, sizeof xs);
    /* dof map: u, v, phi per node; simply supported removes u0, v0, v_last; cantilever
     * u0, v0, phi0; the rest numbered from 3 in order */
    for (int k = 0; k < 3 * NNODES; k++)
        r->dof[k] = 0;
    r->dof[0] = r->dof[1] = -1;
    if (refc == FMB_BEAM_SIMPLY_SUPPORTED)
        r->dof[3 * (NNODES - 1) + 1] = -1;
    else
        r->dof[2] = -1;
    r->nd = 3;
    for (int k = 0; k < 3 * NNODES; k++)
        if (r->dof[k] == 0) r->dof[k] = r->nd++;
    fmb_model_t *m = fmb_model_create();
    fmb_beam_desc_t d = {.name = "b",
                         .E = r->E,
                         .rho = r->rho,
                         .area = r->A,
                         .inertia = r->I,
                         .nnodes = NNODES,
                         .x = r->x,
                         .reference = refc,
                         .rotary_inertia = rotary,
                         .damping_alpha = r->alpha,
                         .damping_beta = r->beta,
                         .geometry = corot ? FMB_BEAM_NONLINEAR : FMB_BEAM_LINEAR};
    const int bi = fmb_model_add_beam(m, &d);
    CHECK(bi > 0, "add_beam: %s", fmb_model_last_error(m));
    if (bi <= 0) exit(1);
    const fmb_body_t *b = &m->bodies[bi];
    const int nd = r->nd;
    CHECK(b->ndof == nd, "ndof %d, expected %d", b->ndof, nd);
    const size_t n2 = (size_t)nd * nd;
    double q[MAXD], qd[MAXD], qdd[MAXD], v[MAXD], zero[MAXD] = {0};
    double *M = malloc(n2 * sizeof *M), *K = calloc(n2, sizeof *K), *C = calloc(n2, sizeof *C);
    double *Km = calloc(n2, sizeof *Km), *Kel = calloc(n2, sizeof *Kel);
    double *Bl = calloc(n2, sizeof *Bl), *Br = malloc(n2 * sizeof *Br);
    double Q[MAXD], Qel[MAXD], Mv[MAXD], Mvr[MAXD], dg[MAXD];
    for (int trial = 0; trial < 4; trial++) {
        /* rigid coordinates O(1) (the body far from and near the origin), elastic ones
         * up to 2 % of the element length (so the terms quadratic in U count) */
        const double reach = trial % 2 ? 3.0 : 0.4;
        q[0] = urand(-reach, reach), q[1] = urand(-reach, reach), q[2] = urand(-4, 4);
        qd[0] = urand(-2, 2), qd[1] = urand(-2, 2), qd[2] = urand(-30, 30);
        qdd[0] = urand(-50, 50), qdd[1] = urand(-50, 50), qdd[2] = urand(-500, 500);
        for (int i = 3; i < nd; i++)
            q[i] = urand(-3e-3, 3e-3), qd[i] = urand(-0.5, 0.5), qdd[i] = urand(-200, 200);
        for (int i = 0; i < nd; i++)
            v[i] = urand(-1, 1);
        const double g[2] = {urand(-3, 3), urand(-12, -8)}, g0[2] = {0, 0};
        reference(r, q, qd, qdd, g);
        for (int i = 0; i < nd; i++)
            dg[i] = r->M[i + nd * i];
        if (corot) { /* elastic part: the class at rest without gravity */
            memset(Qel, 0, sizeof Qel), memset(Kel, 0, n2 * sizeof *Kel);
            b->klass->forces(b, q, zero, zero, g0, Qel, Kel, NULL, NULL);
            for (size_t z = 0; z < n2; z++)
                r->K[z] += Kel[z];
            for (int i = 0; i < nd; i++)
                r->Q[i] += Qel[i];
            r->V += b->klass->potential(b, q, g0);
        }
        b->klass->mass(b, q, M);
        check("mass M", cfg, M, r->M, nd, nd, dg);
        b->klass->mass_times(b, q, v, Mv);
        for (int i = 0; i < nd; i++) {
            Mvr[i] = 0;
            for (int j = 0; j < nd; j++)
                Mvr[i] += r->M[i + nd * j] * v[j];
        }
        check("mass_times M v", cfg, Mv, Mvr, nd, 1, dg);
        memset(Q, 0, sizeof Q), memset(K, 0, n2 * sizeof *K), memset(C, 0, n2 * sizeof *C);
        memset(Km, 0, n2 * sizeof *Km);
        b->klass->forces(b, q, qd, qdd, g, Q, K, C, Km);
        check("forces Q", cfg, Q, r->Q, nd, 1, dg);
        check("forces dQ/dq", cfg, K, r->K, nd, nd, dg);
        check("forces dQ/dqd", cfg, C, r->C, nd, nd, dg);
        check("forces d(M qdd)/dq", cfg, Km, r->Km, nd, nd, dg);
        /* residual path: Q alone */
        memset(Q, 0, sizeof Q);
        b->klass->forces(b, q, qd, qdd, g, Q, NULL, NULL, NULL);
        check("forces Q (alone)", cfg, Q, r->Q, nd, 1, dg);
        /* blocks: each term alone (unit coefficients), then a combination of the sizes
         * an integrator uses (cM 1, cK ~ beta h^2, cC ~ gamma h) */
        static const char *bname[5] = {"blocks M", "blocks d(M qdd)/dq", "blocks dQ/dq",
                                       "blocks dQ/dqd", "blocks combined"};
        for (int t = 0; t < 5; t++) {
            double cf[4] = {t == 0, t == 1, t == 2, t == 3};
            if (t == 4)
                cf[0] = urand(0.5, 2), cf[1] = urand(0.5, 2) * 2.5e-9,
                cf[2] = urand(0.5, 2) * 2.5e-9, cf[3] = urand(0.5, 2) * 5e-5;
            memset(Bl, 0, n2 * sizeof *Bl);
            sum_ctx_t sc = {nd, Bl};
            b->klass->blocks(b, q, qd, qdd, g, cf, sum_emit, &sc);
            for (size_t z = 0; z < n2; z++)
                Br[z] = cf[0] * r->M[z] + cf[1] * r->Km[z] - cf[2] * r->K[z] - cf[3] * r->C[z];
            check(bname[t], cfg, Bl, Br, nd, nd, dg);
            /* the same matrix as the class's one list (tangent_pattern / tangent_add),
             * scattered into a dense array here through its own pattern: against the
             * reference, and against the blocks to within 1e-14 (the same terms summed
             * in another order; a wrong constant or state term is far larger). Nonlinear
             * beams have no list (blocks only). Checked to fail: with beta's thdd term
             * dropped in beam_tangent.c, "list d(M qdd)/dq" fails at 0.55. */
            const int *Jp, *Ii;
            const int nz = b->klass->tangent_pattern(b, &Jp, &Ii);
            CHECK(corot ? nz == 0 : nz > 0, "%s tangent_pattern: %d entries", cfg, nz);
            if (nz <= 0) continue;
            CHECK(Jp[nd] == nz && Jp[0] == 0, "%s list: Jp[nd] %d, nz %d", cfg, Jp[nd], nz);
            int *pos = malloc((size_t)nz * sizeof *pos);
            double *X = calloc((size_t)nz, sizeof *X), *Bt = calloc(n2, sizeof *Bt);
            for (int e = 0; e < nz; e++) /* every other entry, reversed: pos is honoured */
                pos[e] = nz - 1 - e;
            b->klass->tangent_add(b, q, qd, qdd, g, cf, pos, X);
            int covered = 1;
            for (int j = 0; j < nd; j++)
                for (int e = Jp[j]; e < Jp[j + 1]; e++) {
                    CHECK(Ii[e] >= 0 && Ii[e] < nd && (e == Jp[j] || Ii[e] > Ii[e - 1]),
                          "%s list: rows of column %d not ascending", cfg, j);
                    Bt[Ii[e] + (size_t)nd * j] += X[nz - 1 - e];
                }
            /* the list holds every entry the blocks emit (the same pattern) */
            for (size_t z = 0; z < n2; z++)
                if (Bl[z] != 0.0) {
                    const int i = (int)(z % (size_t)nd), j = (int)(z / (size_t)nd);
                    int found = 0;
                    for (int e = Jp[j]; e < Jp[j + 1]; e++)
                        found |= Ii[e] == i;
                    covered &= found;
                }
            CHECK(covered, "%s list: an entry of the blocks is missing", cfg);
            char what[64];
            snprintf(what, sizeof what, "list %s", bname[t] + 7);
            check(what, cfg, Bt, Br, nd, nd, dg);
            const double rel = scaled_err(Bt, Bl, nd, nd, dg);
            printf("%s %-8s %-28s rel. error %.2e\n", rel <= 1e-14 ? "ok  " : "FAIL", cfg,
                   "list vs blocks", rel);
            CHECK(rel <= 1e-14, "%s %s list vs blocks: %.3e > 1e-14", cfg, bname[t], rel);
            free(pos), free(X), free(Bt);
        }
        const double V = b->klass->potential(b, q, g);
        const double rel = fabs(V - r->V) / fabs(r->V);
        printf("%s %-8s %-28s rel. error %.2e\n", rel <= 1e-12 ? "ok  " : "FAIL", cfg, "potential",
               rel);
        CHECK(rel <= 1e-12, "%s potential: %.3e > 1e-12", cfg, rel);
    }
    free(M), free(K), free(C), free(Km), free(Kel), free(Bl), free(Br), free(r);
    fmb_model_destroy(&m);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    if (!strcmp(what, "linear")) {
        run("linear", 0, 0, FMB_BEAM_SIMPLY_SUPPORTED, 1);
        run("linear", 0, 0, FMB_BEAM_CANTILEVER, 2);
    } else if (!strcmp(what, "rotary")) {
        run("rotary", 1, 0, FMB_BEAM_SIMPLY_SUPPORTED, 3);
        run("rotary", 1, 0, FMB_BEAM_CANTILEVER, 4);
    } else if (!strcmp(what, "corot")) {
        run("corot", 0, 1, FMB_BEAM_SIMPLY_SUPPORTED, 5);
        run("corot", 1, 1, FMB_BEAM_CANTILEVER, 6);
    } else {
        fprintf(stderr, "usage: test_beam_inertia linear|rotary|corot\n");
        return 2;
    }
    printf("%s\n", failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}

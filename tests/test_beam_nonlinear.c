/*
 * Geometrically nonlinear (co-rotational) beams: the element kernel and the beam body
 * against independent references (docs/validation.md, "Nonlinear beams").
 *
 *   corot_fd:
 *       fmb_corot_element at random large deformations (rotations up to 1.5 rad,
 *       stretches up to 10 %): f against central differences of the strain energy W,
 *       the tangent against central differences of f (both relative to the largest
 *       entry, in units made comparable by l0: 1e-7; a wrong sign of the geometric
 *       terms N/ln z z^T gives ~0.1); at u = 0 the
 *       tangent equals the linear element's stiffness (bar EA/l, Hermite EI/l^3 [12 6l
 *       ..], written out here); a rigid rotation of the element by 1.2 rad (nodes moved
 *       on the circle, sections turned with it) gives f = 0 and W = 0 (1e-9 of EI/l).
 *       Damping (fmb_corot_damping): its tangents against central differences (100
 *       random states; 1e-6 and 1e-9 of the largest entry), and a rigid rotation rate of
 *       the deformed element gives no damping force (1e-12 of beta EA w l0).
 *   elastica:
 *       cantilever (geometry nonlinear, 40 elements) under a tip force P perpendicular to
 *       its undeformed axis (dead load), static equilibrium by Newton on the body's
 *       forces and tangent (fmb_body_class_t forces), load in 10 increments. Tip
 *       deflection, shortening and rotation against the elastica (Bisshopp & Drucker
 *       1945) for P L^2 / EI = 1, 2, 5 within 0.5 %. The reference is computed here
 *       independently: theta'' = -(P/EI) cos theta, theta(0) = 0, theta'(L) = 0 by
 *       shooting (RK4, 20000 steps, bisection on theta'(0)); it reproduces the published
 *       values (PL^2/EI = 1: v/L = 0.30172, 1 - x/L = 0.05643, tip angle 0.46135 rad;
 *       Mattiasson 1981 table) to 1e-4, checked. Convergence with 10, 20, 40 elements is
 *       printed with the observed order (1.3 - 1.8 between 20 and 40 elements, asserted
 *       > 1.2; the error at 10 elements is already below 0.2 %). At P L^2/EI = 0.01 linear and
 * nonlinear tip deflections agree within 0.1 % (and both with P L^3 / (3 EI) within 0.1 %).
 *   slider_elastica:
 *       a slider_beam joint put at 39 points of the elastica of the cantilever above at
 *       P L^2/EI = 2 (element interiors and ends; slider angle the elastica's tangent):
 *       its offset from the deformed centre line (Phi_1), its angle against the tangent
 *       (Phi_2) and its reported material coordinate against the elastica's arc length,
 *       with 10, 20, 40, 80 elements: all below 2e-3 (L, rad) at 10 elements and 2e-5 at
 *       80 (measured 3.5e-4 and 1.4e-5), observed order > 1.5 from 10 to 40 elements
 *       (measured 1.8): the mesh's own error, the slider's rule adds none. A slider that
 *       takes its axial position for the material coordinate (ignoring the shortening)
 *       is off by the shortening, 0.16 L here.
 *   axial_frequency:
 *       simply supported bar (20 elements) under an axial end force P (tension > 0):
 *       static state by Newton, then the first bending frequency of small vibrations
 *       about it from the tangent and the mass (dsygv). omega^2 / omega0^2 against
 *       1 + P L^2 / (pi^2 EI) within 1 % for P = +-0.25, +-0.5 P_cr (nonlinear);
 *       omega0 against (pi/L)^2 sqrt(EI/(rho A)) within 0.1 %; the linear beam's
 *       frequency does not change with P (1e-9: the documented limit of linear beams).
 * Usage: test_beam_nonlinear corot_fd|elastica|axial_frequency|slider_elastica
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bodies/beam.h"
#include "bodies/beam_corot.h"
#include "flexmb/flexmb.h"
#include "model/model.h"

static int failures = 0;
#include "check.h"

static const double PI = 3.14159265358979323846;

static double urand(double a, double b)
{
    return a + (b - a) * rand() / (double)RAND_MAX;
}

/* ---------------------------------------------------------------- element kernel */

static void test_corot_fd(void)
{
    const double l0 = 0.3, EA = 2.1e11 * 1.13e-4, EI = 2.1e11 * 1.02e-9;
    double worst_f = 0, worst_k = 0;
    for (int trial = 0; trial < 200; trial++) {
        double u[6];
        for (int i = 0; i < 6; i++)
            u[i] = (i % 3 == 2) ? urand(-1.5, 1.5) : urand(-0.1, 0.1) * l0;
        double f[6], kt[36], W;
        fmb_corot_element(l0, EA, EI, u, f, kt, &W);
        double kmax = 0, fmaxv = 0;
        for (int i = 0; i < 36; i++)
            kmax =
                fmax(kmax, fabs(kt[i]) * ((i % 3 == 2) ? 1.0 : l0) * ((i / 6) % 3 == 2 ? 1.0 : l0));
        for (int i = 0; i < 6; i++)
            fmaxv = fmax(fmaxv, fabs(f[i]) * ((i % 3 == 2) ? 1.0 : l0));
        for (int c = 0; c < 6; c++) {
            const double h = (c % 3 == 2) ? 1e-6 : 1e-6 * l0;
            double up[6], um[6], fp[6], fm[6], Wp, Wm;
            memcpy(up, u, sizeof up), memcpy(um, u, sizeof um);
            up[c] += h, um[c] -= h;
            fmb_corot_element(l0, EA, EI, up, fp, NULL, &Wp);
            fmb_corot_element(l0, EA, EI, um, fm, NULL, &Wm);
            const double sc = (c % 3 == 2) ? 1.0 : l0; /* to N m and N m / rad */
            worst_f = fmax(worst_f, fabs((Wp - Wm) / (2 * h) - f[c]) * sc / fmaxv);
            for (int r = 0; r < 6; r++) {
                const double fd = (fp[r] - fm[r]) / (2 * h), sr = (r % 3 == 2) ? 1.0 : l0;
                worst_k = fmax(worst_k, fabs(fd - kt[r + 6 * c]) * sc * sr / kmax);
            }
            for (int r = 0; r < 6; r++) /* symmetry */
                CHECK(fabs(kt[r + 6 * c] - kt[c + 6 * r]) <= 1e-12 * fabs(EA / l0),
                      "tangent not symmetric at (%d, %d)", r, c);
        }
    }
    printf("corot: worst relative |f - dW/du| %.2e, |kt - df/du| %.2e (200 random states)\n",
           worst_f, worst_k);
    CHECK(worst_f < 1e-7, "force vs energy gradient %.3e", worst_f);
    CHECK(worst_k < 1e-7, "tangent vs force gradient %.3e", worst_k);

    /* u = 0: the linear element's stiffness */
    const double zero[6] = {0};
    double f0[6], k0[36], W0;
    fmb_corot_element(l0, EA, EI, zero, f0, k0, &W0);
    const double l = l0, a = EA / l, b = EI / (l * l * l);
    const double klin[6][6] = {{a, 0, 0, -a, 0, 0},
                               {0, 12 * b, 6 * l * b, 0, -12 * b, 6 * l * b},
                               {0, 6 * l * b, 4 * l * l * b, 0, -6 * l * b, 2 * l * l * b},
                               {-a, 0, 0, a, 0, 0},
                               {0, -12 * b, -6 * l * b, 0, 12 * b, -6 * l * b},
                               {0, 6 * l * b, 2 * l * l * b, 0, -6 * l * b, 4 * l * l * b}};
    double dk = 0;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++)
            dk = fmax(dk, fabs(k0[i + 6 * j] - klin[i][j]) / a);
    CHECK(dk < 1e-14, "tangent at u = 0 differs from the linear element by %.3e EA/l", dk);
    CHECK(W0 == 0 && f0[0] == 0 && f0[4] == 0, "force at u = 0");

    /* rigid rotation by 1.2 rad about node 1 (and a translation): no force, no energy */
    const double al = 1.2, tx = 0.05, ty = -0.02;
    const double ur[6] = {tx, ty, al, tx + l0 * cos(al) - l0, ty + l0 * sin(al), al};
    double fr[6], Wr;
    fmb_corot_element(l0, EA, EI, ur, fr, NULL, &Wr);
    double fmx = 0;
    for (int i = 0; i < 6; i++)
        fmx = fmax(fmx, fabs(fr[i]) * ((i % 3 == 2) ? 1.0 : l0));
    printf("corot: rigid rotation 1.2 rad: max |f| %.2e N m, W %.2e J\n", fmx, Wr);
    CHECK(fmx < 1e-9 * EI / l0 && fabs(Wr) < 1e-12 * EI / l0, "rigid rotation strains the element");
}

/* Objective damping: beta B^T D B ud on the local deformation rates. Tangents against
 * central differences; a rigid rotation rate of the deformed element gives no force. */
static void test_corot_damping(void)
{
    const double l0 = 0.3, EA = 2.1e11 * 1.13e-4, EI = 2.1e11 * 1.02e-9, beta = 1e-4;
    double worst_k = 0, worst_c = 0, worst_r = 0;
    for (int trial = 0; trial < 100; trial++) {
        double u[6], ud[6], f[6], kq[36], cq[36];
        for (int i = 0; i < 6; i++) {
            u[i] = (i % 3 == 2) ? urand(-1.5, 1.5) : urand(-0.1, 0.1) * l0;
            ud[i] = (i % 3 == 2) ? urand(-20, 20) : urand(-2, 2);
        }
        fmb_corot_damping(l0, EA, EI, beta, u, ud, f, kq, cq);
        double kmax = 0, cmax = 0;
        for (int i = 0; i < 36; i++)
            kmax = fmax(kmax, fabs(kq[i])), cmax = fmax(cmax, fabs(cq[i]));
        for (int c = 0; c < 6; c++) {
            double up[6], um[6], fp[6], fm[6];
            const double h = 1e-7;
            memcpy(up, u, sizeof up), memcpy(um, u, sizeof um);
            up[c] += h, um[c] -= h;
            fmb_corot_damping(l0, EA, EI, beta, up, ud, fp, NULL, NULL);
            fmb_corot_damping(l0, EA, EI, beta, um, ud, fm, NULL, NULL);
            for (int r = 0; r < 6; r++)
                worst_k = fmax(worst_k, fabs((fp[r] - fm[r]) / (2 * h) - kq[r + 6 * c]) / kmax);
            memcpy(up, ud, sizeof up), memcpy(um, ud, sizeof um);
            up[c] += 1e-3, um[c] -= 1e-3;
            fmb_corot_damping(l0, EA, EI, beta, u, up, fp, NULL, NULL);
            fmb_corot_damping(l0, EA, EI, beta, u, um, fm, NULL, NULL);
            for (int r = 0; r < 6; r++)
                worst_c = fmax(worst_c, fabs((fp[r] - fm[r]) / 2e-3 - cq[r + 6 * c]) / cmax);
        }
        /* rigid rotation rate w of the deformed element about node 1 */
        const double w = urand(-30, 30), dx = l0 + u[3] - u[0], dy = u[4] - u[1];
        const double rr[6] = {0, 0, w, -w * dy, w * dx, w};
        double fr[6], fmaxv = 0;
        fmb_corot_damping(l0, EA, EI, beta, u, rr, fr, NULL, NULL);
        for (int i = 0; i < 6; i++)
            fmaxv = fmax(fmaxv, fabs(fr[i]) * ((i % 3 == 2) ? 1.0 : l0));
        worst_r = fmax(worst_r, fmaxv / (beta * EA * fabs(w) * l0));
    }
    printf("corot damping: |kq - df/du| %.2e, |cq - df/dud| %.2e (relative to the largest "
           "entry), rigid rotation rate: force %.2e of beta EA w l0\n",
           worst_k, worst_c, worst_r);
    CHECK(worst_k < 1e-6, "damping tangent dq %.3e", worst_k);
    CHECK(worst_c < 1e-9, "damping tangent dqd %.3e", worst_c);
    CHECK(worst_r < 1e-12, "rigid rotation is damped: %.3e", worst_r);
}

/* ---------------------------------------------------------------- static beams */

typedef struct sbeam {
    fmb_model_t *m;
    const fmb_body_t *b;
    const fmb_beam_t *bm;
    int nd;
    double *q, *Q, *K;
} sbeam_t;

static void sbeam_init(sbeam_t *s, double L, int nel, double E, double A, double I,
                       fmb_beam_reference ref, fmb_beam_geometry geo)
{
    double *x = malloc((size_t)(nel + 1) * sizeof *x);
    for (int k = 0; k <= nel; k++)
        x[k] = L * k / nel;
    fmb_beam_desc_t d = {.name = "beam",
                         .E = E,
                         .rho = 7850,
                         .area = A,
                         .inertia = I,
                         .nnodes = nel + 1,
                         .x = x,
                         .reference = ref,
                         .geometry = geo};
    s->m = fmb_model_create();
    fmb_model_set_gravity(s->m, 0, 0);
    const int id = fmb_model_add_beam(s->m, &d);
    CHECK(id > 0, "add beam: %s", fmb_model_last_error(s->m));
    free(x);
    s->b = &s->m->bodies[id];
    s->bm = s->b->data;
    s->nd = s->b->ndof;
    s->q = calloc((size_t)s->nd, sizeof *s->q);
    s->Q = calloc((size_t)s->nd, sizeof *s->Q);
    s->K = calloc((size_t)s->nd * s->nd, sizeof *s->K);
}

static void sbeam_free(sbeam_t *s)
{
    fmb_model_destroy(&s->m);
    free(s->q), free(s->Q), free(s->K);
}

/* Dense Gaussian elimination with partial pivoting: A x = b (n x n, column-major, lda). */
static int gauss_solve(int n, double *A, int lda, double *b)
{
    for (int k = 0; k < n; k++) {
        int p = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(A[i + lda * k]) > fabs(A[p + lda * k])) p = i;
        if (A[p + lda * k] == 0) return -1;
        if (p != k) {
            for (int j = 0; j < n; j++) {
                double t = A[k + lda * j];
                A[k + lda * j] = A[p + lda * j], A[p + lda * j] = t;
            }
            double t = b[k];
            b[k] = b[p], b[p] = t;
        }
        for (int i = k + 1; i < n; i++) {
            const double f = A[i + lda * k] / A[k + lda * k];
            for (int j = k; j < n; j++)
                A[i + lda * j] -= f * A[k + lda * j];
            b[i] -= f * b[k];
        }
    }
    for (int k = n - 1; k >= 0; k--) {
        for (int j = k + 1; j < n; j++)
            b[k] -= A[k + lda * j] * b[j];
        b[k] /= A[k + lda * k];
    }
    return 0;
}

/* Static equilibrium of the elastic dofs (frame held): Q_U(q) + F = 0 with the load F
 * (ndof, body frame, rows >= 3) applied in nsteps increments; Newton on the body
 * class's forces and tangent. Returns the number of Newton iterations or -1. */
static int sbeam_static(sbeam_t *s, const double *F, int nsteps)
{
    const int nd = s->nd, ne = nd - 3;
    double *qd = calloc((size_t)nd, sizeof *qd), *r = malloc((size_t)ne * sizeof *r);
    double *Ke = malloc((size_t)ne * ne * sizeof *Ke);
    const double g[2] = {0, 0};
    int iters = 0;
    for (int st = 1; st <= nsteps; st++) {
        const double lf = (double)st / nsteps;
        int conv = 0;
        for (int it = 0; it < 50 && !conv; it++, iters++) {
            memset(s->Q, 0, (size_t)nd * sizeof *s->Q);
            memset(s->K, 0, (size_t)nd * nd * sizeof *s->K);
            s->b->klass->forces(s->b, s->q, qd, qd, g, s->Q, s->K, NULL, NULL);
            double rn = 0, fn = 0;
            for (int i = 0; i < ne; i++) {
                r[i] = s->Q[3 + i] + lf * F[3 + i];
                rn = fmax(rn, fabs(r[i])), fn = fmax(fn, fabs(F[3 + i]));
            }
            for (int i = 0; i < ne; i++)
                for (int j = 0; j < ne; j++)
                    Ke[i + ne * j] = -s->K[(3 + i) + (size_t)nd * (3 + j)];
            if (gauss_solve(ne, Ke, ne, r)) break;
            double dn = 0;
            for (int i = 0; i < ne; i++)
                s->q[3 + i] += r[i], dn = fmax(dn, fabs(r[i]));
            conv = dn < 1e-13 && rn < 1e-9 * fmax(fn, 1e-300);
            if (it > 2 && dn < 1e-14) conv = 1;
        }
        if (!conv) {
            iters = -1;
            break;
        }
    }
    free(qd), free(r), free(Ke);
    return iters;
}

/* One RK4 step of the elastica (theta, k, x, y)' = (k, -lam cos theta, cos theta,
 * sin theta) of length h. */
static void elastica_step(double lam, double h, double y[4])
{
    double k1[4], k2[4], k3[4], k4[4], t[4];
#define RHS(o, s)                                                                                  \
    (o)[0] = (s)[1], (o)[1] = -lam * cos((s)[0]), (o)[2] = cos((s)[0]), (o)[3] = sin((s)[0])
    RHS(k1, y);
    for (int j = 0; j < 4; j++)
        t[j] = y[j] + 0.5 * h * k1[j];
    RHS(k2, t);
    for (int j = 0; j < 4; j++)
        t[j] = y[j] + 0.5 * h * k2[j];
    RHS(k3, t);
    for (int j = 0; j < 4; j++)
        t[j] = y[j] + h * k3[j];
    RHS(k4, t);
#undef RHS
    for (int j = 0; j < 4; j++)
        y[j] += h / 6 * (k1[j] + 2 * k2[j] + 2 * k3[j] + k4[j]);
}

/* Elastica of a cantilever (L = 1) under a dead tip load lam = P L^2 / EI perpendicular
 * to its undeformed axis: theta' = k, k' = -lam cos theta, x' = cos theta, y' = sin theta,
 * theta(0) = 0, k(1) = 0; k(0) by bisection. Tip: x, y, theta. */
static void elastica_rk(double lam, double k0, double out[4])
{
    const int n = 20000;
    const double h = 1.0 / n;
    double y[4] = {0, k0, 0, 0}; /* theta, k, x, y */
    for (int i = 0; i < n; i++)
        elastica_step(lam, h, y);
    memcpy(out, y, sizeof y);
}

static void elastica(double lam, double *v, double *shorten, double *angle)
{
    double lo = 0, hi = lam, out[4];
    for (int it = 0; it < 80; it++) {
        const double mid = 0.5 * (lo + hi);
        elastica_rk(lam, mid, out);
        if (out[1] > 0) /* curvature left at the tip: start curvature too large */
            hi = mid;
        else
            lo = mid;
    }
    elastica_rk(lam, 0.5 * (lo + hi), out);
    *v = out[3], *shorten = 1 - out[2], *angle = out[0];
}

/* Cantilever, nel elements, tip load lam EI / L^2 (L = 1): tip v, -u, phi. */
static int cantilever_tip(int nel, double lam, fmb_beam_geometry geo, double tip[3])
{
    const double E = 2.1e11, A = 1.131e-4, I = 1.018e-9, L = 1.0;
    sbeam_t s;
    sbeam_init(&s, L, nel, E, A, I, FMB_BEAM_CANTILEVER, geo);
    double *F = calloc((size_t)s.nd, sizeof *F);
    const int *d = s.bm->dof + 3 * nel;
    F[d[1]] = lam * E * I / (L * L);
    const int it = sbeam_static(&s, F, geo == FMB_BEAM_NONLINEAR ? 10 : 1);
    CHECK(it > 0, "static Newton failed (%d elements, PL^2/EI = %g)", nel, lam);
    tip[0] = s.q[d[1]] / L, tip[1] = -s.q[d[0]] / L, tip[2] = s.q[d[2]];
    free(F);
    sbeam_free(&s);
    return it;
}

static void test_elastica(void)
{
    /* the shooting reference against the published table (Mattiasson 1981, Bisshopp &
     * Drucker 1945): PL^2/EI = 1 */
    double v, sh, an;
    elastica(1.0, &v, &sh, &an);
    printf("elastica reference PL^2/EI = 1: v/L %.5f, 1 - x/L %.5f, tip angle %.5f rad "
           "(published 0.30172, 0.05643, 0.46135)\n",
           v, sh, an);
    CHECK(fabs(v - 0.30172) < 1e-4 && fabs(sh - 0.05643) < 1e-4 && fabs(an - 0.46135) < 1e-4,
          "shooting reference disagrees with the published elastica");
    const double lams[3] = {1, 2, 5};
    for (int c = 0; c < 3; c++) {
        elastica(lams[c], &v, &sh, &an);
        const double ref[3] = {v, sh, an};
        printf("PL^2/EI = %g: elastica v/L %.6f, 1 - x/L %.6f, angle %.6f rad\n", lams[c], v, sh,
               an);
        double err[3][3];
        const int nels[3] = {10, 20, 40};
        for (int k = 0; k < 3; k++) {
            double tip[3];
            const int it = cantilever_tip(nels[k], lams[c], FMB_BEAM_NONLINEAR, tip);
            for (int j = 0; j < 3; j++)
                err[k][j] = (tip[j] - ref[j]) / ref[j];
            printf("  %2d elements (%3d Newton iterations): v/L %.6f (%+.2e), 1 - x/L %.6f "
                   "(%+.2e), angle %.6f (%+.2e)\n",
                   nels[k], it, tip[0], err[k][0], tip[1], err[k][1], tip[2], err[k][2]);
        }
        for (int j = 0; j < 3; j++) {
            const double order = log2(fabs(err[1][j] / err[2][j]));
            printf("    observed order (20 -> 40) of %s: %.2f\n",
                   j == 0   ? "deflection"
                   : j == 1 ? "shortening"
                            : "angle",
                   order);
            CHECK(order > 1.2, "convergence order %.2f < 1.2", order);
            CHECK(fabs(err[2][j]) < 5e-3, "PL^2/EI = %g, 40 elements: %s error %.3e > 0.5 %%",
                  lams[c],
                  j == 0   ? "deflection"
                  : j == 1 ? "shortening"
                           : "angle",
                  err[2][j]);
        }
    }
    /* small load: linear and nonlinear agree, and match P L^3 / (3 EI) */
    double tl[3], tn[3];
    cantilever_tip(20, 0.01, FMB_BEAM_LINEAR, tl);
    cantilever_tip(20, 0.01, FMB_BEAM_NONLINEAR, tn);
    printf("PL^2/EI = 0.01: linear v/L %.8f, nonlinear %.8f (rel. difference %.2e), PL^2/(3EI) "
           "%.8f\n",
           tl[0], tn[0], (tn[0] - tl[0]) / tl[0], 0.01 / 3);
    CHECK(fabs(tn[0] - tl[0]) < 1e-3 * tl[0], "linear and nonlinear differ at a small load");
    CHECK(fabs(tl[0] - 0.01 / 3) < 1e-3 * 0.01 / 3, "linear tip deflection vs PL^3/(3EI)");
}

/* ---------------------------------------------------------------- axial load */

extern void dsygv_(const int *itype, const char *jobz, const char *uplo, const int *n, double *a,
                   const int *lda, double *b, const int *ldb, double *w, double *work,
                   const int *lwork, int *info);

/* First bending frequency of a simply supported bar about its static state under an
 * axial end force P (tension > 0). */
/* The elastica's point at arc length xi_k (L = 1) for a start curvature k0: theta, x, y
 * at the RK grid points xi = i / 20000 nearest to each xi_k (the same integration as
 * elastica_rk). */
static void elastica_points(double lam, double k0, int np, const double *xi, double (*out)[3])
{
    const int n = 20000;
    const double h = 1.0 / n;
    double y[4] = {0, k0, 0, 0};
    for (int i = 0, p = 0; i <= n && p < np; i++) {
        while (p < np && lround(xi[p] * n) == i) {
            out[p][0] = y[0], out[p][1] = y[2], out[p][2] = y[3];
            p++;
        }
        elastica_step(lam, h, y);
    }
}

/* A slider put at the elastica's points on a nonlinear cantilever bent by a dead tip load
 * to P L^2/EI = 2 (static equilibrium as in `elastica`): the slider joint's offset from
 * the deformed centre line (Phi_1), its angle against the tangent (Phi_2) and its reported
 * material coordinate s against the elastica's arc length, at 39 points, every element
 * interior and end, with 10, 20, 40 and 80 elements; returns the largest of the three
 * (lengths relative to L). */
static double slider_on_elastica(int nel, double lam, double (*el)[3], const double *xi, int np,
                                 double err[3])
{
    const double E = 2.1e11, A = 1.131e-4, I = 1.018e-9;
    sbeam_t s;
    sbeam_init(&s, 1.0, nel, E, A, I, FMB_BEAM_CANTILEVER, FMB_BEAM_NONLINEAR);
    double *F = calloc((size_t)s.nd, sizeof *F);
    F[s.bm->dof[3 * nel + 1]] = lam * E * I;
    CHECK(sbeam_static(&s, F, 10) > 0, "static Newton failed (%d elements)", nel);
    fmb_body_desc_t bd = {.name = "slider", .mass = 1e-3, .inertia = 1e-8};
    const int sb = fmb_model_add_body(s.m, &bd);
    const int beam = 1;
    fmb_joint_desc_t jd = {.name = "ride", .type = "slider_beam", .body = {sb, beam}};
    const int ij = fmb_model_add_joint(s.m, &jd);
    CHECK(sb > 0 && ij >= 0, "slider: %s", fmb_model_last_error(s.m));
    const fmb_joint_t *j = &s.m->joints[ij];
    const int nq = fmb_model_num_coords(s.m);
    double *q = calloc((size_t)nq, sizeof *q), *qd = calloc((size_t)nq, sizeof *qd);
    const int ob = fmb_model_body_offset(s.m, beam), os = fmb_model_body_offset(s.m, sb);
    memcpy(q + ob, s.q, (size_t)s.nd * sizeof *q);
    err[0] = err[1] = err[2] = 0.0;
    for (int p = 0; p < np; p++) {
        /* carrier coordinates: the point is A(theta) rbar */
        const double th = el[p][0], c = cos(th), sn = sin(th);
        q[os + 0] = c * el[p][1] + sn * el[p][2], q[os + 1] = -sn * el[p][1] + c * el[p][2];
        q[os + 2] = th;
        fmb_bodyview_t v[2];
        fmb_joint_views(s.m, j, q, qd, v);
        double phi[2], out[3];
        j->klass->eval(j, v, 0.0, phi, NULL, NULL);
        j->klass->outputs(j, v, 0.0, out);
        err[0] = fmax(err[0], fabs(phi[0]));
        err[1] = fmax(err[1], fabs(phi[1]));
        err[2] = fmax(err[2], fabs(out[0] - xi[p]));
    }
    free(q), free(qd), free(F);
    sbeam_free(&s);
    return fmax(err[0], fmax(err[1], err[2]));
}

static void test_slider_elastica(void)
{
    const double lam = 2.0;
    double lo = 0, hi = lam, out[4];
    for (int it = 0; it < 80; it++) { /* k(0) as in elastica() */
        const double mid = 0.5 * (lo + hi);
        elastica_rk(lam, mid, out);
        if (out[1] > 0)
            hi = mid;
        else
            lo = mid;
    }
    enum { NP = 39 };
    double xi[NP], el[NP][3];
    for (int p = 0; p < NP; p++)
        xi[p] = 0.025 * (p + 1) - 0.0125 * (p % 2); /* 0.0125 .. 0.975: ends and interiors */
    elastica_points(lam, 0.5 * (lo + hi), NP, xi, el);
    printf("slider on the elastica P L^2/EI = %g (tip v/L %.5f): offset, angle, material "
           "coordinate error\n",
           lam, el[NP - 1][2]);
    const int nels[4] = {10, 20, 40, 80};
    double e[4];
    for (int k = 0; k < 4; k++) {
        double err[3];
        e[k] = slider_on_elastica(nels[k], lam, el, xi, NP, err);
        printf("  %2d elements: |Phi_1| %.3e L, |Phi_2| %.3e rad, |s - xi| %.3e L\n", nels[k],
               err[0], err[1], err[2]);
        if (k) printf("      observed order %.2f\n", log(e[k - 1] / e[k]) / log(2.0));
    }
    /* the mesh's own error (the tip within 1.2e-3 at 10 elements, `elastica`) bounds it:
     * the slider's rule adds nothing that does not vanish with the mesh */
    CHECK(e[0] < 2e-3, "slider off the elastica by %.3e L with 10 elements", e[0]);
    CHECK(e[3] < 2e-5, "slider off the elastica by %.3e L with 80 elements", e[3]);
    /* the co-rotational mesh's own order (1.3 - 1.8 on the tip, `elastica`) */
    CHECK(log(e[0] / e[2]) / log(4.0) > 1.5, "error order %.2f from 10 to 40 elements",
          log(e[0] / e[2]) / log(4.0));
}

static double axial_omega(double P, fmb_beam_geometry geo, double *omega_theory0)
{
    const int nel = 20;
    const double E = 2.1e11, d = 0.012, A = PI * d * d / 4, I = PI * pow(d, 4) / 64, L = 0.6;
    sbeam_t s;
    sbeam_init(&s, L, nel, E, A, I, FMB_BEAM_SIMPLY_SUPPORTED, geo);
    double *F = calloc((size_t)s.nd, sizeof *F);
    F[s.bm->dof[3 * nel]] = P; /* u at the last node */
    CHECK(sbeam_static(&s, F, 1) > 0, "static Newton under axial force %g", P);
    const int nd = s.nd, ne = nd - 3;
    const double g[2] = {0, 0};
    double *qd = calloc((size_t)nd, sizeof *qd), *M = calloc((size_t)nd * nd, sizeof *M);
    memset(s.Q, 0, (size_t)nd * sizeof *s.Q), memset(s.K, 0, (size_t)nd * nd * sizeof *s.K);
    s.b->klass->forces(s.b, s.q, qd, qd, g, s.Q, s.K, NULL, NULL);
    s.b->klass->mass(s.b, s.q, M);
    double *Ke = malloc((size_t)ne * ne * sizeof *Ke), *Me = malloc((size_t)ne * ne * sizeof *Me);
    for (int i = 0; i < ne; i++)
        for (int j = 0; j < ne; j++) {
            Ke[i + ne * j] = -s.K[(3 + i) + (size_t)nd * (3 + j)];
            Me[i + ne * j] = M[(3 + i) + (size_t)nd * (3 + j)];
        }
    int itype = 1, info = 0, lwork = 4 * ne + 64;
    double *w = malloc((size_t)ne * sizeof *w), *work = malloc((size_t)lwork * sizeof *work);
    dsygv_(&itype, "N", "U", &ne, Ke, &ne, Me, &ne, w, work, &lwork, &info);
    CHECK(info == 0, "dsygv info %d", info);
    const double om = sqrt(w[0]);
    *omega_theory0 = PI * PI / (L * L) * sqrt(E * I / (7850 * A));
    free(F), free(qd), free(M), free(Ke), free(Me), free(w), free(work);
    sbeam_free(&s);
    return om;
}

static void test_axial_frequency(void)
{
    const double E = 2.1e11, d = 0.012, I = PI * pow(d, 4) / 64, L = 0.6;
    const double Pcr = PI * PI * E * I / (L * L);
    double th0;
    const double om0 = axial_omega(0.0, FMB_BEAM_NONLINEAR, &th0);
    const double om0l = axial_omega(0.0, FMB_BEAM_LINEAR, &th0);
    printf("axial load: P_cr = %.2f N, omega0 %.6f rad/s (nonlinear), %.6f (linear), theory "
           "%.6f\n",
           Pcr, om0, om0l, th0);
    CHECK(fabs(om0 - th0) < 1e-3 * th0, "omega0 vs (pi/L)^2 sqrt(EI/rho A)");
    CHECK(fabs(om0 - om0l) < 1e-9 * om0, "linear and nonlinear omega0 differ");
    const double fr[4] = {-0.5, -0.25, 0.25, 0.5};
    for (int k = 0; k < 4; k++) {
        const double P = fr[k] * Pcr;
        const double om = axial_omega(P, FMB_BEAM_NONLINEAR, &th0);
        const double oml = axial_omega(P, FMB_BEAM_LINEAR, &th0);
        const double ratio = om * om / (om0 * om0), expect = 1 + P * L * L / (PI * PI * E * I);
        printf("  P = %+.2f P_cr: (omega/omega0)^2 %.6f, theory %.6f (omega error %+.3e); "
               "linear beam omega/omega0 %.12f\n",
               fr[k], ratio, expect, sqrt(ratio / expect) - 1, oml / om0l);
        CHECK(fabs(sqrt(ratio / expect) - 1) < 1e-2, "P = %g P_cr: omega off by more than 1 %%",
              fr[k]);
        CHECK(fabs(oml / om0l - 1) < 1e-9, "linear beam frequency changes with P");
    }
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    srand(4242);
    if (!strcmp(what, "corot_fd")) {
        test_corot_fd();
        test_corot_damping();
    } else if (!strcmp(what, "elastica"))
        test_elastica();
    else if (!strcmp(what, "axial_frequency"))
        test_axial_frequency();
    else if (!strcmp(what, "slider_elastica"))
        test_slider_elastica();
    else {
        printf("usage: test_beam_nonlinear corot_fd|elastica|axial_frequency|slider_elastica\n");
        return 2;
    }
    printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}

/*
 * Driven four-bar: joint reactions and drive torque against an independent
 * kinematic + Newton-Euler (inverse dynamics) solution written here.
 *
 * Ground pivots O = (0, 0) and C = (0.1, 0); crank OA (l2 = 0.3) driven at
 * theta2 = pi/2 + w t, w = 50 pi rad/s; coupler AB (l3 = 0.35); rocker CB (l4 = 0.25).
 * Uniform bars: m = 7.85 kg/m * l, inertia m l^2 / 12 about the centre. g = -9.81 y.
 * Grashof with the ground link shortest (0.1 + 0.35 <= 0.3 + 0.25): a double crank, so
 * |A - C| stays in [0.2, 0.4], strictly inside (|l3 - l4|, l3 + l4) = (0.1, 0.6), and the
 * closure never reaches a singular position; one branch (B to the left of A -> C) for
 * the whole revolution.
 *
 * Reference solution at time t:
 *   positions:     B = circle(A, l3) cap circle(C, l4)
 *   velocities:    l3 w3 e3' - l4 w4 e4' = -l2 w2 e2'                   (2 x 2)
 *   accelerations: l3 a3 e3' - l4 a4 e4' = l2 w2^2 e2 + l3 w3^2 e3 - l4 w4^2 e4
 *                  (e' = e rotated by +90 deg, a2 = 0)
 *   Newton-Euler (9 x 9, Gaussian elimination with partial pivoting), unknowns
 *   F_O (ground on crank at O), F_A (crank on coupler at A), F_B (coupler on rocker at B),
 *   F_C (ground on rocker at C), tau (drive torque on the crank):
 *     crank:   F_O - F_A + m2 g = m2 aG2,  (O-G2) x F_O - (A-G2) x F_A + tau = I2 a2
 *     coupler: F_A - F_B + m3 g = m3 aG3,  (A-G3) x F_A - (B-G3) x F_B = I3 a3
 *     rocker:  F_B + F_C + m4 g = m4 aG4,  (B-G4) x F_B + (C-G4) x F_C = I4 a4
 * fmb_sim_joint_reaction gives the force of the joint on its first body, then on its
 * second: joint O (crank, ground) -> (F_O, -F_O), A (crank, coupler) -> (-F_A, F_A),
 * B (coupler, rocker) -> (-F_B, F_B), C (rocker, ground) -> (F_C, -F_C), and the driver
 * (crank, ground) -> Mz = tau on the crank, -tau on the ground.
 * Steps 4e-5, 2e-5, 1e-5 (HHT alpha = -0.05); see docs/validation.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flexmb/flexmb.h"

static int failures = 0;
#include "check.h"

static const double PI = 3.14159265358979323846;
static const double L2 = 0.3, L3 = 0.35, L4 = 0.25, CX = 0.1, RHO = 7.85, G = 9.81;
static const double OMEGA = 50 * 3.14159265358979323846;

static double cross(const double a[2], const double b[2])
{
    return a[0] * b[1] - a[1] * b[0];
}

/* ---------------------------------------------------------------- reference */

typedef struct ref {
    double th[5], w[5], al[5]; /* index 2, 3, 4 = crank, coupler, rocker */
    double A[2], B[2];
    double FO[2], FA[2], FB[2], FC[2], tau;
} ref_t;

/* Solve the n x n system M x = b (row-major, destroyed) by Gaussian elimination with
 * partial pivoting. */
static int gauss(int n, double *M, double *b, double *x)
{
    for (int k = 0; k < n; k++) {
        int p = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(M[i * n + k]) > fabs(M[p * n + k])) p = i;
        if (M[p * n + k] == 0.0) return -1;
        if (p != k) {
            for (int j = 0; j < n; j++) {
                double t = M[k * n + j];
                M[k * n + j] = M[p * n + j], M[p * n + j] = t;
            }
            double t = b[k];
            b[k] = b[p], b[p] = t;
        }
        for (int i = k + 1; i < n; i++) {
            double f = M[i * n + k] / M[k * n + k];
            for (int j = k; j < n; j++)
                M[i * n + j] -= f * M[k * n + j];
            b[i] -= f * b[k];
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        double s = b[i];
        for (int j = i + 1; j < n; j++)
            s -= M[i * n + j] * x[j];
        x[i] = s / M[i * n + i];
    }
    return 0;
}

/* 2 x 2 solve [c0 c1] x = r (columns c0, c1) by Cramer's rule. */
static void solve2(const double c0[2], const double c1[2], const double r[2], double x[2])
{
    double det = c0[0] * c1[1] - c1[0] * c0[1];
    x[0] = (r[0] * c1[1] - c1[0] * r[1]) / det;
    x[1] = (c0[0] * r[1] - r[0] * c0[1]) / det;
}

static void reference(double t, ref_t *r)
{
    memset(r, 0, sizeof *r);
    const double C[2] = {CX, 0};
    r->th[2] = PI / 2 + OMEGA * t, r->w[2] = OMEGA, r->al[2] = 0;
    double e2[2] = {cos(r->th[2]), sin(r->th[2])}, p2[2] = {-e2[1], e2[0]};
    r->A[0] = L2 * e2[0], r->A[1] = L2 * e2[1];
    /* circle intersection */
    double dv[2] = {C[0] - r->A[0], C[1] - r->A[1]}, d = hypot(dv[0], dv[1]);
    double u[2] = {dv[0] / d, dv[1] / d}, n[2] = {-u[1], u[0]};
    double a = (d * d + L3 * L3 - L4 * L4) / (2 * d), hh = sqrt(L3 * L3 - a * a);
    r->B[0] = r->A[0] + a * u[0] + hh * n[0];
    r->B[1] = r->A[1] + a * u[1] + hh * n[1];
    r->th[3] = atan2(r->B[1] - r->A[1], r->B[0] - r->A[0]);
    r->th[4] = atan2(r->B[1] - C[1], r->B[0] - C[0]);
    double e3[2] = {cos(r->th[3]), sin(r->th[3])}, p3[2] = {-e3[1], e3[0]};
    double e4[2] = {cos(r->th[4]), sin(r->th[4])}, p4[2] = {-e4[1], e4[0]};
    /* velocities */
    double c0[2] = {L3 * p3[0], L3 * p3[1]}, c1[2] = {-L4 * p4[0], -L4 * p4[1]};
    double rv[2] = {-L2 * r->w[2] * p2[0], -L2 * r->w[2] * p2[1]}, x[2];
    solve2(c0, c1, rv, x);
    r->w[3] = x[0], r->w[4] = x[1];
    /* accelerations */
    double w2 = r->w[2], w3 = r->w[3], w4 = r->w[4];
    double ra[2];
    for (int k = 0; k < 2; k++)
        ra[k] = -L2 * (r->al[2] * p2[k] - w2 * w2 * e2[k]) + L3 * w3 * w3 * e3[k] -
                L4 * w4 * w4 * e4[k];
    solve2(c0, c1, ra, x);
    r->al[3] = x[0], r->al[4] = x[1];
    /* centre-of-mass positions and accelerations */
    double m2 = RHO * L2, m3 = RHO * L3, m4 = RHO * L4;
    double I2 = m2 * L2 * L2 / 12, I3 = m3 * L3 * L3 / 12, I4 = m4 * L4 * L4 / 12;
    double G2[2], G3[2], G4[2], aG2[2], aG3[2], aG4[2], aA[2];
    for (int k = 0; k < 2; k++) {
        G2[k] = 0.5 * L2 * e2[k];
        G3[k] = r->A[k] + 0.5 * L3 * e3[k];
        G4[k] = C[k] + 0.5 * L4 * e4[k];
        aA[k] = L2 * (r->al[2] * p2[k] - w2 * w2 * e2[k]);
        aG2[k] = 0.5 * aA[k];
        aG3[k] = aA[k] + 0.5 * L3 * (r->al[3] * p3[k] - w3 * w3 * e3[k]);
        aG4[k] = 0.5 * L4 * (r->al[4] * p4[k] - w4 * w4 * e4[k]);
    }
    const double O[2] = {0, 0}, gv[2] = {0, -G};
    /* unknowns x = [FOx FOy FAx FAy FBx FBy FCx FCy tau] */
    double M[81] = {0}, b[9], X[9];
    double rO2[2] = {O[0] - G2[0], O[1] - G2[1]}, rA2[2] = {r->A[0] - G2[0], r->A[1] - G2[1]};
    double rA3[2] = {r->A[0] - G3[0], r->A[1] - G3[1]}, rB3[2] = {r->B[0] - G3[0], r->B[1] - G3[1]};
    double rB4[2] = {r->B[0] - G4[0], r->B[1] - G4[1]}, rC4[2] = {C[0] - G4[0], C[1] - G4[1]};
#define E(i, j) M[(i)*9 + (j)]
    /* crank */
    E(0, 0) = 1, E(0, 2) = -1, b[0] = m2 * (aG2[0] - gv[0]);
    E(1, 1) = 1, E(1, 3) = -1, b[1] = m2 * (aG2[1] - gv[1]);
    E(2, 0) = -rO2[1], E(2, 1) = rO2[0], E(2, 2) = rA2[1], E(2, 3) = -rA2[0], E(2, 8) = 1;
    b[2] = I2 * r->al[2];
    /* coupler */
    E(3, 2) = 1, E(3, 4) = -1, b[3] = m3 * (aG3[0] - gv[0]);
    E(4, 3) = 1, E(4, 5) = -1, b[4] = m3 * (aG3[1] - gv[1]);
    E(5, 2) = -rA3[1], E(5, 3) = rA3[0], E(5, 4) = rB3[1], E(5, 5) = -rB3[0];
    b[5] = I3 * r->al[3];
    /* rocker */
    E(6, 4) = 1, E(6, 6) = 1, b[6] = m4 * (aG4[0] - gv[0]);
    E(7, 5) = 1, E(7, 7) = 1, b[7] = m4 * (aG4[1] - gv[1]);
    E(8, 4) = -rB4[1], E(8, 5) = rB4[0], E(8, 6) = -rC4[1], E(8, 7) = rC4[0];
    b[8] = I4 * r->al[4];
#undef E
    double Mc[81], bc[9];
    memcpy(Mc, M, sizeof M), memcpy(bc, b, sizeof b);
    if (gauss(9, Mc, bc, X)) {
        CHECK(0, "Newton-Euler system singular at t = %g", t);
        return;
    }
    /* residual check of the elimination */
    double res = 0;
    for (int i = 0; i < 9; i++) {
        double s = -b[i];
        for (int j = 0; j < 9; j++)
            s += M[i * 9 + j] * X[j];
        res = fmax(res, fabs(s));
    }
    CHECK(res < 1e-9, "Newton-Euler residual %.3e", res);
    r->FO[0] = X[0], r->FO[1] = X[1], r->FA[0] = X[2], r->FA[1] = X[3];
    r->FB[0] = X[4], r->FB[1] = X[5], r->FC[0] = X[6], r->FC[1] = X[7], r->tau = X[8];
    (void)cross;
}

/* Energy-rate cross-check of the reference: tau w2 = dT/dt + dV/dt (finite difference
 * of kinetic + potential energy of the reference motion). */
static double ref_energy(double t)
{
    ref_t r;
    reference(t, &r);
    const double C[2] = {CX, 0};
    double m[5] = {0, 0, RHO * L2, RHO * L3, RHO * L4}, l[5] = {0, 0, L2, L3, L4};
    double vG[5][2], yG[5];
    double e2[2] = {cos(r.th[2]), sin(r.th[2])}, e3[2] = {cos(r.th[3]), sin(r.th[3])},
           e4[2] = {cos(r.th[4]), sin(r.th[4])};
    double vA[2] = {-L2 * r.w[2] * e2[1], L2 * r.w[2] * e2[0]};
    vG[2][0] = 0.5 * vA[0], vG[2][1] = 0.5 * vA[1], yG[2] = 0.5 * L2 * e2[1];
    vG[3][0] = vA[0] - 0.5 * L3 * r.w[3] * e3[1], vG[3][1] = vA[1] + 0.5 * L3 * r.w[3] * e3[0];
    yG[3] = r.A[1] + 0.5 * L3 * e3[1];
    vG[4][0] = -0.5 * L4 * r.w[4] * e4[1], vG[4][1] = 0.5 * L4 * r.w[4] * e4[0];
    yG[4] = C[1] + 0.5 * L4 * e4[1];
    double E = 0;
    for (int i = 2; i <= 4; i++)
        E += 0.5 * m[i] * (vG[i][0] * vG[i][0] + vG[i][1] * vG[i][1]) +
             0.5 * (m[i] * l[i] * l[i] / 12) * r.w[i] * r.w[i] + m[i] * G * yG[i];
    return E;
}

/* ---------------------------------------------------------------- simulation */

enum { J_O, J_A, J_B, J_C, J_DRIVE };

static fmb_model_t *build_model(void)
{
    fmb_model_t *m = fmb_model_create();
    fmb_model_set_gravity(m, 0, -G);
    ref_t r0;
    reference(0.0, &r0);
    const double ls[3] = {L2, L3, L4};
    const char *names[3] = {"crank", "coupler", "rocker"};
    const double org[3][2] = {{0, 0}, {r0.A[0], r0.A[1]}, {CX, 0}};
    for (int i = 0; i < 3; i++) {
        double mass = RHO * ls[i];
        fmb_body_desc_t b = {.name = names[i],
                             .mass = mass,
                             .inertia = mass * ls[i] * ls[i] / 12,
                             .com = {ls[i] / 2, 0},
                             .pose = {org[i][0], org[i][1], r0.th[2 + i]}};
        int ib = fmb_model_add_body(m, &b);
        CHECK(ib == i + 1, "add_body: %s", fmb_model_last_error(m));
    }
    fmb_joint_desc_t js[5] = {
        {.name = "O", .type = "revolute", .body = {1, FMB_GROUND}},
        {.name = "A", .type = "revolute", .body = {1, 2}, .point = {{L2, 0}, {0, 0}}},
        {.name = "B", .type = "revolute", .body = {2, 3}, .point = {{L3, 0}, {L4, 0}}},
        {.name = "C",
         .type = "revolute",
         .body = {3, FMB_GROUND},
         .point = {{0, 0}, {CX, 0}}},
        {.name = "drive", .type = "driver_angle", .body = {1, FMB_GROUND}},
    };
    char expr[128];
    snprintf(expr, sizeof expr, "%.17g + %.17g*t", PI / 2, OMEGA);
    js[J_DRIVE].expr = expr;
    for (int i = 0; i < 5; i++) {
        int ij = fmb_model_add_joint(m, &js[i]);
        CHECK(ij == i, "add_joint %s: %s", js[i].name, fmb_model_last_error(m));
    }
    return m;
}

#define NSAMP 9 /* t = k * 0.005, k = 0..8: one crank revolution */
#define NH 3    /* step sizes 4e-5, 2e-5, 1e-5 */

/* Reactions of the five joints at the NSAMP sample times. */
typedef struct reac {
    double r[NSAMP][5][6];
} reac_t;

/* Expected reactions (joint on its first body, then on its second) from the reference. */
static void expected(const ref_t *r, double ex[5][6])
{
    const double e[5][6] = {
        {r->FO[0], r->FO[1], 0, -r->FO[0], -r->FO[1], 0},
        {-r->FA[0], -r->FA[1], 0, r->FA[0], r->FA[1], 0},
        {-r->FB[0], -r->FB[1], 0, r->FB[0], r->FB[1], 0},
        {r->FC[0], r->FC[1], 0, -r->FC[0], -r->FC[1], 0},
        {0, 0, r->tau, 0, 0, -r->tau},
    };
    memcpy(ex, e, sizeof e);
}

/* Relative errors over samples k0..k1-1: forces max |diff| / max |NE force| (the
 * revolute moments, which must vanish, count with the forces); drive torque
 * max |diff| / max |tau| (scales over the whole revolution). */
static void compare(const reac_t *R, int k0, int k1, double *ferr, double *terr)
{
    double fmaxv = 0, tmaxv = 0, fdiff = 0, tdiff = 0;
    for (int k = 0; k < NSAMP; k++) {
        ref_t r;
        double ex[5][6];
        reference(k * 0.005, &r);
        expected(&r, ex);
        for (int j = 0; j < 5; j++)
            for (int c = 0; c < 6; c++) {
                double d = fabs(R->r[k][j][c] - ex[j][c]);
                int in = k >= k0 && k < k1;
                if (j == J_DRIVE) {
                    tmaxv = fmax(tmaxv, fabs(ex[j][c]));
                    if (in) tdiff = fmax(tdiff, d);
                } else {
                    fmaxv = fmax(fmaxv, fabs(ex[j][c]));
                    if (in) fdiff = fmax(fdiff, d);
                }
            }
    }
    *ferr = fdiff / fmaxv;
    *terr = tdiff / tmaxv;
}

/* Run one revolution with step h, recording the reactions at t = k * 5 ms; return the
 * max distance of the simulated configuration from the reference closure. */
static double run(double h, double alpha, reac_t *R, int verbose)
{
    fmb_model_t *m = build_model();
    fmb_sim_options_t o;
    fmb_sim_options_default(&o);
    o.h = h;
    o.alpha = alpha;
    /* Tight Newton tolerances: a position residual e perturbs the multipliers by
     * ~ m e / (beta h^2) (~0.4 N for e = 1e-12 m at h = 5e-6), which must stay far
     * below the discretization error studied here. */
    o.rtol = 1e-14, o.atol = 1e-15, o.phi_tol = 1e-14;
    fmb_sim_t *s = fmb_sim_create(m, &o);
    double kd = 0;
    memset(R, 0, sizeof *R);
    if (!s || fmb_sim_initialize(s)) {
        CHECK(0, "initialize: %s", s ? fmb_sim_last_error(s) : "no sim");
        fmb_sim_destroy(&s), fmb_model_destroy(&m);
        return INFINITY;
    }
    const double dt = 0.005;
    const long every = lround(dt / h);
    CHECK(fabs(every * h - dt) < 1e-12 * dt, "h must divide %g", dt);
    for (int k = 0; k < NSAMP; k++) {
        if (k > 0)
            for (long i = 0; i < every; i++)
                if (fmb_sim_step(s)) {
                    CHECK(0, "step: %s", fmb_sim_last_error(s));
                    kd = INFINITY;
                    goto done;
                }
        double t = k * dt;
        CHECK(fabs(fmb_sim_time(s) - t) < 1e-12, "time %.15g, expected %.15g", fmb_sim_time(s), t);
        ref_t r;
        /* the configuration against the closure at the solver's own time (which
         * accumulates round-off over the steps) */
        reference(fmb_sim_time(s), &r);
        /* configuration: the simulated B and the angles against the closure */
        double pose[3], Bs[2];
        const double uB[2] = {L3, 0};
        fmb_sim_body_point(s, 2, uB, Bs);
        kd = fmax(kd, hypot(Bs[0] - r.B[0], Bs[1] - r.B[1]));
        for (int b = 1; b <= 3; b++) {
            fmb_sim_body_pose(s, b, pose);
            double d = remainder(pose[2] - r.th[1 + b], 2 * PI);
            kd = fmax(kd, fabs(d) * L3); /* as a displacement on the longest link */
        }
        if (verbose)
            printf("    t = %.3f  NE: F_O = (%9.3f, %9.3f)  F_A = (%9.3f, %9.3f)  F_B = (%9.3f, "
                   "%9.3f)  F_C = (%9.3f, %9.3f)  tau = %9.4f\n",
                   t, r.FO[0], r.FO[1], r.FA[0], r.FA[1], r.FB[0], r.FB[1], r.FC[0], r.FC[1],
                   r.tau);
        for (int j = 0; j < 5; j++)
            fmb_sim_joint_reaction(s, j, R->r[k][j]);
    }
done:
    fmb_sim_destroy(&s);
    fmb_model_destroy(&m);
    return kd;
}

int main(int argc, char **argv)
{
    /* "order": require second-order convergence of the reactions; default: the error
     * below 1e-6 at h = 1e-5 */
    const int want_order2 = argc > 1 && strcmp(argv[1], "order") == 0;
    /* Cross-check the reference itself: power balance tau w2 = dE/dt (central
     * difference, dt = 1e-6: truncation ~ (w dt)^2 / 6 ~ 4e-9 relative). */
    double maxdiff = 0, scale = 0;
    for (int k = 0; k < NSAMP; k++) {
        double t = k * 0.005, dt = 1e-6;
        ref_t r;
        reference(t, &r);
        double dE = (ref_energy(t + dt) - ref_energy(t - dt)) / (2 * dt);
        maxdiff = fmax(maxdiff, fabs(r.tau * r.w[2] - dE));
        scale = fmax(scale, fabs(r.tau * r.w[2]));
    }
    printf("reference power balance: max |tau w - dE/dt| = %.3e W (max |tau w| = %.3e W)\n",
           maxdiff, scale);
    CHECK(maxdiff <= 1e-6 * scale, "reference power balance off");

    static reac_t R[NH];
    const double hs[NH] = {4e-5, 2e-5, 1e-5};
    double fe[NH], te[NH];
    printf("four-bar, HHT alpha = -0.05, one revolution (0.04 s), reactions at t = k * 5 ms\n");
    for (int i = 0; i < NH; i++) {
        double kd = run(hs[i], -0.05, &R[i], i == 0);
        compare(&R[i], 0, NSAMP, &fe[i], &te[i]);
        printf("  h = %.0e: reactions rel. error %.3e, drive torque rel. error %.3e, "
               "configuration error %.2e m\n",
               hs[i], fe[i], te[i], kd);
        CHECK(kd < 1e-10, "configuration off the closure by %.3e m", kd);
        if (i > 0) {
            double of = log2(fe[i - 1] / fe[i]), ot = log2(te[i - 1] / te[i]);
            printf("    observed order: reactions %.3f, torque %.3f\n", of, ot);
            /* generalized-alpha form of HHT: multipliers at t_{n+1}, second order */
            if (want_order2)
                CHECK(of >= 1.8 && ot >= 1.8, "reaction order %.3f / %.3f below 1.8", of, ot);
        }
    }
    /* t = 0: the consistent start solves the index-1 system for lambda, exact up to
     * round-off (forces ~ 3e4 N, so 1e-12 relative is ~ 3e-8 N). */
    double f0, t0;
    compare(&R[NH - 1], 0, 1, &f0, &t0);
    printf("  t = 0 (consistent start): reactions rel. error %.3e, torque %.3e\n", f0, t0);
    CHECK(f0 < 1e-12 && t0 < 1e-12, "start reactions off by %.3e / %.3e", f0, t0);
    /* the criterion: relative error below 1e-6 at the converged step h = 1e-5.
     * (Below h ~ 5e-6 round-off in q, amplified by 1/(beta h^2) into qdd and lambda,
     * takes over.) */
    if (!want_order2) {
        CHECK(fe[NH - 1] < 1e-6, "reaction error %.3e >= 1e-6 at h = 1e-5", fe[NH - 1]);
        CHECK(te[NH - 1] < 1e-6, "torque error %.3e >= 1e-6 at h = 1e-5", te[NH - 1]);
    }
    if (failures)
        printf("%d check(s) failed\n", failures);
    else
        printf("all checks passed\n");
    return failures ? 1 : 0;
}

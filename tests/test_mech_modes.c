/*
 * Mechanism modes (fmb_sim_modes; docs/validation.md, "Mechanism modes") against
 * analytic frequencies. Nothing expected here comes from flexmb's output.
 *
 *   spring_pendulum (tests/modes/spring_pendulum.yaml): a bob of mass m on a spring k of
 *       rest length l0 at its static equilibrium: radial mode sqrt(k/m), swing mode
 *       sqrt(g/L) with L = l0 + m g / k (geometric stiffness of the tension m g), and a
 *       zero-frequency rotation of the bob; within 1e-7 (observed 2e-11).
 *   beam_mass (tests/modes/beam_mass.yaml): pinned-pinned bar (20 elements) with a point
 *       mass M at mid-span on a revolute joint. First bending mode from the frequency
 *       equation r a (tan a - tanh a) = 2, a = beta L / 2, r = M / (rho A L) (derived in
 *       the case file and docs/validation.md), solved here by bisection; second bending
 *       mode (antisymmetric: the mass sits at its node) (2 pi / L)^2 sqrt(E I / (rho A));
 *       within 1e-4 (observed 7e-6: the Hermite elements' discretization error). The
 *       same with M -> 0 (1e-9 kg) reproduces (pi / L)^2 sqrt(E I / (rho A)). The mass's
 *       share of the first mode's kinetic energy against the analytic mode shape
 *       (Simpson's rule on the shape of the frequency equation), within 1e-3.
 *   rayleigh_ratio, rayleigh_two_point (tests/modes/beam_damped*.yaml): Rayleigh damping
 *       given as `ratio: zeta, at: w1` (stiffness-proportional) or `at: [w1, 3 w1]`. A
 *       pinned-pinned bar loaded suddenly at mid-span (trapezoidal rule, no numerical
 *       damping) oscillates about the static deflection F L^3 / (48 E I); the logarithmic
 *       decrement of the mid-span deflection's peaks (parabolic peak interpolation,
 *       least-squares slope of log amplitude over the run) gives the first mode's damping
 *       ratio, which must be zeta = 0.02 within 0.5 %; the mean deflection must match the
 *       static one within 1 %.
 * Usage: test_mech_modes DIR spring_pendulum|beam_mass|beam_nomass|rayleigh_ratio|
 *                            rayleigh_two_point
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flexmb/flexmb.h"

static int failures = 0;
#include "check.h"

static const double PI = 3.14159265358979323846;

/* Lowest modes of a case; returns the count (omega has room for nmax). */
static int modes_of(const char *dir, const char *file, const char *const *ov, int nov,
                    double *omega, double *share, int nmax)
{
    char path[1024], err[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    fmb_case_t *c = fmb_case_load(path, ov, nov, err, sizeof err);
    if (!c) {
        printf("FAIL: cannot load %s: %s\n", path, err);
        failures++;
        return 0;
    }
    fmb_sim_t *s = fmb_sim_create(fmb_case_model(c), fmb_case_options(c));
    double asym = -1;
    int n = fmb_sim_modes(s, nmax, omega, NULL, share, &asym);
    if (n < 0) {
        printf("FAIL: fmb_sim_modes: %s\n", fmb_sim_last_error(s));
        failures++;
    }
    printf("%s: %d modes, stiffness asymmetry %.3g\n", file, n, asym);
    for (int k = 0; k < n; k++)
        printf("  mode %d: omega = %.10g rad/s\n", k + 1, omega[k]);
    fmb_sim_destroy(&s);
    fmb_case_destroy(&c);
    return n;
}

static void close_rel(const char *what, double got, double want, double tol)
{
    double rel = fabs(got - want) / fabs(want);
    printf("%s: %.10g vs %.10g (rel %.3g, limit %.3g)\n", what, got, want, rel, tol);
    CHECK(rel <= tol, "%s: %.10g vs %.10g", what, got, want);
}

static void spring_pendulum(const char *dir)
{
    const double m = 2.0, k = 800.0, l0 = 0.5, g = 9.81, L = l0 + m * g / k;
    double om[8];
    int n = modes_of(dir, "spring_pendulum.yaml", NULL, 0, om, NULL, 8);
    CHECK(n == 3, "three coordinates, no constraint: 3 modes (got %d)", n);
    if (n != 3) return;
    CHECK(fabs(om[0]) < 1e-3, "free rotation of the bob: omega = 0 (got %g)", om[0]);
    close_rel("swing sqrt(g/L)", om[1], sqrt(g / L), 1e-7);
    close_rel("radial sqrt(k/m)", om[2], sqrt(k / m), 1e-7);
}

/* Root of r a (tan a - tanh a) = 2 in (0, pi/2). */
static double first_root(double r)
{
    double lo = 1e-9, hi = PI / 2 - 1e-15;
    for (int it = 0; it < 200; it++) {
        double a = 0.5 * (lo + hi), f = r * a * (tan(a) - tanh(a)) - 2.0;
        if (f > 0)
            hi = a;
        else
            lo = a;
    }
    return 0.5 * (lo + hi);
}

static void beam_mass(const char *dir, double Mp)
{
    const double L = 0.6, d = 0.012, E = 200e9, rho = 7800, A = PI * d * d / 4,
                 I = PI * pow(d, 4) / 64, c = sqrt(E * I / (rho * A));
    char ov[64];
    snprintf(ov, sizeof ov, "Mp=%.17g", Mp);
    const char *ovs[] = {ov};
    double om[8], share[8 * 3]; /* bodies: ground, bar, mass */
    int n = modes_of(dir, "beam_mass.yaml", ovs, 1, om, share, 8);
    CHECK(n >= 3, "at least 3 modes (got %d)", n);
    if (n < 3) return;
    /* mode 1: the mass's free rotation on its revolute joint */
    CHECK(fabs(om[0]) < 1e-2 * om[1], "free rotation of the mass: omega ~ 0 (got %g)", om[0]);
    const double r = Mp / (rho * A * L), a = first_root(r), beta = 2 * a / L;
    close_rel("first bending mode", om[1], beta * beta * c, 1e-4);
    close_rel("second bending mode (antisymmetric)", om[2], pow(2 * PI / L, 2) * c, 1e-4);
    if (Mp < 1e-6) close_rel("bare bar first mode", om[1], pow(PI / L, 2) * c, 1e-4);
    /* kinetic-energy share of the mass in the first bending mode, from the analytic shape
     * w(x) = sin(beta x) - cos(a)/cosh(a) sinh(beta x) on the half span (Simpson) */
    if (Mp > 1e-6) {
        const int ns = 2000;
        double ib = 0.0, h = (L / 2) / ns, ca = cos(a) / cosh(a);
        for (int i = 0; i <= ns; i++) {
            double x = i * h, w = sin(beta * x) - ca * sinh(beta * x);
            ib += (i == 0 || i == ns ? 1 : (i % 2 ? 4 : 2)) * w * w;
        }
        ib *= h / 3 * 2 * rho * A; /* both halves */
        double wm = sin(a) - ca * sinh(a), em = Mp * wm * wm;
        close_rel("mass's share of the first mode's kinetic energy", share[3 * 1 + 2],
                  em / (em + ib), 1e-3);
        close_rel("shares sum to one", share[3 * 1 + 1] + share[3 * 1 + 2], 1.0, 1e-12);
    }
}

/* Damping ratio of the first mode from the free decay of a suddenly loaded bar. */
static void rayleigh(const char *dir, const char *file)
{
    const double L = 0.6, d = 0.012, E = 200e9, F = 100, zeta = 0.02, I = PI * pow(d, 4) / 64;
    const double vstat = -F * L * L * L / (48 * E * I);
    char path[1024], err[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    fmb_case_t *c = fmb_case_load(path, NULL, 0, err, sizeof err);
    if (!c) {
        printf("FAIL: cannot load %s: %s\n", path, err);
        failures++;
        return;
    }
    fmb_model_t *m = fmb_case_model(c);
    fmb_sim_t *s = fmb_sim_create(m, fmb_case_options(c));
    const int bar = fmb_model_find_body(m, "bar"), nn = fmb_model_beam_num_nodes(m, bar);
    double *x = malloc(3 * (size_t)nn * sizeof *x), *y = x + nn, *v = y + nn;
    const int steps = (int)lround(fmb_case_options(c)->t_end / fmb_case_options(c)->h);
    double *u = malloc((size_t)(steps + 1) * sizeof *u), mean = 0.0;
    int rc = fmb_sim_initialize(s), nu = 0;
    for (int k = 0; rc == 0 && k <= steps; k++) {
        if (k && (rc = fmb_sim_step(s))) break;
        fmb_sim_beam_state(s, bar, x, y, v);
        u[nu++] = v[nn / 2] - vstat; /* mid-span node (n_el even) */
        mean += v[nn / 2];
    }
    CHECK(rc == 0, "run failed: %s", fmb_sim_last_error(s));
    mean /= nu;
    close_rel("mean mid-span deflection vs F L^3/(48 E I)", mean, vstat, 1e-2);
    /* peaks of |u| (maxima of u and minima), parabolic interpolation */
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int np = 0;
    for (int k = 1; k + 1 < nu; k++) {
        const double a = fabs(u[k - 1]), b = fabs(u[k]), cc = fabs(u[k + 1]);
        if (!(b >= a && b > cc) || (u[k - 1] > 0) != (u[k + 1] > 0)) continue;
        const double den = a - 2 * b + cc, off = den != 0 ? 0.5 * (a - cc) / den : 0.0;
        const double pk = b - 0.25 * (a - cc) * off, t = k + off;
        sx += t, sy += log(pk), sxx += t * t, sxy += t * log(pk), np++;
    }
    const double h = fmb_case_options(c)->h;
    const double slope = (np * sxy - sx * sy) / (np * sxx - sx * sx); /* per step */
    /* half-period decrement: |u| peaks every T/2, amplitude ~ exp(-zeta w t) */
    const double w1 = pow(PI / L, 2) * sqrt(E * I / (7800 * PI * d * d / 4));
    const double zw = -slope / h, z = zw / w1;
    printf("%d half-period peaks; decay rate %.6g 1/s\n", np, zw);
    CHECK(np > 20, "too few peaks (%d)", np);
    close_rel("damping ratio of the first mode", z, zeta, 5e-3);
    free(x), free(u);
    fmb_sim_destroy(&s);
    fmb_case_destroy(&c);
}

/* Range-checked joint accessors: an invalid index gives NaN / 0 / NULL, never a read past
 * the joint array (run under the sanitizer build as well). */
static void accessors(const char *dir)
{
    char path[1024], err[1024];
    snprintf(path, sizeof path, "%s/spring_pendulum.yaml", dir);
    fmb_case_t *c = fmb_case_load(path, NULL, 0, err, sizeof err);
    fmb_model_t *m = c ? fmb_case_model(c) : NULL;
    fmb_sim_t *s = m ? fmb_sim_create(m, fmb_case_options(c)) : NULL;
    CHECK(s && fmb_sim_initialize(s) == 0, "initialize");
    if (s) {
        const int bad[] = {-1, fmb_model_num_joints(m), 1000000};
        for (int k = 0; k < 3; k++) {
            double out[6], vals[4] = {0};
            fmb_sim_joint_reaction(s, bad[k], out);
            CHECK(isnan(out[0]) && isnan(out[5]), "reaction of joint %d is NaN", bad[k]);
            CHECK(isnan(fmb_sim_joint_violation(s, bad[k])), "violation of joint %d", bad[k]);
            CHECK(fmb_model_joint_num_outputs(m, bad[k]) == 0, "outputs of joint %d", bad[k]);
            CHECK(fmb_model_joint_output_name(m, bad[k], 0) == NULL, "output name %d", bad[k]);
            fmb_sim_joint_outputs(s, bad[k], vals); /* must not touch memory */
        }
    }
    fmb_sim_destroy(&s);
    fmb_case_destroy(&c);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_mech_modes DIR spring_pendulum|beam_mass|beam_nomass\n");
        return 2;
    }
    if (strcmp(argv[2], "spring_pendulum") == 0)
        spring_pendulum(argv[1]);
    else if (strcmp(argv[2], "beam_mass") == 0)
        beam_mass(argv[1], 0.3);
    else if (strcmp(argv[2], "beam_nomass") == 0)
        beam_mass(argv[1], 1e-9);
    else if (strcmp(argv[2], "accessors") == 0)
        accessors(argv[1]);
    else if (strcmp(argv[2], "rayleigh_ratio") == 0)
        rayleigh(argv[1], "beam_damped.yaml");
    else if (strcmp(argv[2], "rayleigh_two_point") == 0)
        rayleigh(argv[1], "beam_damped2.yaml");
    else {
        fprintf(stderr, "unknown test %s\n", argv[2]);
        return 2;
    }
    printf("%s\n", failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}

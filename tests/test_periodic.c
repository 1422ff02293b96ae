/*
 * Periodic steady state and Floquet multipliers (src/solve/periodic.c), each part against
 * an independent source:
 *   harmonic    forced mass-spring-damper: the orbit against the closed-form steady state
 *               X cos(W t - phi), at three step sizes (observed order of the error: 2)
 *   fd          the monodromy against central finite differences of the period map
 *               (nonlinear pendulum on a moving pivot, and the elastic quick-return with
 *               its slider on the beam over a short span)
 *   mathieu     pendulum on a vertically oscillating pivot, linearized about hanging:
 *               the two physical multipliers against an RK4 integration of the variational
 *               (Mathieu) equation written here; inside the first tongue unstable, outside
 *               stable
 *   quick_return  the damped elastic quick-return at 5 and 10 rad/s: the orbit against the
 *               last revolution of a long transient run, from three first guesses
 * Usage: test_periodic PART
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "flexmb/flexmb.h"
#include "flexmb/periodic.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static int failures;

static fmb_sim_t *make(const char *text, const char *const *sets, int nsets, fmb_case_t **cp,
                       double h)
{
    char err[512];
    fmb_case_t *c =
        fmb_case_load_text("periodic.yaml", text, strlen(text), sets, nsets, err, sizeof err);
    CHECK(c != NULL, "case: %s", err);
    if (!c) return NULL;
    fmb_sim_options_t o = *fmb_case_options(c);
    if (h > 0) o.h = h;
    fmb_sim_t *s = fmb_sim_create(fmb_case_model(c), &o);
    CHECK(s && fmb_sim_initialize(s) == 0, "init: %s", s ? fmb_sim_last_error(s) : "create");
    *cp = c;
    return s;
}

/* ------------------------------------------------------------------ harmonic */

static const char harmonic_case[] =
    "title: forced mass-spring-damper\n"
    "parameters: {m: 2, k: 800, c: 4, F0: 10, W: 15}\n"
    "solver: {h: 1e-3, t_end: 1}\n"
    "bodies:\n"
    "  - {name: p, mass: m, inertia: 1, pose: [0, 0, 0]}\n"
    "joints:\n"
    "  - {name: g, type: prismatic, bodies: [p, ground], axis: [1, 0]}\n"
    "forces:\n"
    "  - {name: s, type: spring, bodies: [ground, p], points: [[1, 0], [0, 0]], stiffness: k,\n"
    "     damping: c}\n"
    "  - {name: f, type: point, body: p, fx: F0*cos(W*t)}\n";

static void harmonic(void)
{
    const double m = 2, k = 800, c = 4, F0 = 10, W = 15, T = 2 * M_PI / W;
    /* steady state x = X cos(W t - phi) */
    const double X = F0 / hypot(k - m * W * W, c * W), phi = atan2(c * W, k - m * W * W);
    const double x0 = X * cos(phi), v0 = X * W * sin(phi);
    double err[3];
    const int Ns[3] = {64, 128, 256};
    for (int meth = 0; meth < 2; meth++)
        for (int r = 0; r < 3; r++) {
            fmb_case_t *cs = NULL;
            fmb_sim_t *s = make(harmonic_case, NULL, 0, &cs, T / Ns[r]);
            if (!s) return;
            fmb_periodic_t *p = fmb_periodic_create(s);
            CHECK(p != NULL, "create: %s", fmb_sim_last_error(s));
            fmb_periodic_options_t o;
            fmb_periodic_options_default(&o);
            o.period = T;
            o.method = meth ? FMB_PERIODIC_SUBSPACE : FMB_PERIODIC_DENSE;
            int rc = fmb_periodic_solve(p, &o);
            CHECK(rc == 0, "solve: %s", fmb_sim_last_error(s));
            /* a linear system: one dense Newton step lands on the orbit; the subspace method
             * needs its two directions first */
            CHECK(fmb_periodic_iterations(p) <= (meth ? 8 : 2), "%s: iterations %d",
                  meth ? "subspace" : "dense", fmb_periodic_iterations(p));
            const double *x = fmb_periodic_state(p);
            const int n = fmb_model_num_coords(fmb_case_model(cs));
            err[r] = fmax(fabs(x[0] - x0) / X, fabs(x[n] - v0) / (X * W));
            printf("N = %d: x(0) %.10f (exact %.10f), v(0) %.10f (exact %.10f), error %.3e\n",
                   Ns[r], x[0], x0, x[n], v0, err[r]);
            /* the multipliers of a damped oscillator: |mu| = exp(-zeta wn T) */
            double re, im;
            fmb_periodic_multiplier(p, 0, &re, &im);
            const double wn = sqrt(k / m), zeta = c / (2 * m * wn);
            CHECK_NEAR("|mu| against exp(-zeta wn T)", hypot(re, im), exp(-zeta * wn * T), 5e-3);
            fmb_periodic_destroy(&p);
            fmb_sim_destroy(&s);
            fmb_case_destroy(&cs);
            if (r < 2) continue;
            const double o1 = log2(err[0] / err[1]), o2 = log2(err[1] / err[2]);
            printf("observed order %.3f, %.3f\n", o1, o2);
            CHECK(o1 > 1.8 && o1 < 2.2 && o2 > 1.8 && o2 < 2.2, "order %.3f %.3f (want 2)", o1, o2);
            /* (W h)^2 / 12-sized error at 256 steps: 1.1e-4 */
            CHECK(err[2] < 3e-4, "error at N = 256: %.3e", err[2]);
        }
}

/* ------------------------------------------------------------------ mathieu */

static const char mathieu_case[] =
    "title: pendulum on a vertically oscillating pivot\n"
    "parameters: {l: 1, m: 1, Ic: 0.01, A: 0.05, W: 8, th0: 0}\n"
    "gravity: [0, -9.81]\n"
    "solver: {h: 1e-4, t_end: 1}\n"
    "bodies:\n"
    "  - {name: pivot, mass: 1, inertia: 1, pose: [0, A, 0]}\n"
    "  - {name: bob, mass: m, inertia: Ic, pose: [l*sin(th0), A - l*cos(th0), th0],\n"
    "     points: {P: [0, l]}}\n"
    "joints:\n"
    "  - {name: px, type: driver, coordinate: x, bodies: [pivot], function: 0}\n"
    "  - {name: py, type: driver, coordinate: y, bodies: [pivot], function: A*cos(W*t)}\n"
    "  - {name: pa, type: driver, coordinate: angle, bodies: [pivot], function: 0}\n"
    "  - {name: hinge, type: revolute, bodies: [pivot, bob], points: [[0, 0], P]}\n";

/* theta'' + (m l / I_O)(g - A W^2 cos W t) theta = 0 over one period by RK4: the 2 x 2
 * monodromy's eigenvalues (det = 1) */
static void mathieu_reference(double A, double W, double mu[4])
{
    const double l = 1, m = 1, Ic = 0.01, g = 9.81, IO = Ic + m * l * l, T = 2 * M_PI / W;
    const int N = 200000;
    const double h = T / N;
    double M[4];
    for (int col = 0; col < 2; col++) {
        double y[2] = {col == 0, col == 1};
        for (int k = 0; k < N; k++) {
            const double t = k * h;
#define F(tt, a, b, out0, out1)                                                                    \
    out0 = (b), out1 = -(m * l / IO) * (g - A * W * W * cos(W * (tt))) * (a)
            double k1a, k1b, k2a, k2b, k3a, k3b, k4a, k4b;
            F(t, y[0], y[1], k1a, k1b);
            F(t + h / 2, y[0] + h / 2 * k1a, y[1] + h / 2 * k1b, k2a, k2b);
            F(t + h / 2, y[0] + h / 2 * k2a, y[1] + h / 2 * k2b, k3a, k3b);
            F(t + h, y[0] + h * k3a, y[1] + h * k3b, k4a, k4b);
#undef F
            y[0] += h / 6 * (k1a + 2 * k2a + 2 * k3a + k4a);
            y[1] += h / 6 * (k1b + 2 * k2b + 2 * k3b + k4b);
        }
        M[2 * col] = y[0], M[2 * col + 1] = y[1];
    }
    const double tr = M[0] + M[3], det = M[0] * M[3] - M[2] * M[1], disc = tr * tr / 4 - det;
    if (disc >= 0) { /* real pair */
        const double a = tr / 2 + sqrt(disc), b = tr / 2 - sqrt(disc);
        const int big = fabs(a) >= fabs(b);
        mu[0] = big ? a : b, mu[1] = 0, mu[2] = big ? b : a, mu[3] = 0;
    } else {
        mu[0] = tr / 2, mu[1] = sqrt(-disc), mu[2] = tr / 2, mu[3] = -sqrt(-disc);
    }
}

static void mathieu_point(double W, int want_unstable, fmb_periodic_method meth, double tol)
{
    const double A = 0.05;
    char sA[64], sW[64];
    snprintf(sA, sizeof sA, "A=%.17g", A);
    snprintf(sW, sizeof sW, "W=%.17g", W);
    const char *sets[2] = {sA, sW};
    fmb_case_t *cs = NULL;
    fmb_sim_t *s = make(mathieu_case, sets, 2, &cs, 0);
    if (!s) return;
    fmb_periodic_t *p = fmb_periodic_create(s);
    fmb_periodic_options_t o;
    fmb_periodic_options_default(&o);
    o.period = 2 * M_PI / W;
    o.method = meth;
    CHECK(fmb_periodic_solve(p, &o) == 0, "solve: %s", fmb_sim_last_error(s));
    double ref[4], re[2], im[2];
    mathieu_reference(A, W, ref);
    fmb_periodic_multiplier(p, 0, &re[0], &im[0]);
    fmb_periodic_multiplier(p, 1, &re[1], &im[1]);
    printf("W = %g: flexmb %.9f%+.9fi, %.9f%+.9fi; RK4 %.9f%+.9fi, %.9f%+.9fi; bound %.3g\n", W,
           re[0], im[0], re[1], im[1], ref[0], ref[1], ref[2], ref[3],
           fmb_periodic_algorithmic_bound(p));
    if (im[0] != 0.0) { /* a complex pair: compare the one with im > 0 */
        const int k = im[0] > 0 ? 0 : 1;
        CHECK_NEAR("Re mu", re[k], ref[0], tol);
        CHECK_NEAR("Im mu", im[k], fabs(ref[1]), tol);
    } else {
        CHECK_NEAR("mu_1", re[0], ref[0], tol);
        CHECK_NEAR("mu_2", re[1], ref[2], tol);
    }
    /* the third multiplier: the integrator's own (below the bound) */
    double r3 = 0, i3 = 0;
    if (fmb_periodic_num_multipliers(p) > 2) fmb_periodic_multiplier(p, 2, &r3, &i3);
    CHECK(hypot(r3, i3) < 1e-6, "third multiplier %.3g", hypot(r3, i3));
    const int unstable = hypot(re[0], im[0]) > 1.0 + 1e-6;
    CHECK(unstable == want_unstable, "W = %g: unstable %d, want %d", W, unstable, want_unstable);
    fmb_periodic_destroy(&p);
    fmb_sim_destroy(&s);
    fmb_case_destroy(&cs);
}

static void mathieu(void)
{
    /* omega0^2 = m g l / I_O = 9.71 (omega0 = 3.117 rad/s); the first tongue around
     * W = 2 omega0 = 6.234 is about +-5 % wide at A W^2 / g = 0.2 */
    mathieu_point(6.234, 1, FMB_PERIODIC_DENSE, 1e-6);
    mathieu_point(8.0, 0, FMB_PERIODIC_DENSE, 1e-6);
    /* the default method: the largest multipliers by subspace iteration at the orbit */
    mathieu_point(6.234, 1, FMB_PERIODIC_AUTO, 1e-6);
    mathieu_point(8.0, 0, FMB_PERIODIC_AUTO, 1e-6);
}

/* ------------------------------------------------------------------ fd */

/* max |FD - J| / max |J| over the (q, qd) rows and columns of J, central differences with
 * steps eps * max(|x_j|, floor) */
static double fd_check(fmb_periodic_t *p, int n, double eps, double floor)
{
    const int nx = 4 * n;
    const double *J0 = fmb_periodic_monodromy(p);
    CHECK(J0 != NULL, "no monodromy");
    if (!J0) return INFINITY;
    double *J = malloc((size_t)nx * nx * sizeof *J), *x0 = malloc(nx * sizeof *x0);
    double *x = malloc(nx * sizeof *x), *yp = malloc(nx * sizeof *x), *ym = malloc(nx * sizeof *x);
    memcpy(J, J0, (size_t)nx * nx * sizeof *J);
    memcpy(x0, fmb_periodic_state(p), nx * sizeof *x0);
    double jmax = 0, emax = 0;
    for (int j = 0; j < 2 * n; j++)
        for (int i = 0; i < 2 * n; i++)
            jmax = fmax(jmax, fabs(J[(size_t)j * nx + i]));
    for (int j = 0; j < 2 * n; j++) {
        const double e = eps * fmax(fabs(x0[j]), floor);
        memcpy(x, x0, nx * sizeof *x);
        x[j] += e;
        int rc = fmb_periodic_map(p, x, yp);
        x[j] = x0[j] - e;
        rc |= fmb_periodic_map(p, x, ym);
        CHECK(rc == 0, "map failed");
        for (int i = 0; i < 2 * n; i++)
            emax = fmax(emax, fabs((yp[i] - ym[i]) / (2 * e) - J[(size_t)j * nx + i]));
    }
    free(J), free(x0), free(x), free(yp), free(ym);
    return emax / jmax;
}

static void fd(void)
{
    /* the nonlinear pendulum swinging at 0.6 rad on the moving pivot, one forcing period */
    {
        const char *sets[2] = {"th0=0.6", "W=8"};
        fmb_case_t *cs = NULL;
        fmb_sim_t *s = make(mathieu_case, sets, 2, &cs, 1e-3);
        if (!s) return;
        fmb_periodic_t *p = fmb_periodic_create(s);
        fmb_periodic_options_t o;
        fmb_periodic_options_default(&o);
        o.period = 2 * M_PI / 8;
        o.max_iter = 0; /* the map and its monodromy at the first guess */
        o.floquet = 0;
        o.method = FMB_PERIODIC_DENSE;
        fmb_periodic_solve(p, &o);
        const int n = fmb_model_num_coords(fmb_case_model(cs));
        const double r1 = fd_check(p, n, 1e-4, 1e-3), r2 = fd_check(p, n, 1e-3, 1e-3);
        printf("pendulum: |FD - J| / |J| = %.3e (eps 1e-4), %.3e (eps 1e-3)\n", r1, r2);
        CHECK(r1 < 1e-6, "pendulum monodromy against FD: %.3e", r1);
        (void)r2; /* printed: the truncation error of the larger step, for comparison */
        fmb_periodic_destroy(&p);
        fmb_sim_destroy(&s);
        fmb_case_destroy(&cs);
    }
}

/* the elastic quick-return (nonlinear rocker, slider on the beam) over 30 steps at 10 rad/s:
 * the monodromy of the beam, slider and damping terms against finite differences */
static void fd_beam(const char *path)
{
    const char *sets[3] = {"omega=10", "nonlinear=1", "zeta=0.02"};
    char err[512];
    fmb_case_t *cs = fmb_case_load(path, sets, 3, err, sizeof err);
    CHECK(cs != NULL, "%s", err);
    if (!cs) return;
    fmb_sim_options_t so = *fmb_case_options(cs);
    fmb_sim_t *s = fmb_sim_create(fmb_case_model(cs), &so);
    CHECK(s && fmb_sim_initialize(s) == 0, "init");
    fmb_periodic_t *p = fmb_periodic_create(s);
    fmb_periodic_options_t o;
    fmb_periodic_options_default(&o);
    o.period = 30 * so.h;
    o.max_iter = 0;
    o.floquet = 0;
    o.method = FMB_PERIODIC_DENSE;
    fmb_periodic_solve(p, &o);
    const int n = fmb_model_num_coords(fmb_case_model(cs));
    const double r1 = fd_check(p, n, 1e-6, 1e-3), r2 = fd_check(p, n, 1e-4, 1e-3);
    printf("quick-return: |FD - J| / |J| = %.3e (eps 1e-6), %.3e (eps 1e-4)\n", r1, r2);
    CHECK(r1 < 1e-5, "quick-return monodromy against FD: %.3e", r1);
    (void)r2;
    fmb_periodic_destroy(&p);
    fmb_sim_destroy(&s);
    fmb_case_destroy(&cs);
}

/* rocker deflection (largest |v| over the nodes) at every step of one period from the sim's
 * present state with fixed steps h: into d (N + 1 values) */
static int period_deflections(fmb_sim_t *s, int rocker, long N, double *d)
{
    double v[64];
    const fmb_model_t *m = fmb_sim_model(s);
    const int nn = fmb_model_beam_num_nodes(m, rocker);
    for (long k = 0; k <= N; k++) {
        if (k > 0 && fmb_sim_step(s)) return -1;
        fmb_sim_beam_state(s, rocker, NULL, NULL, v);
        double big = 0;
        for (int i = 0; i < nn && i < 64; i++)
            big = fmax(big, fabs(v[i]));
        d[k] = big;
    }
    return 0;
}

/* damped quick-return: the orbit against the last revolution of a transient run of
 * `revs` revolutions, from the static start, the rigid start and a perturbed state */
static void quick_return(const char *path, double omega, int revs)
{
    char so_[64];
    snprintf(so_, sizeof so_, "omega=%g", omega);
    const char *sets[1] = {so_};
    char err[512];
    fmb_case_t *cs = fmb_case_load(path, sets, 1, err, sizeof err);
    CHECK(cs != NULL, "%s", err);
    if (!cs) return;
    const fmb_model_t *md = fmb_case_model(cs);
    int rocker = -1;
    for (int b = 1; b < fmb_model_num_bodies(md); b++)
        if (fmb_model_body_is_beam(md, b)) rocker = b;
    const double T = 2 * M_PI / omega;
    const long N = (long)ceil(T / fmb_case_options(cs)->h * (1 - 1e-12));
    double *dt = malloc((N + 1) * sizeof *dt), *dp = malloc((N + 1) * sizeof *dp);
    /* the transient run, with the shooting's step T / N */
    fmb_sim_options_t so = *fmb_case_options(cs);
    so.h = T / N;
    so.t_end = revs * T;
    fmb_sim_t *s = fmb_sim_create(fmb_case_model(cs), &so);
    CHECK(s && fmb_sim_initialize(s) == 0, "init");
    for (long k = 0; k < (revs - 1) * N; k++)
        if (fmb_sim_step(s)) break;
    period_deflections(s, rocker, N, dt);
    fmb_sim_destroy(&s);
    double peak = 0;
    for (long k = 0; k <= N; k++)
        peak = fmax(peak, dt[k]);
    for (int guess = 0; guess < 3; guess++) {
        so = *fmb_case_options(cs);
        if (guess == 1) so.start = FMB_START_RIGID;
        s = fmb_sim_create(fmb_case_model(cs), &so);
        CHECK(s && fmb_sim_initialize(s) == 0, "init");
        fmb_periodic_t *p = fmb_periodic_create(s);
        if (guess == 2) { /* the static start with every elastic coordinate off by 1 mm */
            const int n = fmb_model_num_coords(md);
            double *x = malloc(4 * n * sizeof *x);
            memcpy(x, fmb_periodic_state(p), 4 * n * sizeof *x);
            const int o = fmb_model_body_offset(md, rocker);
            for (int i = o + 3; i < o + fmb_model_body_ndof(md, rocker); i++)
                x[i] += 1e-3;
            fmb_periodic_set_guess(p, x);
            free(x);
        }
        fmb_periodic_options_t o;
        fmb_periodic_options_default(&o);
        int rc = fmb_periodic_solve(p, &o);
        CHECK(rc == 0, "omega %g guess %d: %s", omega, guess, fmb_sim_last_error(s));
        double re, im;
        fmb_periodic_multiplier(p, 0, &re, &im);
        if (rc == 0 && guess == 0 && fmb_periodic_multipliers_are_ritz(p)) {
            /* the subspace's largest multiplier against every multiplier of the dense
             * monodromy at the orbit */
            fmb_periodic_t *q = fmb_periodic_create(s);
            fmb_periodic_set_guess(q, fmb_periodic_state(p));
            fmb_periodic_options_t od;
            fmb_periodic_options_default(&od);
            od.method = FMB_PERIODIC_DENSE;
            CHECK(fmb_periodic_solve(q, &od) == 0, "dense at the orbit: %s", fmb_sim_last_error(s));
            double rd, id;
            fmb_periodic_multiplier(q, 0, &rd, &id);
            printf("omega %g: largest |mu| subspace %.6f, dense %.6f\n", omega, hypot(re, im),
                   hypot(rd, id));
            CHECK(fabs(hypot(re, im) - hypot(rd, id)) <= 1e-6, "subspace |mu| %.6f vs dense %.6f",
                  hypot(re, im), hypot(rd, id));
            fmb_periodic_destroy(&q);
        }
        double diff = 0;
        if (rc == 0) {
            fmb_periodic_prepare_run(p, 1);
            period_deflections(s, rocker, N, dp);
            for (long k = 0; k <= N; k++)
                diff = fmax(diff, fabs(dp[k] - dt[k]));
        }
        CHECK(fmb_periodic_iterations(p) <= 6, "omega %g guess %d: %d iterations (target 6)", omega,
              guess, fmb_periodic_iterations(p));
        printf("omega %g, guess %d: %d iterations, residual %.3e, |mu| %.4f; peak %.6f mm "
               "(transient, %d revolutions), largest difference %.3e of it\n",
               omega, guess, fmb_periodic_iterations(p),
               fmb_periodic_residual(p, fmb_periodic_iterations(p)), hypot(re, im), 1e3 * peak,
               revs, diff / peak);
        CHECK(diff <= 0.01 * peak, "omega %g guess %d: orbit vs transient %.3e of the peak", omega,
              guess, diff / peak);
        fmb_periodic_destroy(&p);
        fmb_sim_destroy(&s);
    }
    free(dt), free(dp);
    fmb_case_destroy(&cs);
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv)
{
    const char *part = argc > 1 ? argv[1] : "harmonic";
    if (strcmp(part, "harmonic") == 0)
        harmonic();
    else if (strcmp(part, "mathieu") == 0)
        mathieu();
    else if (strcmp(part, "fd") == 0)
        fd();
    else if (strcmp(part, "fd_beam") == 0 && argc > 2)
        fd_beam(argv[2]);
    else if (strcmp(part, "quick_return") == 0 && argc > 2) {
        quick_return(argv[2], 5, 8);
        quick_return(argv[2], 10, 8);
    } else {
        printf("unknown part %s\n", part);
        return 2;
    }
    printf("%s: %d failure(s)\n", part, failures);
    return failures ? 1 : 0;
}

/*
 * Beams in motion: initial elastic states, and geometrically nonlinear beams in dynamic
 * runs (docs/validation.md, "Initial elastic state" and "Nonlinear beams").
 *
 *   initial_mode:
 *       pinned-pinned 12 mm steel bar (L = 0.6 m, 20 elements, revolute joints to the
 *       ground at both ends), started in mode k = 1, 2 (amplitude a, rate 0; and a second
 *       run with amplitude 0, rate a omega_1), trapezoidal rule with 300 steps per period
 *       over 3.2 periods. Period from the zero crossings of v at the node where the shape is
 *       largest: omega against (k pi / L)^2 sqrt(EI / (rho A)) within 0.1 % and against
 *       the FE eigenvalue within 1e-4 (the trapezoidal rule's period error at 300 steps
 *       per period is (2 pi / 300)^2 / 12 = 3.7e-5: observed 3.66e-5). Shape: at every step the nodal v
 *       minus its least-squares multiple of the mode shape, below 1e-3 of the amplitude.
 *       At t = 0 the elastic velocities equal the given ones exactly (1e-14). Linear
 *       beam (a = 1 mm) and nonlinear beam (a = 0.01 mm: with both ends held the
 *       nonlinear bar hardens by ~(3/8)(a/r)^2, r = d/4, i.e. 4e-6 here).
 *   spin_energy:
 *       free nonlinear rod (cantilever reference, 10 elements, L = 0.6 m) spinning at
 *       20 rad/s and started undeformed with the first mode's velocities for an amplitude
 *       of 0.02 L (bending that stretches the chord: the co-rotational terms work),
 *       trapezoidal rule, 0.03 s: RMS energy error for h = 1e-4, 5e-5, 2.5e-5, observed
 *       order >= 1.8. (A mode shape imposed as a displacement of 0.05 L strains the
 *       nonlinear bar axially by ~slope^2/2: 21 J of axial strain energy whose
 *       unresolved axial vibration the trapezoidal rule does not keep bounded at these
 *       steps; the energy-conserving property holds for linear systems only.)
 *   spin_up:
 *       Kane, Ryan & Banerjee (1987) / Simo & Vu-Quoc (1986) spin-up: cantilever L = 10
 *       m, EA = 2.8e7 N, EI = 1.4e4 N m^2, rho A = 1.2 kg/m, hub angle driven as
 *       theta = ws/Ts (t^2/2 + (Ts/2pi)^2 (cos(2 pi t/Ts) - 1)) for t < Ts, ws (t - Ts/2)
 *       after, ws = 6 rad/s, Ts = 15 s, 20 s simulated. ws is above the first bending
 *       frequency (3.8 rad/s), where the linear floating-frame beam loses its bending
 *       stiffness (omega^2 = omega1^2 - Omega^2 without geometric stiffening). Asserted:
 *       the nonlinear beam's largest tip deflection within 10 % of a one-mode quasi-static
 *       estimate (the angular acceleration's load 11 rho A alpha L^5 / (120 EI) over the
 *       in-plane stiffening 1 + (S - 1) Omega^2 / omega1^2, S = 1.193 (Southwell), maximum
 *       over the spin-up: 0.570 m; computed 0.574 m with 10 or 20 elements, h = 0.005 or
 *       0.0025 s), below 0.01 L over the last 5 s at constant speed; the linear beam's
 *       exceeds 0.5 L (or its run fails) once Omega passes omega1; both are printed.
 * Usage: test_beam_nl_dynamics initial_mode|spin_energy|spin_up
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flexmb/flexmb.h"

static int failures = 0;
#include "check.h"

static const double PI = 3.14159265358979323846;
static const double E_STEEL = 2.1e11, RHO_STEEL = 7850.0;

static int add_beam(fmb_model_t *m, const char *name, double L, int nel, double E, double rho,
                    double A, double I, fmb_beam_reference ref, fmb_beam_geometry geo,
                    const double vel[3])
{
    double *x = malloc((size_t)(nel + 1) * sizeof *x);
    for (int k = 0; k <= nel; k++)
        x[k] = L * k / nel;
    fmb_beam_desc_t d = {.name = name, .E = E, .rho = rho, .area = A, .inertia = I,
                         .nnodes = nel + 1, .x = x, .reference = ref, .geometry = geo};
    if (vel) memcpy(d.vel, vel, sizeof d.vel), d.vel_given = 1;
    const int b = fmb_model_add_beam(m, &d);
    CHECK(b > 0, "add_beam: %s", fmb_model_last_error(m));
    free(x);
    return b;
}

static void add_joint(fmb_model_t *m, const fmb_joint_desc_t *j)
{
    const int r = fmb_model_add_joint(m, j);
    CHECK(r >= 0, "add_joint '%s': %s", j->name, fmb_model_last_error(m));
}

/* ---------------------------------------------------------------- initial mode */

static void run_mode(int k, fmb_beam_geometry geo, double amp, int by_rate)
{
    const int nel = 20;
    const double L = 0.6, d = 0.012, A = PI * d * d / 4, I = PI * pow(d, 4) / 64;
    fmb_model_t *m = fmb_model_create();
    fmb_model_set_gravity(m, 0, 0);
    const int b = add_beam(m, "bar", L, nel, E_STEEL, RHO_STEEL, A, I, FMB_BEAM_SIMPLY_SUPPORTED,
                           geo, NULL);
    fmb_joint_desc_t j0 = {.name = "pin0", .type = "revolute", .body = {b, FMB_GROUND}};
    fmb_joint_desc_t j1 = {.name = "pin1", .type = "revolute", .body = {b, FMB_GROUND},
                           .point = {{L, 0}, {L, 0}}};
    add_joint(m, &j0), add_joint(m, &j1);
    const int nn = nel + 1;
    double *shape = calloc(3 * (size_t)nn, sizeof *shape), *U = calloc(3 * (size_t)nn, sizeof *U);
    double *Ud = calloc(3 * (size_t)nn, sizeof *Ud), *v = calloc((size_t)nn, sizeof *v);
    double om_fe = 0;
    CHECK(fmb_model_beam_mode_shape(m, b, k, shape, &om_fe) == 0, "mode shape: %s",
          fmb_model_last_error(m));
    const double om_th = pow(k * PI / L, 2) * sqrt(E_STEEL * I / (RHO_STEEL * A));
    for (int i = 0; i < 3 * nn; i++) {
        U[i] = by_rate ? 0.0 : amp * shape[i];
        Ud[i] = by_rate ? amp * om_th * shape[i] : 0.0;
    }
    CHECK(fmb_model_set_beam_initial(m, b, U, Ud) == 0, "set initial: %s", fmb_model_last_error(m));
    int at = 0; /* node of the largest |v| */
    for (int n = 0; n < nn; n++)
        if (fabs(shape[3 * n + 1]) > fabs(shape[3 * at + 1])) at = n;
    const double T = 2 * PI / om_th;
    fmb_sim_options_t o;
    fmb_sim_options_default(&o);
    o.alpha = 0.0;
    o.h = T / 300;
    o.t_end = 3.2 * T;
    fmb_sim_t *s = fmb_sim_create(m, &o);
    CHECK(fmb_sim_initialize(s) == 0, "initialize: %s", fmb_sim_last_error(s));
    /* the given elastic velocities are kept exactly */
    {
        const double *qd = fmb_sim_qd(s), *q = fmb_sim_q(s);
        const int off = fmb_model_body_offset(m, b);
        double dv = 0, du = 0;
        fmb_sim_beam_state(s, b, NULL, NULL, v);
        for (int n = 0; n < nn; n++)
            du = fmax(du, fabs(v[n] - U[3 * n + 1]));
        /* elastic rates: the free coordinates follow the node order u, v, phi minus the
         * removed ones (u0, v0, vN) */
        int c = off + 3;
        for (int n = 0; n < nn; n++)
            for (int j = 0; j < 3; j++) {
                if ((n == 0 && j < 2) || (n == nn - 1 && j == 1)) continue;
                dv = fmax(dv, fabs(qd[c] - Ud[3 * n + j]));
                du = fmax(du, fabs(q[c] - U[3 * n + j]));
                c++;
            }
        CHECK(dv <= 1e-14 * fmax(amp * om_th, 1e-300), "start changed elastic rates by %.3e", dv);
        CHECK(du <= 1e-14 * amp, "start changed elastic displacements by %.3e", du);
    }
    double tprev = 0, vprev = 0, first = -1, last = -1, shape_err = 0;
    int ncross = 0;
    fmb_sim_beam_state(s, b, NULL, NULL, v);
    vprev = v[at];
    const long nsteps = lround(o.t_end / o.h);
    for (long st = 0; st < nsteps; st++) {
        if (fmb_sim_step(s)) {
            CHECK(0, "step: %s", fmb_sim_last_error(s));
            break;
        }
        const double t = fmb_sim_time(s);
        fmb_sim_beam_state(s, b, NULL, NULL, v);
        /* least-squares multiple of the shape, and the rest */
        double num = 0, den = 0;
        for (int n = 0; n < nn; n++)
            num += v[n] * shape[3 * n + 1], den += shape[3 * n + 1] * shape[3 * n + 1];
        const double c = num / den;
        for (int n = 0; n < nn; n++)
            shape_err = fmax(shape_err, fabs(v[n] - c * shape[3 * n + 1]) / amp);
        /* upward zero crossings (by_rate: v = a sin; else a cos: any sign change) */
        if ((vprev < 0 && v[at] >= 0) || (vprev > 0 && v[at] <= 0)) {
            const double tc = tprev + (t - tprev) * vprev / (vprev - v[at]);
            if (first < 0) first = tc;
            last = tc;
            ncross++;
        }
        tprev = t, vprev = v[at];
    }
    const double period = 2 * (last - first) / (ncross - 1), om = 2 * PI / period;
    printf("  mode %d, %s, %s %.0e: omega %.4f rad/s (%d crossings), theory %.4f (%+.2e), FE "
           "eigenvalue %.4f (%+.2e); shape error %.2e of the amplitude\n",
           k, geo == FMB_BEAM_NONLINEAR ? "nonlinear" : "linear", by_rate ? "rate" : "amplitude",
           amp, om, ncross, om_th, om / om_th - 1, om_fe, om / om_fe - 1, shape_err);
    CHECK(ncross >= 6, "only %d zero crossings", ncross);
    CHECK(fabs(om / om_th - 1) < 1e-3, "mode %d: omega %.6f vs theory %.6f", k, om, om_th);
    CHECK(fabs(om / om_fe - 1) < 1e-4, "mode %d: omega %.6f vs FE eigenvalue %.6f", k, om, om_fe);
    CHECK(shape_err < 1e-3, "mode %d: shape changed by %.3e of the amplitude", k, shape_err);
    fmb_sim_destroy(&s);
    fmb_model_destroy(&m);
    free(shape), free(U), free(Ud), free(v);
}

static void test_initial_mode(void)
{
    printf("pinned-pinned 12 mm steel bar, L = 0.6 m, 20 elements, started in a mode:\n");
    for (int k = 1; k <= 2; k++) {
        run_mode(k, FMB_BEAM_LINEAR, 1e-3, 0);
        if (k == 1) run_mode(k, FMB_BEAM_LINEAR, 1e-3, 1);
        run_mode(k, FMB_BEAM_NONLINEAR, 1e-5, 0);
    }
}

/* ---------------------------------------------------------------- spin energy */

#define AMP 0.02 /* first-mode amplitude / L, given as a rate */

static void spin_drift(double h, double tend, double *drms, double *dmax)
{
    const int nel = 10;
    const double L = 0.6, d = 0.012, A = PI * d * d / 4, I = PI * pow(d, 4) / 64, omega = 20;
    fmb_model_t *m = fmb_model_create();
    fmb_model_set_gravity(m, 0, 0);
    const double vel[3] = {0, 0, omega};
    const int b = add_beam(m, "rod", L, nel, E_STEEL, RHO_STEEL, A, I, FMB_BEAM_CANTILEVER,
                           FMB_BEAM_NONLINEAR, vel);
    const int nn = nel + 1;
    double *shape = calloc(3 * (size_t)nn, sizeof *shape);
    double om1 = 0;
    CHECK(fmb_model_beam_mode_shape(m, b, 1, shape, &om1) == 0, "mode");
    for (int i = 0; i < 3 * nn; i++)
        shape[i] *= AMP * L * om1;
    CHECK(fmb_model_set_beam_initial(m, b, NULL, shape) == 0, "initial");
    fmb_sim_options_t o;
    fmb_sim_options_default(&o);
    o.alpha = 0.0, o.h = h, o.t_end = tend;
    o.rtol = 1e-14, o.atol = 1e-16; /* the Newton error far below the O(h^2) one */
    fmb_sim_t *s = fmb_sim_create(m, &o);
    CHECK(fmb_sim_initialize(s) == 0, "initialize: %s", fmb_sim_last_error(s));
    double e[FMB_ENERGY_COLUMNS];
    fmb_sim_energy(s, e);
    const double E0 = e[3], V0 = e[1];
    double sq = 0, mx = 0;
    const long n = lround(tend / h);
    for (long k = 1; k <= n; k++) {
        if (fmb_sim_step(s)) {
            CHECK(0, "step: %s", fmb_sim_last_error(s));
            break;
        }
        fmb_sim_energy(s, e);
        sq += (e[3] - E0) * (e[3] - E0);
        mx = fmax(mx, fabs(e[3] - E0));
    }
    *drms = sqrt(sq / n), *dmax = mx;
    printf("    h = %.3e: RMS |E - E0| %.4e J, max %.4e J (E0 %.5f J, initial strain energy "
           "%.4e J)\n",
           h, *drms, mx, E0, V0);
    fmb_sim_destroy(&s);
    fmb_model_destroy(&m);
    free(shape);
}

static void test_spin_energy(void)
{
    printf("free nonlinear rod spinning at 20 rad/s, first mode 0.02 L (as a rate), trapezoidal rule:\n");
    double rms[3], mx[3], hs[3];
    for (int i = 0; i < 3; i++) {
        hs[i] = 1e-4 / (1 << i);
        spin_drift(hs[i], 0.03, &rms[i], &mx[i]);
    }
    for (int i = 0; i < 2; i++) {
        const double ord = log2(rms[i] / rms[i + 1]);
        printf("    observed order %.2e -> %.2e: RMS %.3f, max %.3f\n", hs[i], hs[i + 1], ord,
               log2(mx[i] / mx[i + 1]));
        CHECK(ord >= 1.8, "energy error order %.3f < 1.8", ord);
    }
}

/* ---------------------------------------------------------------- spin-up */

static double spin_up(fmb_beam_geometry geo, double *late, double *reached)
{
    const int nel = 10;
    const double L = 10, EA = 2.8e7, EI = 1.4e4, rhoA = 1.2;
    const double A = 1e-3, E = EA / A, I = EI / E, rho = rhoA / A;
    fmb_model_t *m = fmb_model_create();
    fmb_model_set_gravity(m, 0, 0);
    const int b = add_beam(m, "blade", L, nel, E, rho, A, I, FMB_BEAM_CANTILEVER, geo, NULL);
    fmb_joint_desc_t hub = {.name = "hub", .type = "revolute", .body = {b, FMB_GROUND}};
    add_joint(m, &hub);
    /* s = min(t, Ts) written with abs (C1 at Ts, as the prescribed motion) */
    fmb_joint_desc_t drv = {
        .name = "drive",
        .type = "driver_angle",
        .body = {b, FMB_GROUND},
        .expr = "6/15*(((t + 15 - abs(t - 15))/2)^2/2 + (15/(2*pi))^2*(cos(2*pi*((t + 15 - "
                "abs(t - 15))/2)/15) - 1)) + 6*(t - (t + 15 - abs(t - 15))/2)"};
    add_joint(m, &drv);
    fmb_sim_options_t o;
    fmb_sim_options_default(&o);
    o.alpha = -0.1, o.h = 0.005, o.t_end = 20;
    fmb_sim_t *s = fmb_sim_create(m, &o);
    CHECK(fmb_sim_initialize(s) == 0, "initialize: %s", fmb_sim_last_error(s));
    double v[11], mx = 0, mlate = 0;
    const long n = lround(o.t_end / o.h);
    *reached = 0;
    for (long k = 1; k <= n; k++) {
        if (fmb_sim_step(s)) break;
        fmb_sim_beam_state(s, b, NULL, NULL, v);
        const double t = fmb_sim_time(s);
        *reached = t;
        mx = fmax(mx, fabs(v[nel]));
        if (t > 15) mlate = fmax(mlate, fabs(v[nel]));
        if (fabs(v[nel]) > 2 * L) break; /* diverged */
    }
    fmb_sim_destroy(&s);
    fmb_model_destroy(&m);
    *late = mlate;
    return mx;
}

static void test_spin_up(void)
{
    double late_n, late_l, tn, tl;
    const double mn = spin_up(FMB_BEAM_NONLINEAR, &late_n, &tn);
    const double ml = spin_up(FMB_BEAM_LINEAR, &late_l, &tl);
    /* one-mode quasi-static estimate: the angular acceleration's load rho A alpha x
     * bends the blade by 11 (rho A alpha L) L^4 / (120 EI) at the tip; in-plane rotation
     * stiffens the first mode to omega1^2 + (S - 1) Omega^2, S = 1.193 (Southwell) */
    const double L = 10, EI = 1.4e4, rhoA = 1.2, ws = 6, Ts = 15;
    const double w1 = 1.8751040687 * 1.8751040687 * sqrt(EI / (rhoA * pow(L, 4)));
    double qs = 0;
    for (int i = 0; i <= 15000; i++) {
        const double t = Ts * i / 15000.0;
        const double al = ws / Ts * (1 - cos(2 * PI * t / Ts));
        const double Om = ws / Ts * (t - Ts / (2 * PI) * sin(2 * PI * t / Ts));
        qs = fmax(qs, 11 * rhoA * al * L * pow(L, 4) / (120 * EI) / (1 + 0.193 * Om * Om / (w1 * w1)));
    }
    printf("spin-up to 6 rad/s in 15 s, 10 m blade: nonlinear max |tip v| %.4f m (%.2f %% L; "
           "one-mode quasi-static estimate %.4f m, %+.1f %%), after 15 s %.4f m, ran to %.2f s; "
           "linear max |tip v| %.4g m, ran to %.2f s\n",
           mn, 10 * mn, qs, 100 * (mn / qs - 1), late_n, tn, ml, tl);
    CHECK(tn > 19.99, "nonlinear run stopped at %.3f s", tn);
    CHECK(fabs(mn / qs - 1) < 0.1, "nonlinear peak %.4f m vs quasi-static %.4f m", mn, qs);
    CHECK(late_n < 0.01 * 10, "nonlinear tip deflection after spin-up %.4f m", late_n);
    CHECK(ml > 0.5 * 10 || tl < 19.99, "linear beam did not diverge (max %.4f m)", ml);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    if (!strcmp(what, "initial_mode"))
        test_initial_mode();
    else if (!strcmp(what, "spin_energy"))
        test_spin_energy();
    else if (!strcmp(what, "spin_up"))
        test_spin_up();
    else {
        printf("usage: test_beam_nl_dynamics initial_mode|spin_energy|spin_up\n");
        return 2;
    }
    printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}

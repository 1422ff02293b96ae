/*
 * Quasi-static start (solver: start: static; docs/theory.md "Consistent start").
 *
 *   gravity:
 *       cantilever 12 mm steel rod, L = 0.6 m, 10 elements, welded to the ground at its
 *       root, gravity 9.81 m/s^2 across it. Static start: tip deflection against
 *       rho A g L^4 / (8 EI) (Hermite elements with consistent loads are nodally exact:
 *       1e-9 relative for the linear beam; the nonlinear beam's differs by the
 *       foreshortening's second-order effect, 1e-4 asserted), and over 0.05 s of motion
 *       the tip stays there (1e-6 of the deflection: the start is an equilibrium). The
 *       rigid start (undeformed) swings to about twice the static deflection (asserted
 *       > 1.5 times): the transient the static start removes.
 *   spin:
 *       the same rod driven about its root at a constant 50 rad/s (revolute + angle
 *       driver), no gravity. Static start: the centrifugal stretch of the tip against
 *       u(L) = rho Omega^2 L^3 / (3 E) (bar theory; the load on the stretched position
 *       adds rho Omega^2 L^2 / E = 3e-5 relative; bar elements are nodally exact: limit
 *       2e-4), steady over 0.01 s of motion (1e-3 of u(L)); the rigid start oscillates
 *       axially between 0 and ~2 u(L) (asserted: range > u(L)).
 *   slider:
 *       the rod stands upright, welded at its root to a 2 kg carriage on a horizontal
 *       ground prismatic joint, pulled by a constant force F = 50 N; no gravity. Hand
 *       derivation: with the elastic motion steady the whole system accelerates at
 *       a = F / (m_c + rho A L), and in the carriage frame the rod carries the uniform
 *       d'Alembert load rho A a against the motion, so its tip trails by
 *       rho A a L^4 / (8 E I) (local v = +that: the rod's y axis points along -x).
 *       Asserted: the carriage's initial acceleration equals a (1e-9, both geometries),
 *       the tip v equals the cantilever formula (linear 1e-9; nonlinear 1e-4), and over
 *       0.05 s the tip stays there (1e-6 of it); the rigid start swings past 1.5 times it.
 *   ramp:
 *       the same with F = 50 + 2000 t N: the quasi-static tip deflection grows linearly,
 *       v(t) = rho A a(t) L^4 / (8 E I), a(t) = F(t) / (m_c + rho A L), at the rate
 *       rho A (2000 / m_tot) L^4 / (8 E I) = 0.053 m/s. The static start gives the elastic
 *       coordinates the rate of the quasi-static shape: asserted against that hand value
 *       (linear 1e-6: the central difference is exact for a shape linear in t; nonlinear
 *       1e-3), and, as a shape linear in t needs no elastic inertia, the run follows v(t)
 *       with a deviation below 1e-6 (nonlinear 2e-3) of rate / omega1 (omega1 = 1.8751^2
 *       sqrt(EI/(rho A))/L^2: the amplitude a start at rest relative to the carriage
 *       would leave, 0.35 mm).
 *   pinned:
 *       the rod on two ground pins (revolutes at both end nodes: four constraint rows on
 *       the three carrier coordinates, i.e. statically indeterminate along the axis),
 *       simply supported reference, gravity across it: mid-span deflection against
 *       5 rho A g L^4 / (384 E I) (linear 1e-9 at the mid node of an even mesh: Hermite
 *       elements with consistent loads are nodally exact; nonlinear: the pins also hold
 *       the axis, so the sag stretches the rod and the membrane force stiffens it by
 *       ~ (w/r)^2 with the radius of gyration r = D/4: limit 2e-3), steady over 0.02 s.
 * Usage: test_static_start gravity|spin|slider|ramp|pinned
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flexmb/flexmb.h"

static int failures = 0;
#include "check.h"

static const double PI = 3.14159265358979323846;
static const double E = 2.1e11, RHO = 7850, L = 0.6, D = 0.012;

/* Rod of nel elements, cantilever reference; root welded (spin == 0) or revolute +
 * angle driver at spin rad/s. Returns the beam body. */
static fmb_model_t *rod(int nel, fmb_beam_geometry geo, double spin, double g, int *body)
{
    double x[11];
    for (int k = 0; k <= nel; k++)
        x[k] = L * k / nel;
    fmb_model_t *m = fmb_model_create();
    fmb_model_set_gravity(m, 0, -g);
    fmb_beam_desc_t d = {.name = "rod",
                         .E = E,
                         .rho = RHO,
                         .area = PI * D * D / 4,
                         .inertia = PI * pow(D, 4) / 64,
                         .nnodes = nel + 1,
                         .x = x,
                         .reference = FMB_BEAM_CANTILEVER,
                         .geometry = geo};
    d.vel[2] = spin;
    const int b = fmb_model_add_beam(m, &d);
    CHECK(b > 0, "beam: %s", fmb_model_last_error(m));
    if (spin == 0) {
        fmb_joint_desc_t w = {.name = "root", .type = "weld", .body = {b, FMB_GROUND}};
        CHECK(fmb_model_add_joint(m, &w) >= 0, "weld: %s", fmb_model_last_error(m));
    } else {
        char expr[64];
        snprintf(expr, sizeof expr, "%.17g*t", spin);
        fmb_joint_desc_t r = {.name = "hub", .type = "revolute", .body = {b, FMB_GROUND}};
        fmb_joint_desc_t dr = {
            .name = "drive", .type = "driver_angle", .body = {b, FMB_GROUND}, .expr = expr};
        CHECK(fmb_model_add_joint(m, &r) >= 0 && fmb_model_add_joint(m, &dr) >= 0, "joints: %s",
              fmb_model_last_error(m));
    }
    *body = b;
    return m;
}

/* Run; tip v (which = 1) or u (which = 0) at t = 0, and its min and max over the run. */
static int run(fmb_model_t *m, int b, fmb_start start, double h, double tend, int which, double *v0,
               double *vmin, double *vmax)
{
    fmb_sim_options_t o;
    fmb_sim_options_default(&o);
    o.h = h, o.t_end = tend, o.alpha = 0.0, o.start = start;
    fmb_sim_t *s = fmb_sim_create(m, &o);
    int rc = fmb_sim_initialize(s);
    CHECK(rc == 0, "initialize: %s", fmb_sim_last_error(s));
    const double *q = fmb_sim_q(s);
    const int off = fmb_model_body_offset(m, b);
    /* tip coordinates: the last node's u, v, phi are the last three of the body */
    const int nd = fmb_model_body_ndof(m, b), col = off + nd - 3 + (which ? 1 : 0);
    *v0 = *vmin = *vmax = q[col];
    const long n = lround(tend / h);
    for (long k = 0; k < n && !rc; k++) {
        if ((rc = fmb_sim_step(s))) {
            CHECK(0, "step: %s", fmb_sim_last_error(s));
            break;
        }
        q = fmb_sim_q(s);
        *vmin = fmin(*vmin, q[col]), *vmax = fmax(*vmax, q[col]);
    }
    fmb_sim_destroy(&s);
    return rc;
}

/* Run; transverse v of beam node `node` at t = 0 and its min and max over the run. */
static int run_node(fmb_model_t *m, int b, int node, fmb_start start, double h, double tend,
                    double *v0, double *vmin, double *vmax)
{
    fmb_sim_options_t o;
    fmb_sim_options_default(&o);
    o.h = h, o.t_end = tend, o.alpha = 0.0, o.start = start;
    fmb_sim_t *s = fmb_sim_create(m, &o);
    int rc = fmb_sim_initialize(s);
    CHECK(rc == 0, "initialize: %s", fmb_sim_last_error(s));
    double xs[64], ys[64], vs[64];
    fmb_sim_beam_state(s, b, xs, ys, vs);
    *v0 = *vmin = *vmax = vs[node];
    const long n = lround(tend / h);
    for (long k = 0; k < n && !rc; k++) {
        if ((rc = fmb_sim_step(s))) {
            CHECK(0, "step: %s", fmb_sim_last_error(s));
            break;
        }
        fmb_sim_beam_state(s, b, xs, ys, vs);
        *vmin = fmin(*vmin, vs[node]), *vmax = fmax(*vmax, vs[node]);
    }
    fmb_sim_destroy(&s);
    return rc;
}

static void test_gravity(void)
{
    const double A = PI * D * D / 4, I = PI * pow(D, 4) / 64, g = 9.81;
    const double expect = -RHO * A * g * pow(L, 4) / (8 * E * I);
    for (int geo = 0; geo < 2; geo++) {
        int b;
        double v0, lo, hi, r0, rlo, rhi;
        fmb_model_t *m = rod(10, (fmb_beam_geometry)geo, 0, g, &b);
        run(m, b, FMB_START_STATIC, 1e-4, 0.05, 1, &v0, &lo, &hi);
        run(m, b, FMB_START_RIGID, 1e-4, 0.05, 1, &r0, &rlo, &rhi);
        printf("gravity, %s beam: static start tip v %.9e m (theory %.9e, %+.2e), drift over "
               "0.05 s %.2e of it; rigid start: v from %.3e to %.3e m\n",
               geo ? "nonlinear" : "linear", v0, expect, v0 / expect - 1,
               fmax(fabs(hi - v0), fabs(lo - v0)) / fabs(expect), rlo, rhi);
        CHECK(fabs(v0 / expect - 1) < (geo ? 1e-4 : 1e-9), "static tip deflection");
        CHECK(fmax(fabs(hi - v0), fabs(lo - v0)) < 1e-6 * fabs(expect), "static start drifts");
        CHECK(r0 == 0 && rlo < 1.5 * expect, "rigid start should swing past the static state");
        fmb_model_destroy(&m);
    }
}

static void test_spin(void)
{
    const double W = 50;
    const double expect = RHO * W * W * pow(L, 3) / (3 * E);
    for (int geo = 0; geo < 2; geo++) {
        int b;
        double u0, lo, hi, r0, rlo, rhi;
        fmb_model_t *m = rod(10, (fmb_beam_geometry)geo, W, 0, &b);
        run(m, b, FMB_START_STATIC, 2e-5, 0.01, 0, &u0, &lo, &hi);
        run(m, b, FMB_START_RIGID, 2e-5, 0.01, 0, &r0, &rlo, &rhi);
        printf("spin 50 rad/s, %s beam: static start tip u %.9e m (bar theory %.9e, %+.2e), "
               "range over 0.01 s %.2e of it; rigid start: u from %.3e to %.3e m\n",
               geo ? "nonlinear" : "linear", u0, expect, u0 / expect - 1, (hi - lo) / expect, rlo,
               rhi);
        CHECK(fabs(u0 / expect - 1) < 2e-4, "static centrifugal stretch");
        CHECK(hi - lo < 1e-3 * expect, "static start not steady");
        CHECK(rhi - rlo > expect, "rigid start should oscillate axially");
        fmb_model_destroy(&m);
    }
}

/* Rod welded upright to a carriage on a horizontal prismatic joint, force F on it. */
static void test_slider(double F1)
{
    const double A = PI * D * D / 4, I = PI * pow(D, 4) / 64, mc = 2.0, F = 50.0;
    const double mt = mc + RHO * A * L, vrate = RHO * A * (F1 / mt) * pow(L, 4) / (8 * E * I);
    const double w1 = 1.875104068711961 * 1.875104068711961 / (L * L) * sqrt(E * I / (RHO * A));
    char fx[64];
    snprintf(fx, sizeof fx, "50 + %.17g*t", F1);
    const double a = F / (mc + RHO * A * L), expect = RHO * A * a * pow(L, 4) / (8 * E * I);
    double x[11];
    for (int k = 0; k <= 10; k++)
        x[k] = L * k / 10;
    for (int geo = 0; geo < 2; geo++) {
        fmb_model_t *m = fmb_model_create();
        fmb_model_set_gravity(m, 0, 0);
        fmb_body_desc_t cd = {.name = "carriage", .mass = mc, .inertia = 0.01};
        const int c = fmb_model_add_body(m, &cd);
        fmb_beam_desc_t d = {.name = "rod",
                             .E = E,
                             .rho = RHO,
                             .area = A,
                             .inertia = I,
                             .nnodes = 11,
                             .x = x,
                             .reference = FMB_BEAM_CANTILEVER,
                             .geometry = (fmb_beam_geometry)geo,
                             .pose = {0, 0, PI / 2}};
        const int b = fmb_model_add_beam(m, &d);
        fmb_joint_desc_t pj = {
            .name = "rail", .type = "prismatic", .body = {c, FMB_GROUND}, .axis = {1, 0}};
        fmb_joint_desc_t wj = {
            .name = "root", .type = "weld", .body = {b, c}, .angle = PI / 2};
        fmb_force_desc_t fd = {
            .name = "pull", .type = "point", .body = {c, FMB_GROUND}, .expr = {fx, "0"}};
        CHECK(c > 0 && b > 0 && fmb_model_add_joint(m, &pj) >= 0 &&
                  fmb_model_add_joint(m, &wj) >= 0 && fmb_model_add_force(m, &fd) >= 0,
              "model: %s", fmb_model_last_error(m));
        double v0 = 0, lo = 0, hi = 0, r0 = 0, rlo = 0, rhi = 0, acc = 0, vd0 = 0, dev = 0;
        for (int st = 0; st < 2; st++) {
            fmb_sim_options_t o;
            fmb_sim_options_default(&o);
            o.h = 1e-4, o.t_end = 0.05, o.alpha = 0.0;
            o.start = st ? FMB_START_RIGID : FMB_START_STATIC;
            fmb_sim_t *s = fmb_sim_create(m, &o);
            int rc = fmb_sim_initialize(s);
            CHECK(rc == 0, "initialize: %s", fmb_sim_last_error(s));
            const int col = fmb_model_body_offset(m, b) + fmb_model_body_ndof(m, b) - 2;
            double *w0 = st ? &r0 : &v0, *wl = st ? &rlo : &lo, *wh = st ? &rhi : &hi;
            if (!st) acc = fmb_sim_qdd(s)[fmb_model_body_offset(m, c)];
            if (!st) vd0 = fmb_sim_qd(s)[col];
            *w0 = *wl = *wh = fmb_sim_q(s)[col];
            for (long k = 0; k < 500 && !rc; k++) {
                if ((rc = fmb_sim_step(s))) CHECK(0, "step: %s", fmb_sim_last_error(s));
                const double v = fmb_sim_q(s)[col] - vrate * fmb_sim_time(s); /* - ramp */
                *wl = fmin(*wl, v), *wh = fmax(*wh, v);
                if (!st) dev = fmax(dev, fabs(v - expect));
            }
            fmb_sim_destroy(&s);
        }
        if (F1 != 0) {
            printf("slider, F = 50 + %g t N, %s beam: tip rate %.9e m/s (hand %.9e, %+.2e), "
                   "largest deviation from the quasi-static v(t) %.3e m (%.2e of rate / omega1 = "
                   "%.3e m, the vibration a start at rest relative to the carriage would give)\n",
                   F1, geo ? "nonlinear" : "linear", vd0, vrate, vd0 / vrate - 1, dev,
                   dev / (vrate / w1), vrate / w1);
            CHECK(fabs(vd0 / vrate - 1) < (geo ? 1e-3 : 1e-6), "elastic rate at the start");
            CHECK(dev < (geo ? 2e-3 : 1e-6) * vrate / w1, "start-up vibration of the ramp");
        }
        printf("slider, %s beam: a %.12g m/s^2 (hand %.12g, %+.2e); static start tip v %.9e m "
               "(hand %.9e, %+.2e), drift over 0.05 s %.2e of it; rigid start: v from %.3e "
               "to %.3e m\n",
               geo ? "nonlinear" : "linear", acc, a, acc / a - 1, v0, expect, v0 / expect - 1,
               fmax(fabs(hi - v0), fabs(lo - v0)) / expect, rlo, rhi);
        CHECK(fabs(acc / a - 1) < 1e-9, "carriage acceleration");
        CHECK(fabs(v0 / expect - 1) < (geo ? 1e-4 : 1e-9), "tip deflection on the slider");
        if (F1 == 0) {
            CHECK(fmax(fabs(hi - v0), fabs(lo - v0)) < 1e-6 * expect, "static start drifts");
            CHECK(fabs(vd0) < 1e-9 * expect * w1, "static start: elastic rate not zero");
        }
        CHECK(r0 == 0 && rhi > 1.5 * expect, "rigid start should swing past the static state");
        fmb_model_destroy(&m);
    }
}

/* Rod on two ground pins under gravity (statically indeterminate along its axis). */
static void test_pinned(void)
{
    const double A = PI * D * D / 4, I = PI * pow(D, 4) / 64, g = 9.81;
    const double expect = -5 * RHO * A * g * pow(L, 4) / (384 * E * I);
    double x[11];
    for (int k = 0; k <= 10; k++)
        x[k] = L * k / 10;
    for (int geo = 0; geo < 2; geo++) {
        fmb_model_t *m = fmb_model_create();
        fmb_model_set_gravity(m, 0, -g);
        fmb_beam_desc_t d = {.name = "rod",
                             .E = E,
                             .rho = RHO,
                             .area = A,
                             .inertia = I,
                             .nnodes = 11,
                             .x = x,
                             .reference = FMB_BEAM_SIMPLY_SUPPORTED,
                             .geometry = (fmb_beam_geometry)geo};
        const int b = fmb_model_add_beam(m, &d);
        fmb_joint_desc_t p0 = {.name = "left",
                               .type = "revolute",
                               .body = {FMB_GROUND, b},
                               .point = {{0, 0}, {0, 0}}};
        fmb_joint_desc_t p1 = {.name = "right",
                               .type = "revolute",
                               .body = {FMB_GROUND, b},
                               .point = {{L, 0}, {L, 0}}};
        CHECK(b > 0 && fmb_model_add_joint(m, &p0) >= 0 && fmb_model_add_joint(m, &p1) >= 0,
              "model: %s", fmb_model_last_error(m));
        double v0, lo, hi, r0, rlo, rhi;
        run_node(m, b, 5, FMB_START_STATIC, 1e-4, 0.02, &v0, &lo, &hi);
        run_node(m, b, 5, FMB_START_RIGID, 1e-4, 0.02, &r0, &rlo, &rhi);
        printf("pinned, %s beam: static start mid-span v %.9e m (theory %.9e, %+.2e), drift "
               "over 0.02 s %.2e of it; rigid start: v from %.3e to %.3e m\n",
               geo ? "nonlinear" : "linear", v0, expect, v0 / expect - 1,
               fmax(fabs(hi - v0), fabs(lo - v0)) / fabs(expect), rlo, rhi);
        CHECK(fabs(v0 / expect - 1) < (geo ? 2e-3 : 1e-9), "static mid-span deflection");
        CHECK(fmax(fabs(hi - v0), fabs(lo - v0)) < 1e-6 * fabs(expect), "static start drifts");
        CHECK(r0 == 0 && rlo < 1.5 * expect, "rigid start should swing past the static state");
        fmb_model_destroy(&m);
    }
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    if (!strcmp(what, "gravity"))
        test_gravity();
    else if (!strcmp(what, "spin"))
        test_spin();
    else if (!strcmp(what, "slider"))
        test_slider(0.0);
    else if (!strcmp(what, "ramp"))
        test_slider(2000.0);
    else if (!strcmp(what, "pinned"))
        test_pinned();
    else {
        printf("usage: test_static_start gravity|spin|slider|ramp|pinned\n");
        return 2;
    }
    printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}

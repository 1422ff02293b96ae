/*
 * Constraint satisfaction and energy conservation over a few hundred steps for small
 * mechanisms built through the C API:
 *   pendulum        bar pinned to ground, released from 60 deg            conservative
 *   four_bar        the double-crank four-bar of test_four_bar, no driver conservative
 *   four_bar_driven the same with the crank driven at 5 rad/s             (violation only)
 *   slider_crank    crank + rod + slider on a prismatic guide (ground)    conservative
 *   weld            bar pinned to ground with a second bar welded at 90deg conservative
 *   spring          two pendulums coupled by a spring (c = 0)             conservative
 *   spring_damper   the same with damping c > 0                           energy balance
 * Asserted at every step: max over joints of fmb_sim_joint_violation <= 1e-10 (the
 * Newton iteration stops at phi_tol = 1e-11, default options).
 * Energy: E = T + V - W (fmb_sim_energy; W = work of non-conservative forces and
 * drivers). For the conservative cases W must stay 0 and E constant; for the damped
 * spring E stays constant while T + V decreases by -W > 0. The tolerance is that of a
 * second-order scheme: max |E - E0| <= (Omega h)^2 * Es, with Es the largest kinetic
 * energy reached and Omega the largest rate of the motion (max |angular velocity|, and
 * the highest natural frequency for pendulums and springs, twice the crank rate for the
 * slider-crank whose slider motion has a second harmonic). The pendulum test
 * (test_pendulum energy) measures 0.19 (alpha = 0) and 0.25 (alpha = -0.05) times this
 * bound. Each case also runs at h/2 and the drift must fall by a factor >= 3
 * (order >= 1.58; 2 expected of a second-order scheme).
 * Usage: test_constraints CASE|all [alpha]   (HHT alpha, default -0.05)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flexmb/flexmb.h"

static int failures = 0;
#include "check.h"

static const double PI = 3.14159265358979323846;
static const double G = 9.81;

static int add_bar(fmb_model_t *m, const char *name, double len, double mass, double x, double y,
                   double th, double thd)
{
    fmb_body_desc_t b = {.name = name,
                         .mass = mass,
                         .inertia = mass * len * len / 12,
                         .com = {len / 2, 0},
                         .pose = {x, y, th},
                         .vel = {0, 0, thd}};
    /* origin velocity 0: the origins with thd != 0 are fixed pivots; all other
     * velocities are made consistent by the projection in fmb_sim_initialize */
    int ib = fmb_model_add_body(m, &b);
    CHECK(ib > 0, "add_body %s: %s", name, fmb_model_last_error(m));
    return ib;
}

static void add_joint(fmb_model_t *m, const fmb_joint_desc_t *j)
{
    int ij = fmb_model_add_joint(m, j);
    CHECK(ij >= 0, "add_joint %s: %s", j->name, fmb_model_last_error(m));
}

/* ---------------------------------------------------------------- cases */

typedef struct mcase {
    const char *name;
    fmb_model_t *(*build)(double *omega_extra);
    int conservative; /* E constant and W == 0 */
    int damped;       /* E constant, W < 0 */
    double h;
    int steps;
} mcase_t;

static fmb_model_t *build_pendulum(double *om)
{
    fmb_model_t *m = fmb_model_create();
    fmb_model_set_gravity(m, 0, -G);
    int b = add_bar(m, "bar", 1.0, 2.0, 0, 0, -PI / 2 + PI / 3, 0);
    fmb_joint_desc_t j = {.name = "pin", .type = "revolute", .body = {b, FMB_GROUND}};
    add_joint(m, &j);
    *om = sqrt(G / 1.0);
    return m;
}

/* Four-bar of test_four_bar: O = (0,0), C = (0.1,0), l2 = 0.3, l3 = 0.35, l4 = 0.25. */
static fmb_model_t *four_bar(int driven, double *om)
{
    const double L2 = 0.3, L3 = 0.35, L4 = 0.25, CX = 0.1, RHO = 7.85;
    fmb_model_t *m = fmb_model_create();
    fmb_model_set_gravity(m, 0, -G);
    double th2 = PI / 2, A[2] = {L2 * cos(th2), L2 * sin(th2)};
    double dv[2] = {CX - A[0], -A[1]}, d = hypot(dv[0], dv[1]);
    double u[2] = {dv[0] / d, dv[1] / d}, n[2] = {-u[1], u[0]};
    double a = (d * d + L3 * L3 - L4 * L4) / (2 * d), hh = sqrt(L3 * L3 - a * a);
    double B[2] = {A[0] + a * u[0] + hh * n[0], A[1] + a * u[1] + hh * n[1]};
    add_bar(m, "crank", L2, RHO * L2, 0, 0, th2, driven ? 0 : 8.0);
    add_bar(m, "coupler", L3, RHO * L3, A[0], A[1], atan2(B[1] - A[1], B[0] - A[0]), 0);
    add_bar(m, "rocker", L4, RHO * L4, CX, 0, atan2(B[1], B[0] - CX), 0);
    fmb_joint_desc_t js[4] = {
        {.name = "O", .type = "revolute", .body = {1, FMB_GROUND}},
        {.name = "A", .type = "revolute", .body = {1, 2}, .point = {{L2, 0}, {0, 0}}},
        {.name = "B", .type = "revolute", .body = {2, 3}, .point = {{L3, 0}, {L4, 0}}},
        {.name = "C",
         .type = "revolute",
         .body = {3, FMB_GROUND},
         .point = {{0, 0}, {CX, 0}}},
    };
    for (int i = 0; i < 4; i++)
        add_joint(m, &js[i]);
    if (driven) {
        char expr[96];
        snprintf(expr, sizeof expr, "%.17g + 5*t", PI / 2);
        fmb_joint_desc_t dr = {
            .name = "drive", .type = "driver_angle", .body = {1, FMB_GROUND}, .expr = expr};
        add_joint(m, &dr);
    }
    *om = sqrt(G / L4);
    return m;
}

static fmb_model_t *build_four_bar(double *om)
{
    return four_bar(0, om);
}
static fmb_model_t *build_four_bar_driven(double *om)
{
    return four_bar(1, om);
}

/* Crank r = 0.1 about O, rod l = 0.3, slider on the x axis (prismatic: slider body 0,
 * ground body 1, axis (1, 0)). */
static fmb_model_t *build_slider_crank(double *om)
{
    const double R = 0.1, L = 0.3;
    fmb_model_t *m = fmb_model_create();
    fmb_model_set_gravity(m, 0, -G);
    double th = PI / 3, A[2] = {R * cos(th), R * sin(th)};
    double bx = A[0] + sqrt(L * L - A[1] * A[1]);
    int crank = add_bar(m, "crank", R, 1.0, 0, 0, th, 20.0);
    int rod = add_bar(m, "rod", L, 2.0, A[0], A[1], atan2(-A[1], bx - A[0]), 0);
    fmb_body_desc_t sd = {.name = "slider", .mass = 1.5, .inertia = 0.01, .pose = {bx, 0, 0}};
    int slider = fmb_model_add_body(m, &sd);
    CHECK(slider > 0, "add slider: %s", fmb_model_last_error(m));
    fmb_joint_desc_t js[4] = {
        {.name = "O", .type = "revolute", .body = {crank, FMB_GROUND}},
        {.name = "A", .type = "revolute", .body = {crank, rod}, .point = {{R, 0}, {0, 0}}},
        {.name = "B", .type = "revolute", .body = {rod, slider}, .point = {{L, 0}, {0, 0}}},
        {.name = "guide",
         .type = "prismatic",
         .body = {slider, FMB_GROUND},
         .axis = {1, 0}},
    };
    for (int i = 0; i < 4; i++)
        add_joint(m, &js[i]);
    /* the slider motion x = r cos th + sqrt(l^2 - r^2 sin^2 th) carries the second
     * harmonic 2 th (r/l = 1/3), so the highest rate is twice the crank rate */
    *om = 2 * 20.0;
    return m;
}

/* Bar 1 pinned to ground at O; bar 2 welded to the tip of bar 1 at +90 deg. */
static fmb_model_t *build_weld(double *om)
{
    const double L1 = 0.8, L2 = 0.5;
    fmb_model_t *m = fmb_model_create();
    fmb_model_set_gravity(m, 0, -G);
    double th1 = -PI / 2 + 0.7, th2 = th1 + PI / 2;
    int b1 = add_bar(m, "arm", L1, 1.2, 0, 0, th1, 0);
    int b2 = add_bar(m, "hand", L2, 0.8, L1 * cos(th1), L1 * sin(th1), th2, 0);
    fmb_joint_desc_t pin = {.name = "pin", .type = "revolute", .body = {b1, FMB_GROUND}};
    fmb_joint_desc_t w = {.name = "weld",
                          .type = "weld",
                          .body = {b2, b1},
                          .point = {{0, 0}, {L1, 0}},
                          .angle = PI / 2};
    add_joint(m, &pin);
    add_joint(m, &w);
    *om = sqrt(G / L2);
    return m;
}

/* Two bars (L = 1) pinned at (0,0) and (0.5,0), spring between their tips. */
static fmb_model_t *spring_pair(double c, double *om)
{
    const double L = 1.0, K = 40.0, M = 1.5;
    fmb_model_t *m = fmb_model_create();
    fmb_model_set_gravity(m, 0, -G);
    int b1 = add_bar(m, "left", L, M, 0, 0, -PI / 2 - 0.4, 0);
    int b2 = add_bar(m, "right", L, M, 0.5, 0, -PI / 2 + 0.1, 0);
    fmb_joint_desc_t p1 = {.name = "p1", .type = "revolute", .body = {b1, FMB_GROUND}};
    fmb_joint_desc_t p2 = {.name = "p2",
                           .type = "revolute",
                           .body = {b2, FMB_GROUND},
                           .point = {{0, 0}, {0.5, 0}}};
    add_joint(m, &p1);
    add_joint(m, &p2);
    fmb_force_desc_t f = {.name = "spring",
                          .type = "spring",
                          .body = {b1, b2},
                          .point = {{L, 0}, {L, 0}},
                          .stiffness = K,
                          .damping = c,
                          .rest_length = 0.5};
    int fi = fmb_model_add_force(m, &f);
    CHECK(fi >= 0, "add spring: %s", fmb_model_last_error(m));
    /* highest mode: the antisymmetric one, I_O w^2 = m g L/2 + 2 k L^2 with
     * I_O = M L^2 / 3 (springs on both tips in series with the relative motion) */
    *om = sqrt(3 * G / (2 * L) + 6 * K / M);
    return m;
}

static fmb_model_t *build_spring(double *om)
{
    return spring_pair(0.0, om);
}
static fmb_model_t *build_spring_damper(double *om)
{
    return spring_pair(2.0, om);
}

static const mcase_t cases[] = {
    {"pendulum", build_pendulum, 1, 0, 5e-3, 400},
    {"four_bar", build_four_bar, 1, 0, 1e-3, 400},
    {"four_bar_driven", build_four_bar_driven, 0, 0, 1e-3, 400},
    {"slider_crank", build_slider_crank, 1, 0, 1e-3, 400},
    {"weld", build_weld, 1, 0, 5e-3, 400},
    {"spring", build_spring, 1, 0, 5e-3, 400},
    {"spring_damper", build_spring_damper, 0, 1, 5e-3, 400},
};

/* ---------------------------------------------------------------- run */

typedef struct result {
    double maxviol, drift, Es, omega, W, TV_drop;
} result_t;

static double g_alpha = -0.05;

static int run_case(const mcase_t *c, double h, int steps, result_t *r)
{
    memset(r, 0, sizeof *r);
    double om_extra = 0;
    fmb_model_t *m = c->build(&om_extra);
    fmb_sim_options_t o;
    fmb_sim_options_default(&o);
    o.h = h;
    o.alpha = g_alpha;
    fmb_sim_t *s = fmb_sim_create(m, &o);
    int rc = s ? fmb_sim_initialize(s) : -1;
    CHECK(rc == 0, "%s: initialize: %s", c->name, s ? fmb_sim_last_error(s) : "no sim");
    if (rc) {
        fmb_sim_destroy(&s), fmb_model_destroy(&m);
        return -1;
    }
    const int nj = fmb_model_num_joints(m), nb = fmb_model_num_bodies(m);
    double e[FMB_ENERGY_COLUMNS];
    fmb_sim_energy(s, e);
    const double E0 = e[3], TV0 = e[0] + e[1];
    double omega = om_extra, Tmax = e[0];
    for (int k = 0; k <= steps; k++) {
        if (k > 0 && (rc = fmb_sim_step(s))) {
            CHECK(0, "%s: step %d: %s", c->name, k, fmb_sim_last_error(s));
            break;
        }
        double v = 0;
        for (int j = 0; j < nj; j++)
            v = fmax(v, fmb_sim_joint_violation(s, j));
        if (!(v <= 1e-10))
            CHECK(0, "%s: constraint violation %.3e > 1e-10 at step %d", c->name, v, k);
        r->maxviol = fmax(r->maxviol, v);
        fmb_sim_energy(s, e);
        r->drift = fmax(r->drift, fabs(e[3] - E0));
        Tmax = fmax(Tmax, e[0]);
        const double *qd = fmb_sim_qd(s);
        for (int b = 1; b < nb; b++)
            omega = fmax(omega, fabs(qd[fmb_model_body_offset(m, b) + 2]));
    }
    r->Es = Tmax;
    r->omega = omega;
    r->W = e[2];
    r->TV_drop = TV0 - (e[0] + e[1]);
    fmb_sim_destroy(&s);
    fmb_model_destroy(&m);
    return rc;
}

static void test_case(const mcase_t *c)
{
    result_t r1, r2;
    if (run_case(c, c->h, c->steps, &r1)) return;
    printf("%-16s h = %.0e, %d steps: max violation %.2e, max |E - E0| = %.3e J, "
           "max T = %.4g J, Omega = %.3g rad/s, W = %.4g J\n",
           c->name, c->h, c->steps, r1.maxviol, r1.drift, r1.Es, r1.omega, r1.W);
    CHECK(r1.maxviol <= 1e-10, "%s: violation %.3e", c->name, r1.maxviol);
    if (!c->conservative && !c->damped) return;
    const double bound = (r1.omega * c->h) * (r1.omega * c->h) * r1.Es;
    printf("%-16s relative drift %.3e, bound (Omega h)^2 = %.3e\n", c->name, r1.drift / r1.Es,
           bound / r1.Es);
    CHECK(r1.drift <= bound, "%s: energy drift %.3e > bound %.3e", c->name, r1.drift, bound);
    if (c->conservative)
        CHECK(r1.W == 0.0, "%s: work of a conservative system %.3e", c->name, r1.W);
    if (c->damped) {
        printf("%-16s dissipated -W = %.4f J, drop of T + V = %.4f J\n", c->name, -r1.W,
               r1.TV_drop);
        CHECK(r1.W < 0 && r1.TV_drop > 0 && fabs(r1.TV_drop + r1.W) <= bound,
              "%s: energy balance W %.4e, T+V drop %.4e", c->name, r1.W, r1.TV_drop);
        CHECK(-r1.W > 100 * bound, "%s: dissipation %.3e not resolved above the tolerance", c->name,
              -r1.W);
    }
    if (run_case(c, c->h / 2, 2 * c->steps, &r2)) return;
    double ratio = r1.drift / r2.drift;
    printf("%-16s h/2: max |E - E0| = %.3e J, ratio %.2f (observed order %.2f)\n", c->name,
           r2.drift, ratio, log2(ratio));
    CHECK(r2.maxviol <= 1e-10, "%s: violation %.3e at h/2", c->name, r2.maxviol);
    CHECK(ratio >= 3.0, "%s: drift ratio %.2f < 3 when halving h", c->name, ratio);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "all";
    if (argc > 2) g_alpha = atof(argv[2]);
    printf("HHT alpha = %g\n", g_alpha);
    int found = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(what, "all") == 0 || strcmp(what, cases[i].name) == 0) {
            found = 1;
            test_case(&cases[i]);
        }
    CHECK(found, "unknown case '%s'", what);
    if (failures)
        printf("%d check(s) failed\n", failures);
    else
        printf("all checks passed\n");
    return failures ? 1 : 0;
}

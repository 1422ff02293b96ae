/*
 * Friction in the consistent start (docs/theory.md, "Consistent start", friction): the
 * start accelerations of a frictional slider include the friction force of the contact's
 * state, so that the first steps integrate the true motion. Each sub-test is a block on an
 * inclined rigid guide against the hand result (docs/validation.md, "Friction at the
 * start"):
 *
 * Block of mass m, 2a x 2b, in a prismatic guide of the ground at angle phi to the x axis
 * (the block's axis along it), gravity (0, -g). Along the guide (e = (cos phi, sin phi)),
 * the guide's normal force is N = m g cos(phi) on the lower face (F1+ + F2+), the friction
 * force on the block is f e:
 *   sliding (|v| >= v_stick):   f = -mu N sign(v),  s'' = -g sin(phi) - mu g cos(phi) sign(v)
 *   at rest, tan(phi) <= mu0:   f = m g sin(phi),   s'' = 0 (stick)
 *   at rest, tan(phi) > mu0:    f = mu N,           s'' = -g (sin(phi) - mu cos(phi))
 *     (mu0 cannot hold it: it breaks away at t = 0 and slides at the kinetic level,
 *     contact/friction_coulomb.c "Levels"; constant acceleration from the start)
 *   LuGre sliding (bristles in their steady state): f = -g(v) N sign(v), g the Stribeck
 *     curve mu + (mu0 - mu) exp(-(v/vs)^2).
 * Corner split (moment about the block centre, gravity through it, friction at the lower
 * face -b n): a (F2+ - F1+) = -b f, i.e. F1+ = (N + b f / a) / 2, F2+ = (N - b f / a) / 2.
 * While sliding the acceleration is constant, and every member of the Newmark family
 * integrates constant acceleration exactly when a_0 is right:
 *   v_k = v0 + s'' k h,  s_k = v0 k h + s'' (k h)^2 / 2,
 * the checks after the first step and after 100 steps (a start that leaves friction out of
 * a_0 is off by (1 - gamma - gamma alpha) h mu g cos(phi) in the velocity, 2.5e-3 m/s).
 *
 *   coulomb_up      phi = 0.3, v0 = +2 m/s (up the incline)
 *   coulomb_down    phi = 0.3, v0 = -1.5 m/s
 *   coulomb_stick   phi = 0.6, at rest (mu = 0.56 < tan phi = 0.684 < mu0 = 0.75): only
 *                   the static level holds it (the kinetic one alone would slide it at
 *                   s'' = -g (sin phi - mu cos phi) = -1.005 m/s^2, f = mu N = 9.07 N
 *                   instead of m g sin phi = 11.08 N)
 *   coulomb_break   phi = 0.8, at rest (tan phi = 1.03 > mu0): slides off with mu
 *   lugre_up        phi = 0.3, v0 = +2 m/s, LuGre (start acceleration and forces)
 *   coulomb_rotating  a block at rest on a driven rotating guide (test_coulomb_rotating)
 *   default_vstick  the Coulomb slider's default stick velocity (test_default_vstick)
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "flexmb/flexmb.h"

static int failures = 0;
#include "check.h"

static const double G = 9.81, M = 2.0, A = 0.3, B = 0.1;
static const double MU = 0.56, MU0 = 0.75, VSTICK = 1e-4;
static const double SIGMA0 = 1.3e6, SIGMA1 = 350, VS = 0.0009;
static const double H = 1e-3;

typedef struct incline {
    fmb_model_t *model;
    fmb_sim_t *sim;
    int body, joint;
    double phi;
} incline_t;

static int build_vs(incline_t *s, const char *fm, double phi, double v0, double v_stick)
{
    memset(s, 0, sizeof *s);
    s->phi = phi;
    s->model = fmb_model_create();
    fmb_model_set_gravity(s->model, 0, -G);
    fmb_body_desc_t bd = {0};
    bd.name = "block";
    bd.mass = M;
    bd.inertia = M * (4 * A * A + 4 * B * B) / 12;
    bd.pose[2] = phi;
    bd.vel[0] = v0 * cos(phi), bd.vel[1] = v0 * sin(phi);
    bd.vel_given = 1;
    s->body = fmb_model_add_body(s->model, &bd);
    fmb_joint_desc_t jd = {0};
    jd.name = "incline";
    jd.type = "prismatic";
    jd.body[0] = s->body, jd.body[1] = FMB_GROUND;
    jd.axis[0] = cos(phi), jd.axis[1] = sin(phi);
    jd.angle = phi;
    jd.friction.model = fm;
    jd.friction.a = A, jd.friction.b = B;
    jd.friction.mu = MU, jd.friction.mu0 = MU0;
    jd.friction.v_stick = v_stick;
    jd.friction.sigma0 = SIGMA0, jd.friction.sigma1 = SIGMA1, jd.friction.vs = VS;
    jd.friction.gamma = 2.0;
    s->joint = fmb_model_add_joint(s->model, &jd);
    if (s->body < 0 || s->joint < 0) {
        printf("model: %s\n", fmb_model_last_error(s->model));
        return -1;
    }
    fmb_sim_options_t o;
    fmb_sim_options_default(&o);
    o.h = H, o.t_end = 1.0;
    s->sim = fmb_sim_create(s->model, &o);
    if (!s->sim || fmb_sim_initialize(s->sim)) {
        printf("initialize: %s\n", s->sim ? fmb_sim_last_error(s->sim) : "no sim");
        return -1;
    }
    return 0;
}

static int build(incline_t *s, const char *fm, double phi, double v0)
{
    return build_vs(s, fm, phi, v0, VSTICK);
}

static void finish(incline_t *s)
{
    fmb_sim_destroy(&s->sim);
    fmb_model_destroy(&s->model);
}

/* Position along the guide (from the start), velocity and acceleration along it: the body
 * frame's x axis is the guide (angle phi), so rbar_x = e . R and its rates (no rotation). */
static void along(const incline_t *s, double *pos, double *vel, double *acc)
{
    if (pos) *pos = fmb_sim_q(s->sim)[0];
    if (vel) *vel = fmb_sim_qd(s->sim)[0];
    if (acc) *acc = fmb_sim_qdd(s->sim)[0];
}

/* Start forces: N on the lower face, none on the upper, friction f (on the block along
 * +e) from the corner outputs (positive opposes positive sliding), split by the moment. */
static void check_forces(const incline_t *s, double f, double tol, const char *label)
{
    double F[4], fr[4];
    int mode;
    fmb_sim_contact_state(s->sim, s->joint, F, fr, &mode, NULL, NULL);
    const double N = M * G * cos(s->phi), ff = -(fr[0] + fr[1] + fr[2] + fr[3]);
    CHECK(fabs(F[0] + F[1] - N) <= tol * N, "%s: lower-face normal force %.15g vs m g cos = %.15g",
          label, F[0] + F[1], N);
    CHECK(F[2] == 0 && F[3] == 0, "%s: upper face carries %g %g", label, F[2], F[3]);
    CHECK(fabs(ff - f) <= tol * N, "%s: friction force at the start %.15g vs hand %.15g", label, ff,
          f);
    const double F1 = 0.5 * (N + B * f / A), F2 = 0.5 * (N - B * f / A);
    CHECK(fabs(F[0] - F1) <= tol * N && fabs(F[1] - F2) <= tol * N,
          "%s: corner forces %.15g %.15g vs moment balance %.15g %.15g", label, F[0], F[1], F1, F2);
}

/* Sliding with constant acceleration acc from v0: start acceleration, first step and 100
 * steps against the closed form. */
static void check_sliding(incline_t *s, double v0, double acc, const char *label)
{
    double a0, v, x;
    along(s, NULL, NULL, &a0);
    CHECK(fabs(a0 - acc) <= 1e-12 * G, "%s: start acceleration %.15g vs hand %.15g (diff %.3g)",
          label, a0, acc, a0 - acc);
    double x0;
    along(s, &x0, NULL, NULL);
    for (int k = 1; k <= 100; k++) {
        if (fmb_sim_step(s->sim)) {
            printf("%s: step %d: %s\n", label, k, fmb_sim_last_error(s->sim));
            failures++;
            return;
        }
        if (k != 1 && k != 100) continue;
        const double t = k * H, ve = v0 + acc * t, xe = v0 * t + 0.5 * acc * t * t;
        along(s, &x, &v, NULL);
        /* Newton's tolerance on q (atol 1e-12 m, rtol 1e-10) enters v through gamma/(beta h) */
        CHECK(fabs(v - ve) <= 1e-8, "%s: velocity after %d steps %.15g vs hand %.15g (diff %.3g)",
              label, k, v, ve, v - ve);
        CHECK(fabs(x - x0 - xe) <= 1e-10,
              "%s: position after %d steps %.15g vs hand %.15g (diff %.3g)", label, k, x - x0, xe,
              x - x0 - xe);
    }
}

static int test_coulomb_up(void)
{
    incline_t s;
    const double phi = 0.3, v0 = 2.0;
    if (build(&s, "coulomb", phi, v0)) return 1;
    check_forces(&s, -MU * M * G * cos(phi), 1e-12, "coulomb_up");
    check_sliding(&s, v0, -G * (sin(phi) + MU * cos(phi)), "coulomb_up");
    finish(&s);
    return failures;
}

static int test_coulomb_down(void)
{
    incline_t s;
    const double phi = 0.3, v0 = -1.5;
    if (build(&s, "coulomb", phi, v0)) return 1;
    check_forces(&s, MU * M * G * cos(phi), 1e-12, "coulomb_down");
    check_sliding(&s, v0, -G * (sin(phi) - MU * cos(phi)), "coulomb_down");
    finish(&s);
    return failures;
}

static int test_coulomb_stick(void)
{
    incline_t s;
    const double phi = 0.6; /* between the levels: held by mu0 only */
    CHECK(MU < tan(phi) && tan(phi) < MU0, "tan phi = %g is not between mu %g and mu0 %g",
          tan(phi), MU, MU0);
    if (build(&s, "coulomb", phi, 0.0)) return 1;
    check_forces(&s, M * G * sin(phi), 1e-12, "coulomb_stick");
    check_sliding(&s, 0.0, 0.0, "coulomb_stick");
    finish(&s);
    return failures;
}

static int test_coulomb_break(void)
{
    incline_t s;
    const double phi = 0.8;
    if (build(&s, "coulomb", phi, 0.0)) return 1;
    /* mu0 N cannot hold it: it slides from t = 0, at the kinetic level */
    check_forces(&s, MU * M * G * cos(phi), 1e-12, "coulomb_break");
    check_sliding(&s, 0.0, -G * (sin(phi) - MU * cos(phi)), "coulomb_break");
    finish(&s);
    return failures;
}

static int test_lugre_up(void)
{
    incline_t s;
    const double phi = 0.3, v0 = 2.0;
    if (build(&s, "lugre", phi, v0)) return 1;
    const double g = MU + (MU0 - MU) * exp(-pow(v0 / VS, 2.0)); /* = MU at v0 = 2222 vs */
    check_forces(&s, -g * M * G * cos(phi), 1e-12, "lugre_up");
    double a0;
    along(&s, NULL, NULL, &a0);
    const double acc = -G * (sin(phi) + g * cos(phi));
    CHECK(fabs(a0 - acc) <= 1e-12 * G, "lugre_up: start acceleration %.15g vs hand %.15g", a0, acc);
    finish(&s);
    return failures;
}

/* The stick velocity's default (v_stick = 0: FMB_V_STICK_COULOMB = 1e-6 m/s) and meaning: a
 * slider slower than v_stick at the start is at rest there (held by the static level if it
 * can), a faster one slides. The block starts at v0 = -5e-5 m/s down an incline between the
 * kinetic and the static limits, tan(phi) = 0.7 (mu 0.56 < 0.7 < mu0 0.75):
 *   - default v_stick 1e-6 < |v0|: sliding, f = mu N up the incline, s'' = -g (sin phi -
 *     mu cos phi) = -1.125 m/s^2 (it speeds up: friction below the slope's pull), constant;
 *   - v_stick = 1e-4 > |v0|: at rest, held
 *     (m g sin phi <= mu0 N), s'' = 0 at the start; the first step stops it: the static
 *     level holds v_1 = 0 with the extra m |v0| / (gamma h) = 0.18 N (gamma = 0.55, h = 1 ms),
 *     within mu0 N - m g sin phi = 0.80 N. */
static int test_default_vstick(void)
{
    const double phi = atan(0.7), v0 = -5e-5;
    const double ak = -G * (sin(phi) - MU * cos(phi));
    for (int pass = 0; pass < 2; pass++) {
        incline_t s;
        const double vst = pass ? 1e-4 : 0.0; /* 0: the model's default */
        if (build_vs(&s, "coulomb", phi, v0, vst)) return 1;
        if (!pass) {
            check_forces(&s, MU * M * G * cos(phi), 1e-12, "default_vstick (default)");
            check_sliding(&s, v0, ak, "default_vstick (default)");
        } else {
            check_forces(&s, M * G * sin(phi), 1e-12, "default_vstick (1e-4)");
            double a0, v1;
            along(&s, NULL, NULL, &a0);
            CHECK(fabs(a0) <= 1e-12 * G, "default_vstick (1e-4): start acceleration %.3g vs 0", a0);
            if (fmb_sim_step(s.sim)) {
                printf("default_vstick: %s\n", fmb_sim_last_error(s.sim));
                return 1;
            }
            along(&s, NULL, &v1, NULL);
            /* held: zero to Newton's tolerance (1e-12 m through gamma / (beta h)) */
            CHECK(fabs(v1) <= 1e-8, "default_vstick (1e-4): v_1 %.3g vs 0 (held)", v1);
        }
        finish(&s);
    }
    return failures;
}

/* Inertial acceleration of a rigid body's frame origin from its carrier coordinates
 * (rbar = A^T R, docs/theory.md): R'' = A (rbar'' + th'' I~ rbar + 2 th' I~ rbar' - th'^2 rbar). */
static void origin_acceleration(const double *q, const double *qd, const double *qdd, double a[2])
{
    const double c = cos(q[2]), sn = sin(q[2]), w = qd[2], al = qdd[2];
    const double bx = qdd[0] - al * q[1] - 2 * w * qd[1] - w * w * q[0];
    const double by = qdd[1] + al * q[0] + 2 * w * qd[0] - w * w * q[1];
    a[0] = c * bx - sn * by, a[1] = sn * bx + c * by;
}

/* A guide bar pinned at the origin and driven at theta = w0 t + al t^2 / 2 (no gravity),
 * the block at rest on it at r = 1 m. Sticking, the block moves on the circle: its
 * acceleration is R'' = (-w^2 r, al r) at theta = 0, the friction along the guide
 * -m w0^2 r, the net normal force m al r; it sticks while w^2 <= mu0 al (1 <= 1.5 at the
 * start, 1.44 at 0.1 s). The start without friction: acceleration (0, 2), radius +2.2e-7 m
 * after 100 steps. (dv/dq) qd vanishes here: at v = 0 block and guide move as one rigid
 * body, and the sliding velocity is invariant under rigid motions (docs/theory.md). */
static int test_coulomb_rotating(void)
{
    const double w0 = 1.0, al = 2.0, r = 1.0;
    fmb_model_t *md = fmb_model_create();
    fmb_model_set_gravity(md, 0, 0);
    fmb_body_desc_t gb = {.name = "guide", .mass = 1.0, .inertia = 1.0};
    gb.vel[2] = w0, gb.vel_given = 1;
    const int guide = fmb_model_add_body(md, &gb);
    fmb_body_desc_t bb = {.name = "block", .mass = M, .inertia = M * (4 * A * A + 4 * B * B) / 12};
    bb.pose[0] = r, bb.vel[1] = w0 * r, bb.vel[2] = w0, bb.vel_given = 1;
    const int block = fmb_model_add_body(md, &bb);
    fmb_joint_desc_t pin = {.name = "pin", .type = "revolute", .body = {guide, FMB_GROUND}};
    fmb_joint_desc_t drv = {.name = "drive",
                            .type = "driver_angle",
                            .body = {guide, FMB_GROUND},
                            .expr = "t + t^2"};
    fmb_joint_desc_t pj = {.name = "slide", .type = "prismatic", .body = {block, guide}};
    pj.axis[0] = 1;
    pj.friction.model = "coulomb";
    pj.friction.a = A, pj.friction.b = B, pj.friction.mu = MU, pj.friction.mu0 = MU0;
    pj.friction.v_stick = VSTICK;
    const int jp = fmb_model_add_joint(md, &pin), jd = fmb_model_add_joint(md, &drv);
    const int js = fmb_model_add_joint(md, &pj);
    fmb_sim_options_t o;
    fmb_sim_options_default(&o);
    o.h = H;
    fmb_sim_t *sim =
        guide < 0 || block < 0 || jp < 0 || jd < 0 || js < 0 ? NULL : fmb_sim_create(md, &o);
    if (!sim || fmb_sim_initialize(sim)) {
        printf("coulomb_rotating: %s\n", sim ? fmb_sim_last_error(sim) : fmb_model_last_error(md));
        fmb_sim_destroy(&sim);
        fmb_model_destroy(&md);
        return 1;
    }
    const int ob = 3; /* the block's carrier coordinates follow the guide's three */
    double acc[2];
    origin_acceleration(fmb_sim_q(sim) + ob, fmb_sim_qd(sim) + ob, fmb_sim_qdd(sim) + ob, acc);
    CHECK(fabs(acc[0] + w0 * w0 * r) <= 1e-10 && fabs(acc[1] - al * r) <= 1e-10,
          "coulomb_rotating: start acceleration (%.15g, %.15g) vs circle (%.15g, %.15g)", acc[0],
          acc[1], -w0 * w0 * r, al * r);
    double F[4], fr[4];
    fmb_sim_contact_state(sim, js, F, fr, NULL, NULL, NULL);
    const double ff = -(fr[0] + fr[1] + fr[2] + fr[3]), Nn = F[0] + F[1] - F[2] - F[3];
    CHECK(fabs(ff + M * w0 * w0 * r) <= 1e-10 && fabs(Nn - M * al * r) <= 1e-10,
          "coulomb_rotating: friction %.15g, net normal %.15g vs hand %.15g, %.15g", ff, Nn,
          -M * w0 * w0 * r, M * al * r);
    for (int k = 1; k <= 100; k++) {
        if (fmb_sim_step(sim)) {
            printf("coulomb_rotating: step %d: %s\n", k, fmb_sim_last_error(sim));
            failures++;
            break;
        }
        if (k != 1 && k != 100) continue;
        double R[2];
        fmb_sim_body_point(sim, block, (double[2]){0, 0}, R);
        CHECK(fabs(hypot(R[0], R[1]) - r) <= 1e-10,
              "coulomb_rotating: radius after %d steps %.15g vs %.15g (stick; diff %.3g)", k,
              hypot(R[0], R[1]), r, hypot(R[0], R[1]) - r);
    }
    fmb_sim_destroy(&sim);
    fmb_model_destroy(&md);
    return failures;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*fn)(void);
    } tests[] = {{"coulomb_up", test_coulomb_up},
                 {"coulomb_down", test_coulomb_down},
                 {"coulomb_stick", test_coulomb_stick},
                 {"coulomb_break", test_coulomb_break},
                 {"lugre_up", test_lugre_up},
                 {"coulomb_rotating", test_coulomb_rotating},
                 {"default_vstick", test_default_vstick}};
    if (argc < 2) {
        printf("usage: %s TEST\n", argv[0]);
        return 2;
    }
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
        if (!strcmp(argv[1], tests[i].name)) {
            int f = tests[i].fn();
            printf("%s: %s\n", argv[1], f ? "FAILED" : "ok");
            return f ? 1 : 0;
        }
    printf("unknown test %s\n", argv[1]);
    return 2;
}

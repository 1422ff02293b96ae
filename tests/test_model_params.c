/*
 * Library descriptions against the class parameter tables (src/model/params_check.c;
 * docs/extending.md, "Library users"): fmb_model_add_joint / fmb_model_add_force refuse a
 * value that the case loader would refuse at its key, with the key, the bound and the value
 * in the message. Each refused description below was accepted before the tables were
 * applied (the classes' own checks let non-finite values through: "x < 0" is false for
 * NaN, "x >= 0" true for +inf); the accepted ones show that a field left 0 still stands
 * for the key's default.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "flexmb/flexmb.h"

static int failures = 0;
#include "check.h"

static fmb_model_t *two_bodies(int *b1, int *b2)
{
    fmb_model_t *m = fmb_model_create();
    fmb_body_desc_t a = {.name = "a", .mass = 1, .inertia = 1};
    fmb_body_desc_t b = {.name = "b", .mass = 1, .inertia = 1, .pose = {1, 0, 0}};
    *b1 = fmb_model_add_body(m, &a);
    *b2 = fmb_model_add_body(m, &b);
    return m;
}

/* rc < 0 and the message holds want (NULL: rc >= 0 expected) */
static void expect(fmb_model_t *m, int rc, const char *want, const char *what)
{
    const char *err = fmb_model_last_error(m);
    if (!want) {
        CHECK(rc >= 0, "%s: refused: %s", what, err ? err : "");
        return;
    }
    CHECK(rc < 0, "%s: accepted (want an error with \"%s\")", what, want);
    if (rc < 0)
        CHECK(err && strstr(err, want), "%s: message \"%s\" lacks \"%s\"", what, err ? err : "",
              want);
    printf("%s: %s\n", what, rc < 0 && err ? err : "(accepted)");
}

static int test_forces(void)
{
    int a, b;
    fmb_model_t *m = two_bodies(&a, &b);
    fmb_force_desc_t s = {.name = "s", .type = "spring", .body = {a, b}, .stiffness = 10};
    s.stiffness = NAN;
    expect(m, fmb_model_add_force(m, &s),
           "force 's': 'stiffness' must be a finite number, got nan (spring constant, N/m)",
           "spring stiffness NaN");
    s.stiffness = 10, s.damping = INFINITY, s.name = "s2";
    expect(m, fmb_model_add_force(m, &s), "force 's2': 'damping' must be a finite number, got inf",
           "spring damping inf");
    s.damping = 0,
    s.name = "s3"; /* rest_length 0: derived from the poses in a case, here a zero length */
    expect(m, fmb_model_add_force(m, &s), NULL, "spring with zeros for the defaults");

    fmb_force_desc_t t = {.name = "t", .type = "torsion", .body = {a, b}};
    t.stiffness = 5, t.damping = INFINITY;
    expect(m, fmb_model_add_force(m, &t), "force 't': 'damping' must be a finite number",
           "torsion damping inf");

    fmb_force_desc_t g = {.name = "g",
                          .type = "gap",
                          .body = {a, FMB_GROUND},
                          .coordinate = FMB_REL_DIRECTION,
                          .axis = {1, 0},
                          .stiffness = 1e5};
    const double limits[2] = {-1, 1}, inf = INFINITY, zero = 0;
    CHECK(fmb_force_desc_set(&g, "limits", limits, 2) == 0, "gap limits by key");
    CHECK(fmb_force_desc_set(&g, "event_tol", &inf, 1) == 0, "gap event_tol by key");
    expect(m, fmb_model_add_force(m, &g), "force 'g': 'event_tol' must be a finite number",
           "gap event_tol inf");
    CHECK(fmb_force_desc_set(&g, "event_tol", &zero, 1) == 0, "gap event_tol by key");
    g.name = "g2";
    expect(m, fmb_model_add_force(m, &g), NULL, "gap with event_tol 0 (default: none)");
    fmb_model_destroy(&m);
    return failures;
}

static int test_friction(void)
{
    int a, b;
    fmb_model_t *m = two_bodies(&a, &b);
    fmb_joint_desc_t j = {.name = "slide", .type = "prismatic", .body = {a, FMB_GROUND}};
    j.friction = (fmb_friction_desc_t){.model = "lugre",
                                       .a = 0.1,
                                       .mu = 0.3,
                                       .mu0 = 0.4,
                                       .sigma0 = 1e5,
                                       .sigma1 = INFINITY,
                                       .vs = 1e-3,
                                       .gamma = 2};
    expect(m, fmb_model_add_joint(m, &j),
           "joint 'slide': friction 'sigma1' must be a finite number, got inf (bristle damping, "
           "s/m)",
           "LuGre sigma1 inf");
    j.friction.sigma1 = 300, j.friction.sigma2 = INFINITY, j.name = "slide2";
    expect(m, fmb_model_add_joint(m, &j),
           "joint 'slide2': friction 'sigma2' must be a finite number", "LuGre sigma2 inf");
    j.friction.sigma2 = 0, j.name = "slide3"; /* b, sigma2, vd, v_stick 0: defaults */
    expect(m, fmb_model_add_joint(m, &j), NULL, "LuGre slider with zeros for the defaults");
    fmb_model_destroy(&m);
    return failures;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    int f = !strcmp(what, "forces")     ? test_forces()
            : !strcmp(what, "friction") ? test_friction()
                                        : -1;
    if (f < 0) {
        printf("usage: %s forces|friction\n", argv[0]);
        return 2;
    }
    printf("%s: %s\n", what, f ? "FAILED" : "ok");
    return f ? 1 : 0;
}

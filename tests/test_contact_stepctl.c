/*
 * The LuGre stick-slip step cap's effective mass (docs/theory.md "Stick-slip";
 * src/solve/contact_stepctl.c, contact_step.c delassus()). The implicit step's sliding
 * velocity is unique when h < m_eff / (N S) (S: the steepest fall of the Stribeck curve),
 * with m_eff the inertia the friction force meets along the sliding direction: the
 * Delassus value w = Dv S^-1 Dv^T of the step's iteration matrix with the constraints,
 * m_eff = 1 / w. Each sub-test is a LuGre slider (m1 = 0.2 kg, seed 000's law: mu 0.56,
 * mu0 0.75, vs 9e-4 m/s, gamma 2, sigma0 1.3e6, sigma1 350) on a horizontal guide, gravity
 * 9.81, pushed by F = (m1 + m2) g t/s, fixed h = 1e-4 s, against the hand value of w:
 *
 *   cart    a cart (m2 = 1.8 kg, 0.01 kg m^2) pinned at its centre 0.1 m above the slider
 *           moves with it along the guide; its rotation is free and uncoupled:
 *           w = 1 / (m1 + m2) = 0.5 1/kg (the old cap used the slider's 0.2 kg: 5 1/kg).
 *           Normal force N = (m1 + m2) g.
 *   guide   the guide is a body (m2 = 1.8 kg) on a frictionless ground prismatic along x;
 *           the sliding velocity is relative: w = 1 / m1 + 1 / m2 = 5.556 1/kg.
 *           Normal force N = m1 g.
 *
 * Checked: w after a step (the iteration matrix has no stiffness or damping here, so the
 * value is exact to rounding: 1e-12 relative), and the cap the step control sets while the
 * slider slides in the Stribeck region after its breakaway (vs_stick = 1e-4 < |v| < vs /
 * sqrt(2), where the steepest fall at speeds >= |v| is the curve's maximum
 * S = (mu0 - mu) sqrt(2) e^(-1/2) / vs = 181.08 s/m): h_max = m_eff / (N S), 5.63e-4 s (cart)
 * and 5.07e-4 s (guide); with the slider's own mass (the old cap) 5.63e-5 s and 5.63e-4 s.
 * Checked to fail: with the cap on the slider's own mass (contact_stepctl.c
 * breakaway_step ignoring minv) both sub-tests fail with those values.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "flexmb/flexmb.h"
#include "solve/test_hooks.h"

static int failures = 0;

static const double G = 9.81, M1 = 0.2, M2 = 1.8, MU = 0.56, MU0 = 0.75, VS = 9e-4;

static fmb_friction_desc_t lugre(void)
{
    fmb_friction_desc_t f = {.model = "lugre", .a = 0.02, .b = 0.01};
    f.mu = MU, f.mu0 = MU0, f.sigma0 = 1.3e6, f.sigma1 = 350, f.vs = VS, f.gamma = 2;
    return f;
}

/* guide = 0: the cart pinned to the slider; 1: the guide a body on a ground prismatic */
static fmb_sim_t *build(int guide, fmb_model_t **mdp, double mass_along)
{
    fmb_model_t *md = fmb_model_create();
    fmb_model_set_gravity(md, 0, -G);
    fmb_body_desc_t sd = {.name = "slider", .mass = M1, .inertia = M1 * 0.002 / 12};
    const int slider = fmb_model_add_body(md, &sd);
    fmb_body_desc_t cd = {.name = guide ? "guide" : "cart", .mass = M2, .inertia = 0.01};
    cd.pose[1] = guide ? -0.1 : 0.1;
    const int other = fmb_model_add_body(md, &cd);
    int rc = slider < 0 || other < 0;
    fmb_joint_desc_t jd = {.name = "contact", .type = "prismatic"};
    jd.body[0] = slider, jd.body[1] = guide ? other : FMB_GROUND;
    jd.axis[0] = 1;
    if (guide) jd.point[1][1] = 0.1; /* the slider's line on the guide body */
    jd.friction = lugre();
    rc |= fmb_model_add_joint(md, &jd) < 0;
    fmb_joint_desc_t pj = {.name = guide ? "rail" : "pin",
                           .type = guide ? "prismatic" : "revolute"};
    if (guide) {
        pj.body[0] = other, pj.body[1] = FMB_GROUND, pj.axis[0] = 1;
        pj.point[1][1] = -0.1;
    } else {
        pj.body[0] = slider, pj.body[1] = other, pj.point[0][1] = 0.1;
    }
    rc |= fmb_model_add_joint(md, &pj) < 0;
    char fx[64];
    snprintf(fx, sizeof fx, "%.17g*t", mass_along * G);
    fmb_force_desc_t fd = {.name = "F", .type = "point", .body = {slider, FMB_GROUND}};
    fd.expr[0] = fx, fd.expr[1] = "0";
    rc |= fmb_model_add_force(md, &fd) < 0;
    if (rc) {
        printf("model: %s\n", fmb_model_last_error(md));
        fmb_model_destroy(&md);
        return NULL;
    }
    fmb_sim_options_t o;
    fmb_sim_options_default(&o);
    o.h = 1e-4, o.t_end = 2.0;
    fmb_sim_t *s = fmb_sim_create(md, &o);
    if (!s || fmb_sim_initialize(s)) {
        printf("initialize: %s\n", s ? fmb_sim_last_error(s) : "no sim");
        fmb_sim_destroy(&s);
        fmb_model_destroy(&md);
        return NULL;
    }
    *mdp = md;
    return s;
}

static int check(int guide)
{
    const char *name = guide ? "guide" : "cart";
    const double winv = guide ? 1 / M1 + 1 / M2 : 1 / (M1 + M2);
    const double N = (guide ? M1 : M1 + M2) * G;
    /* the guide pushes its slider with the force that moves m1 alone along it */
    fmb_model_t *md = NULL;
    fmb_sim_t *s = build(guide, &md, guide ? M1 : M1 + M2);
    if (!s) return 1;
    fmb_test_contact_t c;
    if (fmb_test_contact(s, 0, &c)) {
        printf("%s: no contact\n", name);
        fmb_sim_destroy(&s);
        fmb_model_destroy(&md);
        return ++failures;
    }
    const double S = (MU0 - MU) * sqrt(2.0) * exp(-0.5) / VS;
    const double vst = c.v_stick;
    int checked_w = 0, checked_cap = 0;
    for (int k = 0; k < 30000 && !checked_cap; k++) {
        if (fmb_sim_step(s)) {
            printf("%s: step at t = %.6f: %s\n", name, fmb_sim_time(s), fmb_sim_last_error(s));
            failures++;
            break;
        }
        fmb_test_contact(s, 0, &c);
        if (!checked_w) {
            char what[80];
            snprintf(what, sizeof what, "%s: Delassus value w (1/kg)", name);
            if (!check_near_report(what, c.minv, winv, 1e-12 * winv)) failures++;
            checked_w = 1;
        }
        /* sliding in the Stribeck region at both ends of the last step */
        if (fabs(c.v_n) > vst && fabs(c.v) > vst && fabs(c.v) < VS / sqrt(2.0)) {
            double hmax = INFINITY;
            char why[256] = "";
            fmb_test_contact_step_control(s, 1e-4, &hmax, why, sizeof why);
            char what[80];
            snprintf(what, sizeof what, "%s: cap m_eff / (N S) at v = %.3g m/s (s)", name, c.v);
            const double want = 1.0 / (winv * N * S);
            if (!check_near_report(what, hmax, want, 1e-9 * want)) failures++;
            printf("  (%s)\n", why);
            checked_cap = 1;
        }
    }
    CHECK(checked_cap, "%s: the slider never slid in the Stribeck region", name);
    fmb_sim_destroy(&s);
    fmb_model_destroy(&md);
    return failures;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        printf("usage: %s cart|guide\n", argv[0]);
        return 2;
    }
    if (!strcmp(argv[1], "cart")) return check(0) != 0;
    if (!strcmp(argv[1], "guide")) return check(1) != 0;
    printf("unknown sub-test %s\n", argv[1]);
    return 2;
}

/*
 * Quasi-static start with friction at a slider on an elastic guide (solver: start: static;
 * docs/theory.md "Consistent start" step 4, "Friction at the start").
 *
 * A 2 kg block (a = 0.05, b = 0.01, seed 000's LuGre law) slides at v0 = 0.5 m/s along a
 * steel bar (L = 1 m, 20 mm round, 10 elements, simply supported reference, pinned to the
 * ground at both ends: axially fixed at both ends) under gravity, starting at the node
 * x = s = 0.4 m. Sliding, its bristles start in their steady state: the friction on the
 * block is -mu_s N with mu_s = g(v0) = mu + (mu0 - mu) exp(-(v0/vs)^2) = mu (to 1e-300)
 * and N = m g, so the bar carries the axial point load P = mu m g = 10.99 N at s (the
 * corner forces act at the faces' points under the slider point, +-b across the axis).
 * Bar theory, fixed at both ends: u(x) = P x (L - s) / (E A L) for x <= s, so the node under
 * the block moves by u(s) = P s (L - s) / (E A L) = 4.197e-8 m (linear bar elements are
 * nodally exact). The moment b P bends the bar too (not checked here).
 *
 * Asserted: the static start's axial displacement of that node equals the hand value
 * within 1e-3 (measured 1.2e-4: the normal resultant is 19.6223 N against m g = 19.62 N, the
 * block following the sagging bar), the friction force at the start equals -mu m g within
 * 1e-3, and the node's axial acceleration at the start is below 1e-3 of P / (rho A L_e)
 * = 44.8 m/s^2, the scale an unbalanced P gives one element's mass (measured -3e-4 m/s^2:
 * the load is in equilibrium). Checked to fail: with the friction left out of the static
 * start's equilibrium, u(s) = 0 and 77.7 m/s^2, both checks fail. (The rigid start has nearly no normal force at t = 0, 2.3e-3 N: the
 * undeformed bar gives way under the block, as on the quick-return.)
 * Usage: test_static_friction
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flexmb/flexmb.h"

static int failures = 0;
#include "check.h"
#include "lugre_guide.h"

#define MASS 2.0
#define G 9.81
#define MU 0.56
#define MU0 0.75
#define V0 0.5
#define S0 0.4

static const double PI = 3.14159265358979323846;
static const double E = 200e9, DIA = 0.02;

static fmb_model_t *build(int *beam, int *block)
{
    fmb_body_desc_t sd = {.name = "block",
                          .mass = MASS,
                          .inertia = MASS * (0.1 * 0.1 + 0.02 * 0.02) / 12,
                          .pose = {S0, 0, 0},
                          .vel = {V0, 0, 0},
                          .vel_given = 1};
    return lugre_guide_model(G, 0.0, MU, MU0, &sd, NULL, beam, block);
}

/* the start's state (rigid start: printed only) */
typedef struct start_state {
    double u, a, friction, normal;
} start_state_t;

/* The start: axial displacement and acceleration of the beam node at S0 (its inertial x
 * minus the undeformed position: the chord frame lies on the ground's x axis), the
 * friction force and the normal resultant at the block. */
static start_state_t start(fmb_start mode)
{
    int ig, ib;
    fmb_model_t *m = build(&ig, &ib);
    fmb_sim_options_t o;
    fmb_sim_options_default(&o);
    o.h = 1e-5, o.t_end = 1e-5, o.start = mode;
    fmb_sim_t *s = fmb_sim_create(m, &o);
    start_state_t st = {NAN, NAN, NAN, NAN};
    if (fmb_sim_initialize(s)) {
        CHECK(0, "initialize: %s", fmb_sim_last_error(s));
        fmb_sim_destroy(&s);
        fmb_model_destroy(&m);
        return st;
    }
    double xs[11], ys[11], vs[11];
    fmb_sim_beam_state(s, ig, xs, ys, vs);
    st.u = xs[4] - S0;
    /* the node's axial coordinate: simply supported reference, nodes (u, v, phi) with
     * u_0, v_0 and v_10 removed (src/bodies/beam_build.c), after the carrier's 3: node k's u
     * is body column 3 + 3 k - 2 */
    st.a = fmb_sim_qdd(s)[fmb_model_body_offset(m, ig) + 3 + 3 * 4 - 2];
    double F[4], f[4];
    const int js = fmb_model_find_joint(m, "slider");
    fmb_sim_contact_state(s, js, F, f, NULL, NULL, NULL);
    st.friction = st.normal = 0.0;
    for (int k = 0; k < 4; k++)
        st.friction -= f[k], st.normal += F[k];
    fmb_sim_destroy(&s);
    fmb_model_destroy(&m);
    return st;
}

int main(void)
{
    const double EA = E * PI * DIA * DIA / 4, P = MU * MASS * G;
    const double u_hand = P * S0 * (1.0 - S0) / EA;
    /* scale of the axial acceleration of an unbalanced P: P over the mass of one element */
    const double a_free = P / (7800 * PI * DIA * DIA / 4 * 0.1);
    const start_state_t st = start(FMB_START_STATIC), rg = start(FMB_START_RIGID);
    printf("static start: u(s) = %.6g m (hand %.6g m), friction %.6g N (hand %.6g), normal %.6g "
           "N (m g %.6g), axial acceleration %.3g m/s^2 (P / (rho A L_e) = %.3g); rigid start: "
           "u(s) = %.3g m, friction %.3g N, normal %.3g N\n",
           st.u, u_hand, st.friction, -P, st.normal, MASS * G, st.a, a_free, rg.u, rg.friction,
           rg.normal);
    CHECK(fabs(st.u - u_hand) <= 1e-3 * u_hand, "u(s) = %.6g m, hand %.6g m", st.u, u_hand);
    CHECK(fabs(st.friction + P) <= 1e-3 * P, "friction %.6g N, hand %.6g N", st.friction, -P);
    CHECK(fabs(st.a) <= 1e-3 * a_free, "axial acceleration at the start %.3g m/s^2 > 1e-3 of %.3g",
          st.a, a_free);
    return failures ? 1 : 0;
}

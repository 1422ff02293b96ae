/*
 * Switching elements: events inside a step and the energy of switches (docs/switching.md,
 * docs/validation.md "Switching elements"). Usage: test_switching_events NAME, NAME one of
 *   gap     a mass m at v0 on a guide crosses a gap g to a linear spring-damper stop
 *           (k, c; zeta = 0.1): contact from t1 = g / v0 (0.1 h into its step), the
 *           closed-form damped contact d(tau) until the force k d + c d' vanishes at
 *           tau_s (bisection on the closed form), then free flight:
 *           x(T) = g + d(tau_s) + d'(tau_s) (T - t1 - tau_s). Trapezoidal rule (HHT,
 *           alpha = 0). With the onset and the end located (event_tol tol) the error is
 *           at most twice (2 tol (1 + v0/|d'_s|) + (omega h)^2/12 (v0 tau_s + omega tau_s
 *           |d'_s| (T - t1 - tau_s))): the switches' tolerance plus the trapezoidal rule's
 *           phase error over the contact (as a time shift and as a speed error over the
 *           flight). Without location (tol = 0) the force jump c v0 at the onset falls
 *           inside a step, a first-order error: the same run must miss the bound (checked,
 *           so the bound is known to discriminate).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flexmb/flexmb.h"
#include "sim_helpers.h"

#include "check.h"

static int failures = 0;
static const double PI = 3.14159265358979323846;

/* ------------------------------------------------------------------ gap */
static const double G_M = 1.0, G_K = 1e6, G_C = 200.0, G_V0 = 1.0, G_GAP = 1.2342e-3;

/* Closed-form contact from touch-down (d = 0, d' = v0): m d'' + c d' + k d = 0. */
static void contact_closed(double tau, double *d, double *dd)
{
    const double wn = sqrt(G_K / G_M), z = G_C / (2 * sqrt(G_K * G_M)), wd = wn * sqrt(1 - z * z);
    const double e = exp(-z * wn * tau);
    *d = G_V0 / wd * e * sin(wd * tau);
    *dd = G_V0 * e * (cos(wd * tau) - z * wn / wd * sin(wd * tau));
}

static double gap_run(double tol, double h, double *T, double *v_end)
{
    fmb_model_t *m = fmb_model_create();
    fmb_body_desc_t b = {
        .name = "mass", .mass = G_M, .inertia = 0.1, .vel = {G_V0, 0, 0}, .vel_given = 1};
    const int ib = fmb_model_add_body(m, &b);
    fmb_joint_desc_t j = {
        .name = "guide", .type = "prismatic", .body = {ib, FMB_GROUND}, .axis = {1, 0}};
    fmb_force_desc_t gp = {.name = "stop",
                           .type = "gap",
                           .body = {ib, FMB_GROUND},
                           .coordinate = FMB_REL_DIRECTION,
                           .axis = {1, 0},
                           .stiffness = G_K,
                           .damping = G_C,
                           .param = {-1.0, G_GAP, 0, 1, tol}};
    if (ib < 0 || fmb_model_add_joint(m, &j) < 0 || fmb_model_add_force(m, &gp) < 0) fail_model(m);
    fmb_sim_options_t o;
    fmb_sim_options_default(&o);
    o.h = h, o.t_end = *T;
    o.alpha = 0.0; /* HHT with alpha = 0: the trapezoidal rule, no numerical damping */
    fmb_sim_t *s = fmb_sim_create(m, &o);
    if (!s || fmb_sim_initialize(s)) {
        printf("FAIL start: %s\n", s ? fmb_sim_last_error(s) : "no memory");
        exit(1);
    }
    run_to(s, *T);
    *T = fmb_sim_time(s); /* the record time reached */
    const int off = fmb_model_body_offset(m, ib);
    const double x = fmb_sim_q(s)[off];
    *v_end = fmb_sim_qd(s)[off];
    fmb_sim_destroy(&s);
    fmb_model_destroy(&m);
    return x;
}

static void test_gap(void)
{
    const double h = 2e-6, tol = 1e-10;
    const double w = sqrt(G_K / G_M), t1 = G_GAP / G_V0;
    /* separation where k d + c d' = 0 (bisection on the closed form, bracketed by the
     * half period), then free flight: x(T) = g + d_s + d'_s (T - t1 - tau_s) */
    double lo = 0.5 * PI / w, hi = PI / w, ds, dds;
    for (int it = 0; it < 200; it++) {
        const double mid = 0.5 * (lo + hi);
        contact_closed(mid, &ds, &dds);
        if (G_K * ds + G_C * dds > 0)
            lo = mid;
        else
            hi = mid;
    }
    const double taus = 0.5 * (lo + hi);
    contact_closed(taus, &ds, &dds);
    double v_loc, v_no, T = 1e-3 * ceil((t1 + taus + 1e-3) / 1e-3), T2 = T;
    const double x_loc = gap_run(tol, h, &T, &v_loc);
    const double x_no = gap_run(0.0, h, &T2, &v_no);
    if (T != T2) printf("FAIL: the runs ended at different times\n"), failures++;
    const double x_ref = G_GAP + ds + dds * (T - t1 - taus);
    /* bound: both switches located to tol (a time error tol / |d'| each, times the speed);
     * the trapezoidal rule's phase error (omega h)^2 / 12 over the contact (a time shift
     * of that times tau_s, and a speed error of that times omega tau_s |d'| over the
     * flight), doubled */
    const double ph = (w * h) * (w * h) / 12;
    const double bound = 2 * tol * (1 + G_V0 / fabs(dds)) +
                         2 * ph * (G_V0 * taus + w * taus * fabs(dds) * (T - t1 - taus));
    printf("gap: t1 = %.9g s (%.3f h into its step), separation after %.9g s at %.9g m/s; "
           "x(T = %g) located %.12g, unlocated %.12g, reference %.12g, bound %.3g\n",
           t1, fmod(t1, h) / h, taus, dds, T, x_loc, x_no, x_ref, bound);
    CHECK_NEAR("gap: rebound velocity with location (m/s)", v_loc, dds,
               ph * w * taus * fabs(dds) * 2);
    CHECK_NEAR("gap: x(T) with the onset and end located", x_loc, x_ref, bound);
    /* the same bound without location: must be missed (the test can fail) */
    printf("gap: without location |x(T) - x_ref| = %.3g (bound %.3g)\n", fabs(x_no - x_ref), bound);
    const double miss = fabs(x_no - x_ref) > bound ? 1.0 : 0.0;
    CHECK_NEAR("gap: without location the bound is missed (1 = missed)", miss, 1.0, 0.0);
}

/* ------------------------------------------------------------------ ratchet */
typedef struct wheels {
    fmb_model_t *m;
    fmb_sim_t *s;
    int oa, ob;
} wheels_t;

/* Input a (J1, omega_a, torque T0 on it) and output b (J2, omega_b), each pinned to the
 * ground at its centre, a freewheel a -> b of sense +1 (omega_a <= omega_b). alpha = 0:
 * the trapezoidal rule. */
static wheels_t wheels(double J1, double wa, double J2, double wb, double T0, double h)
{
    wheels_t w;
    w.m = fmb_model_create();
    fmb_body_desc_t a = {.name = "a", .mass = 1, .inertia = J1, .vel = {0, 0, wa}, .vel_given = 1};
    fmb_body_desc_t b = {.name = "b", .mass = 1, .inertia = J2, .vel = {0, 0, wb}, .vel_given = 1};
    const int ia = fmb_model_add_body(w.m, &a), ib = fmb_model_add_body(w.m, &b);
    fmb_joint_desc_t pa = {.name = "pa", .type = "revolute", .body = {ia, FMB_GROUND}};
    fmb_joint_desc_t pb = {.name = "pb", .type = "revolute", .body = {ib, FMB_GROUND}};
    fmb_force_desc_t r = {.name = "clutch",
                          .type = "ratchet",
                          .body = {ia, ib},
                          .coordinate = FMB_REL_ROTATION,
                          .param = {1}};
    char tz[32];
    snprintf(tz, sizeof tz, "%.17g", T0);
    fmb_force_desc_t tq = {
        .name = "drive", .type = "torque", .body = {ia, FMB_GROUND}, .expr = {tz}};
    if (ia < 0 || ib < 0 || fmb_model_add_joint(w.m, &pa) < 0 ||
        fmb_model_add_joint(w.m, &pb) < 0 || fmb_model_add_force(w.m, &r) < 0 ||
        fmb_model_add_force(w.m, &tq) < 0)
        fail_model(w.m);
    fmb_sim_options_t o;
    fmb_sim_options_default(&o);
    o.h = h, o.t_end = 10, o.alpha = 0.0;
    w.s = fmb_sim_create(w.m, &o);
    if (!w.s || fmb_sim_initialize(w.s)) {
        printf("FAIL start: %s\n", w.s ? fmb_sim_last_error(w.s) : "no memory");
        exit(1);
    }
    w.oa = fmb_model_body_offset(w.m, ia) + 2, w.ob = fmb_model_body_offset(w.m, ib) + 2;
    return w;
}

static void wheels_free(wheels_t *w)
{
    fmb_sim_destroy(&w->s);
    fmb_model_destroy(&w->m);
}

/* Freewheel engaging by impact at the start: input at 2 rad/s, output at 1 rad/s (the
 * input may not be faster): plastic impact, common speed (J1 wa + J2 wb) / (J1 + J2),
 * kinetic energy lost J1 J2 / (J1 + J2) (wa - wb)^2 / 2 (hand), booked in the work column
 * so that T + V - W keeps its value before the impact; then under T0 both turn together,
 * omega(t) = omega_c + T0 t / (J1 + J2) (the trapezoidal rule integrates a constant
 * acceleration exactly). */
static void test_ratchet_impact(void)
{
    const double J1 = 0.5, J2 = 1.5, wa = 2, wb = 1, T0 = 1, h = 1e-3;
    wheels_t w = wheels(J1, wa, J2, wb, T0, h);
    const double wc = (J1 * wa + J2 * wb) / (J1 + J2);
    const double loss = 0.5 * J1 * J2 / (J1 + J2) * (wa - wb) * (wa - wb);
    const double T_before = 0.5 * (J1 * wa * wa + J2 * wb * wb);
    double e[FMB_ENERGY_COLUMNS];
    fmb_sim_energy(w.s, e);
    printf("ratchet impact: omega %.15g %.15g (hand %.15g), W %.15g (hand -%.15g)\n",
           fmb_sim_qd(w.s)[w.oa], fmb_sim_qd(w.s)[w.ob], wc, e[2], loss);
    CHECK_NEAR("impact: input speed = (J1 wa + J2 wb)/(J1 + J2)", fmb_sim_qd(w.s)[w.oa], wc, 1e-14);
    CHECK_NEAR("impact: output speed = (J1 wa + J2 wb)/(J1 + J2)", fmb_sim_qd(w.s)[w.ob], wc,
               1e-14);
    CHECK_NEAR("impact: work column = -J1 J2/(J1+J2) (wa-wb)^2/2 (J)", e[2], -loss, 1e-14);
    CHECK_NEAR("impact: T + V - W = T before the impact (J)", e[3], T_before, 1e-14);
    run_to(w.s, 1.0);
    fmb_sim_energy(w.s, e);
    CHECK_NEAR("impact: omega(1 s) = omega_c + T0 / (J1 + J2)", fmb_sim_qd(w.s)[w.oa],
               wc + T0 / (J1 + J2), 1e-12);
    CHECK_NEAR("impact: T + V - W conserved over 1 s (J)", e[3], T_before, 1e-12);
    wheels_free(&w);
}

/* Catch-up engagement: the input from rest under T0 reaches the coasting output
 * (omega_b) at t* = J1 omega_b / T0 = 0.5 s, inside a step (h = 0.3 ms: 1666.67 steps),
 * then both turn at omega_b + T0 (t - t*) / (J1 + J2). The engaging step dissipates
 * (v_{n+1} = 0 is imposed at its end; discretely a small plastic impact) although the
 * power lambda v of the ratchet is 0 at both of its ends: the work column must take the
 * loss. Independent check: from the states alone (test-side kinetic energy and the
 * torque's work T0 theta_a), the engaging step's discrete work -D, D = T0 theta_a -
 * (T - T(0)), and flexmb's work column W = T0 theta_a - D, i.e. T + V - W = T(0) (to
 * round-off for the trapezoidal rule); |D| within its hand bound; omega after t* against
 * the hand solution to h (the engaging step's error). Since the engagement is located
 * (docs/switching.md "Switch events") a step ends at t* and D is round-off (2e-13 J;
 * unlocated -1.5e-8 J, within the hand bound below, which the check of W then tested);
 * the work column's booking of an LCP force's work is checked with the friction of
 * test_switching_located reversal. (D < 0 unlocated: the ratchet's force
 * acts over the whole engaging step while the input still approached, a discrete gain
 * of O(h^2), not a loss; the brake that sticks inside a step is the mirror case.) */
static void test_ratchet_energy(void)
{
    const double J1 = 0.5, J2 = 1.5, wb = 1, T0 = 1, h = 3e-4;
    wheels_t w = wheels(J1, 0, J2, wb, T0, h);
    const double T_0 = 0.5 * J2 * wb * wb, ts = J1 * wb / T0;
    double worst = 0.0;
    while (fmb_sim_time(w.s) < 1 - 1e-12) {
        run_to(w.s, fmb_sim_time(w.s) + h);
        double e[FMB_ENERGY_COLUMNS];
        fmb_sim_energy(w.s, e);
        worst = fmax(worst, fabs(e[3] - T_0));
    }
    const double th = fmb_sim_q(w.s)[w.oa], oa = fmb_sim_qd(w.s)[w.oa], ob = fmb_sim_qd(w.s)[w.ob];
    const double T_1 = 0.5 * (J1 * oa * oa + J2 * ob * ob), D = T0 * th - (T_1 - T_0);
    double e[FMB_ENERGY_COLUMNS];
    fmb_sim_energy(w.s, e);
    printf("ratchet catch-up: discrete engagement loss D = %.6g J (T0 theta %.12g, dT %.12g), "
           "W %.12g\n",
           D, T0 * th, T_1 - T_0, e[2]);
    CHECK_NEAR("catch-up: work column = T0 theta_a - D (J)", e[2], T0 * th - D, 1e-12);
    CHECK_NEAR("catch-up: max |T + V - W - T(0)| over the run (J)", worst, 0.0, 1e-12);
    CHECK_NEAR("catch-up: omega(1 s) = wb + T0 (1 - t*) / (J1 + J2)", oa,
               wb + T0 * (1 - ts) / (J1 + J2), T0 * h / J1);
    /* hand bound of the engaging step's work: h lambda |v_n| / 4 with the engaged torque
     * lambda = T0 J2 / (J1 + J2) and |v_n| <= (T0 / J1) h */
    const double Dmax = h * h * T0 * T0 * J2 / (4 * J1 * (J1 + J2));
    /* located (docs/switching.md "Switch events"): a step ends at t*, where the smooth
     * catch-up loses nothing; D is round-off (unlocated: -1.5e-8 J) */
    CHECK_NEAR("catch-up: the located engagement's work is 0 (J; round-off as T + V - W)", D,
               0.0, 1e-12);
    CHECK_NEAR("catch-up: |D| <= h^2 T0^2 J2 / (4 J1 (J1 + J2)) (J)", fmin(fabs(D), Dmax), fabs(D),
               0.0);
    wheels_free(&w);
}

/* ------------------------------------------------------------------ coupled LCPs */
/* A block (m, slider with Coulomb friction mu on a horizontal guide, gravity g) pushed by P
 * along +x while sliding, and a dry_friction element along e = (cos phi, sin phi) between
 * the block and the ground (level Fd): its force -Fd e presses the block onto the guide,
 * so the slider's normal force is m g + Fd sin(phi) and (hand)
 *   m a = P - mu (m g + Fd sin(phi)) - Fd cos(phi)
 * (constant: integrated exactly). The slider's friction LCP and the switching LCP are
 * coupled through that normal force: solving each once after the other gives
 * P - mu m g - Fd cos(phi) (0.75 m/s^2 more). */
static void test_coupled(void)
{
    const double m = 1, g = 9.81, mu = 0.3, Fd = 5, phi = PI / 6, P = 20, v0 = 1, h = 1e-3;
    fmb_model_t *md = fmb_model_create();
    fmb_model_set_gravity(md, 0, -g);
    fmb_body_desc_t b = {.name = "block",
                         .mass = m,
                         .inertia = m * (0.04 + 0.01) / 12,
                         .vel = {v0, 0, 0},
                         .vel_given = 1};
    const int ib = fmb_model_add_body(md, &b);
    fmb_joint_desc_t j = {.name = "guide",
                          .type = "prismatic",
                          .body = {ib, FMB_GROUND},
                          .axis = {1, 0},
                          .friction = {.model = "coulomb",
                                       .a = 0.1,
                                       .b = 0.05,
                                       .mu = mu,
                                       .mu0 = mu,
                                       .v_stick = 1e-4}};
    fmb_force_desc_t fr = {.name = "drag",
                           .type = "dry_friction",
                           .body = {ib, FMB_GROUND},
                           .coordinate = FMB_REL_DIRECTION,
                           .axis = {cos(phi), sin(phi)},
                           .param = {Fd, Fd, 1e-6}};
    char px[32];
    snprintf(px, sizeof px, "%.17g", P);
    fmb_force_desc_t pf = {
        .name = "push", .type = "point", .body = {ib, FMB_GROUND}, .expr = {px, "0"}};
    int ij;
    if (ib < 0 || (ij = fmb_model_add_joint(md, &j)) < 0 || fmb_model_add_force(md, &fr) < 0 ||
        fmb_model_add_force(md, &pf) < 0)
        fail_model(md);
    fmb_sim_options_t o;
    fmb_sim_options_default(&o);
    o.h = h, o.t_end = 1;
    fmb_sim_t *s = fmb_sim_create(md, &o);
    if (!s || fmb_sim_initialize(s)) {
        printf("FAIL start: %s\n", s ? fmb_sim_last_error(s) : "no memory");
        exit(1);
    }
    const int off = fmb_model_body_offset(md, ib);
    const double a = (P - mu * (m * g + Fd * sin(phi)) - Fd * cos(phi)) / m;
    const double a_seq = (P - mu * m * g - Fd * cos(phi)) / m;
    /* the start: both LCPs coupled there too (start_lcp.c); the start without the
     * slider's friction gave (P - Fd cos phi) / m, one after the other a_seq */
    double N[4], fr4[4];
    fmb_sim_contact_state(s, ij, N, fr4, NULL, NULL, NULL);
    CHECK_NEAR("coupled: start acceleration = a (m/s^2)", fmb_sim_qdd(s)[off], a, 1e-12);
    CHECK_NEAR("coupled: start normal force = m g + Fd sin(phi) (N)", N[0] + N[1] + N[2] + N[3],
               m * g + Fd * sin(phi), 1e-12);
    CHECK_NEAR("coupled: velocity after the first step = v0 + a h (m/s)",
               (fmb_sim_step(s), fmb_sim_qd(s)[off]), v0 + a * h, 1e-9);
    /* the acceleration from v(0.1) to v(0.2) */
    run_to(s, 0.1);
    const double v1 = fmb_sim_qd(s)[off];
    run_to(s, 0.2);
    fmb_sim_contact_state(s, ij, N, fr4, NULL, NULL, NULL);
    const double acc = (fmb_sim_qd(s)[off] - v1) / 0.1;
    printf("coupled: acceleration %.12g, hand %.12g (the LCPs one after the other: %.12g)\n", acc,
           a, a_seq);
    CHECK_NEAR("coupled: (v(0.2) - v(0.1)) / 0.1 = a (m/s^2)", acc, a, 1e-8);
    CHECK_NEAR("coupled: normal force = m g + Fd sin(phi) (N)", N[0] + N[1] + N[2] + N[3],
               m * g + Fd * sin(phi), 1e-9);
    fmb_sim_destroy(&s);
    fmb_model_destroy(&md);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "all";
    const int all = !strcmp(what, "all");
    if (all || !strcmp(what, "gap")) test_gap();
    if (all || !strcmp(what, "ratchet_impact")) test_ratchet_impact();
    if (all || !strcmp(what, "ratchet_energy")) test_ratchet_energy();
    if (all || !strcmp(what, "coupled")) test_coupled();
    printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}

/*
 * Switch events located inside the step (docs/switching.md "Switch events"): the
 * relative velocity of a ratchet, dry friction or screw reaching zero is found by the
 * element's step_control, the step ends just past it, and the accelerations restart in
 * the new mode. Hand solutions; fixed steps (HHT, the library's default alpha = -0.05).
 * Usage: test_switching_located NAME, NAME one of
 *   stop      flywheel J at omega0 under a Coulomb brake Tk and a viscous damper c:
 *             J w' = -Tk - c w stops at t* = (J/c) ln(1 + c omega0 / Tk) (t* falls 0.4 h
 *             into its step) at theta* = (J omega0 - Tk t*) / c. The first step that ends
 *             at rest ends at t* to the discrete velocities' own error (omega'' h^2 t* /
 *             12 over the deceleration Tk/J: 1.3e-7 s; measured 3.3e-8 s); without
 *             location it ends 0.6 h after t* (fails); the angle at rest within the smooth
 *             motion's own error theta''' h^2 t* / 12 (unlocated: 8e-7 rad > 5.2e-7,
 *             fails).
 *   reversal  mass m on a spring k with Coulomb friction F (static = kinetic) released at
 *             x0: half-cycles of the harmonic motion about the centres -F sgn(v)/k,
 *             turning points x_{k+1} = 2 c_k - x_k (0.1, -0.07, 0.04, -0.01 m), stuck at
 *             -0.01 m from 3 pi/omega on (k |x| < F). The friction force jumps by 2F at
 *             each turning point: the unlocated switch makes an O(h) velocity error there.
 *             x(0.8 s) for h = 2, 1, 0.5 ms: the error falls at observed order >= 1.75
 *             (measured 2.00, 2.00; unlocated 1.09, 4.78: erratic, as the turning points
 *             fall anywhere in their steps: fails) and is below (omega h)^2 x0 at 1 ms
 *             (1.9e-6 m; unlocated 1.5e-4 m: fails); the error estimate stays below its
 *             tolerance at 1 ms (0.11; unlocated 1.87, falling like h: fails).
 *   catchup   the input of a freewheel (J1, from rest under T0) catches up with the
 *             coasting output (J2 at omega_b) at t_e = J1 omega_b / T0: a smooth
 *             engagement (no velocity jump), so no energy is lost. The engaging step's
 *             discrete work D (from the test's own kinetic energy and torque work) is
 *             below 1e-6 of the unlocated step's hand bound h^2 T0^2 J2 / (4 J1 (J1 + J2))
 *             (measured -3e-16 J; unlocated -1.5e-8 J = 0.44 of it, fails); a step ends at
 *             t_e to 1e-6 h; the common speed after it is exact (momentum).
 *   breakaway a flywheel J under a Coulomb brake (static Ts = 3, kinetic Tk = 2 N m) and a
 *             torque R t sticks until R t_b = Ts, then J w' = R t - Tk (the friction drops
 *             to Tk: an acceleration jump (Ts - Tk)/J). A step ends at t_b to 1e-6 h
 *             (unlocated: steps at k h, t_b 0.56 h into its step: fails); theta(1.5 s)
 *             and omega(1.5 s) against the closed form converge at order >= 1.75
 *             (measured theta 2.01, 1.95, omega 1.92 over 2 -> 0.5 ms; the capacity before the
 *             breakaway was located kept the static level until |v| > v_stick: fails).
 *   creep     a braked flywheel whose torque T(t) = Tk + J k (t - 1) slows it to
 *             w_min = 5e-7 rad/s (below v_stick) at 1 s and speeds it up again: it slides
 *             on at the kinetic level, omega(2 s) = w_min + k / 2 to k h^2 and never below
 *             w_min / 2 (before: the static level applied below v_stick, the wheel stuck
 *             at 1 s for good: fails).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flexmb/flexmb.h"
#include "sim_helpers.h"
#include "solve/test_hooks.h"

#include "check.h"

static int failures = 0;
static const double PI = 3.14159265358979323846;

/* Every accepted step (fixed runs split a step at a located event; the records at k h
 * would not show where): the first step end where the watched velocity is zero. */
typedef struct watch {
    int i;         /* global velocity index watched (relative to ground) */
    int j;         /* second index (velocity difference qd[i] - qd[j]), -1: none */
    double t_zero; /* first step end with |qd_i - qd_j| < 1e-12 after t_from */
    double t_from;
} watch_t;

static void hook(fmb_sim_t *s, double h, void *user)
{
    watch_t *w = user;
    const double *qd = fmb_sim_qd(s);      /* the candidate's */
    const double t1 = fmb_sim_time(s) + h; /* its time */
    const double v = qd[w->i] - (w->j >= 0 ? qd[w->j] : 0.0);
    if (w->t_zero < 0 && t1 > w->t_from && fabs(v) < 1e-12) w->t_zero = t1;
}

/* the step end nearest to w->t_from (in w->t_zero) */
static void near_hook(fmb_sim_t *s, double h, void *user)
{
    watch_t *w = user;
    const double t1 = fmb_sim_time(s) + h;
    if (w->t_zero < 0 || fabs(t1 - w->t_from) < fabs(w->t_zero - w->t_from)) w->t_zero = t1;
}

static int add_body(fmb_model_t *m, const char *name, double mass, double J, double vx, double w)
{
    fmb_body_desc_t b = {
        .name = name, .mass = mass, .inertia = J, .vel = {vx, 0, w}, .vel_given = 1};
    const int i = fmb_model_add_body(m, &b);
    if (i < 0) fail_model(m);
    return i;
}

static void add_joint(fmb_model_t *m, fmb_joint_desc_t j)
{
    if (fmb_model_add_joint(m, &j) < 0) fail_model(m);
}

static void add_force(fmb_model_t *m, fmb_force_desc_t f)
{
    if (fmb_model_add_force(m, &f) < 0) fail_model(m);
}

/* body b on a pin to the ground */
static void add_pin(fmb_model_t *m, const char *name, int b)
{
    add_joint(
        m, (fmb_joint_desc_t){.name = name, .type = "revolute", .body = {b, FMB_GROUND}});
}

/* a flywheel "wheel" of inertia J spinning at w0 on a pin, under a Coulomb brake (static
 * Ts, kinetic Tk, v_stick 1e-6 rad/s): the body */
static int braked_flywheel(fmb_model_t *m, double J, double w0, double Ts, double Tk)
{
    const int b = add_body(m, "wheel", 1, J, 0, w0);
    add_pin(m, "pin", b);
    add_force(m, (fmb_force_desc_t){.name = "brake",
                                    .type = "dry_friction",
                                    .body = {b, FMB_GROUND},
                                    .coordinate = FMB_REL_ROTATION,
                                    .param = {Ts, Tk, 1e-6}});
    return b;
}

/* a torque T(t) (expression) on body b against the ground */
static void add_torque(fmb_model_t *m, const char *name, int b, const char *expr)
{
    add_force(m,
              (fmb_force_desc_t){
                  .name = name, .type = "torque", .body = {b, FMB_GROUND}, .expr = {expr}});
}

/* the run's largest error estimate in units of its tolerance; then both freed */
static double finish(fmb_sim_t **s, fmb_model_t **m)
{
    fmb_sim_stats_t st;
    fmb_sim_get_stats(*s, &st);
    fmb_sim_destroy(s);
    fmb_model_destroy(m);
    return st.max_error;
}

/* ------------------------------------------------------------------ stop */
static void test_stop(void)
{
    const double J = 0.5, Tk = 2.0, c = 0.3, h = 1e-3;
    /* omega0 so that t* lies 0.4 h into its step: t* = (J/c) ln(1 + c w0 / Tk) */
    const double tstar = 1.2344, w0 = Tk / c * (exp(c * tstar / J) - 1.0);
    const double thstar = (J * w0 - Tk * tstar) / c;
    fmb_model_t *m = fmb_model_create();
    const int b = braked_flywheel(m, J, w0, Tk, Tk);
    add_force(
        m, (fmb_force_desc_t){
               .name = "damper", .type = "torsion", .body = {b, FMB_GROUND}, .damping = c});
    fmb_sim_t *s = make_sim(m, h, 2.0);
    const int o = fmb_model_body_offset(m, b);
    watch_t w = {.i = o + 2, .j = -1, .t_zero = -1, .t_from = 0};
    fmb_test_set_accept_hook(s, hook, &w);
    run_to(s, 2.0);
    const double theta = fmb_sim_q(s)[o + 2], omega = fmb_sim_qd(s)[o + 2];
    const double r = finish(&s, &m);
    printf("stop: t* = %.12g, first step end at rest %.12g (h = %g); theta %.12g (hand %.12g); "
           "largest error estimate %.3g of its tolerance\n",
           tstar, w.t_zero, h, theta, thstar, r);
    /* located on the discrete velocities: their own error omega'' h^2 t* / 12 (omega'' =
     * theta''' <= c (Tk + c w0) / J^2) shifts the root by that over the deceleration Tk/J */
    const double dtb = c * (Tk + c * w0) / (J * J) * h * h / 12 * tstar / (Tk / J);
    CHECK_NEAR("stop: the step that ends at rest ends at t* (s)", w.t_zero, tstar, dtb);
    /* the smooth deceleration's own error, second order: theta'''/12 h^2 t* with
     * theta''' = c (Tk + c w)/J^2 <= c (Tk + c w0) / J^2 */
    CHECK_NEAR("stop: angle at rest = (J w0 - Tk t*)/c (rad)", theta, thstar,
               c * (Tk + c * w0) / (J * J) * h * h / 12 * tstar);
    CHECK_NEAR("stop: at rest after t* (rad/s)", omega, 0.0, 1e-12);
}

/* --------------------------------------------------------------- reversal */
static const double R_M = 1.0, R_K = 100.0, R_F = 1.5, R_X0 = 0.1;

/* Closed form: half-cycles between turning points (module comment). */
static double reversal_closed(double t)
{
    const double om = sqrt(R_K / R_M), half = PI / om;
    double x = R_X0, t0 = 0.0;
    for (;;) {
        if (fabs(R_K * x) <= R_F) return x; /* stuck */
        const double sv = x > 0 ? -1.0 : 1.0, cen = -R_F * sv / R_K;
        if (t <= t0 + half) return cen + (x - cen) * cos(om * (t - t0));
        x = 2 * cen - x, t0 += half;
    }
}

static double reversal_dE[3], reversal_W[3];
static int reversal_k;

static double reversal_run(double h, double T, double *x_end, double *max_error)
{
    /* released at rest at x0 on a spring of stiffness k to the ground point (-1, 0), rest
     * length 1 m: force -k x along the guide */
    fmb_model_t *m = fmb_model_create();
    fmb_body_desc_t bd = {.name = "mass", .mass = R_M, .inertia = 0.1, .pose = {R_X0, 0, 0}};
    const int ib = fmb_model_add_body(m, &bd);
    if (ib < 0) fail_model(m);
    add_joint(m, (fmb_joint_desc_t){.name = "guide",
                                    .type = "prismatic",
                                    .body = {ib, FMB_GROUND},
                                    .axis = {1, 0}});
    add_force(m, (fmb_force_desc_t){.name = "spring",
                                    .type = "spring",
                                    .body = {ib, FMB_GROUND},
                                    .point = {{0, 0}, {-1, 0}},
                                    .stiffness = R_K,
                                    .rest_length = 1.0});
    add_force(m, (fmb_force_desc_t){.name = "friction",
                                    .type = "dry_friction",
                                    .body = {ib, FMB_GROUND},
                                    .coordinate = FMB_REL_DIRECTION,
                                    .axis = {1, 0},
                                    .param = {R_F, R_F, 1e-6}});
    fmb_sim_t *s = make_sim(m, h, 1.5);
    const int o = fmb_model_body_offset(m, ib);
    double e0[FMB_ENERGY_COLUMNS], e1[FMB_ENERGY_COLUMNS];
    fmb_sim_energy(s, e0);
    run_to(s, T);
    fmb_sim_energy(s, e1);
    printf("reversal: energy T + V - W: %.15g -> %.15g (W %.6g)\n", e0[3], e1[3], e1[2]);
    if (reversal_k < 3) reversal_dE[reversal_k] = e1[3] - e0[3], reversal_W[reversal_k++] = e1[2];
    const double xT = fmb_sim_q(s)[o];
    run_to(s, 1.5);
    *x_end = fmb_sim_q(s)[o];
    *max_error = finish(&s, &m);
    return xT;
}

static void test_reversal(void)
{
    const double T = 0.8, xr = reversal_closed(T);
    enum { NH = 3 };
    double e[NH], xe[NH], r[NH], pmin = INFINITY;
    const double hs[NH] = {2e-3, 1e-3, 5e-4};
    for (int k = 0; k < NH; k++) {
        e[k] = fabs(reversal_run(hs[k], T, &xe[k], &r[k]) - xr);
        printf("reversal: h %g: x(%g) error %.4g m, x at rest %.12g (hand %.12g), largest error "
               "estimate %.3g of its tolerance\n",
               hs[k], T, e[k], xe[k], reversal_closed(1.5), r[k]);
        if (k) {
            const double p = log(e[k - 1] / e[k]) / log(hs[k - 1] / hs[k]);
            printf("reversal: observed order %.3g\n", p);
            pmin = fmin(pmin, p);
        }
    }
    CHECK_NEAR("reversal: smallest observed order of x(0.8 s), h 2 -> 0.5 ms (>= 1.75: 1)",
               pmin >= 1.75 ? 1.0 : 0.0, 1.0, 0.0);
    const double om = sqrt(R_K / R_M);
    CHECK_NEAR("reversal: x(0.8 s) at h = 1 ms within (omega h)^2 x0 (m)", e[1], 0.0,
               om * om * hs[1] * hs[1] * R_X0);
    CHECK_NEAR("reversal: stuck at the closed form's last turning point (m)", xe[1],
               reversal_closed(1.5), om * om * hs[1] * hs[1] * R_X0);
    CHECK_NEAR("reversal: error estimate within its tolerance at h = 1 ms (<= 1: 1)",
               r[1] <= 1.0 ? 1.0 : 0.0, 1.0, 0.0);
    /* the friction's LCP work (-F times the path, -0.463 J) is in W: T + V - W keeps
     * k x0^2 / 2 = 0.5 J to the scheme's energy error of a resolved oscillation,
     * (omega h)^2 E0 */
    /* path to 0.8 s: 0.1 -> -0.07 -> 0.04 -> x(0.8); W to the position error's F (omega h)^2 x0 */
    CHECK_NEAR("reversal: work column W(0.8 s) = -F (path length) (J)", reversal_W[1],
               -R_F * (0.17 + 0.11 + 0.04 - xr), R_F * om * om * hs[1] * hs[1] * R_X0);
    CHECK_NEAR("reversal: T + V - W constant over 0.8 s at h = 1 ms (J)", reversal_dE[1], 0.0,
               om * om * hs[1] * hs[1] * 0.5 * R_K * R_X0 * R_X0);
}

/* -------------------------------------------------------------- breakaway */
static const double B_J = 0.5, B_TS = 3.0, B_TK = 2.0, B_TB = 0.73456;

/* Closed form: stuck until R t = Ts (t_b), then J w' = R t - Tk. */
static void breakaway_closed(double t, double *th, double *w)
{
    const double R = B_TS / B_TB, u = t - B_TB;
    if (u <= 0) {
        *th = *w = 0.0;
        return;
    }
    *w = (0.5 * R * (t * t - B_TB * B_TB) - B_TK * u) / B_J;
    *th = (R * ((t * t * t - B_TB * B_TB * B_TB) / 6.0 - 0.5 * B_TB * B_TB * u) -
           0.5 * B_TK * u * u) /
          B_J;
}

static void breakaway_run(double h, double T, double *th, double *w, double *t_b, double *r)
{
    fmb_model_t *m = fmb_model_create();
    const int b = braked_flywheel(m, B_J, 0, B_TS, B_TK);
    char tz[64];
    snprintf(tz, sizeof tz, "%.17g*t", B_TS / B_TB);
    add_torque(m, "load", b, tz);
    fmb_sim_t *s = make_sim(m, h, T);
    const int o = fmb_model_body_offset(m, b);
    watch_t wt = {.i = o + 2, .j = -1, .t_zero = -1, .t_from = B_TB};
    fmb_test_set_accept_hook(s, near_hook, &wt);
    run_to(s, T);
    *th = fmb_sim_q(s)[o + 2], *w = fmb_sim_qd(s)[o + 2], *t_b = wt.t_zero;
    *r = finish(&s, &m);
}

static void test_breakaway(void)
{
    const double T = 1.5;
    double thr, wr;
    breakaway_closed(T, &thr, &wr);
    enum { NH = 3 };
    const double hs[NH] = {2e-3, 1e-3, 5e-4};
    double e[NH], ew[NH], tb[NH], r[NH], pmin = INFINITY;
    for (int k = 0; k < NH; k++) {
        double th, w;
        breakaway_run(hs[k], T, &th, &w, &tb[k], &r[k]);
        e[k] = fabs(th - thr), ew[k] = fabs(w - wr);
        printf("breakaway: h %g: the step end nearest t_b %.12g (t_b %.12g); theta(%g) error "
               "%.4g rad, omega error %.4g rad/s; largest error estimate %.3g\n",
               hs[k], tb[k], B_TB, T, e[k], ew[k], r[k]);
        if (k) {
            const double p = log(e[k - 1] / e[k]) / log(hs[k - 1] / hs[k]);
            printf("breakaway: observed order of theta %.3g\n", p);
            pmin = fmin(pmin, p);
        }
    }
    CHECK_NEAR("breakaway: a step ends at t_b = Ts / R to 1e-6 h at h = 1 ms (s)", tb[1], B_TB,
               1e-6 * hs[1]);
    CHECK_NEAR("breakaway: smallest observed order of theta(1.5 s), h 2 -> 0.5 ms (>= 1.75: 1)",
               pmin >= 1.75 ? 1.0 : 0.0, 1.0, 0.0);
    /* the smooth slip's own error: theta''' = R / J constant after t_b; HHT's alpha-shifted
     * accelerations lag it by O(h^2) (the trapezoidal rule, alpha = 0, is exact here) */
    const double R = B_TS / B_TB;
    CHECK_NEAR("breakaway: omega(1.5 s) at h = 1 ms within R/J h^2 (rad/s)", ew[1], 0.0,
               R / B_J * hs[1] * hs[1]);
    const double pw = log(ew[0] / ew[2]) / log(hs[0] / hs[2]);
    printf("breakaway: observed order of omega over h 2 -> 0.5 ms %.3g\n", pw);
    CHECK_NEAR("breakaway: observed order of omega(1.5 s), h 2 -> 0.5 ms (>= 1.75: 1)",
               pw >= 1.75 ? 1.0 : 0.0, 1.0, 0.0);
}

/* ------------------------------------------------------------------ creep */
/* A flywheel under a Coulomb brake (kinetic Tk, static Ts) and the torque
 * T(t) = Tk + J k (t - 1): J w' = J k (t - 1), w(t) = w_min + k (t - 1)^2 / 2 with
 * w_min = 5e-7 rad/s below v_stick = 1e-6: it slows down to w_min at 1 s without stopping
 * and speeds up again (T < Ts throughout: had it stopped, it would stay). A Coulomb
 * element that slides is braked at the kinetic level at any speed; before, the static
 * level applied whenever a step started below v_stick, and the wheel stuck at 1 s. */
static void test_creep(void)
{
    const double J = 0.5, Tk = 2.0, Ts = 3.0, k = 1.0, wmin = 5e-7, h = 1e-3;
    fmb_model_t *m = fmb_model_create();
    const int b = braked_flywheel(m, J, wmin + 0.5 * k, Ts, Tk);
    char tz[64];
    snprintf(tz, sizeof tz, "%.17g + %.17g*(t - 1)", Tk, J * k);
    add_torque(m, "load", b, tz);
    fmb_sim_t *s = make_sim(m, h, 2.0);
    const int o = fmb_model_body_offset(m, b);
    double wlow = INFINITY;
    while (fmb_sim_time(s) < 2.0 - 1e-12) {
        run_to(s, fmb_sim_time(s) + h);
        wlow = fmin(wlow, fmb_sim_qd(s)[o + 2]);
    }
    const double w2 = fmb_sim_qd(s)[o + 2], wref = wmin + 0.5 * k;
    finish(&s, &m);
    printf("creep: slowest %.4g rad/s (hand %.4g), omega(2 s) %.12g (hand %.12g)\n", wlow, wmin, w2,
           wref);
    /* the trapezoidal rule integrates the linear acceleration to its O(h^2) (HHT) */
    CHECK_NEAR("creep: slowest speed w_min, not stopped (rad/s)", wlow, wmin, 0.5 * wmin);
    CHECK_NEAR("creep: omega(2 s) = w_min + k/2 (rad/s)", w2, wref, k * h * h);
}

/* ---------------------------------------------------------------- catchup */
static void test_catchup(void)
{
    const double J1 = 0.5, J2 = 1.5, wb = 1, T0 = 1, h = 3e-4;
    const double te = J1 * wb / T0; /* 0.5 s: 1666.67 steps */
    fmb_model_t *m = fmb_model_create();
    const int ia = add_body(m, "a", 1, J1, 0, 0), ib = add_body(m, "b", 1, J2, 0, wb);
    add_pin(m, "pa", ia);
    add_pin(m, "pb", ib);
    add_force(m, (fmb_force_desc_t){.name = "clutch",
                                    .type = "ratchet",
                                    .body = {ia, ib},
                                    .coordinate = FMB_REL_ROTATION,
                                    .param = {1}});
    add_torque(m, "drive", ia, "1");
    fmb_sim_t *s = make_sim(m, h, 1.0);
    const int oa = fmb_model_body_offset(m, ia) + 2, ob = fmb_model_body_offset(m, ib) + 2;
    watch_t w = {.i = oa, .j = ob, .t_zero = -1, .t_from = 0};
    fmb_test_set_accept_hook(s, hook, &w);
    run_to(s, 1.0);
    const double th = fmb_sim_q(s)[oa], va = fmb_sim_qd(s)[oa], vb = fmb_sim_qd(s)[ob];
    const double D = T0 * th - (0.5 * (J1 * va * va + J2 * vb * vb) - 0.5 * J2 * wb * wb);
    const double Dmax = h * h * T0 * T0 * J2 / (4 * J1 * (J1 + J2));
    printf("catchup: engaged at %.12g (hand %.12g), discrete work of the engagement D = %.4g J "
           "(unlocated bound %.4g J)\n",
           w.t_zero, te, D, Dmax);
    CHECK_NEAR("catchup: the engaging step ends at t_e to 1e-6 h (s)", w.t_zero, te, 1e-6 * h);
    CHECK_NEAR("catchup: |D| <= 1e-6 h^2 T0^2 J2 / (4 J1 (J1 + J2)) (J)", fabs(D), 0.0,
               1e-6 * Dmax);
    const double t1 = fmb_sim_time(s); /* the step end at or after 1 s */
    finish(&s, &m);
    CHECK_NEAR("catchup: omega(t) = wb + T0 (t - t_e)/(J1 + J2) after it (rad/s)", va,
               wb + T0 * (t1 - te) / (J1 + J2), 1e-12);
}

int main(int argc, char **argv)
{
    const char *w = argc > 1 ? argv[1] : "all";
    const int all = !strcmp(w, "all");
    if (all || !strcmp(w, "stop")) test_stop();
    if (all || !strcmp(w, "reversal")) test_reversal();
    if (all || !strcmp(w, "catchup")) test_catchup();
    if (all || !strcmp(w, "breakaway")) test_breakaway();
    if (all || !strcmp(w, "creep")) test_creep();
    printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}

/*
 * Switching elements (docs/switching.md, docs/validation.md "Switching
 * elements") against hand solutions. Usage: test_switching NAME, NAME one of
 *   brake     flywheel J, omega0, brake torque Tk (static Ts): stops at t* = J omega0 / Tk
 *             (inside the step that contains t*), at theta* = J omega0^2 / (2 Tk) to
 *             a Tk h^2 / (2 J) (constant deceleration is integrated exactly by the
 *             Newmark family, only the stopping step errs); stays stopped (no creep) under
 *             T1 < Ts; slips under T2 > Ts with (T2 - Tk) / J.
 *   ratchet   input J1 under T0 sin(2 pi t / P) drives output J2 through a freewheel: both
 *             turn together while T > 0, torque J2 / (J1 + J2) T transmitted; from P / 2
 *             the output coasts at omega_max = T0 P / (pi (J1 + J2)) with zero torque while
 *             the input slows down; lambda . w at round-off.
 *   gap       a mass at v0 reaches a stop after a clearance g: contact at g / v0; linear
 *             spring-damper m x'' + c x' + k x = 0 gives the force k d + c d' in closed form:
 *             its peak to 1 %, and the rebound velocity (separation where the force
 *             vanishes) to 1 %.
 *   gap_error_control a block swinging inside a 1 mm play on a guide at x = 0.17 m (adaptive):
 *             its path against the closed form within 5 rtol_step (hi - lo), falling with
 *             the tolerance (the gap's error measure on its own coordinate).
 *   screw     a driver turns a screw at constant omega against a nut load W: steady drive
 *             torque W r tan(lambda + phi) raising, -W r tan(phi - lambda) lowering
 *             (Shigley, power screws); self-locking (phi > lambda) with zero input holds the
 *             load: thread force W cos^2(lambda) at rest (no torque on the screw), the nut
 *             within the thread compliance W / k, no creep; non-self-locking (phi < lambda):
 * back-driven at s'' = -W / (m + J (1 + mu tan lambda) / (L (L - mu r))). Each test fails when its
 * element is wrong: e.g. a missing static level lets the brake creep, a penalty ratchet leaks
 * torque in overrun, a sign error in the thread friction swaps tan(lambda + phi) and tan(lambda -
 * phi).
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

static int add_rigid(fmb_model_t *m, const char *name, double mass, double J, double x, double w0,
                     double vx)
{
    fmb_body_desc_t b = {.name = name,
                         .mass = mass,
                         .inertia = J,
                         .pose = {x, 0, 0},
                         .vel = {vx, 0, w0},
                         .vel_given = 1};
    int i = fmb_model_add_body(m, &b);
    if (i < 0) printf("FAIL body: %s\n", fmb_model_last_error(m)), exit(1);
    return i;
}

static void add_joint(fmb_model_t *m, fmb_joint_desc_t *j)
{
    if (fmb_model_add_joint(m, j) < 0) printf("FAIL joint: %s\n", fmb_model_last_error(m)), exit(1);
}

static void pin(fmb_model_t *m, int b, double x, const char *name)
{
    fmb_joint_desc_t j = {.name = name,
                          .type = "revolute",
                          .body = {b, FMB_GROUND},
                          .point = {{0, 0}, {x, 0}}};
    add_joint(m, &j);
}

static void slide_x(fmb_model_t *m, int b, const char *name)
{
    fmb_joint_desc_t j = {
        .name = name, .type = "prismatic", .body = {b, FMB_GROUND}, .axis = {1, 0}};
    add_joint(m, &j);
}

static int add_force(fmb_model_t *m, fmb_force_desc_t *d)
{
    int i = fmb_model_add_force(m, d);
    if (i < 0) printf("FAIL force: %s\n", fmb_model_last_error(m)), exit(1);
    return i;
}

/* ------------------------------------------------------------------ brake */
static void test_brake(void)
{
    const double J = 0.5, w0 = 10.0003, Tk = 2, Ts = 3, T1 = 2.5, T2 = 3.5, h = 1e-3;
    fmb_model_t *m = fmb_model_create();
    fmb_model_set_param(m, "T1", T1);
    fmb_model_set_param(m, "T2", T2);
    const int b = add_rigid(m, "wheel", 1, J, 0, w0, 0);
    pin(m, b, 0, "pin");
    fmb_force_desc_t fr = {.name = "brake",
                           .type = "dry_friction",
                           .body = {b, FMB_GROUND},
                           .coordinate = FMB_REL_ROTATION,
                           .param = {Ts, Tk, 1e-6}};
    const int ib = add_force(m, &fr);
    fmb_force_desc_t tq = {.name = "load",
                           .type = "torque",
                           .body = {b, FMB_GROUND},
                           .expr = {"T1*step(t-3) + (T2-T1)*step(t-4)"}};
    add_force(m, &tq);
    fmb_sim_t *s = make_sim(m, h, 5);
    const int o = fmb_model_body_offset(m, b);
    const double tstar = J * w0 / Tk, thstar = J * w0 * w0 / (2 * Tk);
    double t_stop = -1, th_stop = 0, th3 = 0, w_max_stuck = 0;
    int mode_stuck = -1;
    while (fmb_sim_time(s) < 4.0 - 1e-9) {
        step(s);
        const double t = fmb_sim_time(s), w = fmb_sim_qd(s)[o + 2], th = fmb_sim_q(s)[o + 2];
        if (t_stop < 0 && fabs(w) < 1e-12) t_stop = t, th_stop = th;
        if (fabs(t - 3.0) < 0.5 * h) th3 = th;
        if (t > 3.0 + 0.5 * h) {
            w_max_stuck = fmax(w_max_stuck, fabs(w));
            fmb_sim_switch_state(s, ib, &mode_stuck, NULL, NULL);
        }
    }
    const double th4 = fmb_sim_q(s)[o + 2];
    double fo = 0;
    fmb_sim_switch_state(s, ib, NULL, &fo, NULL);
    printf("brake: t* = %.9g, first step at rest ends %.9g\n", tstar, t_stop);
    CHECK_NEAR("brake: stop inside the step containing t* (t_stop - t*)", t_stop - tstar, 0.5 * h,
               0.5 * h);
    CHECK_NEAR("brake: stop angle J w0^2/(2 Tk)", th_stop, thstar, 0.5 * Tk / J * h * h);
    CHECK_NEAR("brake: no creep under T1 < Ts from 3 s to 4 s (rad)", th4 - th3, 0.0, 1e-12);
    CHECK_NEAR("brake: at rest under T1 (max |omega|, rad/s)", w_max_stuck, 0.0, 1e-12);
    CHECK_NEAR("brake: mode stick under T1", mode_stuck, 0, 0);
    CHECK_NEAR("brake: friction torque balances T1 while stuck (N m)", fo, -T1, 1e-9 * T1);
    /* T2 > Ts from 4 s: slip, omega = (T2 - Tk)/J (t - 4) after the breakaway step (the
     * first step leaves stick with the static level) */
    while (fmb_sim_time(s) < 5.0 - 1e-9)
        step(s);
    const double w5 = fmb_sim_qd(s)[o + 2];
    /* tolerance: the breakaway step at the static level, (Ts - Tk)/J h, plus the O(h) error
     * of the trapezoidal velocity update at a jump of the acceleration, (T2 - Tk)/J h */
    CHECK_NEAR("brake: slip under T2 > Ts, omega(5 s) = (T2 - Tk)/J * 1 s", w5, (T2 - Tk) / J,
               (Ts - Tk) / J * h + (T2 - Tk) / J * h);
    fmb_sim_destroy(&s);
    fmb_model_destroy(&m);
}

/* ---------------------------------------------------------------- ratchet */
static void test_ratchet(void)
{
    const double J1 = 0.02, J2 = 0.3, T0 = 2.0, P = 1.0, h = 1e-3;
    fmb_model_t *m = fmb_model_create();
    fmb_model_set_param(m, "T0", T0);
    fmb_model_set_param(m, "P", P);
    const int bi = add_rigid(m, "input", 1, J1, 0, 0, 0);
    const int bo = add_rigid(m, "output", 1, J2, 1, 0, 0);
    pin(m, bi, 0, "pin_in");
    pin(m, bo, 1, "pin_out");
    fmb_force_desc_t tq = {.name = "drive",
                           .type = "torque",
                           .body = {bi, FMB_GROUND},
                           .expr = {"T0*sin(2*pi*t/P)"}};
    add_force(m, &tq);
    fmb_force_desc_t ra = {.name = "freewheel",
                           .type = "ratchet",
                           .body = {bi, bo},
                           .coordinate = FMB_REL_ROTATION,
                           .param = {1}};
    const int ir = add_force(m, &ra);
    fmb_sim_t *s = make_sim(m, h, P);
    const int oi = fmb_model_body_offset(m, bi), oo = fmb_model_body_offset(m, bo);
    double err_eng = 0, max_coast_tq = 0, max_compl = 0, w_out_half = 0, dw_coast = 0;
    double w_coast = 0;
    int bad_mode = 0;
    double W = 0.0, Pw_prev = 0.0; /* work of the input torque (trapezoid) */
    while (fmb_sim_time(s) < P - 1e-9) {
        step(s);
        const double t = fmb_sim_time(s), T = T0 * sin(2 * PI * t / P);
        const double wi = fmb_sim_qd(s)[oi + 2], wo = fmb_sim_qd(s)[oo + 2];
        int mode;
        double F, v;
        fmb_sim_switch_state(s, ir, &mode, &F, &v);
        const double Pw = T * wi;
        W += 0.5 * h * (Pw + Pw_prev), Pw_prev = Pw;
        max_compl = fmax(max_compl, fabs(F * v));
        if (t < 0.5 * P - 0.5 * h) { /* engaged: F = -lambda on the input */
            err_eng = fmax(err_eng, fabs(-F - J2 / (J1 + J2) * T));
            bad_mode += t > 0.01 && mode != 1;
        } else if (t > 0.5 * P + 0.5 * h) { /* coasting */
            max_coast_tq = fmax(max_coast_tq, fabs(F));
            /* after the integrator's acceleration history of the switch has decayed
             * (HHT: a factor alpha per step) the speed is constant */
            if (t < 0.5 * P + 10.5 * h) w_coast = wo;
            dw_coast = fmax(dw_coast, fabs(wo - w_coast));
            bad_mode += mode != 0;
        } else {
            w_out_half = wo;
        }
    }
    const double wmax = T0 * P / (PI * (J1 + J2));
    CHECK_NEAR("ratchet: transmitted torque J2/(J1+J2) T while driving (N m)", err_eng, 0,
               1e-6 * T0);
    CHECK_NEAR("ratchet: output speed at P/2 = T0 P / (pi (J1+J2))", w_out_half, wmax, 1e-5 * wmax);
    CHECK_NEAR("ratchet: zero torque while the output overruns (N m)", max_coast_tq, 0, 1e-12 * T0);
    CHECK_NEAR("ratchet: output coasts at constant speed (rad/s)", dw_coast, 0, 1e-12 * wmax);
    CHECK_NEAR("ratchet: coasting speed = speed at P/2 to O(h) (rad/s)", w_coast, w_out_half,
               T0 / (J1 + J2) * 2 * PI / P * h * h + 1e-12); /* change of the sine's slope */
    CHECK_NEAR("ratchet: complementarity |lambda w| (W)", max_compl, 0, 1e-12 * T0 * wmax);
    CHECK_NEAR("ratchet: mode engaged, then free", bad_mode, 0, 0);
    /* power balance: the work of the input torque is the kinetic energy of both (no loss:
     * no impact, the drive is rigid) */
    const double wi = fmb_sim_qd(s)[oi + 2], wo = fmb_sim_qd(s)[oo + 2];
    const double KE = 0.5 * J1 * wi * wi + 0.5 * J2 * wo * wo;
    CHECK_NEAR("ratchet: input work = kinetic energy (J)", W, KE, 1e-5 * KE);
    fmb_sim_destroy(&s);
    fmb_model_destroy(&m);
}

/* -------------------------------------------------------------------- gap */
/* Closed-form contact: d(tau) = v0/wd e^(-z wn tau) sin(wd tau). */
static void contact_closed(double m, double k, double c, double v0, double tau, double *d,
                           double *dd)
{
    const double wn = sqrt(k / m), z = c / (2 * sqrt(k * m)), wd = wn * sqrt(1 - z * z);
    const double e = exp(-z * wn * tau);
    *d = v0 / wd * e * sin(wd * tau);
    *dd = v0 * e * (cos(wd * tau) - z * wn / wd * sin(wd * tau));
}

static void test_gap(void)
{
    const double mass = 1.0, k = 1e6, c = 200.0, v0 = 1.0, g = 1.0007e-3, h = 2e-6;
    fmb_model_t *m = fmb_model_create();
    const int b = add_rigid(m, "mass", mass, 0.1, 0, 0, v0);
    slide_x(m, b, "guide");
    fmb_force_desc_t gp = {.name = "stop",
                           .type = "gap",
                           .body = {b, FMB_GROUND},
                           .coordinate = FMB_REL_DIRECTION,
                           .axis = {1, 0},
                           .stiffness = k,
                           .damping = c,
                           .param = {-1.0, g, 0, 1}};
    const int ig = add_force(m, &gp);
    fmb_sim_t *s = make_sim(m, h, 1);
    const int o = fmb_model_body_offset(m, b);
    double t_on = -1, Fpeak = 0, t_off = -1;
    while (fmb_sim_time(s) < 6e-3) {
        step(s);
        int mode;
        double F, v;
        fmb_sim_switch_state(s, ig, &mode, &F, &v);
        if (t_on < 0 && mode == 2) t_on = fmb_sim_time(s);
        Fpeak = fmax(Fpeak, -F);
        if (t_on > 0 && t_off < 0 && mode == 2 && F == 0.0) t_off = fmb_sim_time(s);
    }
    const double v_out = fmb_sim_qd(s)[o];
    /* reference: peak of k d + c dd and separation where it vanishes, from the closed
     * form sampled at 1e-8 s (well below h) */
    double Fref = 0, tsep = 0, vsep = 0;
    for (double tau = 0; tau < 5e-3; tau += 1e-8) {
        double d, dd;
        contact_closed(mass, k, c, v0, tau, &d, &dd);
        const double F = k * d + c * dd;
        if (tau > 0 && F <= 0) {
            tsep = tau, vsep = dd;
            break;
        }
        Fref = fmax(Fref, F);
    }
    printf("gap: contact from %.9g s (analytic %.9g), reference peak %.6g N, rebound %.6g m/s "
           "after %.6g s\n",
           t_on, g / v0, Fref, vsep, tsep);
    CHECK_NEAR("gap: contact starts in the step containing g / v0 (s)", t_on - g / v0, 0.5 * h,
               0.5 * h);
    CHECK_NEAR("gap: peak force, linear law (relative)", Fpeak / Fref, 1.0, 0.01);
    CHECK_NEAR("gap: rebound velocity (relative)", v_out / vsep, 1.0, 0.01);
    (void)t_off;
    fmb_sim_destroy(&s);
    fmb_model_destroy(&m);
}

/* ------------------------------------------------------------------ screw */
typedef struct screw_rig {
    fmb_model_t *m;
    int screw, nut, isc, drv;
} screw_rig_t;

/* Screw (pinned, J) and nut (mass mn on a guide along x) under the load -W on the nut;
 * drive: 0 free screw, 1 angle driver omega t. */
static screw_rig_t screw_rig(double mu, double lead, double r, double W, double J, double mn,
                             int drive, double omega)
{
    screw_rig_t R;
    R.m = fmb_model_create();
    fmb_model_set_param(R.m, "W", W);
    fmb_model_set_param(R.m, "om", omega);
    R.screw = add_rigid(R.m, "screw", 1, J, 0, drive ? omega : 0, 0);
    R.nut = add_rigid(R.m, "nut", mn, 1e-3, 0.5, 0, drive ? lead / (2 * PI) * omega : 0);
    pin(R.m, R.screw, 0, "bearing");
    slide_x(R.m, R.nut, "guide");
    fmb_force_desc_t sc = {.name = "thread",
                           .type = "screw",
                           .body = {R.screw, R.nut},
                           .point = {{0, 0}, {0, 0}},
                           .axis = {1, 0},
                           .stiffness = 1e8,
                           .damping = 2e4,
                           .rest_length = -0.5,
                           .param = {lead, r, mu, 1e-9}};
    R.isc = add_force(R.m, &sc);
    fmb_force_desc_t ld = {
        .name = "load", .type = "point", .body = {R.nut, FMB_GROUND}, .expr = {"-W", "0"}};
    add_force(R.m, &ld);
    R.drv = -1;
    if (drive) {
        fmb_joint_desc_t d = {.name = "motor",
                              .type = "driver_angle",
                              .body = {R.screw, FMB_GROUND},
                              .expr = "om*t"};
        add_joint(R.m, &d);
        R.drv = fmb_model_num_joints(R.m) - 1;
    }
    return R;
}

static void test_screw(void)
{
    const double r = 0.01, W = 1000.0;
    /* lead angle 9.04 deg (p = 10 mm), mu = 0.1 (5.71 deg): back-drivable; mu = 0.25
     * (14.0 deg): self-locking */
    const double lead = 0.01, L = lead / (2 * PI), lam = atan(L / r);
    for (int dir = 0; dir < 2; dir++)
        for (int lock = 0; lock < 2; lock++) {
            const double mu = lock ? 0.25 : 0.1, phi = atan(mu), om = dir ? -20.0 : 20.0;
            screw_rig_t R = screw_rig(mu, lead, r, W, 1e-4, 2.0, 1, om);
            fmb_sim_t *s = make_sim(R.m, 1e-4, 1);
            while (fmb_sim_time(s) < 0.2 - 1e-9)
                step(s);
            double re[6];
            fmb_sim_joint_reaction(s, R.drv, re);
            const double T = re[2]; /* torque the motor applies to the screw */
            const double want = dir ? -W * r * tan(phi - lam) : W * r * tan(lam + phi);
            char what[128];
            snprintf(what, sizeof what, "screw: %s torque, %s (N m)", dir ? "lowering" : "raising",
                     lock ? "self-locking" : "back-drivable");
            CHECK_NEAR(what, T, want, 1e-6 * W * r);
            if (!dir) {
                const double eta = W * L * om / (T * om);
                snprintf(what, sizeof what, "screw: efficiency tan(l)/tan(l+phi), %s",
                         lock ? "self-locking" : "back-drivable");
                CHECK_NEAR(what, eta, tan(lam) / tan(lam + phi), 1e-6);
            }
            fmb_sim_destroy(&s);
            fmb_model_destroy(&R.m);
        }
    /* self-locking with zero input: the nut settles at -W cos^4(lambda)/k, no creep */
    {
        const double mu = 0.25, k = 1e8; /* as in screw_rig */
        screw_rig_t R = screw_rig(mu, lead, r, W, 1e-4, 2.0, 0, 0);
        fmb_sim_t *s = make_sim(R.m, 1e-4, 1);
        const int o = fmb_model_body_offset(R.m, R.nut);
        double s1 = 0, smax = -1e9, smin = 1e9;
        while (fmb_sim_time(s) < 1.0 - 1e-9) {
            step(s);
            const double x = fmb_sim_q(s)[o] - 0.5;
            if (fabs(fmb_sim_time(s) - 0.2) < 0.5e-4) s1 = x;
            if (fmb_sim_time(s) > 0.2) smax = fmax(smax, x), smin = fmin(smin, x);
        }
        int mode;
        double Fn;
        fmb_sim_switch_state(s, R.isc, &mode, &Fn, NULL);
        /* at rest the screw carries no torque: L F_n + f r cos(lambda) = 0 and the nut
         * F_n - f sin(lambda) = W give F_n = W cos^2(lambda), |f| = W sin cos <= mu N */
        CHECK_NEAR("screw: self-locked thread force W cos^2(lambda) (N)", Fn,
                   W * cos(lam) * cos(lam), 1e-9 * W);
        CHECK_NEAR("screw: nut held within the thread compliance (|s| <= W/k, m)",
                   fabs(s1) <= W / k ? 0.0 : fabs(s1), 0, 0);
        CHECK_NEAR("screw: no creep from 0.2 s to 1 s (m)", smax - smin, 0, 1e-6 * W / k);
        CHECK_NEAR("screw: mode stick", mode, 0, 0);
        fmb_sim_destroy(&s);
        fmb_model_destroy(&R.m);
    }
    /* back-driven (mu = 0.1 < tan(lambda)): constant acceleration of the nut */
    {
        const double mu = 0.1, J = 1e-4, mn = 2.0;
        screw_rig_t R = screw_rig(mu, lead, r, W, J, mn, 0, 0);
        fmb_sim_t *s = make_sim(R.m, 1e-4, 1);
        const int o = fmb_model_body_offset(R.m, R.nut);
        double x[3];
        const double tk[3] = {0.1, 0.2, 0.3};
        int kk = 0;
        while (fmb_sim_time(s) < 0.3 - 1e-9) {
            step(s);
            if (kk < 3 && fabs(fmb_sim_time(s) - tk[kk]) < 0.5e-4) x[kk++] = fmb_sim_q(s)[o];
        }
        const double a = (x[2] - 2 * x[1] + x[0]) / (0.1 * 0.1);
        const double want = -W / (mn + J * (1 + mu * tan(lam)) / (L * (L - mu * r)));
        CHECK_NEAR("screw: back-drive acceleration (m/s^2)", a, want, 1e-4 * fabs(want));
        fmb_sim_destroy(&s);
        fmb_model_destroy(&R.m);
    }
}

/* ---------------------------------------------------- the seed's system */
/* cases/switching.yaml run for 8 s: properties that hold whatever the (lost) seed
 * parameters: the wheel never turns backwards (backstop, ratchet, self-locking screw);
 * D's friction reaches the static level exactly at its breakaway and is the kinetic
 * level while sliding; after the screw sticks the nut does not move although 800 N push
 * it (self-locking, no creep); every mode switch the seed reports happens. */
/* Largest |x_C(t) - x_C(0)| of the seed's nut C over the first millisecond, with the
 * thread's preload parameter Fp set to the given expression (NULL: the case's), at fixed
 * h = 1e-5 s; *first (if non-NULL): the error estimate of the first step of h = 1e-4 s,
 * fixed, in units of its tolerance (the run's span t_end = 8 s, as the case). */
static double seed_nut_drop(const char *path, const char *fp, double *first)
{
    char err[512], set[96];
    snprintf(set, sizeof set, "Fp=%s", fp ? fp : "Fp");
    for (int pass = first ? 0 : 1; pass < 2; pass++) {
        const char *sets[] = {pass ? "h=1e-5" : "h=1e-4", set};
        fmb_case_t *c = fmb_case_load(path, sets, fp ? 2 : 1, err, sizeof err);
        if (!c) printf("FAIL load: %s\n", err), exit(1);
        fmb_model_t *m = fmb_case_model(c);
        fmb_sim_options_t o = *fmb_case_options(c);
        o.adaptive = 0;
        fmb_sim_t *s = fmb_sim_create(m, &o);
        if (!s || fmb_sim_initialize(s)) printf("FAIL start\n"), exit(1);
        const int oc = fmb_model_body_offset(m, fmb_model_find_body(m, "C"));
        const double x0 = fmb_sim_q(s)[oc];
        double d = 0;
        while (fmb_sim_time(s) < (pass ? 1e-3 : 1e-4) - 1e-12) {
            step(s);
            d = fmax(d, fabs(fmb_sim_q(s)[oc] - x0));
        }
        fmb_sim_stats_t st;
        fmb_sim_get_stats(s, &st);
        fmb_sim_destroy(&s);
        fmb_case_destroy(&c);
        if (!pass)
            *first = st.max_error;
        else
            return d;
    }
    return 0;
}

/* Largest |force| of switching element e over every accepted state (the step loop's
 * hook sees the state committed before the candidate: a located breakaway ends a step
 * between records). */
typedef struct fwatch {
    int f; /* model force index */
    double fmax;
} fwatch_t;

/* A switching element's mode, force and relative velocity at the last accepted state */
typedef struct swstate {
    int mode;
    double force_out, v_n;
} swstate_t;

static swstate_t switch_state(const fmb_sim_t *s, int force)
{
    swstate_t r = {0};
    if (fmb_sim_switch_state(s, force, &r.mode, &r.force_out, &r.v_n))
        printf("FAIL force %d is no switching element\n", force), exit(1);
    return r;
}

static long restarts(const fmb_sim_t *s)
{
    fmb_sim_stats_t st;
    fmb_sim_get_stats(s, &st);
    return st.restarts;
}

/* The switching force named name (-1: none) */
static int switching_force(const fmb_model_t *m, const char *name)
{
    for (int f = 0; f < fmb_model_num_forces(m); f++)
        if (fmb_model_force_is_switching(m, f) && !strcmp(fmb_model_force_name(m, f), name))
            return f;
    return -1;
}

static void force_hook(fmb_sim_t *s, double h, void *user)
{
    (void)h;
    fwatch_t *w = user;
    w->fmax = fmax(w->fmax, fabs(switch_state(s, w->f).force_out));
}

static void test_seed(const char *path)
{
    /* The thread's preload (docs/switching.md "The seed's system"). At rest with no input
     * the wheel is held by the thread alone: the load pushes the nut along +x and turns
     * the screw forward (-L F_n > 0), the direction in which the ratchet lets the wheel
     * overrun, so the ratchets carry nothing. The nut's and the screw's equilibria with
     * the thread friction f (generalized forces of src/forces/screw.c: F_n + f sin(l) on
     * the nut's advance, -L F_n + f r cos(l) on the screw) are
     *   F_n + f sin(l) + W = 0,   -L F_n + f r cos(l) = 0   (L = r tan(l))
     * so f = F_n sin(l) / cos^2(l) and F_n = -W cos^2(l), f = -W sin(l), inside the
     * capacity mu W cos(l) because tan(l) < mu. The case's preload is that value.
     * Started at F_n = -W instead, the thread is off by the friction's share W sin^2(l):
     * while it sticks the nut moves only across the thread (sin(l) ds = -r cos(l) dtheta),
     * where d(delta) = -ds / cos^2(l), so it settles W sin^2(l) cos^2(l) / k back from its
     * start, a damped vibration that overshoots (thread damping ratio 0.22) but at most
     * doubles that. The case's preload starts in equilibrium: the nut moves only under the
     * input torque T = 4 A t / P passed to the wheel (stuck thread: F_n changes by
     * T sin(l) cos(l) / r, the nut by T sin(l) cos^3(l) / (r k)), a ramp on the thread
     * spring that lags its static value by at most 1/omega, omega^2 = k / m_eff with
     * m_eff = Mc + (Js + Jp) tan^2(l) / r^2 (k / cos^4 l >= k). Unloaded (Fp = 0) the nut
     * drops onto the spring: a step load, peak between the static W/k and 2 W/k. */
    {
        double W = 0, k = 0, lead = 0, r = 0, Fp = 0, A = 0, P = 0, Mc = 0, Js = 0, Jp = 0;
        char err[512];
        fmb_case_t *c = fmb_case_load(path, NULL, 0, err, sizeof err);
        if (!c) printf("FAIL load: %s\n", err), exit(1);
        fmb_case_param(c, "Fn", &W), fmb_case_param(c, "ksn", &k);
        fmb_case_param(c, "lead", &lead), fmb_case_param(c, "rm", &r);
        fmb_case_param(c, "Fp", &Fp), fmb_case_param(c, "A", &A), fmb_case_param(c, "P", &P);
        fmb_case_param(c, "Mc", &Mc), fmb_case_param(c, "Js", &Js), fmb_case_param(c, "Jp", &Jp);
        fmb_case_destroy(&c);
        const double lam = atan(lead / (2 * PI) / r), sl = sin(lam), cl = cos(lam);
        const double t1 = 1e-3, share = W * sl * sl * cl * cl / k;
        const double om = sqrt(k / (Mc + (Js + Jp) * tan(lam) * tan(lam) / (r * r)));
        const double ramp = 4 * A * t1 / P * sl * cl * cl * cl / (r * k) * (1 + 1 / (om * t1));
        double e_case, e_old;
        const double d0 = seed_nut_drop(path, "0", NULL), dold = seed_nut_drop(path, "-Fn", &e_old);
        const double dcase = seed_nut_drop(path, NULL, &e_case);
        printf("seed: nut drop in the first ms: unloaded thread %.4g m, preload -W %.4g m, the "
               "case's -W cos^2(l) %.4g m (W/k = %.4g m, W sin^2 cos^2 / k = %.4g m, ramp bound "
               "%.4g m); first step's error estimate at h = 1e-4: %.3g (-W), %.3g (case)\n",
               d0, dold, dcase, W / k, share, ramp, e_old, e_case);
        CHECK_NEAR("seed: the case's preload is the thread force at rest, -W cos^2(lambda) (N)", Fp,
                   -W * cl * cl, 1e-12 * W);
        CHECK_NEAR("seed: unloaded thread, peak drop within [W/k, 2W/k] (m)",
                   d0 >= W / k && d0 <= 2 * W / k ? 0.0 : d0, 0, 0);
        CHECK_NEAR("seed: preload -W, the drop within [1, 2] W sin^2 cos^2 / k + ramp (m)",
                   dold >= share && dold <= 2 * share + ramp ? 0.0 : dold, 0, 0);
        CHECK_NEAR("seed: the case's preload, the nut moves only with the input ramp (m)",
                   dcase <= ramp ? 0.0 : dcase, 0, 0);
        CHECK_NEAR("seed: the case's preload, first step (h = 1e-4) within its tolerance",
                   e_case <= 1 ? 0.0 : e_case, 0, 0);
    }
    char err[512];
    fmb_case_t *c = fmb_case_load(path, NULL, 0, err, sizeof err);
    if (!c) printf("FAIL load: %s\n", err), exit(1);
    fmb_model_t *m = fmb_case_model(c);
    fmb_sim_t *s = fmb_sim_create(m, fmb_case_options(c));
    if (!s || fmb_sim_initialize(s)) printf("FAIL start\n"), exit(1);
    const int wheel = fmb_model_find_body(m, "wheel"), C = fmb_model_find_body(m, "C");
    int ifr = -1, isc = -1, igap = -1;
    for (int f = 0; f < fmb_model_num_forces(m); f++) {
        const char *n = fmb_model_force_name(m, f);
        if (!strcmp(n, "friction")) ifr = f;
        if (!strcmp(n, "screw")) isc = f;
        if (!strcmp(n, "contact")) igap = f;
    }
    const int ow = fmb_model_body_offset(m, wheel), oc = fmb_model_body_offset(m, C);
    double wmin = 0, fmax_abs = 0, slip_err = 0, t_contact = -1, t_stop = -1, x_stop = 0;
    double creep = 0;
    double Fs = 0, Fk = 0;
    int mf_prev = 0;
    fmb_case_param(c, "Fs", &Fs), fmb_case_param(c, "Fk", &Fk);
    fwatch_t fw = {.f = ifr, .fmax = 0};
    fmb_test_set_accept_hook(s, force_hook, &fw);
    while (fmb_sim_time(s) < 8.0 - 1e-9) {
        step(s);
        const double t = fmb_sim_time(s);
        wmin = fmin(wmin, fmb_sim_qd(s)[ow + 2]);
        int mf, ms, mg;
        double F, v;
        fmb_sim_switch_state(s, ifr, &mf, &F, &v);
        fmax_abs = fmax(fmax_abs, fabs(F));
        /* sliding since the previous step (the breakaway step uses the static level) */
        if (mf == 1 && mf_prev == 1) slip_err = fmax(slip_err, fabs(fabs(F) - Fk));
        mf_prev = mf;
        fmb_sim_switch_state(s, igap, &mg, NULL, NULL);
        if (t_contact < 0 && mg == 2) t_contact = t;
        fmb_sim_switch_state(s, isc, &ms, NULL, NULL);
        if (t > 4.0 && t_stop < 0 && ms == 0) t_stop = t, x_stop = fmb_sim_q(s)[oc];
        if (t_stop > 0 && t > t_stop + 0.1) creep = fmax(creep, fabs(fmb_sim_q(s)[oc] - x_stop));
    }
    printf("switching.yaml system: contact at %.4g s, screw stops at %.4g s\n", t_contact, t_stop);
    CHECK_NEAR("seed: the wheel never turns backwards (min omega, rad/s)", wmin, 0, 1e-9);
    fmax_abs = fmax(fmax_abs, fw.fmax); /* records and every accepted step */
    CHECK_NEAR("seed: friction reaches the static level at breakaway (N)", fmax_abs, Fs, 1e-6 * Fs);
    CHECK_NEAR("seed: kinetic level while D slides (N)", slip_err, 0, 1e-9 * Fk);
    CHECK_NEAR("seed: contact, then the screw sticks after the input stops",
               t_contact > 0 && t_stop > 4, 1, 0);
    CHECK_NEAR("seed: nut does not creep under 800 N after the stop (m)", creep, 0, 1e-12);
    fmb_sim_destroy(&s);
    fmb_case_destroy(&c);
}

/* ------------------------------------ a one-way lock with a frictionless thread */
/* Seed 004's system with the screw held by a ratchet to the ground (sense -1) and a
 * thread without friction (mu = 0; tests/cases_misc/switching_lock_mu0.yaml, A = 2.2 N m,
 * Js = 0.1 kg m^2). Reference (an independent event-driven model of this system): D slips
 * 33 times and the lock stops the screw 4 times. A frictionless thread carries only its
 * axial force F_n, so the screw feels -L F_n (L = lead / 2 pi) and, engaged at rest, the
 * lock holds at most that (statics: the input torque only relieves it). The lock and D's
 * friction are passive: over every step their forces do no positive work (the discrete
 * work of the trapezoidal update, (t1 - t0)/4 (F0 + F1)(v0 + v1): constant D rows; a step
 * that ends at a located switch keeps its old mode to its end, where the forces are then
 * re-solved for the new one (a restart): F1 = F0 for that step). The thread's zero
 * capacity must not leave its slack sigma unbounded in the LCP: a huge sigma hides a wrong
 * row of another element (D breaking away below its static level, the lock kicking the
 * screw). */
typedef struct lockwatch {
    int elock, efr, ethr;
    double t, Fl, vl, Ff, vf; /* the previous accepted state */
    int ml, mf, have;
    long restarts;
    int stops, slips;
    double wpos_lock, wpos_fr, ratio_max;
} lockwatch_t;

static void lock_hook(fmb_sim_t *s, double h, void *user)
{
    (void)h;
    lockwatch_t *w = user;
    const swstate_t L = switch_state(s, w->elock), F = switch_state(s, w->efr),
                    T = switch_state(s, w->ethr);
    const double t = fmb_sim_time(s);
    if (w->have) {
        const double dt = t - w->t;
        const int re = restarts(s) != w->restarts;
        const double Fl1 = re ? w->Fl : L.force_out, Ff1 = re ? w->Ff : F.force_out;
        w->wpos_lock += fmax(0.25 * dt * (w->Fl + Fl1) * (w->vl + L.v_n), 0.0);
        w->wpos_fr += fmax(0.25 * dt * (w->Ff + Ff1) * (w->vf + F.v_n), 0.0);
        w->stops += L.mode == 1 && w->ml == 0;
        w->slips += F.mode == 1 && w->mf == 0;
    }
    if (L.mode == 1 && fabs(T.force_out) > 0)
        w->ratio_max =
            fmax(w->ratio_max, fabs(L.force_out) / (0.004 / (2 * PI) * fabs(T.force_out)));
    w->t = t, w->Fl = L.force_out, w->vl = L.v_n, w->Ff = F.force_out, w->vf = F.v_n;
    w->ml = L.mode, w->mf = F.mode, w->have = 1;
    w->restarts = restarts(s);
}

static void test_lock_mu0(const char *path)
{
    const char *sets[] = {"A=2.2", "Js=0.1"};
    char err[512];
    fmb_case_t *c = fmb_case_load(path, sets, 2, err, sizeof err);
    if (!c) printf("FAIL load: %s\n", err), exit(1);
    double lead_rad = 0;
    fmb_case_param(c, "m", &lead_rad);
    CHECK_NEAR("lock_mu0: lead per radian of the case (m/rad)", lead_rad, 0.004 / (2 * PI), 1e-15);
    fmb_model_t *m = fmb_case_model(c);
    fmb_sim_t *s = fmb_sim_create(m, fmb_case_options(c));
    if (!s || fmb_sim_initialize(s)) printf("FAIL start\n"), exit(1);
    lockwatch_t w = {.elock = -1, .efr = -1, .ethr = -1};
    w.elock = switching_force(m, "lock");
    w.efr = switching_force(m, "friction");
    w.ethr = switching_force(m, "thread");
    if (w.elock < 0 || w.efr < 0 || w.ethr < 0) printf("FAIL elements\n"), exit(1);
    fmb_test_set_accept_hook(s, lock_hook, &w);
    run_to(s, 8.0);
    lock_hook(s, 0, &w); /* the last state */
    printf("lock_mu0: %d slip phases of D, %d lock stops; largest lock torque / (L F_n) %.15g; "
           "positive work: lock %.3g J, friction %.3g J\n",
           w.slips, w.stops, w.ratio_max, w.wpos_lock, w.wpos_fr);
    CHECK_NEAR("lock_mu0: slip phases of D (event-driven reference)", w.slips, 33, 0);
    CHECK_NEAR("lock_mu0: stops of the lock (event-driven reference)", w.stops, 4, 0);
    CHECK_NEAR("lock_mu0: lock torque within statics, max / (L F_n) <= 1",
               w.ratio_max <= 1 + 1e-9 ? 0.0 : w.ratio_max, 0, 0);
    CHECK_NEAR("lock_mu0: positive work of the lock (J)", w.wpos_lock, 0, 1e-12);
    CHECK_NEAR("lock_mu0: positive work of D's friction (J)", w.wpos_fr, 0, 1e-12);
    fmb_sim_destroy(&s);
    fmb_case_destroy(&c);
}

/* ------------------------------------------------ start-up breakaway */
/* A flywheel J with a Coulomb brake (static Ts = 3, kinetic Tc = 2 N m) and a viscous
 * torque r w started from rest under Ta = 3.5 N m > Ts (tests/cases_misc/
 * flywheel_breakaway.yaml): it breaks away at t = 0, so from t = 0 on the brake holds
 * the kinetic level: w'(0) = (Ta - Tc) / J = 3 rad/s^2 (the static level would give 1) and
 * J w' = Ta - Tc - r w, w(t) = (Ta - Tc) / r (1 - exp(-r t / J)). The trapezoidal rule
 * (alpha 0) errs by about t (r/J)^2 h^2 / 12 w'(0) e^(-r t / J) = 8e-11 rad/s at
 * h = 1e-4 (within 1e-9); with r = 0 the motion is a constant acceleration, which it
 * integrates exactly. Ta = 2.5 N m < Ts: the wheel stays at rest. */
static void startup_run(const char *path, const char *r, const char *Ta, const char *h, double *a0,
                        double *w1)
{
    char sr[32], sT[32], sh[32], err[512];
    snprintf(sr, sizeof sr, "r=%s", r), snprintf(sT, sizeof sT, "Ta=%s", Ta);
    snprintf(sh, sizeof sh, "h=%s", h);
    const char *sets[] = {"w0=0", sr, sT, sh, "t_end=1"};
    fmb_case_t *c = fmb_case_load(path, sets, 5, err, sizeof err);
    if (!c) printf("FAIL load: %s\n", err), exit(1);
    fmb_model_t *m = fmb_case_model(c);
    fmb_sim_t *s = fmb_sim_create(m, fmb_case_options(c));
    if (!s || fmb_sim_initialize(s)) printf("FAIL start\n"), exit(1);
    const int o = fmb_model_body_offset(m, fmb_model_find_body(m, "wheel"));
    *a0 = fmb_sim_qdd(s)[o + 2];
    run_to(s, 1.0);
    *w1 = fmb_sim_qd(s)[o + 2];
    fmb_sim_destroy(&s);
    fmb_case_destroy(&c);
}

static void test_startup(const char *path)
{
    const double J = 0.5, Tc = 2.0, r = 0.1, Ta = 3.5;
    const double wref = (Ta - Tc) / r * (1 - exp(-r / J));
    double a0, w1, a0r, w1r, a0s, w1s, a0c, w1c;
    startup_run(path, "0.1", "3.5", "1e-4", &a0, &w1);
    startup_run(path, "0", "3.5", "1e-3", &a0r, &w1r);
    startup_run(path, "0.1", "2.5", "1e-3", &a0s, &w1s);
    startup_run(path, "0.1", "3.5", "1e-3", &a0c, &w1c);
    printf("startup: w'(0) %.15g rad/s^2, w(1 s) %.15g (closed form %.15g, error %.3g) at "
           "h = 1e-4; r = 0: w'(0) %.15g, w(1 s) %.15g; h = 1e-3: w(1 s) error %.3g; "
           "Ta = 2.5: w'(0) %.3g, w(1 s) %.3g\n",
           a0, w1, wref, w1 - wref, a0r, w1r, w1c - wref, a0s, w1s);
    CHECK_NEAR("startup: initial acceleration at the kinetic level (rad/s^2)", a0, (Ta - Tc) / J,
               1e-12);
    CHECK_NEAR("startup: omega(1 s), h = 1e-4 (rad/s)", w1, wref, 1e-9);
    CHECK_NEAR("startup: omega(1 s), h = 1e-3, within the trapezoidal rule's error (rad/s)",
               w1c, wref, (r / J) * (r / J) * 1e-6 / 12 * (Ta - Tc) / J);
    CHECK_NEAR("startup: r = 0, omega(1 s) = (Ta - Tc) / J exactly (rad/s)", w1r, (Ta - Tc) / J,
               1e-12);
    CHECK_NEAR("startup: below the static level the wheel stays at rest (rad/s)", w1s, 0, 1e-15);
}

/* ------------------------------------------------- gap: error control on its play */
/* A 0.1 kg block on a guide at x = 0.17 m inside a gap of +-0.5 mm, pushed by
 * m a0 sin(w t) (a0 = 2000 m/s^2, w = 1000 pi rad/s) from x0 at -a0 / w: it swings as
 * x = x0 - (a0 / w^2) sin(w t) (amplitude 0.2 mm) without touching. Adaptive steps, h_max
 * 1e-4 s, 10 ms, trapezoidal rule. The block's coordinate alone has the tolerance
 * atol_step + rtol_step 0.17 m; the gap's error measure (its coordinate's error over the
 * play hi - lo = 1 mm) holds the path to a few rtol_step (hi - lo). */
static double gap_swing(double rtol, long *steps)
{
    const double m = 0.1, a0 = 2000, w = 1000 * PI, x0 = 0.17;
    fmb_model_t *md = fmb_model_create();
    const int b = add_rigid(md, "block", m, 1e-4, x0, 0, -a0 / w);
    slide_x(md, b, "guide");
    fmb_force_desc_t gp = {.name = "play",
                           .type = "gap",
                           .body = {b, FMB_GROUND},
                           .coordinate = FMB_REL_DIRECTION,
                           .axis = {1, 0},
                           .stiffness = 1e7,
                           .damping = 10,
                           .param = {x0 - 5e-4, x0 + 5e-4, 0, 1}};
    const int ig = add_force(md, &gp);
    fmb_force_desc_t p = {.name = "push",
                          .type = "point",
                          .body = {b, FMB_GROUND},
                          .expr = {"200*sin(1000*pi*t)", "0"}};
    add_force(md, &p);
    fmb_sim_options_t o;
    fmb_sim_options_default(&o);
    o.h = o.h_max = 1e-4;
    o.alpha = 0.0;
    o.t_end = 0.01;
    o.adaptive = 1;
    o.rtol_step = rtol;
    fmb_sim_t *s = fmb_sim_create(md, &o);
    if (!s || fmb_sim_initialize(s)) printf("FAIL start: %s\n", fmb_sim_last_error(s)), exit(1);
    const int off = fmb_model_body_offset(md, b);
    double err = 0;
    int touched = 0;
    for (int k = 0; k < 100; k++) {
        step(s);
        const double t = fmb_sim_time(s);
        int mode;
        double F, v;
        fmb_sim_switch_state(s, ig, &mode, &F, &v);
        touched += mode != 0;
        err = fmax(err, fabs(fmb_sim_q(s)[off] - (x0 - a0 / (w * w) * sin(w * t))));
    }
    CHECK_NEAR("gap_error_control: the block stays inside the play (records in contact)",
               touched, 0, 0);
    fmb_sim_stats_t st;
    fmb_sim_get_stats(s, &st);
    *steps = st.steps;
    fmb_sim_destroy(&s);
    fmb_model_destroy(&md);
    return err;
}

static void test_gap_error_control(void)
{
    const double play = 1e-3, tols[2] = {1e-3, 1e-4};
    double err[2];
    for (int k = 0; k < 2; k++) {
        long steps = 0;
        err[k] = gap_swing(tols[k], &steps);
        printf("gap_error_control rtol_step %.0e: %ld steps, max |x - exact| %.3e m = %.2f "
               "rtol_step (hi - lo)\n",
               tols[k], steps, err[k], err[k] / (tols[k] * play));
    }
    CHECK_NEAR("gap_error_control: path error at rtol_step 1e-3 (m)", err[0], 0,
               5 * tols[0] * play);
    CHECK_NEAR("gap_error_control: error falls with the tolerance (ratio)", err[1] / err[0], 0,
               0.3);
}

/* ------------------------------------------------ gap contact on a step end */
/* A driver x1 = V t closes a gap b onto a free mass M through a damped linear contact
 * (tests/cases_misc/gap_step_end.yaml): the contact starts at t_c = b / V = 0.1 s, a record
 * time of h = 1e-6 s, so a step ends on it. With tau = t - t_c and u = V tau - y the
 * contact's compression, M y'' = k u + c u' from rest gives (sigma = c / 2M, omega_d^2 =
 * k/M - sigma^2) y = V tau - (V / omega_d) e^(-sigma tau) sin(omega_d tau):
 * u = (V / omega_d) e^(-sigma tau) sin(omega_d tau), force k u + c u' (jumping to c V at
 * tau = 0), mass velocity V - u'. Checked over the first 9 ms of contact (the force is
 * still positive; the clamp lets go at 9.74 ms): the mass at rest up to t_c, and its
 * velocity and the force within twice the trapezoidal rule's phase error (omega h)^2 / 12
 * per radian, over omega tau <= 2.85 rad, of their amplitudes V and k V / omega. With
 * event_tol = 1e-12 m (below the Newton iteration's accuracy in the event's force) the
 * run completes with the same errors. */
static void gap_step_end_run(const char *path, const char *etol, int *rc, double *v_before,
                             double *ev, double *eF)
{
    const double V = 0.01, M = 10, k = 1e6, c = 200, tc = 0.1, h = 1e-6;
    const double sg = c / (2 * M), wd = sqrt(k / M - sg * sg);
    char se[40], err[512];
    snprintf(se, sizeof se, "etol=%s", etol);
    const char *sets[] = {"h=1e-6", "t_end=0.12", se};
    fmb_case_t *cs = fmb_case_load(path, sets, 3, err, sizeof err);
    if (!cs) printf("FAIL load: %s\n", err), exit(1);
    fmb_model_t *m = fmb_case_model(cs);
    fmb_sim_t *s = fmb_sim_create(m, fmb_case_options(cs));
    if (!s || fmb_sim_initialize(s)) printf("FAIL start\n"), exit(1);
    const int o = fmb_model_body_offset(m, fmb_model_find_body(m, "mass"));
    int ig = -1;
    for (int f = 0; f < fmb_model_num_forces(m); f++)
        if (!strcmp(fmb_model_force_name(m, f), "contact")) ig = f;
    *v_before = *ev = *eF = 0, *rc = 0;
    for (long i = 1; i <= 110000 && !*rc; i++) { /* to 0.11 s: past the clamp's release */
        *rc = fmb_sim_step(s);
        const double t = fmb_sim_time(s), tau = t - tc, v = fmb_sim_qd(s)[o];
        if (tau < 0.5 * h) *v_before = fmax(*v_before, fabs(v)); /* up to t_c */
        if (tau < -0.5 * h || tau > 9e-3) continue;
        const double e = exp(-sg * tau), sn = sin(wd * tau), cs_ = cos(wd * tau);
        const double u = V / wd * e * sn, ud = V / wd * e * (wd * cs_ - sg * sn);
        double F;
        fmb_sim_switch_state(s, ig, NULL, &F, NULL);
        *ev = fmax(*ev, fabs(v - (V - ud)));
        *eF = fmax(*eF, fabs(-F - (k * u + c * ud)));
    }
    if (*rc) printf("run with event_tol %s: %s\n", etol, fmb_sim_last_error(s));
    fmb_sim_destroy(&s);
    fmb_case_destroy(&cs);
}

static void test_gap_step_end(const char *path)
{
    const double V = 0.01, M = 10, k = 1e6, h = 1e-6, w = sqrt(k / M);
    const double ph = w * h * w * h / 12 * w * 9e-3; /* phase error over the 9 ms */
    int rc, rc12;
    double vb, ev, eF, vb12, ev12, eF12;
    gap_step_end_run(path, "1e-9", &rc, &vb, &ev, &eF);
    gap_step_end_run(path, "1e-12", &rc12, &vb12, &ev12, &eF12);
    printf("gap_step_end: mass speed before t_c %.3g m/s; velocity error %.3g m/s (bound %.3g), "
           "force error %.3g N (bound %.3g); event_tol 1e-12: status %d, %.3g, %.3g, %.3g\n",
           vb, ev, 2 * ph * V, eF, 2 * ph * k * V / w, rc12, vb12, ev12, eF12);
    CHECK_NEAR("gap_step_end: the mass at rest until the contact starts (m/s)", vb, 0, 0);
    CHECK_NEAR("gap_step_end: mass velocity in contact (m/s)", ev, 0, 2 * ph * V);
    CHECK_NEAR("gap_step_end: contact force (N)", eF, 0, 2 * ph * k * V / w);
    CHECK_NEAR("gap_step_end: event_tol 1e-12 completes (status)", rc12, 0, 0);
    CHECK_NEAR("gap_step_end: event_tol 1e-12, at rest until the contact (m/s)", vb12, 0, 0);
    CHECK_NEAR("gap_step_end: event_tol 1e-12, velocity (m/s)", ev12, 0, 2 * ph * V);
    CHECK_NEAR("gap_step_end: event_tol 1e-12, force (N)", eF12, 0, 2 * ph * k * V / w);
}

/* ------------------------------------------------ records at a time interval */
/* output_dt: records at j dt whatever the steps. The flywheel of the startup test with
 * r = 0 from rest under 3.5 N m turns at the constant 3 rad/s^2 (kinetic level from
 * t = 0), theta = 1.5 t^2, which the Newmark family integrates exactly: with dt = 0.0123 s
 * (no multiple of h = 1e-3 s) the records, fixed and adaptive, sit at j dt (the last at
 * t_end = 1 s: 83 records) with theta = 1.5 t^2 to round-off; fixed steps with dt = 10 h
 * give the records of output_every = 10 bit for bit. */
typedef struct rec_log {
    int n, o;
    double t[200], th[200];
} rec_log_t;

static int rec_observer(fmb_sim_t *s, void *user)
{
    rec_log_t *r = user;
    if (r->n < 200) r->t[r->n] = fmb_sim_time(s), r->th[r->n] = fmb_sim_q(s)[r->o + 2], r->n++;
    return 0;
}

static void output_dt_run(const char *path, int adaptive, double dt, int every, rec_log_t *r)
{
    const char *sets[] = {"w0=0", "r=0", "Ta=3.5", "t_end=1"};
    char err[512];
    fmb_case_t *c = fmb_case_load(path, sets, 4, err, sizeof err);
    if (!c) printf("FAIL load: %s\n", err), exit(1);
    fmb_model_t *m = fmb_case_model(c);
    fmb_sim_options_t o = *fmb_case_options(c);
    o.adaptive = adaptive, o.output_dt = dt, o.output_every = every;
    fmb_sim_t *s = fmb_sim_create(m, &o);
    memset(r, 0, sizeof *r);
    r->o = fmb_model_body_offset(m, fmb_model_find_body(m, "wheel"));
    if (!s || fmb_sim_run(s, rec_observer, r, NULL))
        printf("FAIL run: %s\n", s ? fmb_sim_last_error(s) : "no memory"), exit(1);
    fmb_sim_destroy(&s);
    fmb_case_destroy(&c);
}

static void test_output_dt(const char *path)
{
    const double dt = 0.0123;
    for (int ad = 0; ad < 2; ad++) {
        rec_log_t r;
        output_dt_run(path, ad, dt, 1, &r);
        double et = 0, eth = 0;
        for (int j = 0; j < r.n; j++) {
            const double tj = j == r.n - 1 ? 1.0 : j * dt;
            et = fmax(et, fabs(r.t[j] - tj));
            eth = fmax(eth, fabs(r.th[j] - 1.5 * r.t[j] * r.t[j]));
        }
        printf("output_dt %s: %d records, times off by %.3g s, theta off by %.3g rad\n",
               ad ? "adaptive" : "fixed", r.n, et, eth);
        CHECK_NEAR(ad ? "output_dt adaptive: records" : "output_dt fixed: records", r.n,
                   (int)floor(1.0 / dt) + 2, 0);
        CHECK_NEAR(ad ? "output_dt adaptive: record times (s)" : "output_dt fixed: record times (s)",
                   et, 0, 1e-12);
        CHECK_NEAR(ad ? "output_dt adaptive: theta = 1.5 t^2 (rad)"
                      : "output_dt fixed: theta = 1.5 t^2 (rad)",
                   eth, 0, 1e-12);
    }
    rec_log_t a, b;
    output_dt_run(path, 0, 0.01, 1, &a);
    output_dt_run(path, 0, 0, 10, &b);
    double d = a.n == b.n ? 0 : 1;
    for (int j = 0; j < a.n && j < b.n; j++)
        d = fmax(d, fabs(a.t[j] - b.t[j]) + fabs(a.th[j] - b.th[j]));
    printf("output_dt 10 h against output_every 10: %d / %d records, largest difference %.3g\n",
           a.n, b.n, d);
    CHECK_NEAR("output_dt = 10 h: the records of output_every = 10, bit for bit", d, 0, 0);
}

/* ------------------------------------------------ a one-way screw as one element */
/* The system of lock_mu0 with the lock and the frictionless thread as one element (screw,
 * mu 0, one_way: 1; tests/cases_misc/switching_oneway_screw.yaml) against the two-element
 * build (ratchet + screw, tests/cases_misc/switching_lock_mu0.yaml): the same event counts
 * as the event-driven reference (33 slip phases of D, 4 lock stops: the lock's torque
 * switching on), no positive work of the lock, and the same state at 8 s (nut C and screw
 * angle within the runs' own accuracy: adaptive steps, atol_step 1e-6). */
typedef struct owwatch {
    int esc, efr, have, engaged, stops, slips, mf;
    double t, F, w, wpos;
    long restarts;
} owwatch_t;

static void ow_hook(fmb_sim_t *s, double h, void *user)
{
    (void)h;
    owwatch_t *w = user;
    const swstate_t F = switch_state(s, w->efr);
    const fmb_model_t *m = fmb_sim_model(s);
    const int o = fmb_model_body_offset(m, fmb_model_find_body(m, "screw"));
    double z[4];
    if (fmb_test_switch_z(s, w->esc, z)) printf("FAIL thread LCP unknowns\n"), exit(1);
    const double lam = z[3], om = fmb_sim_qd(s)[o + 2], t = fmb_sim_time(s);
    if (w->have) {
        const int re = restarts(s) != w->restarts;
        const double F1 = re ? w->F : lam;
        w->wpos += fmax(0.25 * (t - w->t) * (w->F + F1) * (w->w + om), 0.0);
        w->stops += lam > 0 && !w->engaged;
        w->slips += F.mode == 1 && w->mf == 0;
    }
    w->t = t, w->F = lam, w->w = om, w->engaged = lam > 0, w->mf = F.mode, w->have = 1;
    w->restarts = restarts(s);
}

static void oneway_final(const char *path, owwatch_t *w, double *xc, double *th)
{
    const char *sets[] = {"A=2.2", "Js=0.1"};
    char err[512];
    fmb_case_t *c = fmb_case_load(path, sets, 2, err, sizeof err);
    if (!c) printf("FAIL load: %s\n", err), exit(1);
    fmb_model_t *m = fmb_case_model(c);
    fmb_sim_t *s = fmb_sim_create(m, fmb_case_options(c));
    if (!s || fmb_sim_initialize(s)) printf("FAIL start: %s\n", s ? fmb_sim_last_error(s) : ""), exit(1);
    if (w) {
        w->esc = switching_force(m, "thread");
        w->efr = switching_force(m, "friction");
        fmb_test_set_accept_hook(s, ow_hook, w);
    }
    run_to(s, 8.0);
    if (w) ow_hook(s, 0, w);
    *xc = fmb_sim_q(s)[fmb_model_body_offset(m, fmb_model_find_body(m, "C"))];
    *th = fmb_sim_q(s)[fmb_model_body_offset(m, fmb_model_find_body(m, "screw")) + 2];
    fmb_sim_destroy(&s);
    fmb_case_destroy(&c);
}

static void test_oneway_screw(const char *path_one, const char *path_two)
{
    owwatch_t w = {.esc = -1, .efr = -1};
    double x1, th1, x2, th2;
    oneway_final(path_one, &w, &x1, &th1);
    oneway_final(path_two, NULL, &x2, &th2);
    printf("oneway_screw: %d slip phases, %d lock stops, positive lock work %.3g J; at 8 s "
           "nut %.15g m (two elements %.15g), screw %.12g rad (%.12g)\n",
           w.slips, w.stops, w.wpos, x1, x2, th1, th2);
    CHECK_NEAR("oneway_screw: slip phases of D (event-driven reference)", w.slips, 33, 0);
    CHECK_NEAR("oneway_screw: lock stops (event-driven reference)", w.stops, 4, 0);
    CHECK_NEAR("oneway_screw: positive work of the lock (J)", w.wpos, 0, 1e-12);
    CHECK_NEAR("oneway_screw: nut at 8 s, against ratchet + screw (m)", x1, x2, 1e-9);
    CHECK_NEAR("oneway_screw: screw angle at 8 s, against ratchet + screw (rad)", th1, th2, 1e-6);
}

int main(int argc, char **argv)
{
    const char *w = argc > 1 ? argv[1] : "all";
    const int all = !strcmp(w, "all");
    if (all || !strcmp(w, "brake")) test_brake();
    if (all || !strcmp(w, "ratchet")) test_ratchet();
    if (all || !strcmp(w, "gap")) test_gap();
    if (all || !strcmp(w, "screw")) test_screw();
    if (all || !strcmp(w, "gap_error_control")) test_gap_error_control();
    if (!strcmp(w, "seed") && argc > 2) test_seed(argv[2]);
    if (!strcmp(w, "lock_mu0") && argc > 2) test_lock_mu0(argv[2]);
    if (!strcmp(w, "startup") && argc > 2) test_startup(argv[2]);
    if (!strcmp(w, "gap_step_end") && argc > 2) test_gap_step_end(argv[2]);
    if (!strcmp(w, "output_dt") && argc > 2) test_output_dt(argv[2]);
    if (!strcmp(w, "oneway_screw") && argc > 3) test_oneway_screw(argv[2], argv[3]);
    printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}

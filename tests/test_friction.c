/*
 * Frictional sliding joints (seed 000, docs/theory.md section 9): physics checks of the
 * corner normal forces, LuGre and Coulomb friction, contact modes and step convergence,
 * each against an independent hand result (statics, momentum, work-energy, bristle
 * dynamics). Sub-tests (argv[1]); see docs/validation.md, "Friction":
 *
 *   case1_normal        slider case 1 (LuGre): lower face only, F1+ + F2+ = m g, the
 *                       corner split from the moment balance, sliding friction g(v) m g
 *   case1_slip_start    first slip at t* = 2 asin(mu0 m g / F0): LuGre within the
 *                       presliding lead estimated from the bristle dynamics, Coulomb
 *                       within one step
 *   lugre_vs_coulomb    velocity histories of the two models in the slip phases
 *   case2_modes         tall block (case 2): single face and diagonal contact in stick,
 *                       corner forces from statics, friction balancing the applied force
 *   slider_pendulum     seed example 2: normal resultant = (m1 + m2) g + m2 yG''
 *   step_convergence    case 1 at h = 1e-3, 1e-4 against h = 1e-5 over 0..4 s
 *   energy              case 1, sigma1 = 0 and Coulomb: T - W (friction included) constant
 *
 *   trace H T_END FILE [coulomb]  (for bench/friction_bench.sh) case 1 (LuGre) at step H
 *                       (a divisor of 10 ms): writes "t v" every 10 ms to FILE and prints
 *                       the wall time of the steps
 *
 * Slider case 1 (seed 000, example 1): block m = 2 kg, 2a x 2b = 0.6 x 0.2 m, in a
 * horizontal guide along the ground x axis, Fx = 15.5 sin(0.5 t) at the block centre,
 * g = 9.81. Corner forces (fmb_sim_contact_state): F1+, F2+ on the lower face at x = -a
 * and +a, F1-, F2- on the upper face. Friction on the slider at the face of each corner.
 *
 * Integrator: HHT (alpha = -0.05) unless stated. flexmb's HHT (src/solve/sim.c, the
 * generalized-alpha form with am = 0, af = -alpha) satisfies M qdd_{n+1} + F_{n+1} = 0 at
 * t_{n+1} (the alpha-weighting enters the Newmark updates through the acceleration-like
 * variable a), so force balances with inertia are checked unweighted at every step.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "flexmb/flexmb.h"
#include "solve/test_hooks.h" /* the accept hook (energy: per integrator step) */

static int failures = 0;
#include "check.h"

static const double PI = 3.14159265358979323846;
static const double G = 9.81;
/* seed 000 LuGre parameters */
static const double MU = 0.56, MU0 = 0.75, SIGMA0 = 1.3e6, SIGMA1 = 350, VS = 0.0009, GAMMA = 2.0;
static const double M1 = 2.0, A1 = 0.3, B1 = 0.1, F0 = 15.5, W0 = 0.5; /* case 1 */

static double stribeck(double v)
{
    return MU + (MU0 - MU) * exp(-pow(fabs(v) / VS, GAMMA));
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* ---------------------------------------------------------------- models */

typedef struct slider_sys {
    fmb_model_t *model;
    fmb_sim_t *sim;
    int body, joint, rod; /* rod: slider_pendulum only */
    double alpha;
} slider_sys_t;

static fmb_friction_desc_t friction(const char *model, double a, double b, double sigma1)
{
    fmb_friction_desc_t f = {0};
    f.model = model;
    f.a = a, f.b = b;
    f.mu = MU, f.mu0 = MU0;
    f.sigma0 = SIGMA0, f.sigma1 = sigma1, f.sigma2 = 0.0;
    f.vs = VS, f.gamma = GAMMA;
    f.v_stick = 1e-4;
    return f;
}

/* Block of mass m and size 2a x 2b in a horizontal guide (ground x axis), force (fx, 0)
 * at the body point (0, S). */
static int build_block(slider_sys_t *s, const char *fm, double m, double a, double b,
                       double S, const char *fx, double sigma1)
{
    memset(s, 0, sizeof *s);
    s->model = fmb_model_create();
    fmb_model_set_gravity(s->model, 0, -G);
    fmb_body_desc_t bd = {0};
    bd.name = "slider";
    bd.mass = m;
    bd.inertia = m * (4 * a * a + 4 * b * b) / 12;
    s->body = fmb_model_add_body(s->model, &bd);
    fmb_joint_desc_t jd = {0};
    jd.name = "guide";
    jd.type = "prismatic";
    jd.body[0] = s->body, jd.body[1] = FMB_GROUND;
    jd.axis[0] = 1, jd.axis[1] = 0;
    jd.friction = friction(fm, a, b, sigma1);
    s->joint = fmb_model_add_joint(s->model, &jd);
    fmb_force_desc_t fd = {0};
    fd.name = "Fx";
    fd.type = "point";
    fd.body[0] = s->body;
    fd.point[0][1] = S;
    fd.expr[0] = fx, fd.expr[1] = "0";
    int rc = fmb_model_add_force(s->model, &fd);
    if (s->body < 0 || s->joint < 0 || rc < 0) {
        printf("model: %s\n", fmb_model_last_error(s->model));
        return -1;
    }
    return 0;
}

static int start(slider_sys_t *s, double h, double t_end, double alpha)
{
    fmb_sim_options_t o;
    fmb_sim_options_default(&o);
    o.h = h, o.t_end = t_end, o.alpha = alpha;
    s->alpha = alpha;
    s->sim = fmb_sim_create(s->model, &o);
    if (!s->sim) return -1;
    int rc = fmb_sim_initialize(s->sim);
    if (rc) printf("initialize: %s\n", fmb_sim_last_error(s->sim));
    return rc;
}

static void finish(slider_sys_t *s)
{
    fmb_sim_destroy(&s->sim);
    fmb_model_destroy(&s->model);
}

static int step(slider_sys_t *s)
{
    int rc = fmb_sim_step(s->sim);
    if (rc) printf("step at t = %.6f: %s\n", fmb_sim_time(s->sim), fmb_sim_last_error(s->sim));
    return rc;
}

/* Contact quantities of the current state. ff: friction force opposing +x (the force on
 * the slider along x is -ff); ntot: F1+ + F2+ + F1- + F2-; normal: F1+ + F2+ - F1- - F2-. */
typedef struct cstate {
    double F[4], fr[4], ff, ntot, normal, z, v;
    int mode;
} cstate_t;

static cstate_t contact(const slider_sys_t *s)
{
    cstate_t c;
    fmb_sim_contact_state(s->sim, s->joint, c.F, c.fr, &c.mode, &c.z, &c.v);
    c.ff = c.fr[0] + c.fr[1] + c.fr[2] + c.fr[3];
    c.ntot = c.F[0] + c.F[1] + c.F[2] + c.F[3];
    c.normal = c.F[0] + c.F[1] - c.F[2] - c.F[3];
    return c;
}

static double fx1(double t)
{
    return F0 * sin(W0 * t);
}

/* ---------------------------------------------------------------- 1 */

/* Case 1 statics. Vertical: the guide carries the weight, F1+ + F2+ - F1- - F2- = m g.
 * Moment about the centre (the force acts at the centre, the block does not rotate):
 * corner forces a (N2 - N1) and the friction -ff at the lower face (0, -b), whose moment is
 * -(-b)(-ff) = -b ff, so a (F2+ - F1+) = b ff:
 *   F1+ = (m g - b ff / a) / 2,   F2+ = (m g + b ff / a) / 2.
 * In stick the friction balances the applied force, ff = Fx (presliding: m xdd ~ m F''/k with
 * the bristle stiffness k = sigma0 m g = 2.6e7 N/m, ~1e-7 N; the Newton stopping tolerance
 * adds ~1e-5 N; asserted: 1e-6 m g = 2e-5 N on F_k) once the bristle
 * oscillation excited by a stop (or the start) has decayed: its damping rate is
 * sigma1 m g / (2 m) = 1717 1/s, so stick samples are taken 20 ms (e^-34) after the last
 * |v| >= 1e-6 (at a stop m xdd reaches ~0.03 N); in slip ff = g(v) m g
 * sign(v) with g = mu to 1e-6 once |v| > 3.6 vs. */
static int test_case1_normal(void)
{
    slider_sys_t s;
    if (build_block(&s, "lugre", M1, A1, B1, 0, "15.5*sin(0.5*t)", SIGMA1) ||
        start(&s, 1e-3, 10, -0.05))
        return 1;
    const double mg = M1 * G;
    double max_upper = 0, min_lower = INFINITY, max_normal = 0, max_stick = 0, max_slip = 0;
    double max_g = 0;
    long nstick = 0, nslip = 0;
    double t_moving = 0; /* last time |v| >= 1e-6 (the start counts as a jolt) */
    while (fmb_sim_time(s.sim) < 10 - 1e-9) {
        if (step(&s)) return 1;
        const double t = fmb_sim_time(s.sim);
        cstate_t c = contact(&s);
        max_upper = fmax(max_upper, fmax(c.F[2], c.F[3]));
        min_lower = fmin(min_lower, fmin(c.F[0], c.F[1]));
        max_normal = fmax(max_normal, fabs(c.normal - mg) / mg);
        if (fabs(c.v) >= 1e-6) t_moving = t;
        if (fabs(c.v) < 1e-6) { /* stick: ff = Fx */
            const double ff = fx1(t);
            const double e1 = fabs(c.F[0] - 0.5 * (mg - B1 * ff / A1));
            const double e2 = fabs(c.F[1] - 0.5 * (mg + B1 * ff / A1));
            if (t - t_moving < 0.02) continue; /* bristle transient after a stop */
            max_stick = fmax(max_stick, fmax(e1, e2));
            nstick++;
        } else if (fabs(c.v) > 0.01) { /* slip: ff = mu m g sign(v) */
            const double ff = MU * mg * (c.v > 0 ? 1 : -1);
            const double e1 = fabs(c.F[0] - 0.5 * (mg - B1 * ff / A1));
            const double e2 = fabs(c.F[1] - 0.5 * (mg + B1 * ff / A1));
            max_slip = fmax(max_slip, fmax(e1, e2));
            /* sliding friction coefficient |ff| / N against g(v) */
            max_g = fmax(max_g, fabs(fabs(c.ff) / c.ntot - stribeck(c.v)) / stribeck(c.v));
            CHECK(c.ff * c.v > 0, "t = %.3f: friction %.6g does not oppose v = %.6g", t, c.ff, c.v);
            nslip++;
        }
    }
    printf(
        "case 1 LuGre h = 1e-3, 0..10 s: %ld stick samples (|v| < 1e-6), %ld slip (|v| > 0.01)\n",
        nstick, nslip);
    printf("  max F1-, F2- = %.3g N; min F1+, F2+ = %.6g N\n", max_upper, min_lower);
    printf("  max |F1+ + F2+ - F1- - F2- - m g| / m g = %.3g\n", max_normal);
    printf("  corner split vs statics: stick max err %.3g N, slip max err %.3g N\n", max_stick,
           max_slip);
    printf("  sliding friction: max | |ff| / N - g(v) | / g(v) = %.3g\n", max_g);
    CHECK(nstick > 1000 && nslip > 1000, "stick %ld / slip %ld samples", nstick, nslip);
    CHECK(max_upper == 0.0, "upper face force %.3g N", max_upper);
    CHECK(min_lower > 0.0, "lower corner force %.3g N", min_lower);
    CHECK(max_normal < 1e-9, "normal resultant off m g by %.3g (relative)", max_normal);
    /* stick: the presliding inertia m xdd < 1e-6 N moves F_k by b/(2a) of it */
    CHECK(max_stick < 1e-6 * mg, "stick corner split off statics by %.3g N", max_stick);
    /* slip: g - mu < 1e-6 mu */
    CHECK(max_slip < 1e-6 * mg, "slip corner split off statics by %.3g N", max_slip);
    CHECK(max_g < 1e-6, "sliding friction off g(v) m g by %.3g (relative)", max_g);
    finish(&s);
    return 0;
}

/* ---------------------------------------------------------------- 2 */

/* Time of the first |v| > vth after initialization (-1: none before t_end). */
static double first_slip(slider_sys_t *s, double t_end, double vth)
{
    while (fmb_sim_time(s->sim) < t_end - 1e-12) {
        if (step(s)) return -2;
        cstate_t c = contact(s);
        if (fabs(c.v) > vth) return fmb_sim_time(s->sim);
    }
    return -1;
}

/* LuGre breakaway, by hand. Quasi-static presliding: the bristles carry the force,
 * sigma0 z = r = Fx / (m g), zdot = c = Fx' / (sigma0 m g), and zdot = v (1 - sigma0 z / g(v))
 * gives v (g(v) - r) / g(v) = c. With g ~ mu0 - D (v/vs)^2 (D = mu0 - mu, gamma = 2) and
 * r = mu0 - eps, v (eps - D v^2/vs^2) = mu0 c has a solution only while eps >= eps_b,
 * eps_b^(3/2) = 1.5 mu0 c sqrt(3 D) / vs: the quasi-static branch ends when
 * Fx = (mu0 - eps_b) m g, a time eps_b m g / Fx' before t*, at v_b = vs sqrt(eps_b / (3 D)).
 * After that the force excess grows only at the rate Fx' / (m g) while z keeps growing, so
 * v climbs from v_b to 1e-4 over a comparable time: the estimate brackets the slip start
 * in [t* - lead, t*] but does not place it inside. */
static void lugre_lead(double tstar, double *lead, double *vb)
{
    const double mg = M1 * G, Fd = F0 * W0 * cos(W0 * tstar);
    const double c = Fd / (SIGMA0 * mg), D = MU0 - MU;
    const double eps = pow(1.5 * MU0 * c * sqrt(3 * D) / VS, 2.0 / 3.0);
    *lead = eps * mg / Fd;
    *vb = VS * sqrt(eps / (3 * D));
}

/* The same bristle dynamics integrated independently: the block of case 1 as one degree of
 * freedom, m v' = Fx(t) - m g (sigma0 z + sigma1 z'), z' = v - sigma0 |v| z / g(v), classical
 * RK4 at step hr (the stiffest mode, the damped bristle oscillation
 * lambda^2 + (sigma1 g) lambda + sigma0 g = 0, |lambda| = 3.6e3 1/s, and the z relaxation
 * sigma0 |v| / g(v) < 1.8e3 1/s below 1e-3 m/s, are far inside RK4's stability limit 2.8/hr).
 * Returns the first time |v| reaches vth, linearly interpolated. */
static void lugre_rhs(double t, const double y[2], double d[2])
{
    const double v = y[0], z = y[1];
    const double zd = v - SIGMA0 * fabs(v) * z / stribeck(v);
    d[0] = fx1(t) / M1 - G * (SIGMA0 * z + SIGMA1 * zd);
    d[1] = zd;
}

static double lugre_reference_slip(double vth, double hr, double t_end)
{
    double y[2] = {0, 0}, t = 0;
    while (t < t_end) {
        double k1[2], k2[2], k3[2], k4[2], yt[2];
        lugre_rhs(t, y, k1);
        for (int i = 0; i < 2; i++)
            yt[i] = y[i] + 0.5 * hr * k1[i];
        lugre_rhs(t + 0.5 * hr, yt, k2);
        for (int i = 0; i < 2; i++)
            yt[i] = y[i] + 0.5 * hr * k2[i];
        lugre_rhs(t + 0.5 * hr, yt, k3);
        for (int i = 0; i < 2; i++)
            yt[i] = y[i] + hr * k3[i];
        lugre_rhs(t + hr, yt, k4);
        const double v0 = y[0];
        for (int i = 0; i < 2; i++)
            y[i] += hr / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
        t += hr;
        if (fabs(y[0]) >= vth) return t - hr * (fabs(y[0]) - vth) / (fabs(y[0]) - fabs(v0));
    }
    return -1;
}

static int test_case1_slip_start(void)
{
    const double mg = M1 * G, tstar = 2 * asin(MU0 * mg / F0);
    double lead, vb;
    lugre_lead(tstar, &lead, &vb);
    printf("t* = 2 asin(mu0 m g / F0) = %.6f s; LuGre breakaway estimate: lead %.4f s at v_b = "
           "%.3g m/s\n",
           tstar, lead, vb);
    /* LuGre, h = 1e-4: slip = |v| > 1e-4 m/s (v_stick), crossing interpolated */
    const double hL = 1e-4, vth = 1e-4;
    const double tr = lugre_reference_slip(vth, 1e-6, 3.0);
    const double tr2 = lugre_reference_slip(vth, 2e-6, 3.0);
    printf("independent 1-dof LuGre (RK4): |v| = 1e-4 at t = %.6f s (h = 1e-6), %.6f (h = 2e-6); "
           "t - t* = %+.5f s\n",
           tr, tr2, tr - tstar);
    slider_sys_t s;
    if (build_block(&s, "lugre", M1, A1, B1, 0, "15.5*sin(0.5*t)", SIGMA1) ||
        start(&s, hL, 3, -0.05))
        return 1;
    double tL = -1, vprev = 0;
    while (fmb_sim_time(s.sim) < 3 - 1e-9) {
        if (step(&s)) return 1;
        const double v = fabs(contact(&s).v), t = fmb_sim_time(s.sim);
        if (v > vth) {
            tL = t - hL * (v - vth) / (v - vprev);
            break;
        }
        vprev = v;
    }
    finish(&s);
    printf("flexmb LuGre (h = %g): |v| = 1e-4 at t = %.6f s, t - t* = %+.5f s, vs reference "
           "%+.2e s\n",
           hL, tL, tL - tstar, tL - tr);
    CHECK(tL > 0 && tL >= tstar - lead && tL <= tstar,
          "LuGre slip start %.5f outside "
          "[t* - lead, t*] = [%.5f, %.5f]",
          tL, tstar - lead, tstar);
    /* the reference is converged (1e-6 vs 2e-6 step); flexmb's crossing within 2 steps */
    CHECK(fabs(tr - tr2) < 1e-5, "reference not converged: %.6f vs %.6f", tr, tr2);
    CHECK(fabs(tL - tr) <= 2 * hL, "LuGre slip start %.6f vs reference %.6f", tL, tr);
    /* Coulomb, h = 1e-3: stick keeps v = 0 while Fx(t_{n+1}) <= mu0 m g */
    const double hC = 1e-3;
    if (build_block(&s, "coulomb", M1, A1, B1, 0, "15.5*sin(0.5*t)", SIGMA1) ||
        start(&s, hC, 3, -0.05))
        return 1;
    const double tC = first_slip(&s, 3.0, 1e-9);
    finish(&s);
    (void)first_slip;
    printf("Coulomb (h = %g): first |v| > 1e-9 at t = %.5f s, t - t* = %+.5f s\n", hC, tC,
           tC - tstar);
    CHECK(tC > 0 && fabs(tC - tstar) <= hC + 1e-9, "Coulomb slip start %.5f vs t* %.5f", tC, tstar);
    return 0;
}

/* ---------------------------------------------------------------- 3 */

/* In slip both models give m vdot = Fx - mu m g sign(v); the velocities differ by the
 * impulse of the net force between the two slip starts: |dv| <= a_max |tL - tC| with
 * a_max = (F0 - mu m g) / m (plus one step of either start). The starts differ because
 * LuGre creeps away ~2 ms before t* while Coulomb slides at t* with mu_e = mu0 until
 * |v| > v_stick = 1e-4 (then mu): the net force (F' (t - t*)) gives v = F' (t - t*)^2 / 2m,
 * 13 ms to reach 1e-4 m/s. The Stribeck transition
 * of LuGre (v up to a few vs, ~1 ms) only removes impulse from the LuGre side. */
static int test_lugre_vs_coulomb(void)
{
    const double h = 1e-3, T = 10, mg = M1 * G;
    const int n = (int)lround(T / h);
    double *vL = calloc(n + 1, sizeof *vL), *vC = calloc(n + 1, sizeof *vC);
    slider_sys_t s;
    for (int pass = 0; pass < 2; pass++) {
        double *v = pass ? vC : vL;
        if (build_block(&s, pass ? "coulomb" : "lugre", M1, A1, B1, 0,
                        "15.5*sin(0.5*t)", SIGMA1) ||
            start(&s, h, T, -0.05))
            return 1;
        for (int k = 1; k <= n; k++) {
            if (step(&s)) return 1;
            v[k] = fmb_sim_qd(s.sim)[0];
        }
        finish(&s);
    }
    /* slip phases: either |v| > 1e-3 (above the LuGre rebound after a stop, 6e-4 m/s) */
    const double amax = (F0 - MU * mg) / M1, vth = 1e-3;
    int phase = 0, k = 1;
    while (k <= n) {
        while (k <= n && fabs(vL[k]) <= vth && fabs(vC[k]) <= vth)
            k++;
        if (k > n) break;
        int kL = -1, kC = -1;
        double dmax = 0, vmax = 0;
        int k0 = k;
        while (k <= n && (fabs(vL[k]) > vth || fabs(vC[k]) > vth)) {
            if (kL < 0 && fabs(vL[k]) > vth) kL = k;
            if (kC < 0 && fabs(vC[k]) > vth) kC = k;
            dmax = fmax(dmax, fabs(vL[k] - vC[k]));
            vmax = fmax(vmax, fmax(fabs(vL[k]), fabs(vC[k])));
            k++;
        }
        phase++;
        const double bound = amax * (fabs((kL - kC) * h) + 2 * h);
        printf("slip phase %d: t = %.3f..%.3f s, starts LuGre %.3f Coulomb %.3f, max |vL - vC| = "
               "%.4f m/s (%.2f %% of max |v| %.4f), bound a_max |tL - tC| = %.4f\n",
               phase, k0 * h, (k - 1) * h, kL * h, kC * h, dmax, 100 * dmax / vmax, vmax, bound);
        CHECK(dmax <= bound, "phase %d: velocity difference %.4g above %.4g", phase, dmax, bound);
    }
    CHECK(phase >= 2, "only %d slip phases", phase);
    free(vL), free(vC);
    return 0;
}

/* ---------------------------------------------------------------- 4 */

/* Case 2 (seed): a = 0.3, b = 0.54, S = 0 (force at the centre), Fx = 20 sin^2(0.5 t).
 * The friction -ff at the lower face and Fx at the centre form a couple b ff tilting the
 * block forward; the weight (through the corner forces) restores at most a m g. In stick
 * ff = Fx:
 *   single face (Fx < a m g / b = 10.9 N): F1+ = (m g - b Fx / a) / 2, F2+ = (m g + b Fx/a)/2
 *   diagonal (F2+ and F1-): F2+ - F1- = m g and, with mu_L = ff / (F2+ + F1-),
 *     a (F2+ + F1-) = b mu_L (F2+ - F1-)  =>  F2+ + F1- = sqrt(b m g Fx / a),
 *     F2+ = (m g + sqrt(b m g Fx / a)) / 2, F1- = (sqrt(b m g Fx / a) - m g) / 2.
 * In slip mu_L -> mu = 0.56 > a / b = 0.556: F1- / F2+ = (b mu - a) / (a + b mu) = 0.4 %. */
static int test_case2_modes(void)
{
    const double m = 2.0, a = 0.3, b = 0.54, h = 1e-3, T = 10, mg = m * G;
    slider_sys_t s;
    if (build_block(&s, "lugre", m, a, b, 0, "20*sin(0.5*t)^2", SIGMA1) ||
        start(&s, h, T, -0.05))
        return 1;
    long count[2][4] = {{0}}; /* [slip][mode] */
    double e_face = 0, e_diag = 0, e_bal = 0, e_hht = 0, e_slipdiag = 0, r_slip = 0;
    int prev_mode = -1;
    double t_moving = 0, r_meas = 0, e_hht_rel = 0, t_hht = 0, x_hht = 0, v_hht = 0;
    const double al = -0.05, beta = 0.25 * (1 - al) * (1 - al), gam = 0.5 - al;
    const double bh2 = beta * (1 - al) * h * h, gfac = gam / (beta * h);
    while (fmb_sim_time(s.sim) < T - 1e-9) {
        if (step(&s)) return 1;
        const double t = fmb_sim_time(s.sim), Fx = 20 * pow(sin(0.5 * t), 2);
        cstate_t c = contact(&s);
        const double xdd = fmb_sim_qdd(s.sim)[0], res = Fx - c.ff;
        /* horizontal momentum: m xdd = Fx - ff */
        /* Newton stops on |dq| <= 1e-12 + 1e-10 |x|; the last increment moves xdd by dq/bh2 and
         * v by dq gamma/(beta h), which changes the LuGre friction by
         * (sigma1 + sigma0 h) N dv (its slope at small v): the residual bound */
        const double dq = 1e-12 + 1e-10 * fabs(fmb_sim_q(s.sim)[0]);
        const double bound = (m / bh2 + (SIGMA1 + SIGMA0 * h) * c.ntot * gfac) * dq;
        if (fabs(m * xdd - res) > e_hht) t_hht = t, x_hht = fmb_sim_q(s.sim)[0], v_hht = c.v;
        e_hht = fmax(e_hht, fabs(m * xdd - res));
        e_hht_rel = fmax(e_hht_rel, fabs(m * xdd - res) / bound);
        if (fabs(c.v) >= 1e-6) t_moving = t;
        const int slip = fabs(c.v) > 1e-4;
        if (c.mode != prev_mode)
            printf("  t = %7.3f: mode %d (%s), v = %+.3e, F = %.4f %.4f %.4f %.4f, friction "
                   "%.4f, Fx %.4f\n",
                   t, c.mode, slip ? "slip" : "stick", c.v, c.F[0], c.F[1], c.F[2], c.F[3], c.ff,
                   Fx);
        prev_mode = c.mode;
        count[slip][c.mode]++;
        if (!slip && t - t_moving >= 0.02) { /* settled stick (see case1_normal) */
            e_bal = fmax(e_bal, fabs(res));
            if (c.mode == 2) {
                e_face = fmax(e_face, fmax(fabs(c.F[0] - 0.5 * (mg - b * Fx / a)),
                                           fabs(c.F[1] - 0.5 * (mg + b * Fx / a))));
            } else if (c.mode == 3 && c.F[1] > 0 && c.F[2] > 0) {
                const double sum = sqrt(b * mg * Fx / a);
                e_diag = fmax(
                    e_diag, fmax(fabs(c.F[1] - 0.5 * (mg + sum)), fabs(c.F[2] - 0.5 * (sum - mg))));
                CHECK(isfinite(c.ff) && c.ff <= MU0 * c.ntot * (1 + 1e-9),
                      "t = %.3f: diagonal stick friction %.6g above mu0 N = %.6g", t, c.ff,
                      MU0 * c.ntot);
            }
        }
        if (fabs(c.v) > 0.01 && c.F[1] > 0) {
            /* slip: F1- / F2+ from the moment balance with the measured mu_L = ff / N */
            const double muL = fabs(c.ff) / c.ntot, r = (b * muL - a) / (a + b * muL);
            r_slip = c.F[2] / c.F[1], r_meas = r;
            e_slipdiag = fmax(e_slipdiag, fabs(r_slip - r));
            CHECK(c.F[0] < 1e-9 * c.F[1] && c.F[3] < 1e-9 * c.F[1],
                  "t = %.3f: slip contact not F2+ with F1-: %.3g %.3g %.3g %.3g", t, c.F[0], c.F[1],
                  c.F[2], c.F[3]);
        }
    }
    printf("case 2 LuGre h = %g: steps by mode (none, single point, single face, diagonal):\n"
           "  stick %ld %ld %ld %ld\n  slip  %ld %ld %ld %ld\n",
           h, count[0][0], count[0][1], count[0][2], count[0][3], count[1][0], count[1][1],
           count[1][2], count[1][3]);
    printf("  settled stick |Fx - friction| max %.3g N; momentum residual |m xdd - Fx + ff| max "
           "%.3g N (t = %.3f, x = %.3f, v = %.2e), %.3g times the estimate of the Newton "
           "stopping tolerance\n",
           e_bal, e_hht, t_hht, x_hht, v_hht, e_hht_rel);
    printf("  stick corner forces vs statics: single face %.3g N, diagonal %.3g N\n", e_face,
           e_diag);
    printf("  slip (|v| > 0.01): last F1-/F2+ = %.6f, statics (b mu_L - a)/(a + b mu_L) = %.6f "
           "(mu_L = mu: %.6f), max err %.3g\n",
           r_slip, r_meas, (b * MU - a) / (a + b * MU), e_slipdiag);
    CHECK(count[0][2] > 100, "no single face stick");
    CHECK(count[0][3] > 100, "no diagonal stick");
    /* slip: the front lower corner carries the block, the rear upper one 0.4 % of it */
    CHECK(count[1][3] > 100, "no slip with the rear lower corner lifted");
    /* settled stick: presliding inertia m xdd ~ m Fx''/k, k = sigma0 N > 2.5e7 N/m */
    CHECK(e_bal < 1e-4, "stick: friction off the applied force by %.3g N", e_bal);
    /* horizontal momentum of the reported state, every step (stick, slip and the
     * transitions): with the LuGre law solved exactly in the contact problem the reported
     * friction is the law at the root of the last iteration (docs/theory.md section 9), so
     * m xdd = Fx - ff holds to rounding (measured 5.9e-15 N); with the linearized law the
     * reported friction lagged the last Newton increment: 0.148 N at a slip-to-stick
     * transition (t = 8.778 s), 1.7 times the Newton-tolerance estimate */
    CHECK(e_hht < 1e-10 * mg, "momentum residual |m xdd - Fx + ff| %.3g N (t = %.3f)", e_hht,
          t_hht);
    CHECK(e_face < 1e-4, "single face corner forces off statics by %.3g N", e_face);
    CHECK(e_diag < 1e-4, "diagonal corner forces off statics by %.3g N", e_diag);
    CHECK(e_slipdiag < 1e-9, "slip corner ratio off statics by %.3g", e_slipdiag);
    finish(&s);
    return 0;
}

/* ---------------------------------------------------------------- 5 */

/* Seed example 2: slider m1 = 1 (a = 0.3, b = 0.1, LuGre), force 23 sin(pi t / 5) at its
 * centre; a uniform rod AB of mass m2 = 2 and length 2L = 1 (L = 0.5: the seed's
 * "length 2L", centre of mass at L from the pin A) pinned at A to the slider centre,
 * resisting moment -c2 theta2' (c2 = 0.8 N m s: a damping coefficient) built as in
 * cases/slider_pendulum.yaml from four dampers between rod points A +- r u and far slider
 * points. Rod coordinates: its centre of mass. Vertical momentum of slider + rod (the
 * slider does not move vertically; pin and dampers are internal):
 *   N - (m1 + m2) g = m2 yG''  at every step (see the header on HHT). */
static int test_slider_pendulum(void)
{
    const double m1 = 1, m2 = 2, a = 0.3, b = 0.1, L = 0.5, c2 = 0.8, r = 0.5, D = 1000;
    const double h = 1e-3, T = 10, W = (m1 + m2) * G;
    slider_sys_t s;
    memset(&s, 0, sizeof s);
    s.model = fmb_model_create();
    fmb_model_set_gravity(s.model, 0, -G);
    fmb_body_desc_t bd = {0};
    bd.name = "slider";
    bd.mass = m1;
    bd.inertia = m1 * (4 * a * a + 4 * b * b) / 12;
    s.body = fmb_model_add_body(s.model, &bd);
    fmb_body_desc_t rd = {0};
    rd.name = "rod";
    rd.mass = m2;
    rd.inertia = m2 * 4 * L * L / 12;
    rd.pose[0] = 0, rd.pose[1] = -L, rd.pose[2] = -PI / 2; /* hanging: theta2 = -pi/2 */
    s.rod = fmb_model_add_body(s.model, &rd);
    fmb_joint_desc_t jd = {0};
    jd.name = "guide";
    jd.type = "prismatic";
    jd.body[0] = s.body, jd.body[1] = FMB_GROUND;
    jd.axis[0] = 1;
    jd.friction = friction("lugre", a, b, SIGMA1);
    s.joint = fmb_model_add_joint(s.model, &jd);
    fmb_joint_desc_t pd = {0};
    pd.name = "A";
    pd.type = "revolute";
    pd.body[0] = s.body, pd.body[1] = s.rod;
    pd.point[1][0] = -L; /* A in the rod frame (origin at the centre, x along AB) */
    const int jpin = fmb_model_add_joint(s.model, &pd);
    fmb_force_desc_t fd = {0};
    fd.name = "F";
    fd.type = "point";
    fd.body[0] = s.body;
    fd.expr[0] = "23*sin(pi*t/5)", fd.expr[1] = "0";
    fmb_model_set_param(s.model, "pi", PI);
    int rc = fmb_model_add_force(s.model, &fd);
    const double dp[4][4] = {
        {-L + r, 0, D, 0}, {-L - r, 0, D, 0}, {-L + r, 0, 0, D}, {-L - r, 0, 0, D}};
    static const char *names[4] = {"damp_px", "damp_mx", "damp_py", "damp_my"};
    for (int k = 0; k < 4 && rc >= 0; k++) {
        fmb_force_desc_t sd = {0};
        sd.name = names[k];
        sd.type = "spring";
        sd.body[0] = s.rod, sd.body[1] = s.body;
        sd.point[0][0] = dp[k][0], sd.point[0][1] = dp[k][1];
        sd.point[1][0] = dp[k][2], sd.point[1][1] = dp[k][3];
        sd.damping = c2 / (2 * r * r);
        sd.rest_length = 0; /* no stiffness: any rest length */
        rc = fmb_model_add_force(s.model, &sd);
    }
    if (s.body < 0 || s.rod < 0 || s.joint < 0 || jpin < 0 || rc < 0) {
        printf("model: %s\n", fmb_model_last_error(s.model));
        return 1;
    }
    if (start(&s, h, T, -0.05)) return 1;
    const int ro = fmb_model_body_offset(s.model, s.rod);
    const int n = (int)lround(T / h);
    double Nprev = contact(&s).normal, sumN = 0.5 * Nprev, max_id = 0, max_kin = 0, max_upper = 0,
           min_lower = INFINITY, max_viol = 0, Nmin = INFINITY, Nmax = 0, max_thd = 0;
    const double vy0 = 0; /* from rest */
    int nslip = 0, nstick = 0, n_id_big = 0;
    double qmax = 0;
    for (int k = 1; k <= n; k++) {
        if (step(&s)) return 1;
        cstate_t c = contact(&s);
        const double *q = fmb_sim_q(s.sim), *qd = fmb_sim_qd(s.sim), *qdd = fmb_sim_qdd(s.sim);
        const double th = q[ro + 2], thd = qd[ro + 2], thdd = qdd[ro + 2];
        /* normal force against the rod's vertical inertia. The rod's coordinates are
         * carrier-frame (docs/theory.md 1): rbar = A^T rG, so the inertial acceleration of
         * its centre is aG = A (rbar'' + th'' Itil rbar + 2 th' Itil rbar' - th'^2 rbar) */
        const double Nw = c.normal;
        const double *rb = q + ro, *rbd = qd + ro, *rbdd = qdd + ro;
        const double ax = rbdd[0] - thdd * rb[1] - 2 * thd * rbd[1] - thd * thd * rb[0];
        const double ay = rbdd[1] + thdd * rb[0] + 2 * thd * rbd[0] - thd * thd * rb[1];
        const double aGy = sin(th) * ax + cos(th) * ay;
        const double id = fabs(Nw - W - m2 * aGy) / W;
        /* the same with yG'' from the pendulum kinematics yG = yA + L sin(theta), yA = 0 */
        const double ygdd = L * (cos(th) * thdd - sin(th) * thd * thd);
        const double kin = fabs(Nw - W - m2 * ygdd) / W;
        max_id = fmax(max_id, id), max_kin = fmax(max_kin, kin);
        n_id_big += id > 1e-6;
        qmax = fmax(qmax, fmax(fabs(q[0]), fabs(q[ro]) + fabs(q[ro + 1])));
        if (k % 2500 == 0)
            printf("  t = %5.2f: N = %8.4f, N - (m1+m2) g = %+9.5f, m2 yG''(q'') "
                   "= %+9.5f, m2 L (cos th th'' - sin th th'^2) = %+9.5f\n",
                   k * h, c.normal, Nw - W, m2 * aGy, m2 * ygdd);
        Nprev = c.normal;
        sumN += (k == n ? 0.5 : 1.0) * c.normal;
        Nmin = fmin(Nmin, c.normal), Nmax = fmax(Nmax, c.normal);
        max_upper = fmax(max_upper, fmax(c.F[2], c.F[3]));
        min_lower = fmin(min_lower, fmin(c.F[0], c.F[1]));
        max_viol = fmax(max_viol, fmax(fmb_sim_joint_violation(s.sim, s.joint),
                                       fmb_sim_joint_violation(s.sim, jpin)));
        max_thd = fmax(max_thd, fabs(thd));
        if (fabs(c.v) > 1e-4)
            nslip++;
        else
            nstick++;
    }
    double vy1;
    {
        const double *q = fmb_sim_q(s.sim), *qd = fmb_sim_qd(s.sim), th = q[ro + 2];
        /* inertial velocity of G: A (rbar' + th' Itil rbar) */
        const double vx = qd[ro] - qd[ro + 2] * q[ro + 1], vy = qd[ro + 1] + qd[ro + 2] * q[ro];
        vy1 = sin(th) * vx + cos(th) * vy;
    }
    const double meanN = sumN / n;
    /* time average: mean N = (m1 + m2) g + m2 (yG'(T) - yG'(0)) / T, |yG'| <= L max|theta'| */
    const double avg_bound = m2 * 2 * L * max_thd / T;
    printf("slider-pendulum h = %g, 0..%g s: stick %d steps, slip %d steps\n", h, T, nstick, nslip);
    printf("  N in [%.4f, %.4f] N, time average %.5f N vs (m1 + m2) g = %.5f (%.3f %%); "
           "m2 (yG'(T) - yG'(0)) / T = %.5f, bound m2 2 L max|th'| / T = %.4f\n",
           Nmin, Nmax, meanN, W, 100 * (meanN - W) / W, m2 * (vy1 - vy0) / T, avg_bound);
    printf("  max |N - (m1+m2) g - m2 yG''| / (m1+m2) g: %.3g with the rod's "
           "q'', %.3g with the kinematic formula\n",
           max_id, max_kin);
    printf("  max F1-, F2- = %.3g N, min F1+, F2+ = %.4f N, max constraint violation %.3g\n",
           max_upper, min_lower, max_viol);
    CHECK(nslip > 100 && nstick > 100, "stick-slip missing: %d stick, %d slip", nstick, nslip);
    CHECK(max_upper == 0.0 && min_lower > 0.0, "not lower-face contact");
    CHECK(fabs(meanN - W) <= avg_bound, "mean normal force %.5f vs %.5f", meanN, W);
    CHECK(fabs(meanN - W) <= 0.03 * W, "mean normal force %.5f vs %.5f", meanN, W);
    /* to round-off, except where Newton stopped on |dq| <= 1e-10 |q|: an acceleration
     * tolerance of 1e-10 max|q| / (beta' h^2) on the masses (the stick-slip transitions) */
    const double bh2 = 0.25 * 1.05 * 1.05 * 1.05 * h * h;
    const double newton = (m1 + m2) * 1e-10 * qmax / bh2 / W;
    printf("  steps with |N - (m1+m2) g - m2 yG''| > 1e-6 (m1+m2) g: %d of %d; Newton-tolerance "
           "bound %.3g\n",
           n_id_big, n, newton);
    CHECK(n_id_big < n / 100, "normal force vs rod inertia above 1e-6 at %d steps", n_id_big);
    CHECK(max_id < newton, "normal force vs rod inertia: %.3g", max_id);
    /* with the LuGre law solved exactly in the contact problem the stick-slip transitions
     * hold it to rounding too (measured 9.9e-15; 2.4e-7 with the linearized law) */
    CHECK(max_id < 1e-12, "normal force vs rod inertia: %.3g (not to rounding)", max_id);
    CHECK(fabs(meanN - W - m2 * (vy1 - vy0) / T) < 1e-3,
          "time average of N - (m1+m2) g = %.6g vs m2 (yG'(T) - yG'(0)) / T = %.6g", meanN - W,
          m2 * (vy1 - vy0) / T);
    /* the kinematic formula uses th', th'' that satisfy the velocity and acceleration
     * constraints only to O(h^2) (index-3 integration): 1e-3 at h = 1e-3 */
    CHECK(max_kin < 1e-3, "normal force vs kinematic yG'': %.3g", max_kin);
    CHECK(max_viol < 1e-10, "constraint violation %.3g", max_viol);
    finish(&s);
    return 0;
}

/* ---------------------------------------------------------------- 6 */

/* Case 1 LuGre velocity at t = k * dt_out for k = 0..nout, step h. Returns wall time. */
static double run_case1(double h, double T, double dt_out, double *v, const char *fm)
{
    slider_sys_t s;
    if (build_block(&s, fm, M1, A1, B1, 0, "15.5*sin(0.5*t)", SIGMA1) || start(&s, h, T, -0.05))
        return -1;
    const long every = lround(dt_out / h), n = lround(T / h);
    v[0] = 0;
    const double t0 = now();
    for (long k = 1; k <= n; k++) {
        if (fmb_sim_step(s.sim)) {
            printf("step: %s\n", fmb_sim_last_error(s.sim));
            return -1;
        }
        if (k % every == 0) v[k / every] = fmb_sim_qd(s.sim)[0];
    }
    const double wall = now() - t0;
    finish(&s);
    return wall;
}

static int test_step_convergence(void)
{
    const double T = 4, dt = 1e-3;
    const int nout = (int)lround(T / dt);
    const double hs[3] = {1e-5, 1e-4, 1e-3};
    double *v[3];
    for (int i = 0; i < 3; i++) {
        v[i] = calloc(nout + 1, sizeof(double));
        const double wall = run_case1(hs[i], T, dt, v[i], "lugre");
        if (wall < 0) return 1;
        printf("h = %g: %.2f s wall\n", hs[i], wall);
    }
    double vmax = 0;
    for (int k = 0; k <= nout; k++)
        vmax = fmax(vmax, fabs(v[0][k]));
    double err[3] = {0};
    for (int i = 1; i < 3; i++) {
        int kmax = 0;
        for (int k = 0; k <= nout; k++)
            if (fabs(v[i][k] - v[0][k]) > err[i]) err[i] = fabs(v[i][k] - v[0][k]), kmax = k;
        err[i] /= vmax;
        printf("h = %g: max |v - v_ref| / max |v_ref| = %.3g (at t = %.3f s; max |v_ref| = %.4f "
               "m/s)\n",
               hs[i], err[i], kmax * dt, vmax);
    }
    printf("observed order between h = 1e-3 and 1e-4: %.2f\n", log10(err[2] / err[1]));
    CHECK(err[1] < 0.01, "velocity error at h = 1e-4: %.3g", err[1]);
    CHECK(err[2] < 0.01, "velocity error at h = 1e-3: %.3g", err[2]);
    CHECK(err[1] < err[2], "no convergence: %.3g at 1e-4, %.3g at 1e-3", err[1], err[2]);
    for (int i = 0; i < 3; i++)
        free(v[i]);
    return 0;
}

/* ---------------------------------------------------------------- 7 */

/* Work-energy for the block (no potential change: y fixed): T - W_applied - W_friction
 * (fmb_sim_energy()[3], the writer's work column includes the friction power) is constant
 * in exact dynamics. With the trapezoidal rule (HHT alpha = 0: m (v1 - v0) = h (F0 + F1)/2)
 * and the trapezoidal work h (F0 v0 + F1 v1) / 2 an integrator step changes it by exactly
 *   dE = m (v1^2 - v0^2)/2 - h (F0 v0 + F1 v1)/2 = -(h/4) (v1 - v0)(F1 - F0),
 * F the net horizontal force Fx - ff: checked per output step h as the sum over its
 * integrator steps (a Coulomb stop located inside an output step splits it in two, and the
 * restart at the stop starts the second with the net force re-solved at rest, m a_n:
 * the accept hook sees each integrator step's end state and its a_n), and its sum bounds the
 * drift. */
typedef struct energy_acc {
    const slider_sys_t *s;
    double F, v, pred; /* the last integrator step's end: net force, velocity; sum of dE */
    long restarts;
} energy_acc_t;

static void energy_hook(fmb_sim_t *sim, double h, void *user)
{
    energy_acc_t *A = user;
    cstate_t c = contact(A->s); /* the candidate's contact state, before the commit */
    const double t1 = fmb_sim_time(sim) + h, F1 = fx1(t1) - c.ff, v1 = fmb_sim_qd(sim)[0];
    /* after a restart the step starts from the net force re-solved there (a_n) */
    fmb_sim_stats_t st;
    fmb_sim_get_stats(sim, &st);
    const long r = st.restarts;
    const double F0 = r != A->restarts ? M1 * fmb_test_acc(sim)[0] : A->F;
    A->pred += -0.25 * h * (v1 - A->v) * (F1 - F0);
    A->F = F1, A->v = v1, A->restarts = r;
}

static int energy_run(const char *fm, double sigma1, const char *label)
{
    const double h = 1e-3, T = 10;
    slider_sys_t s;
    if (build_block(&s, fm, M1, A1, B1, 0, "15.5*sin(0.5*t)", sigma1) || start(&s, h, T, 0.0))
        return 1;
    double e[4];
    fmb_sim_energy(s.sim, e);
    const double E0 = e[3];
    energy_acc_t acc = {.s = &s, .F = fx1(0) - contact(&s).ff, .v = 0.0};
    fmb_test_set_accept_hook(s.sim, energy_hook, &acc);
    double Eprev = E0, max_step = 0, sum_bound = 0, max_drift = 0, max_W = 0;
    while (fmb_sim_time(s.sim) < T - 1e-9) {
        acc.pred = 0.0;
        if (step(&s)) return 1;
        fmb_sim_energy(s.sim, e);
        const double pred = acc.pred;
        max_step = fmax(max_step, fabs((e[3] - Eprev) - pred));
        sum_bound += fabs(pred);
        max_drift = fmax(max_drift, fabs(e[3] - E0));
        max_W = fmax(max_W, fmax(fabs(e[2]), e[0]));
        Eprev = e[3];
    }
    fmb_test_set_accept_hook(s.sim, NULL, NULL);
    printf("%s (trapezoidal, h = %g, 0..%g s): max |E - E0| = %.3g J (max |W|, T %.4g J; "
           "relative %.3g), sum (h/4)|dv dF| = %.3g J, max per-step deviation from "
           "-(h/4) dv dF = %.3g J\n",
           label, h, T, max_drift, max_W, max_drift / max_W, sum_bound, max_step);
    /* the identity holds per step to rounding (measured 4.5e-15 J): the friction's power is
     * booked from the final state's velocities and the LuGre law is solved exactly in the
     * contact problem (docs/theory.md section 9); before, the power used the contact's
     * velocity of the iterate before the last Newton increment (LuGre 1.9e-8 J, Coulomb
     * 6.4e-10 J per step) */
    CHECK(max_step < 1e-12, "%s: per-step deviation from -(h/4) dv dF %.3g J", label, max_step);
    CHECK(max_drift <= sum_bound, "%s: drift %.3g above sum (h/4)|dv dF| = %.3g", label, max_drift,
          sum_bound);
    /* a priori: smooth phases (h^2/4) int |a F'| dt ~ 2.5e-7 (2 m/s^2)(8 N/s)(10 s) = 4e-5 J,
     * 3e-6 of the work; the stick-slip jumps of F add (h/4)|dv dF| ~ 1e-6 J each */
    CHECK(max_drift < 1e-5 * max_W, "%s: drift %.3g J", label, max_drift);
    finish(&s);
    /* HHT default for the record */
    if (build_block(&s, fm, M1, A1, B1, 0, "15.5*sin(0.5*t)", sigma1) || start(&s, h, T, -0.05))
        return 1;
    max_drift = 0;
    while (fmb_sim_time(s.sim) < T - 1e-9) {
        if (step(&s)) return 1;
        fmb_sim_energy(s.sim, e);
        max_drift = fmax(max_drift, fabs(e[3] - E0));
    }
    printf("%s (HHT alpha = -0.05): max |E - E0| = %.3g J\n", label, max_drift);
    finish(&s);
    return 0;
}

static int test_energy(void)
{
    int rc = energy_run("lugre", 0.0, "LuGre sigma1 = 0");
    rc |= energy_run("coulomb", SIGMA1, "Coulomb");
    return rc;
}

/* ---------------------------------------------------------------- trace */

static int trace(int argc, char **argv)
{
    if (argc < 5) {
        printf("usage: test_friction trace H T_END FILE [coulomb]\n");
        return 2;
    }
    const double h = atof(argv[2]), T = atof(argv[3]), dt = 1e-2; /* common grid, h <= dt */
    const char *fm = argc > 5 && !strcmp(argv[5], "coulomb") ? "coulomb" : "lugre";
    const long nout = lround(T / dt);
    double *v = calloc(nout + 1, sizeof *v);
    const double wall = run_case1(h, T, dt, v, fm);
    if (wall < 0) return 1;
    FILE *f = fopen(argv[4], "w");
    if (!f) return 1;
    for (long k = 0; k <= nout; k++)
        fprintf(f, "%.6f %.12e\n", k * dt, v[k]);
    fclose(f);
    printf("wall %.4f s steps %ld\n", wall, lround(T / h));
    free(v);
    return 0;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    if (!strcmp(what, "trace")) return trace(argc, argv);
    static const struct {
        const char *name;
        int (*fn)(void);
    } tests[] = {{"case1_normal", test_case1_normal},
                 {"case1_slip_start", test_case1_slip_start},
                 {"lugre_vs_coulomb", test_lugre_vs_coulomb},
                 {"case2_modes", test_case2_modes},
                 {"slider_pendulum", test_slider_pendulum},
                 {"step_convergence", test_step_convergence},
                 {"energy", test_energy}};
    int found = 0;
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        if (strcmp(what, "all") && strcmp(what, tests[i].name)) continue;
        found = 1;
        printf("== %s\n", tests[i].name);
        if (tests[i].fn()) {
            printf("FAIL %s: run error\n", tests[i].name);
            failures++;
        }
    }
    if (!found) {
        printf("unknown sub-test '%s'\n", what);
        return 2;
    }
    printf(failures ? "%d failure(s)\n" : "ok\n", failures);
    return failures ? 1 : 0;
}

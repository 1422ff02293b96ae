/*
 * Pendulum validation against analytic results.
 *
 * Model: a uniform bar (mass m, length L, inertia m L^2/12 about its centre) pinned to
 * the ground at its end, gravity g = 9.81 in -y. Body frame origin at the pin, centre
 * of mass at (L/2, 0), angle theta from the inertial x axis; equilibrium theta = -pi/2.
 * With I_O = m L^2 / 3 and d = L/2 the exact equation is phi'' = -w0^2 sin(phi),
 * phi = theta + pi/2, w0^2 = m g d / I_O.
 *
 *   small:  amplitude 1 deg; period from interpolated zero crossings of phi against
 *           T0 = 2 pi / w0 (linear theory) and against the exact T (below).
 *   large:  amplitude 120 deg; period against T = 4 K(sin(phi0/2)) / w0, K the
 *           complete elliptic integral of the first kind, computed here by the
 *           arithmetic-geometric mean K(k) = pi / (2 AGM(1, sqrt(1 - k^2))).
 *   energy: max |E(t) - E(0)| over 6 s (total energy from fmb_sim_energy) for
 *           h, h/2, h/4 with alpha = 0 (trapezoidal Newmark) and alpha = -0.05;
 *           observed order log2(e(h)/e(h/2)) >= 1.8.
 * Usage: test_pendulum small|large|energy
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "flexmb/flexmb.h"

static int failures = 0;
#include "check.h"

static const double PI = 3.14159265358979323846;
static const double G = 9.81, MASS = 1.0, LEN = 1.0;

static double w0(void)
{
    return sqrt(MASS * G * (LEN / 2) / (MASS * LEN * LEN / 3));
}

/* Complete elliptic integral of the first kind by the AGM. */
static double ellipk(double k)
{
    double a = 1.0, b = sqrt(1.0 - k * k);
    for (int i = 0; i < 60 && fabs(a - b) > 1e-16 * a; i++) {
        double an = 0.5 * (a + b);
        b = sqrt(a * b);
        a = an;
    }
    return PI / (2.0 * a);
}

/* Relative period error T_h / T - 1 of HHT-alpha (beta = (1-alpha)^2/4,
 * gamma = 1/2 - alpha) on the linear oscillator x'' = -w^2 x at W = w h, from the
 * principal eigenvalues of its 3 x 3 amplification matrix on (x, h v, h^2 a). This is
 * an independent analysis of the scheme (Hilber, Hughes, Taylor 1977); for alpha = 0
 * it reduces to W / (2 atan(W / 2)) - 1 ~ W^2 / 12. */
static double hht_period_error(double alpha, double W)
{
    const double beta = 0.25 * (1 - alpha) * (1 - alpha), gamma = 0.5 - alpha, W2 = W * W;
    double A[3][3];
    for (int c = 0; c < 3; c++) {
        double y[3] = {c == 0, c == 1, c == 2}; /* X, V, Acc */
        double pred = y[0] + y[1] + (0.5 - beta) * y[2];
        double a1 = (-(1 + alpha) * W2 * pred + alpha * W2 * y[0]) / (1 + (1 + alpha) * beta * W2);
        A[0][c] = pred + beta * a1;
        A[1][c] = y[1] + (1 - gamma) * y[2] + gamma * a1;
        A[2][c] = a1;
    }
    /* characteristic polynomial l^3 - c2 l^2 + c1 l - c0 */
    double c2 = A[0][0] + A[1][1] + A[2][2];
    double c1 = A[0][0] * A[1][1] - A[0][1] * A[1][0] + A[0][0] * A[2][2] - A[0][2] * A[2][0] +
                A[1][1] * A[2][2] - A[1][2] * A[2][1];
    double c0 = A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) -
                A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
                A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
    /* the single real (spurious) root by bisection, then deflate */
    double lo = -10, hi = 10;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        double p = ((mid - c2) * mid + c1) * mid - c0;
        if (p < 0)
            lo = mid;
        else
            hi = mid;
    }
    double r = 0.5 * (lo + hi), b = r - c2, cc = c1 + r * b;
    double arg = atan2(sqrt(4 * cc - b * b), -b);
    return W / arg - 1;
}

typedef struct pend {
    fmb_model_t *m;
    fmb_sim_t *s;
} pend_t;

/* Bar released from rest at phi0 from the downward vertical. */
static int pend_create(pend_t *p, double phi0, double h, double alpha)
{
    memset(p, 0, sizeof *p);
    p->m = fmb_model_create();
    fmb_model_set_gravity(p->m, 0.0, -G);
    fmb_body_desc_t b = {.name = "bar",
                         .mass = MASS,
                         .inertia = MASS * LEN * LEN / 12,
                         .com = {LEN / 2, 0},
                         .pose = {0, 0, -PI / 2 + phi0}};
    int ib = fmb_model_add_body(p->m, &b);
    CHECK(ib == 1, "add_body returned %d: %s", ib, fmb_model_last_error(p->m));
    fmb_joint_desc_t j = {.name = "pin", .type = "revolute", .body = {ib, FMB_GROUND}};
    int ij = fmb_model_add_joint(p->m, &j);
    CHECK(ij == 0, "add_joint returned %d: %s", ij, fmb_model_last_error(p->m));
    fmb_sim_options_t o;
    fmb_sim_options_default(&o);
    o.h = h;
    o.alpha = alpha;
    p->s = fmb_sim_create(p->m, &o);
    if (!p->s) return -1;
    int rc = fmb_sim_initialize(p->s);
    CHECK(rc == 0, "initialize: %s", fmb_sim_last_error(p->s));
    return rc;
}

static void pend_destroy(pend_t *p)
{
    fmb_sim_destroy(&p->s);
    fmb_model_destroy(&p->m);
}

static double phi_of(const fmb_sim_t *s)
{
    return fmb_sim_q(s)[2] + PI / 2;
}

/* Period from the zero crossings of phi over ncross crossings (linear interpolation:
 * at a crossing phi'' = -w0^2 sin(phi) = 0, so the interpolation error is O(h^3)). */
static double measure_period(double phi0, double h, double alpha, int ncross, double *amp_end)
{
    pend_t p;
    if (pend_create(&p, phi0, h, alpha)) {
        pend_destroy(&p);
        return NAN;
    }
    double tc[64];
    int nc = 0;
    double prev = phi_of(p.s), tprev = 0.0, amp = 0.0;
    long k = 0;
    while (nc < ncross) {
        int rc = fmb_sim_step(p.s);
        if (rc) {
            CHECK(0, "step: %s", fmb_sim_last_error(p.s));
            break;
        }
        k++;
        double t = k * h, cur = phi_of(p.s);
        if (nc > 0) amp = fmax(amp, fabs(cur));
        if ((prev > 0) != (cur > 0)) tc[nc++] = tprev + h * prev / (prev - cur);
        prev = cur, tprev = t;
    }
    if (amp_end) *amp_end = amp;
    pend_destroy(&p);
    /* consecutive crossings are half a period apart */
    return 2.0 * (tc[nc - 1] - tc[0]) / (nc - 1);
}

static int test_small(void)
{
    const double phi0 = PI / 180.0;
    const double T0 = 2 * PI / w0();
    const double Tex = 4.0 * ellipk(sin(phi0 / 2)) / w0();
    printf("small amplitude %.4g rad: linear T0 = %.12f s, exact T = %.12f s (T/T0 - 1 = %.3e)\n",
           phi0, T0, Tex, Tex / T0 - 1);
    /* the amplification-matrix analysis against the closed form for alpha = 0 */
    const double Wt = 0.1, ptr = Wt / (2 * atan(Wt / 2)) - 1;
    CHECK(fabs(hht_period_error(0.0, Wt) - ptr) < 1e-12, "HHT analysis %.15g vs %.15g",
          hht_period_error(0.0, Wt), ptr);
    const double hs[] = {2e-3, 1e-3};
    const double alphas[] = {0.0, -0.05};
    for (int a = 0; a < 2; a++) {
        double err[2];
        for (int i = 0; i < 2; i++) {
            double T = measure_period(phi0, hs[i], alphas[a], 11, NULL);
            err[i] = T / Tex - 1;
            double e0 = T / T0 - 1, wh = w0() * hs[i];
            double pred = hht_period_error(alphas[a], wh);
            printf("  alpha %5.2f h %.0e: T = %.12f  T/T0-1 = %+.3e  T/Texact-1 = %+.4e  "
                   "predicted (linear HHT analysis) %+.4e  ratio %.5f\n",
                   alphas[a], hs[i], T, e0, err[i], pred, err[i] / pred);
            /* Against linear theory: finite amplitude phi0^2/16 = 1.9e-5 plus the
             * period elongation of the integrator (predicted). */
            CHECK(fabs(e0) <= phi0 * phi0 / 16 + 1.01 * pred, "period vs linear theory %.3e", e0);
            /* Against the exact period: the remaining error is the integrator's period
             * elongation for w = w0 (at 1 deg the local frequency differs from w0 by
             * < phi0^2/8 = 4e-5 relative, so the prediction holds to well within 1%). */
            CHECK(fabs(err[i] - pred) <= 0.01 * pred, "period error %.4e vs predicted %.4e", err[i],
                  pred);
        }
        double order = log2(fabs(err[0] / err[1]));
        printf("  alpha %5.2f observed order of the period error %.3f\n", alphas[a], order);
        CHECK(order >= 1.8 && order <= 2.2, "period order %.3f not 2", order);
    }
    return 0;
}

static int test_large(void)
{
    const double phi0 = 2 * PI / 3; /* 120 deg */
    const double T0 = 2 * PI / w0();
    const double K = ellipk(sin(phi0 / 2));
    const double Tex = 4.0 * K / w0();
    printf("large amplitude 120 deg: K(sin 60deg) = %.15f, exact T = %.12f s (T0 = %.6f)\n", K, Tex,
           T0);
    /* Reference: K(m = 0.75) = 2.156515647499643 (Abramowitz & Stegun table 17.1). */
    CHECK(fabs(K - 2.156515647499643) < 1e-13, "AGM K = %.16f", K);
    const double hs[] = {2e-3, 1e-3};
    const double alphas[] = {0.0, -0.05};
    for (int a = 0; a < 2; a++) {
        double err[2];
        for (int i = 0; i < 2; i++) {
            double amp;
            double T = measure_period(phi0, hs[i], alphas[a], 7, &amp);
            err[i] = T / Tex - 1;
            double wh = w0() * hs[i], bound = hht_period_error(alphas[a], wh);
            printf("  alpha %5.2f h %.0e: T = %.12f  rel. error %+.3e  bound %.3e  "
                   "max |phi| in periods 1-3 %.9f rad (initial %.9f)\n",
                   alphas[a], hs[i], T, err[i], bound, amp, phi0);
            /* The local linearized frequency w0 sqrt(cos phi) never exceeds w0, so the
             * period elongation is at most that of the linear oscillator at w0. */
            CHECK(err[i] > 0 && err[i] <= bound, "period error %.3e outside (0, %.3e]", err[i],
                  bound);
        }
        double order = log2(fabs(err[0] / err[1]));
        printf("  alpha %5.2f observed order of the period error %.3f\n", alphas[a], order);
        CHECK(order >= 1.8 && order <= 2.2, "period order %.3f not 2", order);
    }
    return 0;
}

/* max |E(t) - E(0)| over t in [0, tend] */
static double energy_drift(double phi0, double h, double alpha, double tend, double *E0out)
{
    pend_t p;
    if (pend_create(&p, phi0, h, alpha)) {
        pend_destroy(&p);
        return NAN;
    }
    double e[FMB_ENERGY_COLUMNS];
    fmb_sim_energy(p.s, e);
    const double E0 = e[3];
    /* independent initial energy: at rest, V = m g y_c with y_c = -d cos(phi0) */
    const double Vex = -MASS * G * (LEN / 2) * cos(phi0);
    CHECK(fabs(e[0]) < 1e-14 && fabs(e[1] - Vex) < 1e-12 && e[2] == 0.0,
          "initial energy T %.3e V %.15f (expected %.15f) W %.3e", e[0], e[1], Vex, e[2]);
    double drift = 0.0;
    long n = lround(tend / h);
    for (long k = 1; k <= n; k++) {
        if (fmb_sim_step(p.s)) {
            CHECK(0, "step: %s", fmb_sim_last_error(p.s));
            break;
        }
        fmb_sim_energy(p.s, e);
        drift = fmax(drift, fabs(e[3] - E0));
    }
    if (E0out) *E0out = E0;
    pend_destroy(&p);
    return drift;
}

static int test_energy(void)
{
    const double phi0 = 2 * PI / 3, tend = 6.0;
    const double hs[] = {0.02, 0.01, 0.005};
    const double alphas[] = {0.0, -0.05};
    for (int a = 0; a < 2; a++) {
        double d[3], E0 = 0;
        for (int i = 0; i < 3; i++) {
            d[i] = energy_drift(phi0, hs[i], alphas[a], tend, &E0);
            printf("  alpha %5.2f h %.4f: max |E - E0| = %.4e J (relative to m g d = %.4e)\n",
                   alphas[a], hs[i], d[i], d[i] / (MASS * G * LEN / 2));
        }
        for (int i = 0; i < 2; i++) {
            double order = log2(d[i] / d[i + 1]);
            printf("  alpha %5.2f observed order h=%.4f -> %.4f: %.3f\n", alphas[a], hs[i],
                   hs[i + 1], order);
            CHECK(order >= 1.8, "energy drift order %.3f < 1.8 (alpha %g)", order, alphas[a]);
        }
        /* Size: relative drift bounded by (w0 h)^2 (second-order scheme). */
        double wh = w0() * hs[2];
        CHECK(d[2] / (MASS * G * LEN / 2) <= wh * wh, "drift %.3e too large at h = %.4f", d[2],
              hs[2]);
        (void)E0;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "all";
    int all = strcmp(what, "all") == 0;
    if (all || strcmp(what, "small") == 0) test_small();
    if (all || strcmp(what, "large") == 0) test_large();
    if (all || strcmp(what, "energy") == 0) test_energy();
    if (failures)
        printf("%d check(s) failed\n", failures);
    else
        printf("all checks passed\n");
    return failures ? 1 : 0;
}

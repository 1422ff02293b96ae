/*
 * Independent reduced model of the seed 002 slider-crank with a clearance joint between the
 * connecting rod and the slider (cases/slider_crank_clearance.yaml), sharing no code with
 * src/. Two degrees of freedom: the rod angle phi (the crank is driven at constant omega, the
 * rod pinned to the crank's end A) and the slider position x (on its guide, y = 0, not
 * turning). With r_A = r (cos wt, sin wt), u = (cos phi, sin phi), u' = (-sin phi, cos phi):
 *   journal centre r_B = r_A + L u, rod centre of mass r_G = r_A + (L/2) u,
 *   (I_G + m2 L^2/4) phi'' = -m2 (L/2) u'.a_A - m2 g (L/2) cos phi + L u'.f,
 *   m3 x'' = -f_x,   a_A = -r w^2 (cos wt, sin wt)   (Lagrange; f: the contact force on the
 * journal, -f on the bearing; gravity -g along y; the slider's weight goes into the guide).
 * Contact: e = r_B - (x, 0), delta = |e| - c, n = e/|e|, ddelta = n . (rdot_B - (xdot, 0)),
 * the seed's law (Wang, Liu, Ma 2016 eqs 8-10) re-typed from the paper's formulas:
 *   F_K = (pi E* Lb / 2) delta sqrt(delta / (2 (c + delta))),
 *   K_N = (pi E* Lb / (2 sqrt 2)) (1.5 y^0.5 - 0.5 y^1.5), y = delta / (c + delta),
 *   D = eta K_N s^2 (3 - 2 s), s = min(delta / d_max, 1),  F_N = max(F_K + D ddelta, 0),
 *   f = -F_N n (frictionless).
 * Integration: classical RK4 at a fixed step dt; a step that crosses the contact onset
 * (delta from < 0 to > 0) is redone in two parts, the first ending on delta = 0 (secant
 * iteration on the part's length, each try a full RK4 step from the step's start, to
 * 1e-12 c of penetration).
 * Output: RMS and peak of (a_slider - a_ideal) sampled every `sample` s over the whole run,
 * a_slider = -f_x / m3 exactly at the sample, a_ideal the rigid mechanism's (by hand).
 *
 * usage: cc -O2 -o /tmp/clr bench/clearance_reduced.c -lm
 *        /tmp/clr [c=0.25e-3] [rpm=200] [revs=20] [dt=1e-7] [sample=1e-5] [eta=1e-3]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double R = 0.05, L = 0.12, m2 = 0.21, I2 = 2.5e-4, m3 = 0.14, g = 9.81;
static double c = 0.25e-3, w, Es, Lb = 10e-3, eta = 1e-3, dmax = 1e-4;

/* contact force on the journal at state y = (phi, phid, x, xd), time t */
static void force(double t, const double *y, double f[2], double *delta_out)
{
    const double ca = cos(w * t), sa = sin(w * t), cp = cos(y[0]), sp = sin(y[0]);
    const double rb[2] = {R * ca + L * cp, R * sa + L * sp};
    const double vb[2] = {-R * w * sa - L * sp * y[1], R * w * ca + L * cp * y[1]};
    const double e[2] = {rb[0] - y[2], rb[1]}, ed[2] = {vb[0] - y[3], vb[1]};
    const double eps = hypot(e[0], e[1]), delta = eps - c;
    f[0] = f[1] = 0.0;
    if (delta_out) *delta_out = delta;
    if (!(delta > 0)) return;
    const double n[2] = {e[0] / eps, e[1] / eps}, dd = n[0] * ed[0] + n[1] * ed[1];
    const double a = M_PI * Es * Lb / 2.0, yy = delta / (c + delta);
    const double FK = a * delta * sqrt(delta / (2.0 * (c + delta)));
    const double KN = a / sqrt(2.0) * (1.5 * sqrt(yy) - 0.5 * yy * sqrt(yy));
    const double s = fmin(delta / dmax, 1.0);
    double FN = FK + eta * KN * s * s * (3.0 - 2.0 * s) * dd;
    if (FN < 0) FN = 0;
    f[0] = -FN * n[0], f[1] = -FN * n[1];
}

static void rhs(double t, const double *y, double *dy)
{
    double f[2];
    force(t, y, f, NULL);
    const double ca = cos(w * t), sa = sin(w * t), cp = cos(y[0]), sp = sin(y[0]);
    const double aA[2] = {-R * w * w * ca, -R * w * w * sa}, up[2] = {-sp, cp};
    const double J = I2 + m2 * L * L / 4.0;
    dy[0] = y[1];
    dy[1] = (-m2 * L / 2.0 * (up[0] * aA[0] + up[1] * aA[1]) - m2 * g * L / 2.0 * cp +
             L * (up[0] * f[0] + up[1] * f[1])) / J;
    dy[2] = y[3];
    dy[3] = -f[0] / m3;
}

static void rk4(double t, const double *y, double h, double *out)
{
    double k1[4], k2[4], k3[4], k4[4], z[4];
    rhs(t, y, k1);
    for (int i = 0; i < 4; i++) z[i] = y[i] + 0.5 * h * k1[i];
    rhs(t + 0.5 * h, z, k2);
    for (int i = 0; i < 4; i++) z[i] = y[i] + 0.5 * h * k2[i];
    rhs(t + 0.5 * h, z, k3);
    for (int i = 0; i < 4; i++) z[i] = y[i] + h * k3[i];
    rhs(t + h, z, k4);
    for (int i = 0; i < 4; i++) out[i] = y[i] + h / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
}

static double delta_of(double t, const double *y)
{
    double f[2], d;
    force(t, y, f, &d);
    return d;
}

static double a_ideal(double th)
{
    const double S = L * L - pow(R * sin(th), 2);
    return -R * w * w * cos(th) - R * R * w * w * cos(2 * th) / sqrt(S) -
           pow(R, 4) * w * w * pow(sin(2 * th), 2) / (4 * pow(S, 1.5));
}

int main(int argc, char **argv)
{
    double rpm = 200, revs = 20, dt = 1e-7, sample = 1e-5;
    if (argc > 1) c = atof(argv[1]);
    if (argc > 2) rpm = atof(argv[2]);
    if (argc > 3) revs = atof(argv[3]);
    if (argc > 4) dt = atof(argv[4]);
    if (argc > 5) sample = atof(argv[5]);
    if (argc > 6) eta = atof(argv[6]);
    w = rpm * 2 * M_PI / 60;
    Es = 1.0 / (2.0 * (1 - 0.09) / 207e9);
    /* start: crank at 0 at full speed, journal centred, rod along x at the rate of the ideal
     * mechanism at th = 0 (phi' = -(r w cos th)/(L cos phi) = -r w / L), slider at rest
     * (ideal slider velocity at th = 0 is 0) */
    double y[4] = {0.0, -R * w / L, R + L, 0.0}, t = 0.0;
    const double T = revs * 60 / rpm;
    const long ns = lround(T / sample);
    double sum = 0, peak = 0;
    long nsamp = 0, impacts = 0, contact = 0;
    int was_in = 0;
    for (long k = 0; k <= ns; k++) {
        const double ts = k * sample;
        while (t < ts - 1e-15) {
            const double h = fmin(dt, ts - t);
            double yn[4];
            rk4(t, y, h, yn);
            const double d0 = delta_of(t, y), d1 = delta_of(t + h, yn);
            if (d0 < 0 && d1 > 0) { /* land on the onset: secant on the part's length */
                double a = 0, da = d0, b = h, db = d1, yt[4];
                for (int it = 0; it < 100 && b - a > 1e-12 * h; it++) {
                    double s = a - da * (b - a) / (db - da);
                    if (!(s > a + 0.01 * (b - a) && s < b - 0.01 * (b - a))) s = 0.5 * (a + b);
                    rk4(t, y, s, yt);
                    const double ds = delta_of(t + s, yt);
                    if (ds <= 0) a = s, da = ds; else b = s, db = ds;
                    if (fabs(ds) < 1e-12 * c) break;
                }
                rk4(t, y, b, yt); /* the contact side of the root: the next step starts in it */
                for (int i = 0; i < 4; i++) y[i] = yt[i];
                t += b;
                impacts++;
                continue;
            }
            for (int i = 0; i < 4; i++) y[i] = yn[i];
            t += h;
        }
        double f[2], d;
        force(t, y, f, &d);
        const double dev = -f[0] / m3 - a_ideal(w * t);
        sum += dev * dev, nsamp++;
        if (fabs(dev) > peak) peak = fabs(dev);
        if (d > 0) contact++;
        was_in = d > 0;
    }
    (void)was_in;
    printf("c %g rpm %g revs %g dt %g: RMS %.3f peak %.1f impacts %ld contact fraction %.4f\n", c,
           rpm, revs, dt, sqrt(sum / nsamp), peak, impacts, (double)contact / nsamp);
    return 0;
}

/*
 * Dry friction with stick/slip between two bodies (seed 004, eqs 9-11; docs/switching.md),
 * in rotation (a brake or bearing torque: x = theta0 - theta1) or along an inertial axis
 * (x = e . (r_P0 - r_P1)); forces/relative.c gives x, its rate v and D = dx/dq.
 * Friction force along x (on body 0; the opposite on body 1): F = beta1 - beta2, a
 * set-valued Coulomb law with capacity Fmax,
 *   v > 0: F = -Fmax,  v < 0: F = +Fmax,  v = 0 (stick): |F| <= Fmax,
 * Fmax = F_static after a step that ended sticking (|v_n| < v_stick), else F_kinetic
 * (the seed's Fstick / Fslip; its eq 10: while stuck the friction equals the applied
 * force up to the static level). Written as the LCP (v: relative velocity at the end of
 * the step; the same form as the slider faces of contact_step.c)
 *   beta1 >= 0 _|_  v + sigma >= 0,   beta2 >= 0 _|_ -v + sigma >= 0,
 *   sigma >= 0 _|_  Fmax - beta1 - beta2 >= 0
 * (sigma = |v|). Generalized force Q = (beta1 - beta2) D^T: G = [D, -D, 0] per unit z.
 * The element has no smooth part (eval adds nothing; K = C = 0): its force is solved as
 * a total in every Newton iteration (solve/switch_step.c).
 */
#include "forces/forces.h"

#include <string.h>

static void fr_eval(const fmb_force_t *f, const fmb_bodyview_t v[2], double t, double *Q0,
                    double *Q1, double *K, double *C)
{
    (void)f, (void)v, (void)t, (void)Q0, (void)Q1, (void)K, (void)C;
}

static double fr_vstick(const fmb_force_t *f)
{
    return f->par[FMB_SW_FR_VSTICK] > 0 ? f->par[FMB_SW_FR_VSTICK] : 1e-6;
}

static void fr_lcp(const fmb_force_t *f, const fmb_bodyview_t v[2], double t, double v_n, double *G,
                   double *D, double *av, double *Az, double *b)
{
    (void)t;
    const int n = v[0].ndof + v[1].ndof;
    double x, xd;
    fmb_rel_coord(f, v, &x, &xd, D, NULL);
    for (int k = 0; k < n; k++)
        G[k] = D[k], G[n + k] = -D[k], G[2 * n + k] = 0.0;
    const double cap =
        fabs(v_n) < fr_vstick(f) ? f->par[FMB_SW_FR_STATIC] : f->par[FMB_SW_FR_KINETIC];
    memset(Az, 0, 9 * sizeof *Az);
    av[0] = 1.0, av[1] = -1.0, av[2] = 0.0;
    Az[0 + 3 * 2] = 1.0, Az[1 + 3 * 2] = 1.0;
    Az[2 + 3 * 0] = -1.0, Az[2 + 3 * 1] = -1.0;
    b[0] = b[1] = 0.0, b[2] = cap;
}

static int fr_mode(const fmb_force_t *f, const fmb_bodyview_t v[2], double t, const double *z,
                   double *force, double *vrel)
{
    (void)t;
    double x;
    fmb_rel_coord(f, v, &x, vrel, NULL, NULL);
    *force = z ? z[0] - z[1] : 0.0;
    return fabs(*vrel) < fr_vstick(f) ? 0 : 1;
}

static int fr_check(const fmb_force_t *f, char *msg, size_t len)
{
    int rc = fmb_rel_check(f, msg, len);
    if (rc) return rc;
    const double fs = f->par[FMB_SW_FR_STATIC], fk = f->par[FMB_SW_FR_KINETIC];
    if (!(fk >= 0) || !(fs >= fk)) {
        snprintf(msg, len,
                 "dry_friction '%s': need static >= kinetic >= 0 (got static %g, kinetic %g)",
                 f->name, fs, fk);
        return FMB_ERR_MODEL;
    }
    if (!(f->par[FMB_SW_FR_VSTICK] >= 0)) {
        snprintf(msg, len, "dry_friction '%s': v_stick must be >= 0", f->name);
        return FMB_ERR_MODEL;
    }
    return 0;
}

static const char *const fr_modes[] = {"stick", "slip"};

const fmb_force_class_t fmb_friction_class = {
    .name = "dry_friction",
    .nbodies = 2,
    .eval = fr_eval,
    .check = fr_check,
    .nz = 3,
    .lcp = fr_lcp,
    .mode = fr_mode,
    .mode_names = fr_modes,
    .nmodes = 2,
};

/*
 * LuGre friction (Canudas de Wit et al. 1995; seed 000 eq 3):
 *   dz/dt = v - sigma0 |v| z / g(v),   g(v) = mu + (mu0 - mu) exp(-(|v|/vs)^gamma),
 *   f = sigma0 z + s1(v) dz/dt + sigma2 v,   s1 = sigma1 [exp(-(v/vd)^2) if vd > 0].
 * Backward Euler over a step h from z_n with v the velocity at the end of the step
 * (a = sigma0 |v| / g, a' = da/dv = sigma0 (sgn v / g - |v| g' / g^2)):
 *   zd = (v - a z_n) / (1 + h a),  z = z_n + h zd,
 *   dzd/dv = (1 - a' z) / (1 + h a),
 *   df/dv = (sigma0 h + s1) dzd/dv + s1' zd + sigma2.
 * The update is L-stable: the step is set by accuracy, not by the bristle stiffness
 * (the bristle time constant g / (sigma0 |v|) is often far below the step). Its fixed
 * points are exact: steady sliding z = g(v) sgn(v) / sigma0, f = g(v) sgn(v) + sigma2 v,
 * and sticking (v = 0, z constant). h = 0 gives the continuous law at z = z_n.
 */
#include "contact/lugre.h"

#include <math.h>

double fmb_lugre_g(const fmb_friction_desc_t *d, double v)
{
    return d->mu + (d->mu0 - d->mu) * exp(-pow(fabs(v) / d->vs, d->gamma));
}

/* sigma1, or sigma1 exp(-(v/vd)^2) when vd > 0, and its derivative in v */
static void bristle_damping(const fmb_friction_desc_t *d, double v, double *s1, double *ds1)
{
    *s1 = d->vd > 0 ? d->sigma1 * exp(-(v / d->vd) * (v / d->vd)) : d->sigma1;
    *ds1 = d->vd > 0 ? -2.0 * *s1 * v / (d->vd * d->vd) : 0.0;
}

fmb_lugre_t fmb_lugre_step(const fmb_friction_desc_t *d, double z_n, double v, double h)
{
    const double av = fabs(v), sg = (v > 0) - (v < 0);
    const double g = fmb_lugre_g(d, v);
    const double r = av / d->vs, ex = exp(-pow(r, d->gamma));
    /* dg/dv = (mu0 - mu) ex (-gamma r^(gamma-1) / vs) sgn(v) */
    const double dg =
        av > 0 ? (d->mu0 - d->mu) * ex * (-d->gamma * pow(r, d->gamma - 1) / d->vs) * sg : 0.0;
    const double a = d->sigma0 * av / g;
    const double da = d->sigma0 * (sg / g - av * dg / (g * g));
    const double den = 1.0 + h * a;
    fmb_lugre_t o;
    o.zd = (v - a * z_n) / den;
    o.z = z_n + h * o.zd;
    const double dzd = (1.0 - da * o.z) / den;
    double s1, ds1;
    bristle_damping(d, v, &s1, &ds1);
    o.f = d->sigma0 * o.z + s1 * o.zd + d->sigma2 * v;
    o.df = (d->sigma0 * h + s1) * dzd + ds1 * o.zd + d->sigma2;
    return o;
}

fmb_lugre_t fmb_lugre_level(const fmb_friction_desc_t *d, double z, double zd, double v)
{
    double s1, ds1;
    bristle_damping(d, v, &s1, &ds1);
    const fmb_lugre_t o = {z, zd, d->sigma0 * z + s1 * zd + d->sigma2 * v, ds1 * zd + d->sigma2};
    return o;
}

double fmb_lugre_steady(const fmb_friction_desc_t *d, double v)
{
    return v != 0.0 ? (v > 0 ? 1.0 : -1.0) * fmb_lugre_g(d, v) / d->sigma0 : 0.0;
}

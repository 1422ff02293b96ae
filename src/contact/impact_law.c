/* Shared contact-impact laws: see impact_law.h for the equations. */
#include "contact/impact_law.h"

#include <math.h>

double fmb_step3(double x, double x0, double h0, double x1, double h1, double *dh)
{
    if (x <= x0) {
        *dh = 0.0;
        return h0;
    }
    if (x >= x1) {
        *dh = 0.0;
        return h1;
    }
    const double w = x1 - x0, s = (x - x0) / w;
    *dh = (h1 - h0) * 6.0 * s * (1.0 - s) / w;
    return h0 + (h1 - h0) * s * s * (3.0 - 2.0 * s);
}

double fmb_law_power_potential(double K, double n, double d)
{
    return d > 0 ? K * pow(d, n + 1.0) / (n + 1.0) : 0.0;
}

double fmb_friction_mu(double mu_s, double mu_d, double v_s, double v_d, double v, double *dmu)
{
    const double a = fabs(v), sg = v < 0 ? -1.0 : 1.0;
    if (a >= v_d) {
        *dmu = 0.0;
        return sg * mu_d;
    }
    if (a >= v_s) {
        double dg, g = fmb_step3(a, v_s, mu_s, v_d, mu_d, &dg);
        *dmu = dg; /* d/dv of sgn(v) g(|v|) */
        return sg * g;
    }
    return fmb_step3(v, -v_s, -mu_s, v_s, mu_s, dmu);
}

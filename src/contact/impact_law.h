/*
 * Shared contact-impact laws (scalar, with partial derivatives), for every contact-like
 * element (clearance joints, gap contacts). Penetration d > 0 in contact, rate dd = dd/dt
 * (> 0 approaching). Each law returns the normal force F >= 0 and writes dF/dd, dF/ddd;
 * a law that would pull (F < 0 in the restitution phase) is clamped to F = 0 with zero
 * partials (no adhesion). Checked by tests/test_impact_law.c against finite differences.
 */
#ifndef FMB_CONTACT_IMPACT_LAW_H
#define FMB_CONTACT_IMPACT_LAW_H

/* Cubic step (ADAMS STEP): h0 for x <= x0, h1 for x >= x1, h0 + (h1 - h0) s^2 (3 - 2 s)
 * with s = (x - x0) / (x1 - x0) between; *dh = dh/dx. */
double fmb_step3(double x, double x0, double h0, double x1, double h1, double *dh);

/* Hertz-type potential of K d^n: K d^(n+1) / (n + 1). */
double fmb_law_power_potential(double K, double n, double d);

/* Modified Coulomb coefficient of seed 002 eq 13 (odd in v, C1): mu_d sgn v beyond v_d,
 * cubic blend from mu_s at v_s to mu_d at v_d, and the cubic step from -mu_s at -v_s to
 * mu_s at v_s through 0 in |v| < v_s. *dmu = dmu/dv. */
double fmb_friction_mu(double mu_s, double mu_d, double v_s, double v_d, double v, double *dmu);

#endif

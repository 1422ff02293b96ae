/* The LuGre friction law (Canudas de Wit, Olsson, Astrom, Lischinsky 1995; seed 000 eq 3)
 * with its bristle state integrated by backward Euler over a step: one function shared by
 * the slider contacts (contact/friction.c) and the dry friction element
 * (forces/dry_friction.c). docs/theory.md, "LuGre friction". */
#ifndef FMB_CONTACT_LUGRE_H
#define FMB_CONTACT_LUGRE_H

#include "flexmb/flexmb.h"

/* Result of one step of the law at sliding velocity v. */
typedef struct fmb_lugre {
    double z;  /* bristle state at the end of the step */
    double zd; /* its rate (z - z_n) / h (h = 0: dz/dt of the continuous law) */
    double f;  /* friction level sigma0 z + sigma1(v) zd + sigma2 v (opposes v when > 0) */
    double df; /* d f / d v at fixed z_n and h */
} fmb_lugre_t;

/* Stribeck curve g(v) = mu + (mu0 - mu) exp(-(|v|/vs)^gamma). */
double fmb_lugre_g(const fmb_friction_desc_t *d, double v);

/* Steady-sliding bristle state z = sgn(v) g(v) / sigma0 (0 at rest): the start state of a
 * friction pair that is already sliding (no start-up spike of the sigma1 zdot term). */
double fmb_lugre_steady(const fmb_friction_desc_t *d, double v);

/* dz/dt = v - sigma0 |v| z / g(v) by backward Euler from z_n over h >= 0:
 *   zd = (v - a z_n) / (1 + h a),  a = sigma0 |v| / g(v),  z = z_n + h zd
 * (= (z_n + h v) / (1 + h a)); f = sigma0 z + s1(v) zd + sigma2 v with s1 = sigma1, or
 * sigma1 exp(-(v/vd)^2) when vd > 0. The units follow d: coefficients (slider, per unit
 * normal force) or forces and torques (dry friction element). */
fmb_lugre_t fmb_lugre_step(const fmb_friction_desc_t *d, double z_n, double v, double h);

/* The level at a given bristle state and rate (an accepted step's z and zd): f as above,
 * df = d f / d v at fixed z and zd (sigma2, plus the sigma1(v) term when vd > 0). */
fmb_lugre_t fmb_lugre_level(const fmb_friction_desc_t *d, double z, double zd, double v);

#endif

/* Private declarations of the force classes and their registry. */
#ifndef FMB_FORCES_FORCES_H
#define FMB_FORCES_FORCES_H
#include <stdio.h>

#include "model/model.h"

extern const fmb_force_class_t fmb_point_force_class;
extern const fmb_force_class_t fmb_torque_class;
extern const fmb_force_class_t fmb_spring_class;
extern const fmb_force_class_t fmb_torsion_class;
extern const fmb_force_class_t fmb_clearance_class;
extern const fmb_force_class_t fmb_gap_class;
extern const fmb_force_class_t fmb_friction_class;
extern const fmb_force_class_t fmb_ratchet_class;
extern const fmb_force_class_t fmb_screw_class;

/* Relative coordinate of a switching element (forces/relative.c): x, xd and, when
 * non-NULL, D = dx/dq and Dv = d(xd)/dq over the two-body block (nn entries each). */
void fmb_rel_coord(const fmb_force_t *f, const fmb_bodyview_t v[2], double *x, double *xd,
                   double *D, double *Dv);
/* Tangents of a force F(x, xd) along x (F_x = dF/dx, F_xd = dF/dxd) added to K, C. */
void fmb_rel_tangent(const fmb_force_t *f, const fmb_bodyview_t v[2], double F, double Fx,
                     double Fxd, double *K, double *C);
/* Q0, Q1 += F D (the generalized force of F along x). */
void fmb_rel_apply(const fmb_bodyview_t v[2], const double *D, double F, double *Q0, double *Q1);
/* Common checks: distinct bodies, unit axis, known coordinate. */
int fmb_rel_check(const fmb_force_t *f, char *msg, size_t len);

#endif

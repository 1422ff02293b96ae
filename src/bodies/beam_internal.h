/* Private declarations shared by the beam body's files (beam.c, beam_shape.c,
 * beam_build.c). */
#ifndef FMB_BODIES_BEAM_INTERNAL_H
#define FMB_BODIES_BEAM_INTERNAL_H

#include "bodies/beam.h"

/* 4-point Gauss rule on [-1, 1]: abscissae and weights. */
extern const double fmb_beam_gauss_x[4], fmb_beam_gauss_w[4];
/* Shape functions of element e's six local dofs (u1 v1 phi1 u2 v2 phi2) at body-frame
 * point (x, y0). */
void fmb_beam_local_shape(const fmb_beam_t *bm, int e, double x, double y0, double nx[6],
                          double ny[6]);
/* Shape functions at body-frame point (x, y0) of element e, on the body's columns. */
void fmb_beam_element_shape(const fmb_beam_t *bm, int e, double x, double y0, fmb_shape_t *N);

#endif

/* The deformed centre line of a beam body near a body-frame point (beam_curve.c). */
#ifndef FMB_BODIES_BEAM_CURVE_H
#define FMB_BODIES_BEAM_CURVE_H

#include "bodies/beam.h"

/* Local variables of the curve functions: y = (s_x, s_y, z_0 .. z_5), the body-frame point
 * s and the six dofs z = (u_a, v_a, phi_a, u_b, v_b, phi_b) of the element under it. */
#define FMB_CURVE_NY 8

/* The centre line at a body-frame point s: the element e, the material coordinate xi of
 * the curve point that s is matched with, and two functions of y:
 *   f[0]: the offset of s from the curve across it (zero iff s lies on the curve),
 *   f[1]: the curve's tangent angle there, relative to the body frame,
 * with their gradients g[k] over y. */
typedef struct fmb_beam_curve {
    int e;
    int col[6];  /* z's columns in the body's q (-1: removed, its value 0) */
    double xi;   /* material coordinate */
    double zeta; /* position in the element, 0 .. 1 (outside: extrapolated) */
    double f[2];
    double g[2][FMB_CURVE_NY];
    double stretch; /* the element's deformed length / undeformed length (> 0 unless it is
                       compressed through itself) */
    /* internal: the values the Hessian needs */
    double y[FMB_CURVE_NY];
} fmb_beam_curve_t;

/* The coordinates of q that an evaluation read, in order (col, value): another q with the
 * same values there gives the same curve bit for bit (a caller may keep the result). n < 0:
 * more than FMB_CURVE_READS were read. */
#define FMB_CURVE_READS 24
typedef struct fmb_beam_curve_reads {
    int n;
    int col[FMB_CURVE_READS];
    double val[FMB_CURVE_READS];
} fmb_beam_curve_reads_t;

/* The curve at body-frame point s on the beam with coordinates q (the body's q); reads,
 * when non-NULL, records the coordinates read. */
void fmb_beam_curve_at(const fmb_beam_t *bm, const double *q, const double s[2],
                       fmb_beam_curve_t *c, fmb_beam_curve_reads_t *reads);
/* H = w[0] d2f[0]/dy2 + w[1] d2f[1]/dy2 (FMB_CURVE_NY square, column-major). */
void fmb_beam_curve_hess(const fmb_beam_t *bm, const fmb_beam_curve_t *c, const double w[2],
                         double *H);

#endif

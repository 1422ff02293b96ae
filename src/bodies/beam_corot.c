/*
 * Co-rotational planar Euler-Bernoulli beam element (Crisfield, Non-linear Finite
 * Element Analysis of Solids and Structures, vol. 1, section 7.3), used for the
 * geometrically nonlinear beam bodies (geometry: nonlinear; docs/theory.md section 7).
 *
 * The element lives in its body frame (seed 001's carrier frame keeps the rigid motion
 * of the whole body). Node i sits at (X_i + u_i, v_i), X_2 - X_1 = l0, and its cross
 * section is rotated by phi_i. The element's local frame rotates with the chord of the
 * deformed end nodes:
 *   dx = l0 + u2 - u1,  dy = v2 - v1,  ln = sqrt(dx^2 + dy^2),
 *   beta = atan2(dy, dx),  c = dx / ln,  s = dy / ln.
 * Local deformations (small in the local frame, large displacements overall):
 *   ul = ln - l0 = (ln^2 - l0^2) / (ln + l0)        (no cancellation for ln ~ l0)
 *   t1 = phi1 - beta,  t2 = phi2 - beta            (wrapped into (-pi, pi])
 * Strain energy of the local linear beam (axial bar + cubic Hermite bending):
 *   W = EA/(2 l0) ul^2 + EI/l0 (2 t1^2 + 2 t1 t2 + 2 t2^2)
 * Local forces N = EA ul / l0,  M1 = EI/l0 (4 t1 + 2 t2),  M2 = EI/l0 (2 t1 + 4 t2).
 * With r = (-c, -s, 0, c, s, 0) and z = (s, -c, 0, -s, c, 0):
 *   d ul / du = r,   d beta / du = z / ln,   d t1/du = e3 - z/ln,   d t2/du = e6 - z/ln,
 *   d r / du = z z^T / ln,   d (z/ln) / du = -(r z^T + z r^T) / ln^2.
 * Internal force and consistent tangent:
 *   f  = N r + M1 (e3 - z/ln) + M2 (e6 - z/ln)
 *   kt = B^T D B + N/ln z z^T + (M1 + M2)/ln^2 (r z^T + z r^T),
 *   B = [r; e3 - z/ln; e6 - z/ln],  D = diag(EA/l0, EI/l0 [4 2; 2 4]).
 * At u = 0, kt is the linear element's stiffness (bar + Hermite beam); for small u, f
 * differs from it by terms of second order (the axial-bending coupling that the linear
 * beam lacks: stiffening in tension, softening in compression, foreshortening).
 * Damping (stiffness part of Rayleigh damping, fmb_corot_damping): beta times the local
 * stiffness on the local deformation rates e' = B ud, so that rigid rotations of the
 * element are not damped (the undeformed k_e ud would damp the axial components of a
 * rotating element: measured on the quick-return at 20 rad/s, see docs/theory.md 7):
 *   f_d = B^T (beta D) B ud,   df_d/dud = beta B^T D B,
 *   df_d/du = sN/ln z z^T + (s1 + s2)/ln^2 (r z^T + z r^T) + B^T beta D dE,
 *   (sN, s1, s2) = beta D B ud,  dE = d(B ud)/du: row 0 (z.ud)/ln z^T, rows 1 and 2
 *   ((z.ud) r + (r.ud) z)^T / ln^2.
 * tests/test_beam_nonlinear.c checks f against the gradient of W and kt against the
 * gradient of f by central differences, the damping tangents likewise, and the element
 * against the elastica.
 */
#include "bodies/beam_corot.h"

#include <math.h>

void fmb_corot_element(double l0, double EA, double EI, const double u[6], double f[6],
                       double *kt, double *energy)
{
    const double dx = l0 + u[3] - u[0], dy = u[4] - u[1];
    const double ln = sqrt(dx * dx + dy * dy), c = dx / ln, s = dy / ln;
    const double beta = atan2(dy, dx);
    const double ul = ((u[3] - u[0]) * (2 * l0 + u[3] - u[0]) + dy * dy) / (ln + l0);
    const double a1 = u[2] - beta, a2 = u[5] - beta;
    const double t1 = atan2(sin(a1), cos(a1)), t2 = atan2(sin(a2), cos(a2));
    const double ka = EA / l0, kb = EI / l0;
    const double N = ka * ul, M1 = kb * (4 * t1 + 2 * t2), M2 = kb * (2 * t1 + 4 * t2);
    const double r[6] = {-c, -s, 0, c, s, 0}, z[6] = {s, -c, 0, -s, c, 0};
    double b1[6], b2[6];
    for (int i = 0; i < 6; i++)
        b1[i] = b2[i] = -z[i] / ln;
    b1[2] += 1.0, b2[5] += 1.0;
    for (int i = 0; i < 6; i++)
        f[i] = N * r[i] + M1 * b1[i] + M2 * b2[i];
    if (energy) *energy = 0.5 * ka * ul * ul + kb * (2 * t1 * t1 + 2 * t1 * t2 + 2 * t2 * t2);
    if (kt) {
        const double gz = N / ln, gm = (M1 + M2) / (ln * ln);
        for (int j = 0; j < 6; j++)
            for (int i = 0; i < 6; i++)
                kt[i + 6 * j] = ka * r[i] * r[j] +
                                kb * (4 * b1[i] * b1[j] + 2 * (b1[i] * b2[j] + b2[i] * b1[j]) +
                                      4 * b2[i] * b2[j]) +
                                gz * z[i] * z[j] + gm * (r[i] * z[j] + z[i] * r[j]);
    }
}

void fmb_corot_local_forces(double l0, double EA, double EI, const double u[6], double *N,
                            double *M1, double *M2)
{
    /* fmb_corot_element's local deformations and forces, without f and the tangent */
    const double dx = l0 + u[3] - u[0], dy = u[4] - u[1];
    const double ln = sqrt(dx * dx + dy * dy), beta = atan2(dy, dx);
    const double ul = ((u[3] - u[0]) * (2 * l0 + u[3] - u[0]) + dy * dy) / (ln + l0);
    const double a1 = u[2] - beta, a2 = u[5] - beta;
    const double t1 = atan2(sin(a1), cos(a1)), t2 = atan2(sin(a2), cos(a2));
    *N = EA / l0 * ul;
    *M1 = EI / l0 * (4 * t1 + 2 * t2);
    *M2 = EI / l0 * (2 * t1 + 4 * t2);
}

void fmb_corot_damping(double l0, double EA, double EI, double beta, const double u[6],
                       const double ud[6], double f[6], double *kq, double *cq)
{
    const double dx = l0 + u[3] - u[0], dy = u[4] - u[1];
    const double ln = sqrt(dx * dx + dy * dy), c = dx / ln, s = dy / ln;
    const double r[6] = {-c, -s, 0, c, s, 0}, z[6] = {s, -c, 0, -s, c, 0};
    double b1[6], b2[6], rd = 0, zd = 0, e[3] = {0, 0, 0};
    for (int i = 0; i < 6; i++) {
        b1[i] = b2[i] = -z[i] / ln;
        rd += r[i] * ud[i], zd += z[i] * ud[i];
    }
    b1[2] += 1.0, b2[5] += 1.0;
    for (int i = 0; i < 6; i++) /* local deformation rates e = B ud */
        e[0] += r[i] * ud[i], e[1] += b1[i] * ud[i], e[2] += b2[i] * ud[i];
    const double ka = beta * EA / l0, kb = beta * EI / l0;
    const double sN = ka * e[0], s1 = kb * (4 * e[1] + 2 * e[2]), s2 = kb * (2 * e[1] + 4 * e[2]);
    for (int i = 0; i < 6; i++)
        f[i] = sN * r[i] + s1 * b1[i] + s2 * b2[i];
    if (cq)
        for (int j = 0; j < 6; j++)
            for (int i = 0; i < 6; i++)
                cq[i + 6 * j] = ka * r[i] * r[j] +
                                kb * (4 * b1[i] * b1[j] + 2 * (b1[i] * b2[j] + b2[i] * b1[j]) +
                                      4 * b2[i] * b2[j]);
    if (kq) {
        /* d e / du: row 0 (z.ud)/ln z^T, rows 1 and 2 ((z.ud) r + (r.ud) z)^T / ln^2 */
        double de0[6], de1[6];
        for (int j = 0; j < 6; j++)
            de0[j] = zd / ln * z[j], de1[j] = (zd * r[j] + rd * z[j]) / (ln * ln);
        const double gz = sN / ln, gm = (s1 + s2) / (ln * ln);
        for (int j = 0; j < 6; j++) {
            const double dsN = ka * de0[j], ds1 = kb * 6 * de1[j], ds2 = kb * 6 * de1[j];
            for (int i = 0; i < 6; i++)
                kq[i + 6 * j] = gz * z[i] * z[j] + gm * (r[i] * z[j] + z[i] * r[j]) +
                                dsN * r[i] + ds1 * b1[i] + ds2 * b2[i];
        }
    }
}

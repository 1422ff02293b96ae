/* Co-rotational planar Euler-Bernoulli beam element (geometrically nonlinear beams). */
#ifndef FMB_BODIES_BEAM_COROT_H
#define FMB_BODIES_BEAM_COROT_H

/* Element of undeformed length l0 (along the body x axis) with axial and bending
 * stiffnesses EA, EI. u: the element's six body-frame dofs u1 v1 phi1 u2 v2 phi2
 * (displacements of the end nodes from their undeformed positions and rotations of
 * their cross-sections). Writes the internal force f = dW/du (6), and when non-NULL the
 * tangent kt = df/du (6x6, column-major, symmetric) and the strain energy W. */
void fmb_corot_element(double l0, double EA, double EI, const double u[6], double f[6],
                       double *kt, double *energy);

/* The element's local forces at its dofs u (as fmb_corot_element): axial force N (tension
 * positive) and the end moments M1, M2 conjugate to the local rotations t1, t2. */
void fmb_corot_local_forces(double l0, double EA, double EI, const double u[6], double *N,
                            double *M1, double *M2);

/* Stiffness-proportional damping of the element on its local deformation rates:
 * f = beta B^T D B ud (6), and when non-NULL kq = df/du, cq = df/dud (6x6 column-major). */
void fmb_corot_damping(double l0, double EA, double EI, double beta, const double u[6],
                       const double ud[6], double f[6], double *kq, double *cq);

#endif

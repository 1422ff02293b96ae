/*
 * Section forces and stresses at a beam's nodes (output only; docs/theory.md section 7,
 * "Section forces and stress").
 *
 * Each element e (nodes e, e + 1, length l) carries a constant axial force N and end
 * moments from its local deformations: the rotations of its end sections relative to its
 * chord, t1 = phi1 - psi and t2 = phi2 - psi, give the element's end moments
 *   M1 = EI/l (4 t1 + 2 t2),  M2 = EI/l (2 t1 + 4 t2)
 * (the generalized forces on the two rotations). In the output's sign convention, the
 * bending moment M = EI v'' (positive when the axis curves towards the body's +y, as the
 * /viz `moment`), the element has M = -M1 at its start and M = +M2 at its end: for the
 * cubic Hermite element these are exactly EI v'' at its two ends.
 *   linear beams:     N = EA (u2 - u1) / l,  psi = (v2 - v1) / l;
 *   nonlinear beams:  the co-rotational element's local forces (fmb_corot_local_forces:
 *                     N = EA (ln - l) / l, psi = the chord's angle).
 * Stress at the extreme fibres y = -c and y = +c of the section (tension positive):
 *   sigma(-c) = N/A + M c/I,  sigma(+c) = N/A - M c/I,
 * written as axial N/A, bending M c/I and combined max |sigma| = |N/A| + |M| c/I. A node
 * between two elements takes the end (of the two) with the larger combined stress: the
 * moment jumps there only by the discretization error of distributed loads (and by a
 * point moment applied at the node), so the larger one is the conservative value.
 */
#include <math.h>

#include "bodies/beam.h"
#include "bodies/beam_corot.h"

void fmb_beam_element_forces(const fmb_beam_t *bm, const double *qb, int e, double *n, double *ma,
                             double *mb)
{
    const int *d = bm->dof + 3 * e; /* u1 v1 phi1 u2 v2 phi2 */
    double u[6];
    for (int k = 0; k < 6; k++)
        u[k] = d[k] >= 0 ? qb[d[k]] : 0.0;
    const double l = bm->x[e + 1] - bm->x[e], EA = bm->E * bm->A, EI = bm->E * bm->I;
    double m1, m2;
    if (bm->geometry == FMB_BEAM_NONLINEAR) {
        fmb_corot_local_forces(l, EA, EI, u, n, &m1, &m2);
    } else {
        const double psi = (u[4] - u[1]) / l, t1 = u[2] - psi, t2 = u[5] - psi;
        *n = EA * (u[3] - u[0]) / l;
        m1 = EI / l * (4 * t1 + 2 * t2);
        m2 = EI / l * (2 * t1 + 4 * t2);
    }
    *ma = -m1;
    *mb = m2;
}

void fmb_beam_section_forces(const fmb_beam_t *bm, const double *qb, double *N, double *M,
                             double *stress)
{
    const int nn = bm->nnodes;
    const double wc = bm->c > 0 ? bm->c / bm->I : 0.0; /* fibre stress per N m */
    double np = 0.0, mp = 0.0;                         /* the previous element's end */
    for (int k = 0; k < nn; k++) {
        double n = np, m = mp;
        if (k + 1 < nn) {
            double ne, ma, mb;
            fmb_beam_element_forces(bm, qb, k, &ne, &ma, &mb);
            /* the start of element k against the end of element k - 1 */
            const double sa = fabs(ne) / bm->A + fabs(ma) * wc,
                         sp = fabs(np) / bm->A + fabs(mp) * wc;
            const int take = k == 0 || (wc > 0 ? sa > sp : fabs(ma) > fabs(mp));
            if (take) n = ne, m = ma;
            np = ne, mp = mb;
        }
        if (N) N[k] = n;
        if (M) M[k] = m;
        if (stress) {
            double *s = stress + 3 * k;
            s[0] = n / bm->A;
            s[1] = wc > 0 ? m * wc : NAN;
            s[2] = wc > 0 ? fabs(s[0]) + fabs(s[1]) : NAN;
        }
    }
}

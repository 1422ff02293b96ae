/*
 * Rounding floor of a fine beam mesh's elastic force (src/bodies/beam.c element_elastic):
 * the element force is k_e applied to the element's deformation (its rigid-body modes
 * removed first), so that its rounding error scales with the small deformation and not
 * with the nodal displacements (terms ~ 12 EI / le^3 |v|, which cancel to ~ EI v'''' le).
 *
 * Independent reference, exact arithmetic: a simply supported beam of N = 2000 uniform
 * elements of length le = 2^-12 m, at rest, deflected into the cubic
 *   v(x) = c (x^3 - L^2 x),  phi = v' = c (3 x^2 - L^2),  u = 0,  c = 2^-4 m^-2,
 * whose nodal values (x_i = i le) are exact binary numbers. Hermite elements represent a
 * cubic exactly, so the internal shear EI v''' and moment EI v'' are continuous and every
 * interior node's elastic force is exactly 0; the end nodes carry the support reactions.
 * A computed interior force is pure rounding. Expected with the deformation form: about
 * eps * 4 EI / le * |phi| ~ 1e-10 N; with k_e applied to the nodal values: about
 * eps * 12 EI / le^3 * |v| ~ 3e-3 N. Bound: 1e-9 of the end shear EI |v'''| = 6 c EI
 * (2 micro-N against 2,000 N).
 * Checked to fail: with k_e applied to the nodal values (beam.c before), the largest
 * interior force is 1.5e-3 N (bound 2e-6 N).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "flexmb/flexmb.h"
#include "model/model.h"

static int failures = 0;
#include "check.h"

#define NEL 2000

int main(void)
{
    const int nn = NEL + 1;
    const double le = ldexp(1.0, -12), L = NEL * le, c = ldexp(1.0, -4);
    /* the rocker rod of cases/quick_return.yaml (12 mm): EI = 203.6 N m^2 with a full
     * mantissa (the stiffness entries are not exact binary numbers) */
    const double E = 2e11, I = 3.14159265358979 * pow(0.012, 4) / 64, A = 3e-4, EI = E * I;
    double *x = malloc((size_t)nn * sizeof *x);
    for (int i = 0; i < nn; i++)
        x[i] = i * le;
    fmb_model_t *m = fmb_model_create();
    fmb_beam_desc_t d = {.name = "b",
                         .E = E,
                         .rho = 7850,
                         .area = A,
                         .inertia = I,
                         .nnodes = nn,
                         .x = x,
                         .reference = FMB_BEAM_SIMPLY_SUPPORTED,
                         .geometry = FMB_BEAM_LINEAR};
    const int bi = fmb_model_add_beam(m, &d);
    CHECK(bi > 0, "add_beam: %s", fmb_model_last_error(m));
    if (bi <= 0) return 1;
    const fmb_body_t *b = &m->bodies[bi];
    /* dof map of the simply supported beam: u0, v0, v_last removed, the rest in order
     * (u, v, phi per node) after the 3 rigid coordinates */
    const int nd = b->ndof;
    CHECK(nd == 3 + 3 * nn - 3, "ndof %d", nd);
    double *q = calloc((size_t)nd, sizeof *q), *z = calloc((size_t)nd, sizeof *z);
    double *Q = calloc((size_t)nd, sizeof *Q);
    int k = 3;
    int *vcol = malloc((size_t)nn * sizeof *vcol), *pcol = malloc((size_t)nn * sizeof *pcol);
    for (int i = 0; i < nn; i++) {
        const double xi = x[i];
        const int ucol = i == 0 ? -1 : k++;
        vcol[i] = i == 0 || i == nn - 1 ? -1 : k++;
        pcol[i] = k++;
        if (ucol >= 0) q[ucol] = 0.0;
        if (vcol[i] >= 0) q[vcol[i]] = c * (xi * xi * xi - L * L * xi);
        q[pcol[i]] = c * (3.0 * xi * xi - L * L);
    }
    CHECK(k == nd, "dof count %d against %d", k, nd);
    const double g0[2] = {0, 0};
    b->klass->forces(b, q, z, z, g0, Q, NULL, NULL, NULL);
    double fbig = 0.0;
    int at = -1;
    for (int i = 1; i < nn - 1; i++) {
        const double f = fmax(fabs(Q[vcol[i]]), fabs(Q[pcol[i]]));
        if (f > fbig) fbig = f, at = i;
    }
    const double shear = 6.0 * c * EI, bound = 1e-9 * shear;
    /* the end rotations carry the end moments EI v''(0) = 0 and EI v''(L) = 6 c L EI */
    const double mend = fabs(Q[pcol[nn - 1]]), mexact = 6.0 * c * L * EI;
    printf("largest interior nodal force %.3e N (node %d), bound %.3e N; end moment %.6e "
           "against %.6e N m\n",
           fbig, at, bound, mend, mexact);
    CHECK(fbig <= bound, "interior elastic forces not at the rounding floor of the deformation");
    CHECK(fabs(mend - mexact) <= 1e-9 * mexact, "end moment");
    free(q), free(z), free(Q), free(vcol), free(pcol), free(x);
    fmb_model_destroy(&m);
    if (failures) return 1;
    printf("PASS\n");
    return 0;
}

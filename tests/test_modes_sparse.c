/*
 * Natural frequencies of a large beam (250 elements, 750 coordinates): the CHOLMOD
 * subspace iteration used by `flexmb modes` above FMB_BEAM_DENSE_MODES_MAX coordinates,
 * against Euler-Bernoulli theory for the first three bending modes (1e-6 relative: the
 * discretization error at 250 elements is ~1e-9) and against dense LAPACK for modes 4-6
 * (1e-6). Dense dsygv loses accuracy on the lowest modes of such stiff, fine meshes
 * (measured 1e-5 on the first cantilever mode: its error scales with
 * eps * omega_max^2 / omega_1^2), which is why the sparse path exists.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bodies/beam.h"
#include "check.h"

static int failures = 0;

int main(void)
{
    const double L = 0.6, d = 0.012, E = 200e9, rho = 7800, pi = acos(-1.0);
    const double A = pi * d * d / 4, I = pi * pow(d, 4) / 64,
                 s = sqrt(E * I / (rho * A * pow(L, 4)));
    const int ne = 250;
    double *x = malloc((ne + 1) * sizeof *x);
    for (int k = 0; k <= ne; k++)
        x[k] = L * k / ne;
    const double cant[3] = {1.87510407, 4.69409113, 7.85475744};
    for (int ref = 0; ref < 2; ref++) {
        fmb_model_t *m = fmb_model_create();
        fmb_beam_desc_t bd = {.name = "bar",
                              .E = E,
                              .rho = rho,
                              .area = A,
                              .inertia = I,
                              .nnodes = ne + 1,
                              .x = x,
                              .reference = ref};
        int ib = fmb_model_add_beam(m, &bd);
        const fmb_beam_t *bm = m->bodies[ib].data;
        double ws[6], wd[6];
        int ns = fmb_beam_modes_sparse(bm, ws, 6), nd = fmb_beam_modes_dense(bm, wd, 6);
        CHECK(ns == 6 && nd == 6, "mode counts %d %d", ns, nd);
        printf("%s, %d elastic coordinates:\n", ref ? "cantilever" : "simply supported",
               bm->ndof - 3);
        for (int k = 0; k < 6 && ns == 6 && nd == 6; k++) {
            const double rel = fabs(ws[k] / wd[k] - 1);
            double exact = 0;
            if (k < 3) exact = (ref ? cant[k] * cant[k] : pow((k + 1) * pi, 2)) * s;
            printf("  mode %d: sparse %.10e, dense %.10e (rel %.1e)", k + 1, ws[k], wd[k], rel);
            if (k < 3) printf(", theory %.10e (rel %.1e)", exact, fabs(ws[k] / exact - 1));
            printf("\n");
            if (k >= 3) CHECK(rel < 1e-6, "mode %d: sparse and dense differ by %.2e", k + 1, rel);
            if (k < 3) CHECK(fabs(ws[k] / exact - 1) < 1e-6, "mode %d off theory", k + 1);
        }
        /* the public entry point takes the sparse path at this size */
        double wp[6];
        CHECK(fmb_model_beam_modes(m, ib, wp, 6) == 6 && fabs(wp[0] / ws[0] - 1) < 1e-12,
              "fmb_model_beam_modes");
        fmb_model_destroy(&m);
    }
    free(x);
    printf("%s\n", failures ? "FAILED" : "all checks passed");
    return failures ? 1 : 0;
}

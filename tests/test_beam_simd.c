/*
 * The beam's tangent list's two-lane code (beam_tangent_simd.c
 * fmb_beam_tangent_constants_v2, core/simd.h) against its scalar form
 * (beam_tangent.c fmb_beam_tangent_constants), to rounding: the constant part of
 * tangent_add, every list entry outside the theta row and column.
 * On cases/quick_return.yaml's rocker (4, 10 and 11 elements, undamped and Rayleigh-damped:
 * the list's 3 and 4 terms, even and odd runs): both forms add into a matrix with
 * consecutive places and with gaps (the vector store and the lane by lane one), 300 random
 * coefficient sets each (1e-3 to 1e3, a quarter of the draws with +-0, +-Inf and NaN mixed
 * in).
 * Tolerance: each list entry within 1e-12 (4,500 eps) of S_e = |A| at its place before the
 * call + the largest added value in its row and its column; NaN and infinities by class
 * (tests/near.h), places outside the list unchanged. An entry adds up to 4 constant terms
 * times the coefficients (5 roundings); the tolerance leaves the order of the operations
 * free.
 * Checked to fail (of 1,800 draws): a tangent pair's lanes swapped at the lane by lane
 * store fails 1,171; the damping term (XC) left out of a pair fails 822 (of the 900 damped
 * draws).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bodies/beam.h"
#include "bodies/beam_internal.h"
#include "flexmb/flexmb.h"
#include "solve/sim_internal.h"
#include "near.h"

#define TOL_C 4.5e3 /* 1e-12 / eps: the opening comment */

#ifndef FMB_SOURCE_DIR
#define FMB_SOURCE_DIR "."
#endif

static int failures = 0;
#include "check.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static double urand(void) /* [0, 1) */
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}
static double special = 0.0; /* the share of special values */
static double nan_in;        /* the NaN among them */
static double val(void)
{
    const double u = urand() / (special > 0 ? special : 1e-300);
    if (u < 0.2) return 0.0;
    if (u < 0.4) return -0.0;
    if (u < 0.55) return INFINITY;
    if (u < 0.7) return -INFINITY;
    if (u < 1.0) return nan_in;
    const double m = pow(10.0, 6.0 * urand() - 3.0);
    return (urand() < 0.5 ? -1.0 : 1.0) * m * urand();
}
static void fill(double *a, int n)
{
    for (int i = 0; i < n; i++)
        a[i] = val();
}
/* The matrix after tangent_add (A, the list's entries added at pos onto A0) against the
 * reference R: each list entry within tol_c eps S_e, S_e = |A0| at its place + the largest
 * finite |R - A0| among the list's entries in its row and its column (the added values);
 * places the list does not touch must keep A0 exactly. NaN and Inf by class (near.h).
 * Returns the number of entries off; *worst: the largest |A - R| / (eps S_e) seen. */
static double worst_seen = 0.0;
static int compare(const fmb_beam_t *bm, const int *pos, const double *A0, const double *A,
                   const double *R, int nA, double tol_c)
{
    const int nd = bm->ndof;
    double *cmax = calloc(2 * (size_t)nd, sizeof *cmax), *rmax = cmax + nd;
    char *touched = calloc((size_t)nA, 1);
    for (int c = 0; c < nd; c++)
        for (int e = bm->tJp[c]; e < bm->tJp[c + 1]; e++) {
            const double d = fabs(R[pos[e]] - A0[pos[e]]);
            touched[pos[e]] = 1;
            if (!isfinite(d)) continue;
            if (d > cmax[c]) cmax[c] = d;
            if (d > rmax[bm->tIi[e]]) rmax[bm->tIi[e]] = d;
        }
    int off = 0;
    for (int c = 0; c < nd; c++)
        for (int e = bm->tJp[c]; e < bm->tJp[c + 1]; e++) {
            const int p = pos[e];
            const double S = fabs(A0[p]) + fmax(cmax[c], rmax[bm->tIi[e]]);
            off += !near_tol(A[p], R[p], tol_c * NEAR_EPS * S);
            if (isfinite(A[p] - R[p]) && S > 0 && isfinite(S))
                worst_seen = fmax(worst_seen, fabs(A[p] - R[p]) / (NEAR_EPS * S));
        }
    for (int p = 0; p < nA; p++)
        if (!touched[p]) off += memcmp(&A[p], &A0[p], sizeof *A) != 0;
    free(cmax), free(touched);
    return off;
}
/* draws by fours: no special values; 1 % of them; 8 %; 8 % with NAN (0x7ff8...) as the
 * NaN instead of x86's default NaN (0xfff8...: the one that Inf - Inf or 0 Inf makes) */
static void set_special(int draw)
{
    static const double sh[4] = {0.0, 0.01, 0.08, 0.08};
    const uint64_t dn = 0xfff8000000000000ULL;
    special = sh[draw % 4];
    memcpy(&nan_in, &dn, sizeof nan_in);
    if (draw % 4 == 3) nan_in = NAN;
}

static void body(int nel, double zeta)
{
    char path[1024], err[1024], o1[64], o2[64];
    snprintf(path, sizeof path, "%s/cases/quick_return.yaml", FMB_SOURCE_DIR);
    snprintf(o1, sizeof o1, "n_el=%d", nel);
    snprintf(o2, sizeof o2, "zeta=%g", zeta);
    const char *ov[] = {o1, o2};
    fmb_case_t *c = fmb_case_load(path, ov, 2, err, sizeof err);
    if (!c) {
        printf("FAIL load: %s\n", err);
        exit(1);
    }
    fmb_model_t *m = fmb_case_model(c);
    const fmb_body_t *b = NULL;
    for (int k = 1; k < m->nbodies; k++)
        if (m->bodies[k].klass == &fmb_beam_body_class) b = &m->bodies[k];
    CHECK(b != NULL, "no beam");
    if (!b) return;
    fmb_beam_t *bm = b->data;
    const int nz = bm->tnz;
    CHECK(nz > 0, "the beam has no tangent list");
    double *A[2], *A0 = malloc((3 * (size_t)nz + 1) * sizeof *A0);
    for (int k = 0; k < 2; k++)
        A[k] = malloc((3 * (size_t)nz + 1) * sizeof *A[k]);
    int *pos = malloc((size_t)nz * sizeof *pos);
    int mism_t = 0, draws = 0;
    for (int draw = 0; draw < 300; draw++, draws++) {
        set_special(draw);
        double k4[4];
        fill(k4, 4);
        /* places: consecutive, every other one, or gaps at random */
        for (int e = 0, p = 0; e < nz; e++)
            pos[e] = draw % 3 == 0 ? e : draw % 3 == 1 ? 2 * e : (p += 1 + (urand() < 0.3));
        fill(A[0], 3 * nz + 1);
        memcpy(A[1], A[0], (3 * (size_t)nz + 1) * sizeof *A[0]);
        memcpy(A0, A[0], (3 * (size_t)nz + 1) * sizeof *A[0]);
        fmb_beam_tangent_constants_v2(bm, k4, pos, A[0]);
        fmb_beam_tangent_constants(bm, k4, pos, A[1]);
        if (compare(bm, pos, A0, A[0], A[1], 3 * nz + 1, TOL_C))
            if (mism_t++ < 5) printf("tangent constants mismatch: n_el %d draw %d\n", nel, draw);
    }
    CHECK(mism_t == 0, "n_el %d zeta %g: the two forms differ in %d of %d draws", nel, zeta, mism_t,
          draws);
    printf("n_el %d zeta %g (%d terms): %d draws, %d mismatches\n", nel, zeta, bm->tnv, draws,
           mism_t);
    for (int k = 0; k < 2; k++)
        free(A[k]);
    free(pos), free(A0);
    fmb_case_destroy(&c);
}

int main(void)
{
    const int nels[] = {4, 10, 11};
    for (int i = 0; i < 3; i++)
        for (int z = 0; z < 2; z++)
            body(nels[i], z ? 0.05 : 0.0);
    if (failures) {
        printf("%d failures\n", failures);
        return 1;
    }
    printf("ok (largest difference %.3g eps of its entry's scale, tolerance %g)\n", worst_seen,
           (double)TOL_C);
    return 0;
}

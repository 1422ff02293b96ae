/*
 * The beam's two-lane kernels (core/simd.h; beam_state.h's element state, M_e v and Q_e,
 * beam.c's residual pass, beam_tangent.c's constant part) against their scalar forms,
 * bit for bit: the scalar forms are the same sources compiled with FMB_SIMD_SCALAR
 * (tests/test_beam_simd_ref.c, under ref_ names).
 *
 * 1. One element's kernels, decoupled (pairs (0, 3), (1, 2), (4, 5)) and coupled ((0, 1),
 *    (2, 3), (4, 5)), with a free and a partly removed dof map, on random element data
 *    (S, s0, s1, c1, Mff, Sbar, ...) and states; 3,000 draws each, the entries of mixed
 *    magnitudes and signs with, in two draws of three, +-0, +-Inf and NaN mixed in.
 * 2. The class on cases/quick_return.yaml's rocker (4, 10 and 11 elements, undamped and
 *    Rayleigh-damped: the list's 3 and 4 terms, even and odd runs): mass_forces (M v and
 *    Q) and tangent_add into a matrix with consecutive places and with gaps (the vector
 *    store and the lane by lane one), 300 random states each, the element state cache
 *    cleared before every call (so that each call computes its states).
 * Since the residual's kernels went back to scalar code (slower in wall time with pairs:
 * docs/performance.md "Two lanes in the beam's kernels"), parts 1 and 2's mass_forces
 * compare the same scalar code twice: they stay as the guard for any later vector form;
 * the tangent list's pairs (part 2's tangent_add) are the vector code checked today.
 * Every output (the whole state struct, M v, Q, the matrix) is compared with memcmp;
 * where that fails, every double that differs must be a NaN in both (same(): a NaN's
 * sign and payload are not fixed by the source). Checked to fail (939, 6,000 and ~180 of
 * the draws then differ): the J terms added in pair order instead of slot order, a decoupled
 * pair (1, 2) read as (1, 3) (both in the kernels' pair form, now removed), or a tangent
 * pair's lanes swapped at the store, each makes this test report mismatches.
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

#define FMB_BEAM_SIMD_KERNELS vec_kernels
#include "beam_simd_kernels.h"

void ref_kernels(int dec, const fmb_beam_t *bm, int e, const double *q, const double *qd,
                 const double v[9], const double a[2], fmb_beam_istate_t *st, double mv[9],
                 double Q[9]);
extern const fmb_body_class_t ref_beam_body_class;
void ref_beam_tangent_add(const fmb_body_t *b, const double *q, const double *qd, const double *qdd,
                          const double g[2], const double cf[4], const int *pos, double *A);

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
static int nan_bits;         /* comparisons equal only up to NaN bits */
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
/* Bit for bit, except that a NaN may come out as a NaN of other bits: neither C nor the
 * compiler fixes a NaN's sign and payload (x86 returns the first operand's NaN, the
 * compiler orders the operands of + and * freely and may turn (-a) b into -(a b), in the
 * scalar form as in the vector one), and the solver uses no NaN's bits. Every other value
 * (+-0 and +-Inf included) must be equal bit for bit, and a NaN must be a NaN in both. */
static int same(const void *a, const void *b, size_t n)
{
    if (!memcmp(a, b, n)) return 1;
    const double *x = a, *y = b;
    for (size_t i = 0; i < n / sizeof(double); i++)
        if (memcmp(x + i, y + i, sizeof *x) && !(isnan(x[i]) && isnan(y[i]))) return 0;
    nan_bits++;
    return 1;
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

static void kernels(void)
{
    int mism = 0, draws = 0;
    for (int dec = 0; dec < 2; dec++)
        for (int map = 0; map < 2; map++)
            for (int draw = 0; draw < 3000; draw++, draws++) {
                set_special(draw);
                fmb_beam_elem_t el;
                double Mff[36], Sb[36], x[2] = {0.0, 1.0};
                memset(&el, 0, sizeof el);
                el.m = val(), el.J0 = val();
                fill(el.s0, 2), fill(el.Sx, 6), fill(el.Sy, 6), fill(el.s1, 6), fill(el.c1, 6);
                fill(Mff, 36), fill(Sb, 36);
                el.Mff = Mff, el.Sb = Sb;
                /* free and consecutive, or a simply supported first element (u1, v1 out) */
                int dof[6] = {3, 4, 5, 6, 7, 8};
                if (map) dof[0] = -1, dof[1] = -1, dof[2] = 3, dof[3] = 4, dof[4] = 5, dof[5] = 6;
                fmb_beam_t bm;
                memset(&bm, 0, sizeof bm);
                bm.nnodes = 2, bm.x = x, bm.dof = dof, bm.el = &el, bm.decoupled = dec;
                double q[9], qd[9], v[9], a[2];
                fill(q, 9), fill(qd, 9), fill(v, 9), fill(a, 2);
                fmb_beam_istate_t sv, sr;
                double mvv[9], mvr[9], Qv[9], Qr[9];
                memset(&sv, 0, sizeof sv), memset(&sr, 0, sizeof sr);
                vec_kernels(dec, &bm, 0, q, qd, v, a, &sv, mvv, Qv);
                ref_kernels(dec, &bm, 0, q, qd, v, a, &sr, mvr, Qr);
                if (!same(&sv, &sr, sizeof sv) || !same(mvv, mvr, sizeof mvv) ||
                    !same(Qv, Qr, sizeof Qv)) {
                    if (mism++ < 5)
                        printf("kernel mismatch: dec %d map %d draw %d\n", dec, map, draw);
                }
            }
    CHECK(mism == 0, "element kernels: %d of %d draws differ from the scalar forms", mism, draws);
    printf("element kernels: %d draws, %d mismatches\n", draws, mism);
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
    const int nd = bm->ndof, nz = bm->tnz;
    CHECK(nz > 0, "the beam has no tangent list");
    double *q = malloc(4 * (size_t)nd * sizeof *q), *qd = q + nd, *v = qd + nd, *qdd = v + nd;
    double *Mv[2], *Q[2], *A[2];
    for (int k = 0; k < 2; k++)
        Mv[k] = malloc((size_t)nd * sizeof *Mv[k]), Q[k] = malloc((size_t)nd * sizeof *Q[k]),
        A[k] = malloc((3 * (size_t)nz + 1) * sizeof *A[k]);
    int *pos = malloc((size_t)nz * sizeof *pos);
    int mism_mf = 0, mism_t = 0, draws = 0;
    for (int draw = 0; draw < 300; draw++, draws++) {
        set_special(draw);
        fill(q, 4 * nd);
        double g[2], cf[4];
        fill(g, 2), fill(cf, 4);
        fill(Q[0], nd); /* mass_forces adds to Q */
        memcpy(Q[1], Q[0], (size_t)nd * sizeof *Q[0]);
        for (int k = 0; k < 2; k++) {
            if (bm->cache) bm->cache->have = 0;
            (k ? ref_beam_body_class : fmb_beam_body_class)
                .mass_forces(b, q, qd, v, g, Mv[k], Q[k]);
        }
        if (!same(Mv[0], Mv[1], (size_t)nd * sizeof *Mv[0]) ||
            !same(Q[0], Q[1], (size_t)nd * sizeof *Q[0]))
            if (mism_mf++ < 5) printf("mass_forces mismatch: n_el %d draw %d\n", nel, draw);
        /* places: consecutive, every other one, or gaps at random */
        for (int e = 0, p = 0; e < nz; e++)
            pos[e] = draw % 3 == 0 ? e : draw % 3 == 1 ? 2 * e : (p += 1 + (urand() < 0.3));
        fill(A[0], 3 * nz + 1);
        memcpy(A[1], A[0], (3 * (size_t)nz + 1) * sizeof *A[0]);
        for (int k = 0; k < 2; k++) {
            if (bm->cache) bm->cache->have = 0;
            (k ? ref_beam_tangent_add : fmb_beam_tangent_add)(b, q, qd, qdd, g, cf, pos, A[k]);
        }
        if (!same(A[0], A[1], (3 * (size_t)nz + 1) * sizeof *A[0]))
            if (mism_t++ < 5) printf("tangent_add mismatch: n_el %d draw %d\n", nel, draw);
    }
    CHECK(mism_mf == 0 && mism_t == 0,
          "n_el %d zeta %g: mass_forces %d, tangent_add %d of %d draws differ", nel, zeta, mism_mf,
          mism_t, draws);
    printf("n_el %d zeta %g (%d terms): %d draws, mismatches mass_forces %d tangent_add %d\n", nel,
           zeta, bm->tnv, draws, mism_mf, mism_t);
    for (int k = 0; k < 2; k++)
        free(Mv[k]), free(Q[k]), free(A[k]);
    free(q), free(pos);
    fmb_case_destroy(&c);
}

int main(void)
{
    kernels();
    const int nels[] = {4, 10, 11};
    for (int i = 0; i < 3; i++)
        for (int z = 0; z < 2; z++)
            body(nels[i], z ? 0.05 : 0.0);
    if (failures) {
        printf("%d failures\n", failures);
        return 1;
    }
    printf("ok (%d comparisons equal up to NaN bits only)\n", nan_bits);
    return 0;
}

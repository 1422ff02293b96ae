/*
 * The beam's iteration matrix as one list (beam_tangent.c: constants summed once at build,
 * body scalars alpha = cM - cK thd^2, beta = cKm thdd + 2 cC thd and the theta row and
 * column read at every call) against a from-scratch reference: the same KKT matrix
 * assembled with the element blocks of the beam's reference class (beam.c beam_blocks: every
 * element from scratch; checked against a direct quadrature in test_beam_inertia and
 * against finite differences in test_conformance). Two copies of cases/quick_return.yaml
 * (4 rocker elements, so the slider D changes elements often and the pattern is rebuilt;
 * Rayleigh damping on, so the damping constants are used): copy A assembles with the class
 * of runs (the list), copy B's rocker runs the reference class (no tangent_pattern /
 * tangent_add: blocks only). A steps through
 * half a revolution with step-size control (h changes); every 25 steps both assemble the
 * KKT matrix at A's state with the coefficients of the step size h_k of a made-up adaptive
 * sequence (h from 2.5e-5 to 4e-4, cK ~ beta h^2, cC ~ gamma h: a new set every time, as
 * after a step-size change), then once more at the same state with the next set, and every
 * entry must agree to 1e-13 of the larger of its row's and column's largest entry.
 * Anything in the list kept from an earlier call (a stale combination after h changed, a
 * position left from an earlier pattern) shows up as an O(1) relative difference. The
 * quasi-static start's modified assemblies (ee != 0) must take the blocks in both copies
 * (the list has no ee factor on its elastic entries): compared once after the run, to the
 * same 1e-13 (the fast class's blocks against the reference's; checked to fail with the
 * assembler giving the list ee assemblies too: 0.52). Checked to fail: with alpha frozen
 * at its value of the first call (a "base" never refreshed) the first comparison fails
 * (7e-8: cK thd^2 is small next to cM, far above the 4e-16 the list reaches); with the
 * list's damping constants left out, 0.94. Last, a column shared by three elements (no
 * chain beam has one) must leave the beam on its blocks (fmb_beam_tangent_build's guard;
 * checked to fail without it).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bodies/beam.h"
#include "bodies/beam_internal.h"
#include "flexmb/flexmb.h"
#include "solve/sim_internal.h"
#include "check.h"

#ifndef FMB_SOURCE_DIR
#define FMB_SOURCE_DIR "."
#endif

static int failures = 0;

static fmb_case_t *load(fmb_sim_t **s, int list)
{
    char path[1024], err[1024];
    snprintf(path, sizeof path, "%s/cases/quick_return.yaml", FMB_SOURCE_DIR);
    const char *ov[] = {"n_el=4", "zeta=0.05", "revolutions=0.5", "step=adaptive"};
    fmb_case_t *c = fmb_case_load(path, ov, 4, err, sizeof err);
    if (!c) {
        printf("FAIL load: %s\n", err);
        exit(1);
    }
    fmb_model_t *m = fmb_case_model(c);
    int beams = 0;
    for (int b = 1; b < m->nbodies; b++)
        if (m->bodies[b].klass == &fmb_beam_body_class) {
            beams++;
            if (!list) m->bodies[b].klass = &fmb_beam_reference_class;
        }
    CHECK(beams == 1, "expected one beam, found %d", beams);
    *s = fmb_sim_create(m, fmb_case_options(c));
    if (!*s || fmb_sim_initialize(*s)) {
        printf("FAIL start\n");
        exit(1);
    }
    return c;
}

/* The assembled KKT matrix as a dense n x n array (column-major). */
static void dense(fmb_sim_t *s, double *D, int n)
{
    CHECK(fmb_kkt_factor(&s->as.kkt) == 0, "factorization failed");
    memset(D, 0, sizeof(double) * (size_t)n * n);
    for (int c = 0; c < n; c++)
        for (int p = s->as.kkt.Ap[c]; p < s->as.kkt.Ap[c + 1]; p++)
            D[s->as.kkt.Ai[p] + (size_t)n * c] += s->as.kkt.Ax[p];
}

/* max |A - B| relative to the larger of the row's and the column's largest |B| entry */
static double compare(const double *A, const double *B, int n)
{
    double *rmax = calloc((size_t)n, sizeof *rmax), *cmax = calloc((size_t)n, sizeof *cmax);
    for (int c = 0; c < n; c++)
        for (int r = 0; r < n; r++) {
            const double b = fabs(B[r + (size_t)n * c]);
            rmax[r] = fmax(rmax[r], b), cmax[c] = fmax(cmax[c], b);
        }
    double worst = 0.0;
    for (int c = 0; c < n; c++)
        for (int r = 0; r < n; r++) {
            const double d = fabs(A[r + (size_t)n * c] - B[r + (size_t)n * c]);
            const double sc = fmax(rmax[r], cmax[c]);
            worst = fmax(worst, sc > 0 ? d / sc : d);
        }
    free(rmax), free(cmax);
    return worst;
}

int main(void)
{
    fmb_sim_t *sa, *sb;
    fmb_case_t *ca = load(&sa, 1), *cb = load(&sb, 0);
    const int n = sa->n + sa->m;
    double *DA = malloc(sizeof(double) * (size_t)n * n),
           *DB = malloc(sizeof(double) * (size_t)n * n);
    const double hs[] = {1e-4, 2.5e-5, 4e-4, 5e-5, 2e-4, 1e-4, 3e-4, 7e-5};
    const int nh = (int)(sizeof hs / sizeof hs[0]);
    double worst = 0.0;
    int checks = 0, rebuilds = 0, k = 0, direct = 0;
    long sym0 = sa->as.kkt.nsymbolic;
    for (int step = 0; step <= 1500; step++) {
        if (step % 25 == 0) {
            for (int rep = 0; rep < 2; rep++, k++) {
                /* HHT-like coefficients of step h (alpha -0.05): beta h^2, gamma h scaled */
                const double h = hs[k % nh], be = 0.275625, ga = 0.55;
                const fmb_coeffs_t c = {.cM = 1.0,
                                        .cKm = be * h * h,
                                        .cK = 1.05 * be * h * h,
                                        .cC = 1.05 * ga * h,
                                        .cA = be * h * h,
                                        .c22 = 0.0};
                const long da = sa->as.kkt.nldirect, db = sb->as.kkt.nldirect;
                fmb_sim_assemble(sa, sa->st.q, sa->st.qd, sa->st.qdd, sa->st.lam, sa->st.t, &c);
                fmb_sim_assemble(sb, sa->st.q, sa->st.qd, sa->st.qdd, sa->st.lam, sa->st.t, &c);
                /* the beam's list in A's pattern only (the rigid bodies' in both) */
                CHECK(sa->as.kkt.nlists == sb->as.kkt.nlists + 1,
                      "the beam's list must be in A's pattern only (A %d, B %d lists)",
                      sa->as.kkt.nlists, sb->as.kkt.nlists);
                /* the beam's list served straight from the matrix (A's count beyond B's) */
                direct += (sa->as.kkt.nldirect - da) - (sb->as.kkt.nldirect - db) == 1;
                dense(sa, DA, n), dense(sb, DB, n);
                const double w = compare(DA, DB, n);
                worst = fmax(worst, w), checks++;
                CHECK(w <= 1e-13, "step %d, h = %g: list vs blocks %.3e > 1e-13", step, h, w);
            }
        }
        if (sa->as.kkt.nsymbolic != sym0) rebuilds++, sym0 = sa->as.kkt.nsymbolic;
        if (step < 1500 && fmb_sim_step(sa)) {
            printf("FAIL step %d: %s\n", step, fmb_sim_last_error(sa));
            failures++;
            break;
        }
    }
    /* the quasi-static start's modified mass matrix (after the run: its blocks record
     * another entry sequence, i.e. a rebuild): the blocks in both copies, to rounding */
    const fmb_coeffs_t e = {.cM = 1.0, .cA = 1.0, .ee = 0.3};
    fmb_sim_assemble(sa, sa->st.q, sa->st.qd, sa->st.qdd, sa->st.lam, sa->st.t, &e);
    fmb_sim_assemble(sb, sa->st.q, sa->st.qd, sa->st.qdd, sa->st.lam, sa->st.t, &e);
    dense(sa, DA, n), dense(sb, DB, n);
    const double we = compare(DA, DB, n);
    CHECK(we <= 1e-13, "ee assembly: differs by %.3e (must be the blocks)", we);
    printf("%s list vs blocks over %d assemblies (%d pattern analyses on the way): worst %.3e "
           "(bound 1e-13)\n",
           worst <= 1e-13 ? "ok  " : "FAIL", checks, rebuilds, worst);
    printf("%d of the %d list assemblies straight into the matrix\n", direct, checks);
    CHECK(direct >= checks / 2, "the list went through the scratch %d of %d times", checks - direct,
          checks);
    CHECK(rebuilds >= 2, "the slider should have changed elements (pattern rebuilt): %d", rebuilds);
    /* A column shared by a third element (not a chain: no beam flexmb builds has one) has
     * no place in the list: the build must leave the beam on its blocks (tnz = 0) instead
     * of writing before tX. Element 3 is given node 1's first column (elements 0 and 1
     * hold it); the list is built again on that, then the element restored. Checked to
     * fail without the guard in fmb_beam_tangent_build (tnz > 0, and ASan reports the
     * write). */
    for (int b = 1; b < sa->model->nbodies; b++) {
        if (sa->model->bodies[b].klass != &fmb_beam_body_class) continue;
        fmb_beam_t *bm = sa->model->bodies[b].data;
        const int c = bm->el[1].bcol[3], keep = bm->el[3].bcol[3];
        CHECK(c >= 0 && bm->el[0].bcol[6] == c, "node 1's column: %d, %d", c, bm->el[0].bcol[6]);
        free(bm->tJp), free(bm->tIi), free(bm->tX);
        bm->tJp = bm->tIi = NULL, bm->tX = NULL;
        bm->el[3].bcol[3] = c;
        const int rc = fmb_beam_tangent_build(bm);
        CHECK(rc == 0 && bm->tnz == 0, "three elements on a column: build %d, %d entries", rc,
              bm->tnz);
        printf("%s a column shared by three elements: %d list entries (blocks only)\n",
               rc == 0 && bm->tnz == 0 ? "ok  " : "FAIL", bm->tnz);
        bm->el[3].bcol[3] = keep;
    }
    free(DA), free(DB);
    fmb_sim_destroy(&sa), fmb_sim_destroy(&sb);
    fmb_case_destroy(&ca), fmb_case_destroy(&cb);
    printf("beam_tangent: %d failure(s)\n", failures);
    return failures ? 1 : 0;
}

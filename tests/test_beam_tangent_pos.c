/*
 * The beam's one-list tangent (beam_tangent.c fmb_beam_tangent_add) at places that are not
 * consecutive. tangent_add writes a column's rows of U without its place array when their
 * places in the matrix are consecutive (the usual case: the body's rows of a column are
 * together), and through the array otherwise (another entry between them, e.g. a spring
 * between two points of one beam). Both must give the same values: here the list goes once
 * into a plain array (places 0, 1, 2, ...: every column consecutive) and once into an array
 * at places 2 e + 1 (none consecutive), and the two must agree bit for bit, with the
 * untouched places still 0. The values themselves are checked against the element blocks
 * of the reference class (beam.c, summed densely here) to 1e-13 of the row's and
 * column's largest entry, undamped (three constants per entry) and with Rayleigh damping
 * (four), at the start and after 200 steps of cases/quick_return.yaml (4 rocker elements).
 * Checked to fail: with the consecutive test accepting every column (the array of places
 * ignored), the spread list differs; with the constant terms read one entry off, the
 * blocks comparison fails.
 * The two placements are compared exactly: they write the same computed values through
 * two address paths (no arithmetic differs), so a wrong place is a different value.
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

typedef struct dense_ctx {
    double *D;
    int n;
} dense_ctx_t;

static void emit(void *ctx, int n, const int *cols, const double *B)
{
    dense_ctx_t *d = ctx;
    for (int x = 0; x < n; x++)
        for (int y = 0; y < n; y++)
            d->D[cols[y] + (size_t)d->n * cols[x]] += B[y + n * x];
}

static void check_beam(const fmb_sim_t *s, const fmb_body_t *bd, const char *what)
{
    const int o = bd->offset, nd = bd->ndof;
    const int *Jp, *Ii;
    const int nz = bd->klass->tangent_pattern(bd, &Jp, &Ii);
    CHECK(nz > 0, "%s: no list", what);
    if (nz <= 0) return;
    const double cf[4] = {1.0, 2.7e-9, 2.9e-9, 5.8e-5}; /* cM, cKm, cK, cC of h ~ 1e-4 */
    double *A1 = calloc((size_t)nz, sizeof *A1), *A2 = calloc(2 * (size_t)nz + 1, sizeof *A2);
    int *p1 = malloc((size_t)nz * sizeof *p1), *p2 = malloc((size_t)nz * sizeof *p2);
    double *D = calloc((size_t)nd * nd, sizeof *D);
    for (int e = 0; e < nz; e++)
        p1[e] = e, p2[e] = 2 * e + 1;
    const double *q = s->st.q + o, *qd = s->st.qd + o, *qdd = s->st.qdd + o;
    bd->klass->tangent_add(bd, q, qd, qdd, s->model->g, cf, p1, A1);
    bd->klass->tangent_add(bd, q, qd, qdd, s->model->g, cf, p2, A2);
    int same = 1, untouched = 1;
    for (int e = 0; e < nz; e++) {
        same &= !memcmp(&A1[e], &A2[2 * e + 1], sizeof(double));
        untouched &= A2[2 * e] == 0.0;
    }
    CHECK(same, "%s: the list at spread places differs from the list at consecutive ones", what);
    CHECK(untouched, "%s: a place between the list's places was written", what);
    /* against the element blocks */
    dense_ctx_t dc = {D, nd};
    fmb_beam_reference_class.blocks(bd, q, qd, qdd, s->model->g, cf, emit, &dc);
    double *rmax = calloc((size_t)nd, sizeof *rmax), worst = 0.0;
    for (int c = 0; c < nd; c++)
        for (int r = 0; r < nd; r++) {
            const double v = fabs(D[r + (size_t)nd * c]);
            rmax[r] = fmax(rmax[r], v), rmax[c] = fmax(rmax[c], v);
        }
    int seen = 0;
    for (int c = 0; c < nd; c++)
        for (int e = Jp[c]; e < Jp[c + 1]; e++, seen++) {
            const int r = Ii[e];
            const double d = fabs(A1[e] - D[r + (size_t)nd * c]);
            const double sc = fmax(rmax[r], rmax[c]);
            worst = fmax(worst, sc > 0 ? d / sc : d);
            D[r + (size_t)nd * c] = 0.0; /* covered by the list */
        }
    double rest = 0.0; /* block entries outside the list's pattern */
    for (size_t z = 0; z < (size_t)nd * nd; z++)
        rest = fmax(rest, fabs(D[z]));
    printf("%s %s: %d entries, list vs blocks %.3e (bound 1e-13), outside the list %g, spread "
           "places %s\n",
           worst <= 1e-13 && same && untouched && rest == 0.0 ? "ok  " : "FAIL", what, seen, worst,
           rest, same ? "bitwise equal" : "DIFFER");
    CHECK(worst <= 1e-13, "%s: list vs blocks %.3e", what, worst);
    CHECK(rest == 0.0, "%s: block entries outside the list's pattern (%g)", what, rest);
    free(A1), free(A2), free(p1), free(p2), free(D), free(rmax);
}

static void run(const char *zeta)
{
    char path[1024], err[1024], ov0[64];
    snprintf(path, sizeof path, "%s/cases/quick_return.yaml", FMB_SOURCE_DIR);
    snprintf(ov0, sizeof ov0, "zeta=%s", zeta);
    const char *ov[] = {"n_el=4", ov0, "revolutions=0.2"};
    fmb_case_t *c = fmb_case_load(path, ov, 3, err, sizeof err);
    if (!c) {
        printf("FAIL load: %s\n", err);
        exit(1);
    }
    fmb_model_t *m = fmb_case_model(c);
    fmb_sim_t *s = fmb_sim_create(m, fmb_case_options(c));
    if (!s || fmb_sim_initialize(s)) {
        printf("FAIL start\n");
        exit(1);
    }
    for (int step = 0; step <= 200; step += 200) {
        for (int k = 0; step && k < 200; k++)
            if (fmb_sim_step(s)) {
                printf("FAIL step: %s\n", fmb_sim_last_error(s));
                exit(1);
            }
        for (int b = 1; b < m->nbodies; b++) {
            const fmb_body_t *bd = &m->bodies[b];
            if (bd->klass != &fmb_beam_body_class) continue;
            const fmb_beam_t *bm = bd->data;
            char what[96];
            snprintf(what, sizeof what, "zeta %s, step %d (%d constants per entry)", zeta, step,
                     bm->tnv);
            CHECK(bm->tnv == (atof(zeta) > 0 ? 4 : 3), "%s: constants per entry", what);
            check_beam(s, bd, what);
        }
    }
    fmb_sim_destroy(&s);
    fmb_case_destroy(&c);
}

int main(void)
{
    run("0");
    run("0.05");
    printf("beam_tangent_pos: %d failure(s)\n", failures);
    return failures ? 1 : 0;
}

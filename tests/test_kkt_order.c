/*
 * The large-system KKT order (src/solve/kkt_order.c) and factorization (kkt.c) on a
 * synthetic floating-frame-beam KKT matrix [S G^T; G 0] built here:
 *   - a chain of NC shape coordinates, S pentadiagonal (a beam's banded blocks),
 *   - 3 carrier coordinates coupled to every chain coordinate (dense rows and columns),
 *   - multipliers: 2 rows on chain coordinate 0 and the carrier (a revolute at the beam's
 *     end), 2 rows on a middle chain coordinate and the carrier (a slider), 1 row on two
 *     chain coordinates only (a sparse joint).
 * Independent references: the order is checked against its definition (the 3 carrier
 * coordinates and the 4 multipliers coupled to them last, everything else before them);
 * the solution against a manufactured x (b = A x from the triplets, not from the
 * factors): forward error for the benign values, backward error (the residual against
 * |A| |x| + |b|, which does not depend on the conditioning) for both sets; the fill
 * against the count of an arrow matrix eliminated without
 * fill in its band: each of L and U holds at most n (w + 1 + d) entries (half bandwidth
 * w = 2, d unknowns last). The same bounds hold for two value sets with the same pattern:
 * a benign one and an adversarial one, congruence-scaled so that every other chain
 * diagonal is 1e-8 of its neighbours' and the carrier's 1e6 (a beam's rotational
 * coordinates against its displacements and the carrier, which made KLU's own orders
 * pivot onto a dense row and fill U: docs/performance.md).
 * Both at a large size (NC = 400, n = 408: KLU's large-system settings) and a small one
 * (NC = 40, n = 48: KLU's row scaling; "dense" = more than 16 entries, kkt_order.c).
 * Checked to fail: at n = 48 with KLU's own small-system analysis (AMD with BTF,
 * 10 sqrt(n) as the dense threshold) the order test fails and U holds
 * 1,129 (benign) and 1,025 (adversarial) entries (bound 480).
 * With KLU's COLAMD order for large systems (threshold
 * 1e-3 or 1e-6) U holds 83,127 entries (bound 4,080: a dense carrier row pivoted early)
 * for both sets; with every unknown in one set (CAMD = AMD) the order test fails and U
 * holds 82,636 entries.
 * The order kept across rebuilt patterns (kept_order(), kkt_order.c): moving the slider's
 * rows (coupled to the carrier, so in the last set) 40 chain coordinates on rebuilds the
 * pattern on the old order (one order kept; fill within the arrow bound: L 2,715, U 2,722;
 * backward error 3e-15); moving the sparse joint (a first-set multiplier) orders anew.
 * Checked to fail with the first set's entries left out of the key (the moved sparse joint
 * then kept the old order too).
 */
#include <klu.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "flexmb/flexmb.h"
#include "solve/kkt.h"

#define NCMAX 400 /* chain coordinates of the large system */
#define NM 5      /* multipliers */
#define NMAX (NCMAX + 3 + NM)
static int NC, NQ, N; /* chain coordinates; coordinates: chain, then 3 carrier; all */
static int slider_dc = 0, sparse_dc = 0; /* kept_order(): the slider and the sparse joint
                                          * moved along the chain by this many coordinates */

static int fails = 0;

static void check(int ok, const char *what)
{
    if (!ok) {
        printf("FAIL: %s\n", what);
        fails++;
    }
}

typedef struct trip {
    int n, i[20000], j[20000];
    double x[20000];
} trip_t;

static void put(trip_t *t, int i, int j, double x)
{
    t->i[t->n] = i, t->j[t->n] = j, t->x[t->n] = x, t->n++;
}

/* coordinate scale of the adversarial set: every other chain coordinate 1e-4 (a beam's
 * rotations against its displacements: diagonals 1e-8 of the neighbours'), carrier 1e3 */
static double cscale(int i, int hard)
{
    if (!hard || i >= NQ) return 1.0;
    return i >= NC ? 1e3 : i % 2 ? 1e-4 : 1.0;
}

/* Symmetric KKT triplets; `hard`: the benign matrix congruence-scaled by cscale, i.e.
 * S -> D S D on the coordinates (still positive definite), G -> G D. */
static void build(trip_t *t, int hard)
{
    t->n = 0;
    const double dc = 1.0; /* chain stiffness scale */
    for (int a = 0; a < NC; a++) {
        /* pentadiagonal SPD band: 6 on the diagonal, -1 at distance 1 and 2 (dominant) */
        put(t, a, a, 6.0 * dc + (a % 2 ? 0.0 : 1.0 * dc));
        for (int o = 1; o <= 2; o++)
            if (a + o < NC) put(t, a, a + o, -dc), put(t, a + o, a, -dc);
    }
    /* carrier: couplings c_a = 1e-2 (1 + (a + r) % 7) / 7; its diagonal 1 + sum c^2 / dc
     * keeps S positive definite (the chain band is diagonally dominant: eigenvalues >= 1,
     * so the carrier's Schur complement is at least 1) */
    for (int r = 0; r < 3; r++) {
        double sum = 0.0;
        for (int a = 0; a < NC; a++) {
            const double c = 1e-2 * sqrt(dc) * (1 + (a + r) % 7) / 7.0;
            put(t, NC + r, a, c), put(t, a, NC + r, c);
            sum += c * c / dc;
        }
        put(t, NC + r, NC + r, 1.0 + sum);
    }
    /* multipliers (zero diagonals stored, as the assembler does) */
    const int rows[NM][3] = {{0, NC + 0, -1},
                             {0, NC + 1, NC + 2}, /* revolute at the end */
                             {NC / 2 + slider_dc, NC + 0, NC + 2},
                             {NC / 2 + 1 + slider_dc, NC + 1, -1},  /* slider */
                             {NC / 4, NC / 4 + 1 + sparse_dc, -1}}; /* sparse */
    for (int k = 0; k < NM; k++) {
        for (int e = 0; e < 3; e++)
            if (rows[k][e] >= 0) {
                const double g = 1.0 + 0.5 * e + 0.1 * k;
                put(t, NQ + k, rows[k][e], g), put(t, rows[k][e], NQ + k, g);
            }
        put(t, NQ + k, NQ + k, 0.0);
    }
    for (int e = 0; e < t->n; e++)
        t->x[e] *= cscale(t->i[e], hard) * cscale(t->j[e], hard);
}

static void run(int nc, int hard)
{
    NC = nc, NQ = nc + 3, N = nc + 3 + NM;
    static trip_t t;
    build(&t, hard);
    fmb_kkt_t k;
    fmb_kkt_init(&k, N);
    k.ncoord = NQ;
    /* two assemblies: the first records the pattern, the second goes through the map */
    for (int pass = 0; pass < 2; pass++) {
        int again = 1;
        for (int r = 0; again && r < 2; r++) { /* fmb_kkt_end: repeat once if asked */
            fmb_kkt_begin(&k);
            for (int e = 0; e < t.n; e++)
                fmb_kkt_add(&k, t.i[e], t.j[e], t.x[e]);
            again = fmb_kkt_end(&k);
        }
        check(fmb_kkt_factor(&k) == 0, "factorization");
    }
    /* manufactured solution */
    double xt[NMAX], b[NMAX] = {0}, x[NMAX];
    for (int i = 0; i < N; i++)
        xt[i] = sin(1.0 + i) + (i >= NQ ? 3.0 : 0.0);
    for (int e = 0; e < t.n; e++)
        b[t.i[e]] += t.x[e] * xt[t.j[e]];
    check(fmb_kkt_solve(&k, b, x) == 0, "solve");
    double err = 0.0, xn = 0.0;
    for (int i = 0; i < N; i++)
        err = fmax(err, fabs(x[i] - xt[i])), xn = fmax(xn, fabs(xt[i]));
    double res = 0.0, ax[NMAX] = {0}, aabs[NMAX] = {0};
    for (int e = 0; e < t.n; e++)
        ax[t.i[e]] += t.x[e] * x[t.j[e]], aabs[t.i[e]] += fabs(t.x[e] * x[t.j[e]]);
    for (int i = 0; i < N; i++)
        res = fmax(res, fabs(b[i] - ax[i]) / (aabs[i] + fabs(b[i])));
    printf("n = %d, %s values: |x - x_true| / |x_true| = %.3e, backward error %.3e\n", N,
           hard ? "adversarial" : "benign", err / xn, res);
    /* the benign matrix is well conditioned (diagonally dominant): forward error ~ eps */
    if (!hard) check(err <= 1e-12 * xn, "manufactured solution");
    check(res <= 1e-13, "backward error of the solve");
    /* the order: the 7 unknowns coupled to the carrier last, in any order among them */
    int P[NMAX], nlast = 0;
    check(fmb_kkt_order(&k, P, &nlast) == 0, "order");
    check(nlast == 3 + 4, "7 unknowns ordered last (3 carrier, 4 multipliers)");
    for (int p = 0; p < N; p++) {
        const int last = (P[p] >= NC && P[p] < NQ) || (P[p] >= NQ && P[p] < NQ + 4);
        if (last != (p >= N - 7)) {
            check(0, "carrier coordinates and their multipliers last");
            break;
        }
    }
    /* fill: each of L and U at most n (w + 1 + d), w = 2, d = 7 */
    const klu_numeric *kn = k.knumeric;
    const long bound = (long)N * (2 + 1 + 7);
    printf("  L %d U %d entries (bound %ld each), off-diagonal pivots %d\n", (int)kn->lnz,
           (int)kn->unz, bound, ((klu_common *)k.kcommon)->noffdiag);
    check(kn->lnz <= bound && kn->unz <= bound, "fill of an arrow matrix");
    fmb_kkt_free(&k);
}

/* Assemble t into k (repeated once when it leaves k's pattern, as the assembler does) and
 * factor; the backward error of a manufactured solution. */
static double assemble_factor_solve(fmb_kkt_t *k, const trip_t *t)
{
    int again = 1;
    for (int r = 0; again && r < 2; r++) {
        fmb_kkt_begin(k);
        for (int e = 0; e < t->n; e++)
            fmb_kkt_add(k, t->i[e], t->j[e], t->x[e]);
        again = fmb_kkt_end(k);
    }
    check(fmb_kkt_factor(k) == 0, "factorization");
    double xt[NMAX], b[NMAX] = {0}, x[NMAX], ax[NMAX] = {0}, aabs[NMAX] = {0}, res = 0.0;
    for (int i = 0; i < N; i++)
        xt[i] = sin(1.0 + i) + (i >= NQ ? 3.0 : 0.0);
    for (int e = 0; e < t->n; e++)
        b[t->i[e]] += t->x[e] * xt[t->j[e]];
    check(fmb_kkt_solve(k, b, x) == 0, "solve");
    for (int e = 0; e < t->n; e++)
        ax[t->i[e]] += t->x[e] * x[t->j[e]], aabs[t->i[e]] += fabs(t->x[e] * x[t->j[e]]);
    for (int i = 0; i < N; i++)
        res = fmax(res, fabs(b[i] - ax[i]) / (aabs[i] + fabs(b[i])));
    return res;
}

/* The order kept across rebuilt patterns (kkt_order.c: the same sets and the same entries
 * within the first set). A slider's rows are coupled to the carrier (last set): moving them
 * along the chain rebuilds the pattern with the old order (norder_kept), and the factors
 * stay within the arrow bound and backward stable; moving the sparse joint (a first-set
 * multiplier) changes the first set's entries, and CAMD orders anew. */
static void kept_order(void)
{
    NC = NCMAX, NQ = NC + 3, N = NC + 3 + NM;
    static trip_t t;
    slider_dc = sparse_dc = 0;
    build(&t, 0);
    fmb_kkt_t k;
    fmb_kkt_init(&k, N);
    k.ncoord = NQ;
    double res = assemble_factor_solve(&k, &t);
    check(k.nsymbolic == 1 && k.norder_kept == 0, "kept order: one analysis, a new order");
    slider_dc = 40; /* the slider 40 coordinates on: only last-set rows change */
    build(&t, 0);
    res = fmax(res, assemble_factor_solve(&k, &t));
    check(k.nsymbolic == 2 && k.norder_kept == 1, "kept order: the slider moved, the order kept");
    const klu_numeric *kn = k.knumeric;
    const long bound = (long)N * (2 + 1 + 7);
    printf("kept order: L %d U %d entries (bound %ld each) after the slider moved\n", (int)kn->lnz,
           (int)kn->unz, bound);
    check(kn->lnz <= bound && kn->unz <= bound, "kept order: fill of the arrow matrix");
    sparse_dc = 40; /* the sparse joint's second column 40 on: first-set entries change */
    build(&t, 0);
    res = fmax(res, assemble_factor_solve(&k, &t));
    check(k.nsymbolic == 3 && k.norder_kept == 1,
          "kept order: the sparse joint moved, a new order");
    printf("kept order: analyses %ld, orders kept %ld, backward error %.3e\n", k.nsymbolic,
           k.norder_kept, res);
    check(res <= 1e-13, "kept order: backward error of the solves");
    slider_dc = sparse_dc = 0;
    fmb_kkt_free(&k);
}

int main(void)
{
    kept_order();
    run(NCMAX, 0); /* large: n = 408 > FMB_KKT_LARGE */
    run(NCMAX, 1);
    run(40, 0); /* small: n = 48, KLU's row scaling, dense = more than 16 entries */
    run(40, 1);
    if (fails) return 1;
    printf("PASS\n");
    return 0;
}

/*
 * Blocks of searched KKT entries (fmb_kkt_addx_block, src/solve/kkt.c): the b-th block call of
 * an assembly keeps the places it found for the b-th block call of the next one, used when
 * that call has the same shape, rows and columns.
 * Independent reference: the same entries summed into a dense matrix here; the compressed
 * values after fmb_kkt_factor must equal it entry by entry to rounding (tests/near.h: k the
 * entry's number of terms plus one for the factor, m the sum of the terms' magnitudes). A
 * second KKT matrix assembled with one fmb_kkt_addx call per entry (1 x 1 blocks: other
 * calls, other kept records) must store the same pattern (Ap, Ai: placement alone, exact)
 * and equal the dense sum to rounding as well.
 * The assemblies exercise every path: the same blocks repeated (kept places), a block whose
 * element moves to new columns (the pattern grows: repeated assembly and rebuild), moving
 * back (stored entries: searched, no rebuild), the same shape on other rows, another shape at
 * the same call (a later call's record then moves), fewer block calls, per-entry calls in
 * between (1 x 1 block calls: the later calls' records move), a strided block (rs, cs other than 1,
 * nr) with a factor, and the same rows and columns in another order. Checked to fail: with the kept
 * places used without comparing the rows (assembly 11: slider 1's J on the columns slider 0's J had
 * at that call), without comparing the columns (assembly 5, reversed columns), and without
 * forgetting the records at a rebuild of the pattern (assembly 8: places of the old pattern).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "flexmb/flexmb.h"
#include "near.h"
#include "solve/kkt.h"

#define N 26
#define NQ 20 /* coordinates; 6 multiplier rows */

static int fails = 0;

static void check(int ok, const char *what, int a)
{
    if (!ok) {
        printf("FAIL: assembly %d: %s\n", a, what);
        fails++;
    }
}

#include "kkt_sum.h"

/* fixed part: an SPD band on the coordinates, two multiplier rows on fixed columns and a
 * negative diagonal on every multiplier row */
static void fixed_part(fmb_kkt_t *k, double s, int dense)
{
    for (int a = 0; a < NQ; a++) {
        fmb_kkt_add(k, a, a, 6.0 * s + 0.01 * a);
        if (dense) dadd(a, a, 6.0 * s + 0.01 * a);
        if (a + 1 < NQ) {
            fmb_kkt_add(k, a, a + 1, -s), fmb_kkt_add(k, a + 1, a, -s);
            if (dense) dadd(a, a + 1, -s), dadd(a + 1, a, -s);
        }
    }
    for (int r = 0; r < 2; r++) {
        const int i = NQ + r, c = 2 + 5 * r;
        fmb_kkt_add(k, i, c, 1.0 + r), fmb_kkt_add(k, c, i, 1.0 + r);
        if (dense) dadd(i, c, 1.0 + r), dadd(c, i, 1.0 + r);
    }
    for (int i = NQ; i < N; i++) { /* regularised: a row without a slider stays regular */
        fmb_kkt_add(k, i, i, -0.5 * s);
        if (dense) dadd(i, i, -0.5 * s);
    }
}

/* One searched block: nr x nc values v(y, x) stored column-major in B (leading dimension
 * ld, or row-major with rowmajor), added with factor f; the block path into k, the
 * per-entry path into kr, and the dense sum. */
static void block(fmb_kkt_t *k, fmb_kkt_t *kr, int nr, const int *rows, int nc, const int *cols,
                  double s, int rowmajor, double f)
{
    double B[64];
    for (int x = 0; x < nc; x++)
        for (int y = 0; y < nr; y++) {
            const double v = s * (0.3 + 0.11 * rows[y] - 0.07 * cols[x] + 0.013 * x * y);
            B[rowmajor ? y * nc + x : x * nr + y] = v;
        }
    const int rs = rowmajor ? nc : 1, cs = rowmajor ? 1 : nr;
    fmb_kkt_addx_block(k, nr, rows, nc, cols, B, rs, cs, f);
    for (int x = 0; x < nc; x++)
        for (int y = 0; y < nr; y++) {
            const double v = f * B[y * rs + x * cs];
            fmb_kkt_addx(kr, rows[y], cols[x], v);
            dadd(rows[y], cols[x], v);
        }
}

/* A "slider" on element e (columns 2e .. 2e + 3) with multiplier rows NQ + 2 + 2m,
 * NQ + 3 + 2m: J (2 x 4), J^T (4 x 2, scaled) and the 4 x 4 Hessian; rev: the columns in
 * reverse order; what: 0 all three blocks, 1 the Hessian as a 2 x 8 block on the
 * multiplier rows instead (another shape at the same call), 2 J only */
static void slider(fmb_kkt_t *k, fmb_kkt_t *kr, int m, int e, int rev, int what, double s)
{
    int R[2] = {NQ + 2 + 2 * m, NQ + 3 + 2 * m}, C[4], C8[8];
    for (int q = 0; q < 4; q++)
        C[q] = 2 * e + (rev ? 3 - q : q);
    block(k, kr, 2, R, 4, C, s, 0, 1.0);
    if (what == 2) return;
    block(k, kr, 4, C, 2, R, s, 1, 0.75);
    if (what == 0) {
        block(k, kr, 4, C, 4, C, s, 0, -1.5);
    } else {
        for (int q = 0; q < 8; q++)
            C8[q] = q < 4 ? C[q] : 2 * e + 4 + (q - 4);
        block(k, kr, 2, R, 8, C8, s, 0, 1.0);
    }
}

/* per-entry searched adds between the blocks (1 x 1 block calls) */
static void singles(fmb_kkt_t *k, fmb_kkt_t *kr, int e, double s)
{
    for (int q = 0; q < 3; q++) {
        const int i = NQ + 5, c = 2 * e + q;
        fmb_kkt_addx(k, i, c, s * (1 + q)), fmb_kkt_addx(kr, i, c, s * (1 + q));
        dadd(i, c, s * (1 + q));
    }
}

typedef struct {
    int e0, e1;    /* elements of slider 0 and 1 (-1: absent) */
    int rev, what; /* slider 0's column order and blocks */
    int singles;   /* per-entry calls between the sliders: their element, -1 none */
} plan_t;

static void assemble(fmb_kkt_t *k, fmb_kkt_t *kr, const plan_t *p, double s)
{
    int again = 1, againr = 1;
    for (int r = 0; (again || againr) && r < 2; r++) {
        dreset();
        fmb_kkt_begin(k), fmb_kkt_begin(kr);
        fixed_part(k, s, 1), fixed_part(kr, s, 0);
        if (p->e0 >= 0) slider(k, kr, 0, p->e0, p->rev, p->what, s);
        if (p->singles >= 0) singles(k, kr, p->singles, s);
        if (p->e1 >= 0) slider(k, kr, 1, p->e1, 0, 0, s);
        again = fmb_kkt_end(k);
        againr = fmb_kkt_end(kr);
    }
}

int main(void)
{
    static const plan_t seq[] = {
        {1, 6, 0, 0, -1},  {1, 6, 0, 0, -1}, {1, 6, 0, 0, -1}, /* first, rebuilt, kept */
        {3, 6, 0, 0, -1},                                      /* slider 0 moves: grows */
        {1, 6, 0, 0, -1},                                      /* back: stored, searched */
        {1, 6, 1, 0, -1},                                      /* reversed columns */
        {1, 6, 0, 1, -1},                                      /* another shape at call 2 */
        {1, 6, 0, 0, 2},                                       /* singles in between */
        {1, 6, 0, 0, 2},                                       /* kept, both kinds */
        {3, 1, 0, 0, -1},                                      /* the two sliders swap rows */
        {1, 6, 0, 0, -1},                                      /* back */
        {-1, 1, 0, 0, -1}, /* fewer calls; slider 1's J at call 0 on slider 0's last columns */
        {1, 6, 0, 2, -1},  /* J only: later calls move */
        {1, 6, 0, 0, -1},
    };
    const int na = (int)(sizeof seq / sizeof seq[0]);
    fmb_kkt_t k, kr;
    fmb_kkt_init(&k, N), fmb_kkt_init(&kr, N);
    k.ncoord = kr.ncoord = NQ;
    for (int a = 0; a < na; a++) {
        const double s = 1.0 + 0.1 * a;
        assemble(&k, &kr, &seq[a], s);
        check(fmb_kkt_factor(&k) == 0 && fmb_kkt_factor(&kr) == 0, "factorization", a);
        int same = k.Ap[N] == kr.Ap[N];
        for (int j = 0; same && j <= N; j++)
            same &= k.Ap[j] == kr.Ap[j];
        for (int p = 0; same && p < k.Ap[N]; p++)
            same &= k.Ai[p] == kr.Ai[p];
        check(same, "block and per-entry adds store different patterns", a);
        double d, dr;
        check(off_dense(&k, &d) == 0, "compressed matrix differs from the dense sum", a);
        check(off_dense(&kr, &dr) == 0, "per-entry matrix differs from the dense sum", a);
        printf("assembly %d: |C - D| = %.2g, stored %d, analyses %ld, kept block records %d\n", a,
               d, k.Ap[N], k.nsymbolic, k.nxbvalid);
    }
    check(k.nxbvalid == 3 * 2, "every block call of the last assembly kept", na - 1);
    fmb_kkt_free(&k), fmb_kkt_free(&kr);
    if (fails) return 1;
    printf("PASS\n");
    return 0;
}

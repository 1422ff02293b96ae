/*
 * Searched KKT entries one by one (fmb_kkt_addx, the 1 x 1 form of fmb_kkt_addx_block,
 * src/solve/kkt.c): entries whose place changes from one assembly to the next (a slider
 * moving along its guide's elements) are placed by search, and the place found by the t-th
 * call of an assembly is reused by the t-th call of the next one when that call is for the
 * same (i, j).
 * Independent reference: every assembly is also summed into a dense matrix here, from the
 * same triplets, and the compressed matrix (Ap, Ai, Ax after fmb_kkt_factor) must equal it
 * entry by entry to rounding (tests/near.h: k the entry's number of terms, m the sum of
 * their magnitudes; a stored entry absent from the assembly must be 0), and the solve must
 * reproduce a manufactured solution. The sequence of assemblies exercises every path:
 * the same searched calls repeated (kept places), the searched element moving to new
 * columns (the pattern grows: repeated assembly and rebuild), moving back (entries already
 * stored: search, no rebuild), a different number of searched calls, the same (i, j) in a
 * different call order (kept place must not be used for another entry), and entries added
 * twice in one assembly; then the pattern's memory: after FMB_KKT_KEEP_RECENT + 10
 * assemblies on one element, moving on drops the entries of the elements left (the stored
 * count equals the entries this assembly emits, counted here), and going back at once keeps
 * them (no further rebuild).
 * Checked to fail: with the kept places used without comparing the columns (the rows check
 * alone in fmb_kkt_addx_block), assemblies 5, 6, 9 and 10 (each after an assembly of
 * another call order or element) differ from the dense sum; without resetting the kept places when
 * the pattern is rebuilt (nxbvalid kept by build_pattern), assembly 8 (the calls of assembly 7,
 * whose pattern grew: kept places of the old pattern) differs; with the pattern only growing (every
 * rebuild keeping the old entries) the drop check fails (128 stored against 80 emitted).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "flexmb/flexmb.h"
#include "near.h"
#include "solve/kkt.h"

#define N 24
#define NQ 20 /* coordinates; 4 multiplier rows */

static int fails = 0;

static void check(int ok, const char *what, int a)
{
    if (!ok) {
        printf("FAIL: assembly %d: %s\n", a, what);
        fails++;
    }
}

static double D[N][N], Dm[N][N]; /* the dense sum and its terms' magnitudes */
static int E[N][N];              /* terms of each entry in the current assembly */

/* a(i, j) += v in the dense reference */
static void dadd(int i, int j, double v)
{
    D[i][j] += v, Dm[i][j] += fabs(v), E[i][j]++;
}

/* fixed part: an SPD band (tridiagonal, diagonally dominant) on the coordinates and two
 * multiplier rows on fixed columns */
static void fixed_part(fmb_kkt_t *k, double s)
{
    for (int a = 0; a < NQ; a++) {
        fmb_kkt_add(k, a, a, 4.0 * s + 0.01 * a), dadd(a, a, 4.0 * s + 0.01 * a);
        if (a + 1 < NQ) {
            fmb_kkt_add(k, a, a + 1, -s), dadd(a, a + 1, -s);
            fmb_kkt_add(k, a + 1, a, -s), dadd(a + 1, a, -s);
        }
    }
    for (int r = 0; r < 2; r++) {
        const int i = NQ + r, c = 2 + 5 * r;
        fmb_kkt_add(k, i, c, 1.0 + r), dadd(i, c, 1.0 + r);
        fmb_kkt_add(k, c, i, 1.0 + r), dadd(c, i, 1.0 + r);
        fmb_kkt_add(k, i, i, 0.0), dadd(i, i, 0.0);
    }
}

/* searched part: a "slider" on element e (columns 2e .. 2e + 3): rows NQ + 2, NQ + 3 on its
 * columns (and their transposes); `rev` emits the columns in reverse order (same entries,
 * other call order); `twice` adds the first entry twice */
static void slider(fmb_kkt_t *k, int e, int rev, int twice, double s)
{
    for (int r = 0; r < 2; r++) {
        const int i = NQ + 2 + r;
        for (int q = 0; q < 4; q++) {
            const int cq = rev ? 3 - q : q, c = 2 * e + cq; /* the value goes with the column */
            const double g = s * (1.0 + 0.25 * cq + r * (0.5 + 0.1 * cq * cq));
            fmb_kkt_addx(k, i, c, g), dadd(i, c, g);
            fmb_kkt_addx(k, c, i, g), dadd(c, i, g);
        }
    }
    if (twice) fmb_kkt_addx(k, NQ + 2, 2 * e, 0.5 * s), dadd(NQ + 2, 2 * e, 0.5 * s);
}

/* One assembly (repeated once if fmb_kkt_end asks), factorization and checks: the slider on
 * elements e, e + 2, ... (m of them); returns the number of distinct entries emitted. */
static int assemble_check(fmb_kkt_t *k, int a, int e, int rev, int twice, int m, int quiet)
{
    const double s = 1.0 + 0.1 * a; /* values change from one assembly to the next */
    int again = 1;
    for (int r = 0; again && r < 2; r++) { /* fmb_kkt_end: repeat once if asked */
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                D[i][j] = Dm[i][j] = 0.0, E[i][j] = 0;
        fmb_kkt_begin(k);
        fixed_part(k, s);
        for (int q = 0; q < m; q++)
            slider(k, e + 2 * q, rev, twice, s);
        again = fmb_kkt_end(k);
    }
    check(!again, "assembly repeated more than once", a);
    check(fmb_kkt_factor(k) == 0, "factorization", a);
    /* the compressed matrix against the dense sum, before the factorization scaled it
     * (n = 24: no scaling in place) */
    static double C[N][N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            C[i][j] = 0.0;
    for (int j = 0; j < N; j++)
        for (int p = k->Ap[j]; p < k->Ap[j + 1]; p++)
            C[k->Ai[p]][j] += k->Ax[p];
    double d = 0.0;
    int bad = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            d = fmax(d, fabs(C[i][j] - D[i][j]));
            bad += !near_tol(C[i][j], D[i][j], near_bound(E[i][j], Dm[i][j]));
        }
    check(bad == 0, "compressed matrix differs from the dense sum of the triplets", a);
    /* manufactured solution through the factors */
    double xt[N], b[N] = {0}, x[N];
    for (int i = 0; i < N; i++)
        xt[i] = cos(0.3 + i);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            b[i] += D[i][j] * xt[j];
    check(fmb_kkt_solve(k, b, x) == 0, "solve", a);
    double err = 0.0;
    for (int i = 0; i < N; i++)
        err = fmax(err, fabs(x[i] - xt[i]));
    check(err <= 1e-12, "manufactured solution", a);
    if (!quiet)
        printf("assembly %d: slider on element %d%s%s x%d: |C - D| = %g, |x - x_true| = %.2e, "
               "stored %d, analyses %ld\n",
               a, e, rev ? " reversed" : "", twice ? " +duplicate" : "", m, d, err, k->Ap[N],
               k->nsymbolic);
    int ne = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            ne += E[i][j] > 0;
    return ne;
}

int main(void)
{
    /* element under the slider, reversed order, duplicate entry, number of slider elements */
    static const int seq[][4] = {{1, 0, 0, 1}, {1, 0, 0, 1}, {1, 0, 0, 1}, {5, 0, 0, 1},
                                 {5, 1, 0, 1}, {1, 0, 0, 1}, {1, 0, 1, 1}, {1, 0, 0, 2},
                                 {1, 0, 0, 2}, {5, 0, 0, 1}};
    const int na = (int)(sizeof seq / sizeof seq[0]);
    fmb_kkt_t k;
    fmb_kkt_init(&k, N);
    k.ncoord = NQ;
    for (int a = 0; a < na; a++)
        assemble_check(&k, a, seq[a][0], seq[a][1], seq[a][2], seq[a][3], 0);
    /* the pattern after a longer stay: FMB_KKT_KEEP_RECENT + 10 assemblies on element 5, then
     * element 7: the rebuild keeps only what this assembly emits (elements 1 and 3 and 5
     * dropped); back to element 5 at once: the rebuild is recent, element 7's 16 entries stay */
    int a = na;
    for (int r = 0; r < FMB_KKT_KEEP_RECENT + 10; r++, a++)
        assemble_check(&k, a, 5, 0, 0, 1, 1);
    long an = k.nsymbolic;
    int ne = assemble_check(&k, a++, 7, 0, 0, 1, 0);
    check(k.Ap[N] == ne, "left elements' entries dropped after a long stay", a - 1);
    check(k.nsymbolic == an + 1, "one rebuild", a - 1);
    ne = assemble_check(&k, a++, 5, 0, 0, 1, 0);
    check(k.Ap[N] == ne + 16, "entries kept by a recent rebuild", a - 1);
    assemble_check(&k, a++, 7, 0, 0, 1, 0);
    check(k.nsymbolic == an + 2, "no rebuild when both elements are stored", a - 1);
    fmb_kkt_free(&k);
    if (fails) return 1;
    printf("PASS\n");
    return 0;
}

/*
 * Fixed lists of KKT entries (fmb_kkt_fixed_begin / fmb_kkt_fixed_end, kkt.h: a body's
 * iteration-matrix entries as one constant compressed-column list, added straight into the
 * matrix through the recorded places) against an independent reference: every entry of an
 * assembly summed into a dense n x n array here, and the matrix read back from the
 * compressed columns must equal it to rounding (tests/near.h: k the entry's number of terms
 * plus one, m the sum of the terms' magnitudes).
 * An assembly: a 2 x 2 block before the list, the list (offset off: the body's first
 * coordinate), a 2 x 2 block after it, the diagonal. Sequence:
 *   1. first assembly (recorded: the list through its scratch, then marked),
 *   2. the same again with new values: the list must be served straight from the matrix
 *      (fmb_kkt_fixed_begin returns the matrix's values, not the scratch),
 *   3. another list with the same count and column pointers but other rows (other arrays):
 *      known by its addresses, it must not be taken for the recorded one: the assembly is
 *      repeated and the pattern rebuilt,
 *   4. mapped again (the new list served from the matrix),
 *   5. the same list at another offset: a rebuild,
 *   6. the block before the list moves (the assembly leaves its pattern before the list):
 *      the list's values go through the scratch, the assembly is repeated,
 *   7. mapped again.
 * Checked to fail: with the identity check reduced to the count (same_list returning 1),
 * case 3 keeps one pass and its matrix differs from the reference; with the mark left out of
 * fmb_kkt_fixed_end, case 2 finds no direct list (the "served from the matrix" check).
 */
#include <stdio.h>
#include <string.h>

#include "flexmb/flexmb.h"
#include "near.h"
#include "solve/kkt.h"
#include "check.h"

static int failures = 0;

#define N 9

/* two lists over 3 columns with the same column pointers, rows differing in column 1 */
static const int Jp[4] = {0, 3, 5, 7};
static const int IiA[7] = {0, 1, 2, 0, 1, 1, 2};
static const int IiB[7] = {0, 1, 2, 1, 2, 1, 2};

typedef struct step {
    const int *Ii;
    int off, moved;
    double s;
    int passes, direct; /* expected passes; 1: the (last) pass gets the matrix's values */
    const char *what;
} step_t;

static double Dm[N * N]; /* the magnitudes of D's terms */
static int Dk[N * N];    /* and their count */

static void dadd(double *D, int e, double v)
{
    D[e] += v, Dm[e] += fabs(v), Dk[e]++;
}

/* One pass of an assembly; adds the same entries into D (n x n) when D is non-NULL.
 * *direct: the list was served from the matrix. */
static void assemble(fmb_kkt_t *k, const step_t *st, double *D, int *direct)
{
    const int r0[2] = {st->moved ? 1 : 0, 8}, c0[2] = {0, 8}, r1[2] = {5, 6};
    const double B0[4] = {4.0 * st->s, 1.0, 1.0, 2.0 + st->s};
    const double B1[4] = {0.5 * st->s, -1.0, -1.0, 3.0};
    fmb_kkt_add_block(k, 2, r0, 2, c0, B0, 1, 2, 1.0);
    const int *pos;
    double *A = fmb_kkt_fixed_begin(k, 3, Jp, st->Ii, st->off, &pos);
    CHECK(A != NULL, "%s: no place for the list", st->what);
    *direct = A == k->Ax;
    for (int j = 0; j < 3; j++)
        for (int e = Jp[j]; e < Jp[j + 1]; e++) {
            const double x = st->s * (1.0 + e) + (st->Ii[e] == j ? 10.0 : 0.0);
            if (A) A[pos[e]] += x;
            if (D) dadd(D, st->off + st->Ii[e] + N * (st->off + j), x);
        }
    fmb_kkt_fixed_end(k);
    fmb_kkt_add_block(k, 2, r1, 2, r1, B1, 1, 2, 1.0);
    for (int i = 0; i < N; i++)
        fmb_kkt_add(k, i, i, 50.0 + i);
    if (!D) return;
    for (int x = 0; x < 2; x++)
        for (int y = 0; y < 2; y++) {
            dadd(D, r0[y] + N * c0[x], B0[y + 2 * x]);
            dadd(D, r1[y] + N * r1[x], B1[y + 2 * x]);
        }
    for (int i = 0; i < N; i++)
        dadd(D, i + N * i, 50.0 + i);
}

int main(void)
{
    fmb_kkt_t k;
    fmb_kkt_init(&k, N);
    static const step_t steps[] = {
        {IiA, 2, 0, 1.0, 1, 0, "first assembly"},
        {IiA, 2, 0, 2.0, 1, 1, "mapped assembly"},
        {IiB, 2, 0, 3.0, 2, 0, "another list of the same shape"},
        {IiB, 2, 0, -1.5, 1, 1, "mapped after the rebuild"},
        {IiB, 3, 0, 0.75, 2, 0, "the list at another offset"},
        {IiB, 3, 1, 1.25, 2, 0, "a block before the list moved"},
        {IiB, 3, 1, -0.5, 1, 1, "mapped again"},
    };
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        const step_t *st = &steps[i];
        double D[N * N], A[N * N] = {0};
        int direct = 0, passes = 1;
        memset(D, 0, sizeof D), memset(Dm, 0, sizeof Dm), memset(Dk, 0, sizeof Dk);
        fmb_kkt_begin(&k);
        assemble(&k, st, D, &direct);
        if (fmb_kkt_end(&k)) {
            passes = 2;
            memset(D, 0, sizeof D), memset(Dm, 0, sizeof Dm), memset(Dk, 0, sizeof Dk);
            fmb_kkt_begin(&k);
            assemble(&k, st, D, &direct);
            CHECK(fmb_kkt_end(&k) == 0, "%s: the repeated assembly must be final", st->what);
        }
        CHECK(fmb_kkt_factor(&k) == 0, "%s: factorization failed", st->what);
        CHECK(passes == st->passes, "%s: %d passes, expected %d", st->what, passes, st->passes);
        CHECK(direct == st->direct, "%s: list served %s the matrix, expected %s", st->what,
              direct ? "from" : "not from", st->direct ? "from it" : "the scratch");
        for (int c = 0; c < N; c++)
            for (int p = k.Ap[c]; p < k.Ap[c + 1]; p++)
                A[k.Ai[p] + N * c] += k.Ax[p];
        int bad = 0;
        for (int e = 0; e < N * N; e++)
            bad += !near_tol(A[e], D[e], near_bound(Dk[e] + 1, Dm[e]));
        CHECK(bad == 0, "%s: %d entries differ from the dense reference", st->what, bad);
        printf("%s %-34s passes %d, list %s\n", bad ? "FAIL" : "ok  ", st->what, passes,
               direct ? "straight into the matrix" : "through the scratch");
    }
    fmb_kkt_free(&k);
    printf("kkt_fixed: %d failure(s)\n", failures);
    return failures ? 1 : 0;
}

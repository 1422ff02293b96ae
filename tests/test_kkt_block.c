/*
 * Block adds into the KKT matrix (fmb_kkt_add_block and its 1 x 1 form fmb_kkt_add; kkt.h)
 * against an independent reference: the same entries summed into a dense n x n array here,
 * and the matrix read back from the compressed columns (Ap, Ai, Ax) must equal it to
 * rounding (tests/near.h: k the entry's number of terms plus one for the factor, m the sum
 * of the terms' magnitudes).
 * Each assembly is checked in three states of the recorded sequence:
 *   1. first assembly (nothing recorded: the pattern is built from it),
 *   2. the same sequence again with new values (mapped: the blocks' fast path),
 *   3. a sequence that leaves the recorded one in the middle of a block (a moved column):
 *      fmb_kkt_end must ask for the repeat, and the repeated assembly rebuilds the pattern;
 *      the values of the discarded mapped pass must not leak into the result.
 * The same sequence emitted entry by entry with fmb_kkt_add into a second matrix must store
 * the same pattern (Ap, Ai: placement alone, compared exactly) and equal the dense sum to
 * rounding as well.
 * The matrix is factored and solved against a manufactured x (b = A x from the dense
 * reference) as a check that the pattern is usable.
 *   5-8. two more 2 x 2 blocks, one whose rows and one whose columns move alone (every
 *      other block the same): a block recorded whole is checked on its rows and columns
 *      only (kkt.h, Tb marks), so each of the two checks must catch its own change.
 * Checked to fail: with the block's scatter ignoring the row stride rs (the transposed
 * block read as if column-major) the mapped assemblies differ from the reference; with an
 * entry off the recorded sequence skipped instead of ending the fast path (so the assembly
 * is not repeated) cases 3 and 4 differ; with the marked block's row check or column check
 * left out, case 5 or case 7 keeps one pass and differs from the reference.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "flexmb/flexmb.h"
#include "near.h"
#include "solve/kkt.h"
#include "check.h"

static int failures = 0;

#define N 7

/* rows of block E1 (columns 1 2) and columns of block E2 (rows 1 2): cases 5-8 move them */
static const int *e1_rows, *e2_cols;

/* One assembly: a 3 x 3 block on rows/cols g3, a 2 x 3 block (J) on rows r2 and columns c3
 * and its transpose scaled by a (J^T, strided), three single entries, two 2 x 2 blocks and
 * the diagonal. mode 0: through the block calls; 1: the same entries through fmb_kkt_add.
 * Sums the same entries into D (dense, column-major; Dm their magnitudes, Dk their count)
 * when D is non-NULL. */
static double Dm[N * N];
static int Dk[N * N];

static void dadd(double *D, int e, double v)
{
    D[e] += v, Dm[e] += fabs(v), Dk[e]++;
}

static void assemble(fmb_kkt_t *k, int mode, const int c3[3], double s, double *D)
{
    const int g3[3] = {0, 1, 2}, r2[2] = {5, 6};
    double B[9], J[6];
    for (int e = 0; e < 9; e++)
        B[e] = s * (1.0 + e) + (e % 4 == 0 ? 10.0 : 0.0);
    for (int e = 0; e < 6; e++)
        J[e] = s * (0.5 - 0.25 * e);
    const double a = 0.75;
    const int I[3] = {3, 4, 3}, Jl[3] = {3, 4, 4};
    const double X[3] = {2.0 * s + 5.0, 3.0 * s + 5.0, -s};
    const int c12[2] = {1, 2};
    double E[4];
    for (int e = 0; e < 4; e++)
        E[e] = 0.01 * s * (1.0 + e);
    if (mode == 0) {
        fmb_kkt_add_block(k, 3, g3, 3, g3, B, 1, 3, 1.0);
        fmb_kkt_add_block(k, 2, r2, 3, c3, J, 1, 2, 1.0);
        fmb_kkt_add_block(k, 3, c3, 2, r2, J, 2, 1, a);
        for (int e = 0; e < 3; e++)
            fmb_kkt_add(k, I[e], Jl[e], X[e]);
        fmb_kkt_add_block(k, 2, e1_rows, 2, c12, E, 1, 2, 1.0);
        fmb_kkt_add_block(k, 2, c12, 2, e2_cols, E, 1, 2, 1.0);
    } else {
        for (int x = 0; x < 3; x++)
            for (int y = 0; y < 3; y++)
                fmb_kkt_add(k, g3[y], g3[x], B[y + 3 * x]);
        for (int x = 0; x < 3; x++)
            for (int y = 0; y < 2; y++)
                fmb_kkt_add(k, r2[y], c3[x], J[y + 2 * x]);
        for (int x = 0; x < 2; x++)
            for (int y = 0; y < 3; y++)
                fmb_kkt_add(k, c3[y], r2[x], a * J[x + 2 * y]);
        for (int e = 0; e < 3; e++)
            fmb_kkt_add(k, I[e], Jl[e], X[e]);
        for (int x = 0; x < 2; x++)
            for (int y = 0; y < 2; y++)
                fmb_kkt_add(k, e1_rows[y], c12[x], E[y + 2 * x]);
        for (int x = 0; x < 2; x++)
            for (int y = 0; y < 2; y++)
                fmb_kkt_add(k, c12[y], e2_cols[x], E[y + 2 * x]);
    }
    for (int i = 5; i < N; i++)
        fmb_kkt_add(k, i, i, -1e-3);
    if (!D) return;
    memset(D, 0, sizeof(double) * N * N), memset(Dm, 0, sizeof Dm), memset(Dk, 0, sizeof Dk);
    for (int x = 0; x < 3; x++)
        for (int y = 0; y < 3; y++)
            dadd(D, g3[y] + N * g3[x], B[y + 3 * x]);
    for (int x = 0; x < 3; x++)
        for (int y = 0; y < 2; y++) {
            dadd(D, r2[y] + N * c3[x], J[y + 2 * x]);
            dadd(D, c3[x] + N * r2[y], a * J[y + 2 * x]);
        }
    for (int e = 0; e < 3; e++)
        dadd(D, I[e] + N * Jl[e], X[e]);
    for (int x = 0; x < 2; x++)
        for (int y = 0; y < 2; y++) {
            dadd(D, e1_rows[y] + N * c12[x], E[y + 2 * x]);
            dadd(D, c12[y] + N * e2_cols[x], E[y + 2 * x]);
        }
    for (int i = 5; i < N; i++)
        dadd(D, i + N * i, -1e-3);
}

/* An assembly as the solver does it: repeated once when fmb_kkt_end asks. Returns the
 * number of passes. */
static int full_assembly(fmb_kkt_t *k, int mode, const int c3[3], double s, double *D)
{
    fmb_kkt_begin(k);
    assemble(k, mode, c3, s, D);
    if (!fmb_kkt_end(k)) return 1;
    fmb_kkt_begin(k);
    assemble(k, mode, c3, s, D);
    CHECK(fmb_kkt_end(k) == 0, "the repeated assembly must be final");
    return 2;
}

/* The compressed matrix equals D to rounding (entries outside the pattern must be 0 in D). */
static void compare(const fmb_kkt_t *k, const double *D, const char *what)
{
    double A[N * N] = {0};
    for (int c = 0; c < N; c++)
        for (int p = k->Ap[c]; p < k->Ap[c + 1]; p++)
            A[k->Ai[p] + N * c] += k->Ax[p];
    int bad = 0;
    for (int e = 0; e < N * N; e++)
        bad += !near_tol(A[e], D[e], near_bound(Dk[e] + 1, Dm[e]));
    CHECK(bad == 0, "%s: %d entries differ from the dense reference", what, bad);
}

static void solve_check(fmb_kkt_t *k, const double *D, const char *what)
{
    double x[N], b[N] = {0}, y[N];
    for (int i = 0; i < N; i++)
        x[i] = 1.0 + 0.1 * i;
    for (int c = 0; c < N; c++)
        for (int r = 0; r < N; r++)
            b[r] += D[r + N * c] * x[c];
    CHECK(fmb_kkt_factor(k) == 0, "%s: factorization failed", what);
    CHECK(fmb_kkt_solve(k, b, y) == 0, "%s: solve failed", what);
    double err = 0;
    for (int i = 0; i < N; i++)
        err = fmax(err, fabs(y[i] - x[i]));
    CHECK(err < 1e-10, "%s: solution error %.3g", what, err);
}

int main(void)
{
    fmb_kkt_t kb, ke;
    fmb_kkt_init(&kb, N);
    fmb_kkt_init(&ke, N);
    double D[N * N];
    const int c3[3] = {0, 2, 3}, moved[3] = {0, 2, 4};
    const int er[2] = {3, 4}, er2[2] = {3, 6}, ec[2] = {3, 4}, ec2[2] = {3, 6};
    const struct {
        const int *cols, *e1, *e2;
        double s;
        int passes;
        const char *what;
    } steps[] = {{c3, er, ec, 1.0, 1, "first assembly"},
                 {c3, er, ec, 2.0, 1, "mapped assembly"},
                 {moved, er, ec, 3.0, 2, "moved column"},
                 {moved, er, ec, -1.5, 1, "mapped again after the rebuild"},
                 {moved, er2, ec, 2.5, 2, "one block's rows moved"},
                 {moved, er2, ec, 1.25, 1, "mapped after the rows moved"},
                 {moved, er2, ec2, -2.0, 2, "one block's columns moved"},
                 {moved, er2, ec2, 0.5, 1, "mapped after the columns moved"}};
    for (int i = 0; i < 8; i++) {
        e1_rows = steps[i].e1, e2_cols = steps[i].e2;
        const int pb = full_assembly(&kb, 0, steps[i].cols, steps[i].s, D);
        full_assembly(&ke, 1, steps[i].cols, steps[i].s, NULL);
        CHECK(pb == steps[i].passes, "%s: %d passes, expected %d", steps[i].what, pb,
              steps[i].passes);
        solve_check(&kb, D, steps[i].what);
        CHECK(fmb_kkt_factor(&ke) == 0, "%s: per-entry factorization", steps[i].what);
        compare(&kb, D, steps[i].what);
        compare(&ke, D, steps[i].what);
        CHECK(kb.Ap[N] == ke.Ap[N] && !memcmp(kb.Ap, ke.Ap, sizeof(int) * (N + 1)) &&
                  !memcmp(kb.Ai, ke.Ai, sizeof(int) * (size_t)kb.Ap[N]),
              "%s: the block and per-entry adds store different patterns", steps[i].what);
        CHECK(kb.mapped, "%s: the pattern must be mapped after the factorization", steps[i].what);
    }
    fmb_kkt_free(&kb);
    fmb_kkt_free(&ke);
    printf("kkt_block: %d failure(s)\n", failures);
    return failures ? 1 : 0;
}

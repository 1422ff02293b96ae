/*
 * A joint's entries in one call (fmb_kkt_add_joint, kkt.h): J, cA J^T and the theta column and
 * row of each body's diagonal block of cK H, checked on its rows R and columns g alone once
 * recorded whole. Independent reference: the same entries summed into a dense matrix here;
 * the compressed values must equal it to rounding (tests/near.h: k the entry's number of
 * terms plus one for the factor, m the sum of the terms' magnitudes). A second KKT matrix fed
 * the same entries through the other fixed calls (fmb_kkt_add_block for J and J^T, then
 * fmb_kkt_add for each Hessian entry) must store the same pattern (Ap, Ai: placement alone,
 * exact) and equal the dense sum to rounding as well. Three joints
 * on four "bodies" (columns 0-2, 3-5, 6-11 a body with 3 shape columns, 12-14), one of them
 * on ground (n0 = 0: no body 0 block, h0 = 0), two with two rows (the unrolled loops), one
 * with three. Each assembly is checked first (recorded),
 * again (mapped: the fast path) and with one change: a joint's multiplier rows moved (R
 * alone), a joint's body moved (g alone), an extra entry before the joints (every call's
 * place in the sequence moved), a joint's Hessian switched off on one side (another shape
 * and mark), and back, and a joint split otherwise between its two bodies (n0 alone
 * changes: the same R, g and entry count). A moved call must leave its pattern (repeat and
 * rebuild), never add at its recorded places.
 * Checked to fail: with the R check left out (assembly 3, moved rows, differs), with the g
 * check left out (assembly 5, moved body), and with n0 left out of the mark (assembly 13,
 * the split). h0 and h1 change the entry count, so a mark without them is caught by the
 * sequence after the call as well (no failure then): they are in the mark for a call
 * that ends an assembly early.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "flexmb/flexmb.h"
#include "near.h"
#include "solve/kkt.h"
#include "check.h"

static int failures = 0;

#define NQ 15
#define NM 7
#define N (NQ + NM)

typedef struct {
    int rows;   /* first multiplier row of joint 1 (normally 2: rows NQ + 2, NQ + 3) */
    int body;   /* first column of joint 2's second body (normally 12) */
    int extra;  /* an extra entry before the joints */
    int h1_off; /* joint 0 without its body 1 Hessian */
    int split;  /* joint 1 on columns 0-5 and 6-8 instead of 0-2 and 3-8 (the same g) */
} plan_t;

/* joint j: body columns (n0 on the first body at c0, nl - n0 on the second at c1) */
static void joint_geom(const plan_t *p, int j, int *nr, int *R, int *nl, int *n0, int *g)
{
    static const int c0s[3] = {-1, 0, 6}, c1s[3] = {0, 3, 12}, n0s[3] = {0, 3, 6},
                     n1s[3] = {3, 6, 3};
    *nr = j == 2 ? 3 : 2; /* joint 2: three rows (a weld; the general loops) */
    const int r0 = NQ + 2 * j + (j == 1 ? p->rows - 2 : 0);
    for (int y = 0; y < *nr; y++)
        R[y] = r0 + y;
    const int sp = j == 1 && p->split;
    *n0 = sp ? 6 : n0s[j];
    *nl = n0s[j] + n1s[j];
    const int c1 = j == 2 ? p->body : sp ? 6 : c1s[j];
    for (int x = 0; x < *n0; x++)
        g[x] = c0s[j] + x;
    for (int x = *n0; x < *nl; x++)
        g[x] = c1 + x - *n0;
}

/* the same entries through the other fixed calls: J and J^T as blocks, the Hessian's entries
 * one by one */
static void other_calls(fmb_kkt_t *k, int nr, const int *R, int nl, const int *g, const double *J,
                        double cA, int n0, int h0, int h1, const double *H, double cK)
{
    fmb_kkt_add_block(k, nr, R, nl, g, J, 1, nr, 1.0);
    fmb_kkt_add_block(k, nl, g, nr, R, J, nr, 1, cA);
    for (int b = 0; b < 2; b++) {
        if (!(b ? h1 : h0)) continue;
        const int o = b ? n0 : 0, m = b ? nl - n0 : n0, th = o + 2;
        for (int cc = o; cc < o + m; cc++) {
            if (cc == th)
                for (int r = o; r < o + m; r++)
                    fmb_kkt_add(k, g[r], g[cc], cK * H[r + nl * cc]);
            else
                fmb_kkt_add(k, g[th], g[cc], cK * H[th + nl * cc]);
        }
    }
}

#include "kkt_sum.h"

/* one assembly into k (mode 0: fmb_kkt_add_joint, 1: the other calls); the dense sum with
 * dense; returns fmb_kkt_end's answer */
static int assemble(fmb_kkt_t *k, int mode, const plan_t *p, double s, int dense)
{
    fmb_kkt_begin(k);
    for (int a = 0; a < NQ; a++) { /* the bodies: an SPD band */
        fmb_kkt_add(k, a, a, 8.0 * s + 0.1 * a);
        if (dense) dadd(a, a, 8.0 * s + 0.1 * a);
        if (a + 1 < NQ) {
            fmb_kkt_add(k, a, a + 1, -s), fmb_kkt_add(k, a + 1, a, -s);
            if (dense) dadd(a, a + 1, -s), dadd(a + 1, a, -s);
        }
    }
    if (p->extra) {
        fmb_kkt_add(k, 0, 5, 0.25 * s), fmb_kkt_add(k, 5, 0, 0.25 * s);
        if (dense) dadd(0, 5, 0.25 * s), dadd(5, 0, 0.25 * s);
    }
    const double cA = 0.7 * s, cK = -0.3 * s;
    for (int j = 0; j < 3; j++) {
        int nr, R[3], nl, n0, g[12];
        joint_geom(p, j, &nr, R, &nl, &n0, g);
        double J[3 * 12], H[12 * 12];
        for (int e = 0; e < nr * nl; e++)
            J[e] = s * (0.5 + 0.1 * e - 0.01 * j * e * e);
        for (int e = 0; e < nl * nl; e++)
            H[e] = s * (1.0 + 0.03 * e + 0.5 * j);
        const int h0 = n0 >= 3, h1 = nl - n0 >= 3 && !(j == 0 && p->h1_off);
        if (mode == 0)
            fmb_kkt_add_joint(k, nr, R, nl, g, J, cA, n0, h0, h1, H, cK);
        else
            other_calls(k, nr, R, nl, g, J, cA, n0, h0, h1, H, cK);
        if (!dense) continue;
        for (int x = 0; x < nl; x++)
            for (int y = 0; y < nr; y++) {
                dadd(R[y], g[x], J[x * nr + y]);
                dadd(g[x], R[y], cA * J[x * nr + y]);
            }
        for (int b = 0; b < 2; b++) {
            if (!(b ? h1 : h0)) continue;
            const int o = b ? n0 : 0, m = b ? nl - n0 : n0, th = o + 2;
            for (int cc = o; cc < o + m; cc++)
                for (int r = o; r < o + m; r++)
                    if (cc == th || r == th) dadd(g[r], g[cc], cK * H[r + nl * cc]);
        }
    }
    for (int r = 0; r < NM; r++) {
        fmb_kkt_add(k, NQ + r, NQ + r, -0.5);
        if (dense) dadd(NQ + r, NQ + r, -0.5);
    }
    return fmb_kkt_end(k);
}

int main(void)
{
    const plan_t base = {2, 12, 0, 0, 0};
    plan_t seq[20];
    int na = 0;
    seq[na++] = base, seq[na++] = base, seq[na++] = base;
    plan_t p = base;
    p.rows = 4, seq[na++] = p, seq[na++] = base; /* joint 1's rows moved (onto joint 2's) */
    p = base, p.body = 9, seq[na++] = p, seq[na++] = base; /* joint 2's body moved */
    p = base, p.extra = 1, seq[na++] = p, seq[na++] = p, seq[na++] = base;     /* places moved */
    p = base, p.h1_off = 1, seq[na++] = p, seq[na++] = base, seq[na++] = base; /* shape */
    p = base, p.split = 1, seq[na++] = p, seq[na++] = p, seq[na++] = base;     /* n0 alone */
    fmb_kkt_t k, kr;
    fmb_kkt_init(&k, N), fmb_kkt_init(&kr, N);
    k.ncoord = kr.ncoord = NQ;
    int repeats = 0;
    for (int a = 0; a < na; a++) {
        const double s = 1.0 + 0.05 * a;
        int again = 1, againr = 1;
        for (int r = 0; (again || againr) && r < 2; r++) {
            dreset();
            again = assemble(&k, 0, &seq[a], s, 1);
            againr = assemble(&kr, 1, &seq[a], s, 0);
            repeats += again;
        }
        CHECK(!again && !againr, "assembly %d: repeated more than once", a);
        CHECK(fmb_kkt_factor(&k) == 0 && fmb_kkt_factor(&kr) == 0, "assembly %d: factorization", a);
        int same = k.Ap[N] == kr.Ap[N];
        for (int j = 0; same && j <= N; j++)
            same &= k.Ap[j] == kr.Ap[j];
        for (int q = 0; same && q < k.Ap[N]; q++)
            same &= k.Ai[q] == kr.Ai[q];
        CHECK(same, "assembly %d: one call and the other calls store different patterns", a);
        double d, dr;
        const int bad = off_dense(&k, &d), badr = off_dense(&kr, &dr);
        CHECK(bad == 0, "assembly %d: %d entries off the dense sum (|C - D| = %g)", a, bad, d);
        CHECK(badr == 0, "assembly %d: other calls: %d entries off the dense sum", a, badr);
        printf("assembly %d: rows %d body %d extra %d h1_off %d split %d: |C - D| = %.2g, "
               "pattern %s, stored %d, analyses %ld\n",
               a, seq[a].rows, seq[a].body, seq[a].extra, seq[a].h1_off, seq[a].split, d,
               same ? "equal" : "DIFFER", k.Ap[N], k.nsymbolic);
    }
    CHECK(repeats >= 6, "the moved calls must have left their pattern (%d repeats)", repeats);
    fmb_kkt_free(&k), fmb_kkt_free(&kr);
    printf("kkt_add_joint: %d failure(s)\n", failures);
    return failures ? 1 : 0;
}

#include "solve/kkt.h"

#include <klu.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <umfpack.h>

#include "flexmb/flexmb.h"

/* The marks of Tb: a block of nr x nc entries recorded whole by one fmb_kkt_add_block, a
 * joint's entries recorded whole by one fmb_kkt_add_joint (every count below 256) */
#define BLOCK_MARK(nr, nc) ((nr)*65536 + (nc))
#define JOINT_MARK(nr, nl, n0, h0, h1)                                                             \
    ((1 << 30) | ((nr) << 22) | ((nl) << 14) | ((n0) << 6) | ((h0) << 1) | (h1))

/* KKT systems above FMB_KKT_LARGE are factored with KLU's large-mesh settings (symmetric
 * scaling, scale_matrix; pivot threshold FMB_KKT_LARGE_TOL), smaller ones with KLU's row
 * scaling and threshold 1e-3; both with the order of kkt_order.c (dense carrier rows and
 * their multipliers last). */
static int large(const fmb_kkt_t *k)
{
    return k->solver != FMB_KKT_UMFPACK && k->n > FMB_KKT_LARGE;
}

int fmb_kkt_init(fmb_kkt_t *k, int n)
{
    memset(k, 0, sizeof *k);
    k->n = n;
    return 0;
}

/* KLU analysis: the order of kkt_order.c (from the pattern alone), used as the row and
 * column order (diagonal pivots preferred), in one block (no BTF: a multiplier with its zero
 * diagonal must be able to pivot on a neighbouring row). Small systems used KLU's AMD with
 * BTF: the same pivoting, 1.8-2.9 x the flops (kkt_order.c). */
static int analyze_klu(fmb_kkt_t *k, klu_common *kc)
{
    int *P = malloc(((size_t)k->n + 1) * sizeof *P);
    if (!P) return FMB_ERR_NOMEM;
    int nlast;
    int rc = fmb_kkt_order(k, P, &nlast);
    if (rc == 0) {
        kc->btf = 0;
        k->ksymbolic = klu_analyze_given(k->n, k->Ap, k->Ai, P, P, kc);
        if (!k->ksymbolic) rc = kc->status == KLU_OUT_OF_MEMORY ? FMB_ERR_NOMEM : FMB_ERR_LINSOLVE;
    }
    free(P);
    return rc;
}

static void free_factors(fmb_kkt_t *k)
{
    if (k->numeric) umfpack_di_free_numeric(&k->numeric);
    if (k->symbolic) umfpack_di_free_symbolic(&k->symbolic);
    klu_common *kc = k->kcommon;
    if (kc) {
        klu_numeric *kn = k->knumeric;
        klu_symbolic *ks = k->ksymbolic;
        if (kn) klu_free_numeric(&kn, kc);
        if (ks) klu_free_symbolic(&ks, kc);
    }
    k->knumeric = k->ksymbolic = NULL;
}

void fmb_kkt_free(fmb_kkt_t *k)
{
    free_factors(k);
    free(k->kcommon), free(k->control), free(k->uweight), free(k->dscale), free(k->dpos);
    free(k->Ti), free(k->Tj), free(k->Tx), free(k->Tb);
    free(k->Ap), free(k->Ai), free(k->Ax), free(k->Map);
    free(k->Fi), free(k->Fj), free(k->Fx);
    free(k->Xbh), free(k->Xba);
    free(k->lists), free(k->lx), free(k->liota);
    free(k->oP);
    memset(k, 0, sizeof *k);
}

void fmb_kkt_begin(fmb_kkt_t *k)
{
    k->nt = 0;
    k->nf = 0;
    k->nxb = 0;
    k->redo = 0;
    k->nbegin++;
    if (!k->mapped) k->nlists = 0; /* recorded anew with the sequence */
    if (k->mapped) memset(k->Ax, 0, (size_t)k->Ap[k->n] * sizeof *k->Ax);
}

int fmb_kkt_end(fmb_kkt_t *k)
{
    if (k->nt < 0) return 0; /* out of memory: fmb_kkt_factor reports it */
    if (k->redo || (k->mapped && k->nt != k->pattern_nt)) {
        k->mapped = 0; /* the repeated assembly records every entry with its value */
        k->redo = 0;
        return 1;
    }
    return 0;
}

/* One entry of the fixed sequence off fmb_kkt_add's fast path: recorded, or ending a mapped
 * assembly that left its pattern. */
static void add_slow(fmb_kkt_t *k, int i, int j, double x)
{
    if (k->nt < 0) return;
    if (k->mapped) {
        /* off the recorded sequence in a mapped assembly: the values so far went into Ax
         * unrecorded, so the assembly is repeated (fmb_kkt_end) */
        k->mapped = 0;
        k->redo = 1;
    }
    if (k->redo) {
        k->nt++;
        return;
    }
    if (k->nt == k->cap) {
        int cap = k->cap ? 2 * k->cap : 1024;
        int *Ti = realloc(k->Ti, (size_t)cap * sizeof *Ti);
        if (Ti) k->Ti = Ti;
        int *Tj = realloc(k->Tj, (size_t)cap * sizeof *Tj);
        if (Tj) k->Tj = Tj;
        double *Tx = realloc(k->Tx, (size_t)cap * sizeof *Tx);
        if (Tx) k->Tx = Tx;
        int *Tb = realloc(k->Tb, (size_t)cap * sizeof *Tb);
        if (Tb) k->Tb = Tb;
        if (!Ti || !Tj || !Tx || !Tb) {
            k->nt = -1; /* poisoned: factor reports out of memory */
            return;
        }
        k->cap = cap;
    }
    /* an entry off the recorded pattern: record the whole assembly and rebuild */
    k->mapped = 0;
    k->Ti[k->nt] = i;
    k->Tj[k->nt] = j;
    k->Tx[k->nt] = x;
    k->Tb[k->nt] = 0; /* a block's first entry is marked by fmb_kkt_add_block */
    k->nt++;
}

/* fmb_kkt_add within kkt.c (whose inline form falls back to fmb_kkt_add_block) */
static inline void add_one(fmb_kkt_t *k, int i, int j, double x)
{
    const int t = k->nt;
    if (k->mapped && t < k->pattern_nt && k->Ti[t] == i && k->Tj[t] == j) {
        k->Ax[k->Map[t]] += x;
        k->nt = t + 1;
        return;
    }
    add_slow(k, i, j, x);
}

void fmb_kkt_add_block(fmb_kkt_t *k, int nr, const int *rows, int nc, const int *cols,
                       const double *B, int rs, int cs, double a)
{
    int t = k->nt, x = 0, y = 0;
    if (k->mapped && t >= 0 && nr * nc <= k->pattern_nt - t) {
        const int *Ti = k->Ti, *Tj = k->Tj, *Map = k->Map;
        double *Ax = k->Ax;
        /* recorded as one block of this shape (Tb): entry (y, x) was (rows_rec[y],
         * cols_rec[x]) at t + x nr + y, so checking the rows on its first column and the
         * columns on its first row checks every entry (nr + nc tests, not 2 nr nc) */
        if (nr > 0 && nc > 0 && k->Tb[t] == BLOCK_MARK(nr, nc)) {
            int same = 1;
            for (y = 0; y < nr; y++)
                same &= Ti[t + y] == rows[y];
            for (x = 0; x < nc; x++)
                same &= Tj[t + x * nr] == cols[x];
            if (same) {
                const int *M = Map + t;
                for (x = 0; x < nc; x++, M += nr) {
                    const double *b = B + (size_t)cs * x;
                    if (rs == 1)
                        for (y = 0; y < nr; y++)
                            Ax[M[y]] += a * b[y];
                    else
                        for (y = 0; y < nr; y++)
                            Ax[M[y]] += a * b[(size_t)rs * y];
                }
                k->nt = t + nr * nc;
                return;
            }
            x = y = 0;
        }
        /* add_one's fast path with k's fields held in registers; at the first entry
         * off the recorded sequence the rest goes through add_one (the mapped values
         * added so far are then discarded: the assembly is repeated, fmb_kkt_end) */
        for (x = 0; x < nc; x++) {
            const int c = cols[x];
            const double *b = B + (size_t)cs * x;
            for (y = 0; y < nr; y++, t++) {
                if (Ti[t] != rows[y] || Tj[t] != c) goto slow;
                Ax[Map[t]] += a * b[(size_t)rs * y];
            }
        }
        k->nt = t;
        return;
    }
slow:
    k->nt = t;
    /* recording the whole block (an unmapped assembly from its first entry): mark it */
    const int mark = x == 0 && y == 0 && !k->mapped && !k->redo && t >= 0 && nr > 0 && nc > 0;
    for (; x < nc; x++, y = 0)
        for (; y < nr; y++)
            add_one(k, rows[y], cols[x], a * B[(size_t)rs * y + (size_t)cs * x]);
    if (mark && !k->mapped && !k->redo && k->nt == t + nr * nc) k->Tb[t] = BLOCK_MARK(nr, nc);
}

/* A call of fmb_kkt_add_joint. */
typedef struct joint_call {
    int nr, nl, n0, h0, h1;
    const int *R, *g;
    const double *J, *H;
    double cA, cK;
} joint_call_t;

/* Every entry of the call through add_one (the recording path, and a mapped assembly
 * off its pattern). */
static void joint_entries(fmb_kkt_t *k, const joint_call_t *c)
{
    const int nr = c->nr, nl = c->nl;
    for (int x = 0; x < nl; x++)
        for (int y = 0; y < nr; y++)
            add_one(k, c->R[y], c->g[x], c->J[x * nr + y]);
    for (int x = 0; x < nr; x++)
        for (int y = 0; y < nl; y++)
            add_one(k, c->g[y], c->R[x], c->cA * c->J[y * nr + x]);
    for (int b = 0; b < 2; b++) {
        if (!(b ? c->h1 : c->h0)) continue;
        const int o = b ? c->n0 : 0, m = b ? nl - c->n0 : c->n0, th = o + 2;
        for (int cc = o; cc < o + m; cc++) {
            const double *Hc = c->H + (size_t)nl * cc;
            if (cc == th) {
                for (int r = o; r < o + m; r++)
                    add_one(k, c->g[r], c->g[cc], c->cK * Hc[r]);
            } else {
                add_one(k, c->g[th], c->g[cc], c->cK * Hc[th]);
            }
        }
    }
}

void fmb_kkt_add_joint(fmb_kkt_t *k, int nr, const int *R, int nl, const int *g, const double *J,
                       double cA, int n0, int h0, int h1, const double *H, double cK)
{
    const int ne = 2 * nr * nl + (h0 ? 2 * n0 - 1 : 0) + (h1 ? 2 * (nl - n0) - 1 : 0);
    const int mark = JOINT_MARK(nr, nl, n0, h0, h1);
    const int t = k->nt;
    if (k->mapped && t >= 0 && ne <= k->pattern_nt - t && k->Tb[t] == mark) {
        /* recorded whole by a call of this shape: entry (y, x) of J was (R_rec[y],
         * g_rec[x]) at t + x nr + y, and every later entry is (g_rec[.], R_rec[.]) or
         * (g_rec[.], g_rec[.]) by the same order: R and g decide them all */
        const int *Ti = k->Ti + t, *Tj = k->Tj + t;
        int same = 1;
        for (int y = 0; y < nr; y++)
            same &= Ti[y] == R[y];
        for (int x = 0; x < nl; x++)
            same &= Tj[x * nr] == g[x];
        if (same) {
            const int *M = k->Map + t;
            double *Ax = k->Ax;
            if (nr == 2) { /* the usual two rows (pins, sliders), unrolled */
                for (int x = 0; x < nl; x++, M += 2)
                    Ax[M[0]] += J[2 * x], Ax[M[1]] += J[2 * x + 1];
                for (int y = 0; y < nl; y++)
                    Ax[M[y]] += cA * J[2 * y];
                for (int y = 0; y < nl; y++)
                    Ax[M[nl + y]] += cA * J[2 * y + 1];
                M += 2 * nl;
            } else {
                for (int x = 0; x < nl; x++, M += nr)
                    for (int y = 0; y < nr; y++)
                        Ax[M[y]] += J[x * nr + y];
                for (int x = 0; x < nr; x++, M += nl)
                    for (int y = 0; y < nl; y++)
                        Ax[M[y]] += cA * J[y * nr + x];
            }
            for (int b = 0; b < 2; b++) {
                if (!(b ? h1 : h0)) continue;
                const int o = b ? n0 : 0, m = b ? nl - n0 : n0, th = o + 2;
                for (int cc = o; cc < o + m; cc++) {
                    const double *Hc = H + (size_t)nl * cc;
                    if (cc == th)
                        for (int r = o; r < o + m; r++)
                            Ax[*M++] += cK * Hc[r];
                    else
                        Ax[*M++] += cK * Hc[th];
                }
            }
            k->nt = t + ne;
            return;
        }
    }
    const joint_call_t c = {nr, nl, n0, h0, h1, R, g, J, H, cA, cK};
    const int mark_it = !k->mapped && !k->redo && t >= 0;
    joint_entries(k, &c);
    if (mark_it && !k->mapped && !k->redo && k->nt == t + ne) k->Tb[t] = mark;
}

static int same_list(const fmb_kkt_list_t *a, const fmb_kkt_list_t *b)
{
    return a->Jp == b->Jp && a->Ii == b->Ii && a->off == b->off && a->ncol == b->ncol;
}

double *fmb_kkt_fixed_begin(fmb_kkt_t *k, int ncol, const int *Jp, const int *Ii, int off,
                            const int **pos)
{
    const int t = k->nt, nz = Jp[ncol];
    k->lcur = (fmb_kkt_list_t){Jp, Ii, off, ncol};
    k->lt = t;
    k->lmapped = 0;
    if (k->mapped && t >= 0 && nz <= k->pattern_nt - t && nz > 0 && k->Tb[t] < 0) {
        const int l = -1 - k->Tb[t];
        if (l < k->nlists && same_list(&k->lists[l], &k->lcur)) {
            k->lmapped = 1;
            k->nldirect++;
            *pos = k->Map + t;
            return k->Ax;
        }
    }
    if (nz > k->lxcap) {
        free(k->lx), free(k->liota);
        k->lx = malloc((size_t)nz * sizeof *k->lx);
        k->liota = malloc((size_t)nz * sizeof *k->liota);
        if (!k->lx || !k->liota) {
            free(k->lx), free(k->liota);
            k->lx = NULL, k->liota = NULL, k->lxcap = 0;
            k->nt = -1; /* poisoned: factor reports out of memory */
            return NULL;
        }
        for (int e = 0; e < nz; e++)
            k->liota[e] = e;
        k->lxcap = nz;
    }
    memset(k->lx, 0, (size_t)nz * sizeof *k->lx);
    *pos = k->liota;
    return k->lx;
}

void fmb_kkt_fixed_end(fmb_kkt_t *k)
{
    const fmb_kkt_list_t *c = &k->lcur;
    const int nz = c->Jp[c->ncol], t = k->lt;
    if (k->lmapped) {
        k->nt = t + nz;
        return;
    }
    if (k->nt < 0) return;
    for (int j = 0; j < c->ncol; j++)
        for (int e = c->Jp[j]; e < c->Jp[j + 1]; e++)
            add_one(k, c->off + c->Ii[e], c->off + j, k->lx[e]);
    /* recorded whole (an unmapped assembly from the list's first entry on): mark it */
    if (nz > 0 && !k->mapped && !k->redo && t >= 0 && k->nt == t + nz) {
        if (k->nlists == k->lcap) {
            const int cap = k->lcap ? 2 * k->lcap : 8;
            fmb_kkt_list_t *L = realloc(k->lists, (size_t)cap * sizeof *L);
            if (!L) return; /* unmarked: the list's entries are then checked one by one */
            k->lists = L, k->lcap = cap;
        }
        k->lists[k->nlists] = *c;
        k->Tb[t] = -1 - k->nlists++;
    }
}

/* The place of entry (i, j) in the pattern, -1 if it is not stored. */
static int find_place(const fmb_kkt_t *k, int i, int j)
{
    int lo = k->Ap[j], hi = k->Ap[j + 1] - 1; /* rows ascending within a column */
    while (lo <= hi) {
        const int mid = (lo + hi) / 2;
        if (k->Ai[mid] == i) return mid;
        if (k->Ai[mid] < i)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* A searched entry of an unmapped assembly: recorded for the rebuild of the pattern (which
 * needs every value). */
static void addx_record(fmb_kkt_t *k, int i, int j, double x)
{
    if (k->nt < 0) return;
    if (k->nf == k->fcap) {
        int cap = k->fcap ? 2 * k->fcap : 256;
        int *Fi = realloc(k->Fi, (size_t)cap * sizeof *Fi);
        if (Fi) k->Fi = Fi;
        int *Fj = realloc(k->Fj, (size_t)cap * sizeof *Fj);
        if (Fj) k->Fj = Fj;
        double *Fx = realloc(k->Fx, (size_t)cap * sizeof *Fx);
        if (Fx) k->Fx = Fx;
        if (!Fi || !Fj || !Fx) {
            k->nt = -1; /* poisoned: factor reports out of memory */
            return;
        }
        k->fcap = cap;
    }
    k->Fi[k->nf] = i, k->Fj[k->nf] = j, k->Fx[k->nf] = x;
    k->nf++;
}

/* Room for block call b's record of nrec ints (kept contiguous from call 0); NULL when it
 * cannot be kept (an earlier call was not kept, or no memory): the block is then searched
 * entry by entry without keeping. */
static int *keep_block(fmb_kkt_t *k, int b, int nr, int nc)
{
    if (b > k->nxbvalid) return NULL;
    const int start = b ? k->Xbh[3 * b - 3] + k->Xbh[3 * b - 2] + k->Xbh[3 * b - 1] +
                              k->Xbh[3 * b - 2] * k->Xbh[3 * b - 1]
                        : 0;
    const int nrec = nr + nc + nr * nc;
    k->nxbvalid = b; /* this call's record (and every later one) is rewritten */
    if (3 * b + 3 > k->xbhcap) {
        const int cap = k->xbhcap ? 2 * k->xbhcap : 48;
        int *h = realloc(k->Xbh, (size_t)cap * sizeof *h);
        if (!h) return NULL;
        k->Xbh = h, k->xbhcap = cap;
    }
    if (start + nrec > k->xbacap) {
        int cap = k->xbacap ? 2 * k->xbacap : 1024;
        while (cap < start + nrec)
            cap *= 2;
        int *a = realloc(k->Xba, (size_t)cap * sizeof *a);
        if (!a) return NULL;
        k->Xba = a, k->xbacap = cap;
    }
    k->Xbh[3 * b] = start, k->Xbh[3 * b + 1] = nr, k->Xbh[3 * b + 2] = nc;
    return k->Xba + start;
}

void fmb_kkt_addx_block(fmb_kkt_t *k, int nr, const int *rows, int nc, const int *cols,
                        const double *B, int rs, int cs, double a)
{
    if (k->nt < 0 || k->redo) return;
    if (!k->mapped) { /* recorded entry by entry for the rebuild */
        for (int x = 0; x < nc; x++)
            for (int y = 0; y < nr; y++)
                addx_record(k, rows[y], cols[x], a * B[(size_t)rs * y + (size_t)cs * x]);
        return;
    }
    const int b = k->nxb++;
    double *Ax = k->Ax;
    if (b < k->nxbvalid && k->Xbh[3 * b + 1] == nr && k->Xbh[3 * b + 2] == nc) {
        const int *R = k->Xba + k->Xbh[3 * b];
        int same = 1;
        for (int y = 0; y < nr; y++)
            same &= R[y] == rows[y];
        for (int x = 0; x < nc; x++)
            same &= R[nr + x] == cols[x];
        if (same) { /* the kept places */
            const int *P = R + nr + nc;
            for (int x = 0; x < nc; x++, P += nr) {
                const double *bx = B + (size_t)cs * x;
                for (int y = 0; y < nr; y++)
                    Ax[P[y]] += a * bx[(size_t)rs * y];
            }
            return;
        }
    }
    int *R = keep_block(k, b, nr, nc);
    for (int x = 0; x < nc; x++)
        for (int y = 0; y < nr; y++) {
            const int p = find_place(k, rows[y], cols[x]);
            if (p < 0) { /* a new entry: the pattern grows; the searched values so far were
                          * not recorded, so the assembly is repeated (fmb_kkt_end; the
                          * record stays invalid) */
                k->mapped = 0;
                k->redo = 1;
                return;
            }
            Ax[p] += a * B[(size_t)rs * y + (size_t)cs * x];
            if (R) R[nr + nc + x * nr + y] = p;
        }
    if (!R) return;
    for (int y = 0; y < nr; y++)
        R[y] = rows[y];
    for (int x = 0; x < nc; x++)
        R[nr + x] = cols[x];
    k->nxbvalid = b + 1;
}

static int analyze(fmb_kkt_t *k)
{
    free_factors(k);
    if (k->solver == FMB_KKT_UMFPACK) {
        if (!k->control && !(k->control = malloc(UMFPACK_CONTROL * sizeof(double))))
            return FMB_ERR_NOMEM;
        umfpack_di_defaults(k->control);
        static const double orderings[] = {UMFPACK_ORDERING_AMD, UMFPACK_ORDERING_METIS,
                                           UMFPACK_ORDERING_BEST};
        if (k->ordering >= 0 && k->ordering < 3)
            k->control[UMFPACK_ORDERING] = orderings[k->ordering];
        /* no iterative refinement: the Newton iteration corrects solve errors anyway */
        k->control[UMFPACK_IRSTEP] = 0;
        int st =
            umfpack_di_symbolic(k->n, k->n, k->Ap, k->Ai, k->Ax, &k->symbolic, k->control, NULL);
        if (st != UMFPACK_OK)
            return st == UMFPACK_ERROR_out_of_memory ? FMB_ERR_NOMEM : FMB_ERR_LINSOLVE;
    } else {
        if (!k->kcommon) {
            if (!(k->kcommon = malloc(sizeof(klu_common)))) return FMB_ERR_NOMEM;
            klu_defaults(k->kcommon);
            /* large systems (large()) come symmetrically scaled (scale_matrix): no row
             * scaling on top (klu_numeric_factor sets the scale per call); their order
             * (kkt_order.c) keeps the dense rows out of reach of the multipliers' off-diagonal
             * pivots, so KLU's usual threshold applies (the COLAMD order used before needed 1e-6
             * and the slider's reach to stay off the dense carrier rows, and filled U when a full
             * factorization pivoted differently) */
            if (large(k)) ((klu_common *)k->kcommon)->tol = FMB_KKT_LARGE_TOL;
        }
        int rc = analyze_klu(k, k->kcommon);
        if (rc) return rc;
    }
    k->nsymbolic++;
    return 0;
}

/* Pattern = the recorded sequence, this assembly's searched entries and, when entries
 * are only added (searched entries, fmb_kkt_addx_block) and the previous rebuild was less than
 * FMB_KKT_KEEP_RECENT assemblies ago, every entry of the previous pattern (as explicit
 * zeros). A slider going back and forth across an element boundary thus rebuilds twice and
 * then finds both elements stored; one that moved on after a longer stay drops the entries
 * of the elements it left (explicit zeros that KLU would compute with: at 10 elements they
 * were a third of a refactorization's flops, docs/performance.md "KLU at small sizes"). */
static int build_pattern(fmb_kkt_t *k)
{
    /* the previous pattern's entries that came from searched adds are kept: collect
     * them as (i, j) pairs before the arrays are replaced */
    int nold = 0, *Oi = NULL, *Oj = NULL;
    const int recent = k->nbegin - k->rebuilt_at < FMB_KKT_KEEP_RECENT;
    k->rebuilt_at = k->nbegin;
    if (recent && k->Ap && k->pattern_nt >= 0 && k->Ap[k->n] > 0 && k->nf > 0) {
        const int nz = k->Ap[k->n];
        Oi = malloc((size_t)nz * sizeof *Oi + 1), Oj = malloc((size_t)nz * sizeof *Oj + 1);
        if (!Oi || !Oj) {
            free(Oi), free(Oj);
            return FMB_ERR_NOMEM;
        }
        for (int c = 0; c < k->n; c++)
            for (int p = k->Ap[c]; p < k->Ap[c + 1]; p++)
                Oi[nold] = k->Ai[p], Oj[nold] = c, nold++;
    }
    const int nall = k->nt + k->nf + nold;
    free(k->Ap), free(k->Ai), free(k->Ax), free(k->Map), free(k->uweight), free(k->dscale);
    free(k->dpos);
    k->dscale = malloc((size_t)k->n * sizeof *k->dscale + 1);
    k->dpos = malloc((size_t)k->n * sizeof *k->dpos + 1);
    k->Ap = malloc(((size_t)k->n + 1) * sizeof *k->Ap);
    k->Ai = malloc((size_t)nall * sizeof *k->Ai + 1);
    k->Ax = malloc((size_t)nall * sizeof *k->Ax + 1);
    k->Map = malloc((size_t)nall * sizeof *k->Map + 1);
    k->uweight = malloc((size_t)k->n * sizeof *k->uweight + 1);
    int *Ti = malloc((size_t)nall * sizeof *Ti + 1), *Tj = malloc((size_t)nall * sizeof *Tj + 1);
    double *Tx = malloc((size_t)nall * sizeof *Tx + 1);
    if (!k->Ap || !k->Ai || !k->Ax || !k->Map || !k->uweight || !Ti || !Tj || !Tx || !k->dscale ||
        !k->dpos) {
        free(Oi), free(Oj), free(Ti), free(Tj), free(Tx);
        return FMB_ERR_NOMEM;
    }
    memcpy(Ti, k->Ti, (size_t)k->nt * sizeof *Ti);
    memcpy(Tj, k->Tj, (size_t)k->nt * sizeof *Tj);
    memcpy(Tx, k->Tx, (size_t)k->nt * sizeof *Tx);
    if (k->nf) {
        memcpy(Ti + k->nt, k->Fi, (size_t)k->nf * sizeof *Ti);
        memcpy(Tj + k->nt, k->Fj, (size_t)k->nf * sizeof *Tj);
        memcpy(Tx + k->nt, k->Fx, (size_t)k->nf * sizeof *Tx);
    }
    for (int e = 0; e < nold; e++)
        Ti[k->nt + k->nf + e] = Oi[e], Tj[k->nt + k->nf + e] = Oj[e], Tx[k->nt + k->nf + e] = 0.0;
    free(Oi), free(Oj);
    int st = umfpack_di_triplet_to_col(k->n, k->n, nall, Ti, Tj, Tx, k->Ap, k->Ai, k->Ax, k->Map);
    free(Ti), free(Tj), free(Tx);
    if (st != UMFPACK_OK) return FMB_ERR_LINSOLVE;
    for (int c = 0; c < k->n; c++) {
        k->dpos[c] = -1;
        for (int p = k->Ap[c]; p < k->Ap[c + 1]; p++)
            if (k->Ai[p] == c) k->dpos[c] = p;
    }
    k->need_analyze = 1;
    k->nxbvalid = 0; /* places of searched entries in the old pattern */
    k->pattern_nt = k->nt;
    k->mapped = 1;
    return 0;
}

/* Symmetric scaling for KLU: A <- D A D with d_j = 1 / sqrt|a_jj| where the diagonal is
 * nonzero (coordinates), then, for zero diagonals (multipliers), d_j = 1 / max_i d_i |a_ij|.
 * On the mass/stiffness part (symmetric positive definite) every scaled entry is then at
 * most 1 = its diagonal (|m_ij| <= sqrt(m_ii m_jj)), so KLU's partial pivoting keeps the
 * diagonal pivots of its fill-reducing order. Unscaled, a beam's rotational coordinates
 * have diagonals l^2 smaller than their coupling with the dense carrier rows of the
 * floating frame, a carrier row gets picked as a pivot and U fills completely (quick-
 * return, 1,000 elements: 2.5 million entries in U against 24,000 scaled). The solve
 * undoes the scaling: x = D (D A D)^{-1} D b. */
static void scale_matrix(fmb_kkt_t *k)
{
    double *d = k->dscale;
    for (int j = 0; j < k->n; j++) {
        const double a = k->dpos[j] >= 0 ? fabs(k->Ax[k->dpos[j]]) : 0.0;
        d[j] = a > 0 && isfinite(a) ? 1.0 / sqrt(a) : 0.0;
    }
    for (int j = 0; j < k->n; j++) {
        if (d[j] > 0) continue;
        double m = 0.0;
        for (int p = k->Ap[j]; p < k->Ap[j + 1]; p++)
            m = fmax(m, fabs(k->Ax[p]) * d[k->Ai[p]]);
        d[j] = m > 0 && isfinite(m) ? 1.0 / m : 1.0;
    }
    for (int j = 0; j < k->n; j++)
        for (int p = k->Ap[j]; p < k->Ap[j + 1]; p++)
            k->Ax[p] *= d[k->Ai[p]] * d[j];
}

/* KLU's cheap reciprocal condition estimate min_k |u_kk w_k| / max_k |u_kk w_k| (klu_rcond
 * with weights) of the current factors, in the scaled metric of the last full factorization:
 * w_k = 1 for the full factorization itself (its factors are those of the scaled matrix),
 * w_k = kkt->uweight[k] (1 / the row scale of pivot k) for small systems' refactorizations,
 * which factor the unscaled matrix. 0 for a zero or non-finite pivot. */
static double factor_rcond(const fmb_kkt_t *k, const klu_numeric *kn, int weighted)
{
    const double *u = kn->Udiag;
    double lo = INFINITY, hi = 0.0;
    for (int i = 0; i < k->n; i++) {
        const double a = fabs(u[i]) * (weighted ? k->uweight[i] : 1.0);
        if (!(a > 0 && a < INFINITY)) return 0.0; /* zero, NaN or infinite */
        if (a < lo) lo = a;
        if (a > hi) hi = a;
    }
    return k->n > 0 ? lo / hi : 0.0;
}

/* Numeric factorization with KLU. A refactorization (klu_refactor: the pivot order of the
 * last full factorization) of a small system factors the matrix unscaled (scale -1: no row
 * scaling, no index check): with the pivots fixed, scaling the rows only rescales the factors
 * (P D A Q = L U gives P A Q = (D' L D'^-1)(D' U) with the permuted scales D'), so it
 * changes their values by roundings alone, not their stability; the full factorization
 * keeps KLU's row scaling for the choice of the pivots. klu_scale took 15 % of every
 * refactorization (quick-return, 10 elements). Large systems keep their symmetric scaling
 * (scale_matrix) at every factorization: refactoring them unscaled gave the 10,000-element
 * quick-return 2 % more Newton iterations (1,603 against 1,571 in 472 steps: the same
 * roundings argument, but its Newton iteration runs at the residual's rounding floor), so
 * only KLU's index check is skipped there (scale -1 instead of 0: bitwise the same factors).
 * The refactorization's rcond (factor_rcond) stays in the metric of the full factorization. */
static int klu_numeric_factor(fmb_kkt_t *k)
{
    klu_common *kc = k->kcommon;
    klu_numeric *kn = k->knumeric;
    if (kn) {
        /* redo it in full when the pivots have become poor (rcond below 1e-3 of the full
         * factorization's, or below the singular threshold of fmb_kkt_factor: a pivot
         * order chosen at a near-singular state, e.g. a failed step's, can give a zero
         * pivot on a regular matrix; fresh pivoting then decides) */
        kc->scale = -1;
        if (klu_refactor(k->Ap, k->Ai, k->Ax, k->ksymbolic, kn, kc)) {
            k->rcond = factor_rcond(k, kn, 1);
            if (k->rcond > 1e-3 * k->rcond_full && k->rcond > FMB_KKT_SINGULAR) return 0;
        }
        klu_free_numeric(&kn, kc);
        k->knumeric = NULL;
    }
    kc->scale = large(k) ? 0 : 2;
    kn = klu_factor(k->Ap, k->Ai, k->Ax, k->ksymbolic, kc);
    k->knumeric = kn;
    k->nfull++;
    if (!kn) {
        if (kc->status == KLU_SINGULAR) return FMB_ERR_SINGULAR;
        return kc->status == KLU_OUT_OF_MEMORY ? FMB_ERR_NOMEM : FMB_ERR_LINSOLVE;
    }
    /* weights of U's diagonal for the unscaled refactorizations (factor_rcond): 1 / the row
     * scale of pivot k (kn->Rs, permuted to pivot order by klu_factor); 1 for large systems,
     * refactored scaled */
    for (int i = 0; i < k->n; i++)
        k->uweight[i] = kn->Rs ? 1.0 / kn->Rs[i] : 1.0;
    k->rcond = k->rcond_full = factor_rcond(k, kn, 0);
    return 0;
}

int fmb_kkt_factor(fmb_kkt_t *k)
{
    if (k->nt < 0) return FMB_ERR_NOMEM;
    if (k->redo) return FMB_ERR_LINSOLVE; /* an assembly without fmb_kkt_end: a bug */
    int rc;
    if (!k->mapped || k->pattern_nt != k->nt)
        if ((rc = build_pattern(k))) return rc;
    if (large(k)) scale_matrix(k);
    if (k->need_analyze) {
        if ((rc = analyze(k))) return rc;
        k->need_analyze = 0;
    }
    k->nnumeric++;
    if (k->solver == FMB_KKT_UMFPACK) {
        if (k->numeric) umfpack_di_free_numeric(&k->numeric);
        double info[UMFPACK_INFO];
        int st =
            umfpack_di_numeric(k->Ap, k->Ai, k->Ax, k->symbolic, &k->numeric, k->control, info);
        k->rcond = info[UMFPACK_RCOND];
        if (st == UMFPACK_WARNING_singular_matrix) return FMB_ERR_SINGULAR;
        if (st != UMFPACK_OK)
            return st == UMFPACK_ERROR_out_of_memory ? FMB_ERR_NOMEM : FMB_ERR_LINSOLVE;
    } else if ((rc = klu_numeric_factor(k))) {
        return rc;
    }
    /* both rcond figures are the cheap estimate min/max |diag U|; treat an exactly or
     * numerically rank-deficient KKT matrix as singular */
    if (!(k->rcond > FMB_KKT_SINGULAR)) return FMB_ERR_SINGULAR;
    return 0;
}

void fmb_kkt_fill(fmb_kkt_t *k, long *lu, double *flops)
{
    *lu = -1, *flops = NAN;
    if (k->solver == FMB_KKT_UMFPACK || !k->knumeric || !k->ksymbolic || !k->kcommon) return;
    klu_numeric *nm = k->knumeric;
    *lu = (long)nm->lnz + (long)nm->unz - k->n;
    if (klu_flops(k->ksymbolic, nm, k->kcommon)) *flops = ((klu_common *)k->kcommon)->flops;
}

int fmb_kkt_solve(fmb_kkt_t *k, const double *b, double *x)
{
    if (k->solver == FMB_KKT_UMFPACK) {
        int st =
            umfpack_di_solve(UMFPACK_A, k->Ap, k->Ai, k->Ax, x, b, k->numeric, k->control, NULL);
        if (st != UMFPACK_OK) return FMB_ERR_LINSOLVE;
    } else {
        if (!k->knumeric) return FMB_ERR_LINSOLVE;
        const double *d = large(k) ? k->dscale : NULL;
        for (int i = 0; i < k->n; i++)
            x[i] = d ? d[i] * b[i] : b[i];
        if (!klu_solve(k->ksymbolic, k->knumeric, k->n, 1, x, k->kcommon)) return FMB_ERR_LINSOLVE;
        for (int i = 0; d && i < k->n; i++)
            x[i] *= d[i];
    }
    for (int i = 0; i < k->n; i++)
        if (!isfinite(x[i])) return FMB_ERR_LINSOLVE;
    return 0;
}

int fmb_kkt_solve_many(fmb_kkt_t *k, int nrhs, double *B)
{
    const int n = k->n;
    if (k->solver == FMB_KKT_UMFPACK) {
        double *x = malloc((size_t)n * sizeof *x + 1);
        if (!x) return FMB_ERR_NOMEM;
        for (int c = 0; c < nrhs; c++) {
            double *b = B + (size_t)c * n;
            int st = umfpack_di_solve(UMFPACK_A, k->Ap, k->Ai, k->Ax, x, b, k->numeric, k->control,
                                      NULL);
            if (st != UMFPACK_OK) {
                free(x);
                return FMB_ERR_LINSOLVE;
            }
            memcpy(b, x, (size_t)n * sizeof *x);
        }
        free(x);
    } else {
        if (!k->knumeric) return FMB_ERR_LINSOLVE;
        const double *d = large(k) ? k->dscale : NULL;
        if (d)
            for (int c = 0; c < nrhs; c++)
                for (int i = 0; i < n; i++)
                    B[(size_t)c * n + i] *= d[i];
        if (!klu_solve(k->ksymbolic, k->knumeric, n, nrhs, B, k->kcommon)) return FMB_ERR_LINSOLVE;
        if (d)
            for (int c = 0; c < nrhs; c++)
                for (int i = 0; i < n; i++)
                    B[(size_t)c * n + i] *= d[i];
    }
    for (size_t i = 0; i < (size_t)n * nrhs; i++)
        if (!isfinite(B[i])) return FMB_ERR_LINSOLVE;
    return 0;
}

int fmb_kkt_pattern(fmb_kkt_t *k)
{
    if (k->nt < 0) return FMB_ERR_NOMEM;
    if (k->redo) return FMB_ERR_LINSOLVE;
    if (!k->mapped || k->pattern_nt != k->nt) return build_pattern(k);
    return 0;
}

void fmb_kkt_matvec(const fmb_kkt_t *k, int ncol, const double *x, double *y)
{
    memset(y, 0, (size_t)k->n * sizeof *y);
    for (int c = 0; c < ncol; c++) {
        const double xc = x[c];
        if (xc == 0.0) continue;
        for (int p = k->Ap[c]; p < k->Ap[c + 1]; p++)
            y[k->Ai[p]] += k->Ax[p] * xc;
    }
}

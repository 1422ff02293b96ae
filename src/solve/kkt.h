/* Sparse KKT matrix with a fixed pattern, factored by KLU (default) or UMFPACK.
 * The first assembly records the order of the entries (i, j) and builds the
 * compressed-column pattern with an entry -> position map; the symbolic analysis is done
 * once for that pattern. Later assemblies that emit the same entries in the same order
 * add straight into the compressed values (no triplet sort). KLU refactors numerically
 * with the pivot order of its last full factorization (klu_refactor) and falls back to a
 * full factorization when the refactored pivots have become poor. An assembly whose
 * entries differ from the recorded ones rebuilds the pattern and the analysis.
 * Entries whose place varies from one assembly to the next (an element whose columns
 * follow the state, e.g. a slider moving along its guide) go through fmb_kkt_addx_block:
 * it finds the entries in the pattern by binary search; an entry not in it yet marks the
 * pattern for a rebuild, which keeps every entry stored so far when the previous rebuild
 * was recent (a slider going back and forth across an element boundary) and else drops the
 * searched entries no longer emitted (a slider that moved on: its old elements' zeros). */
#ifndef FMB_SOLVE_KKT_H
#define FMB_SOLVE_KKT_H

enum { FMB_KKT_KLU = 0, FMB_KKT_UMFPACK = 1 };

/* KKT systems above this size are "large": KLU's large-system settings (kkt.c) and the
 * reserved reach of moving elements (assemble.c); smaller ones keep KLU's defaults. */
#define FMB_KKT_LARGE 200
/* KLU's partial-pivoting threshold for large systems: a diagonal pivot is kept while it is
 * at least this fraction of the largest entry in its column (kkt.c, kkt_order.c). */
#define FMB_KKT_LARGE_TOL 1e-3
/* A factorization whose pivot ratio (kkt.c factor_rcond) is at most this is singular. */
#define FMB_KKT_SINGULAR 1e-14
/* A pattern rebuilt within this many assemblies of the previous rebuild keeps every entry of
 * the previous pattern (kkt.c build_pattern). */
#define FMB_KKT_KEEP_RECENT 50

/* A fixed list of entries (fmb_kkt_fixed_begin; kkt.c's record). */
typedef struct fmb_kkt_list {
    const int *Jp, *Ii;
    int off, ncol;
} fmb_kkt_list_t;

typedef struct fmb_kkt {
    int n;
    int ncoord;     /* rows/columns 0..ncoord-1 are coordinates, the rest multipliers (the
                     * large-system order puts the multipliers of dense coordinates last with
                     * them; 0: unknown, all count as coordinates) */
    int solver;     /* FMB_KKT_KLU or FMB_KKT_UMFPACK */
    int ordering;   /* fmb_ordering (UMFPACK only; KLU: the order of kkt_order.c) */
    int nt, cap;    /* entries emitted in the current assembly; capacity */
    int *Ti, *Tj;   /* recorded entry order */
    int *Tb;        /* Tb[t] marks entry t as the first of a call recorded whole: a block, a
                     * joint (kkt.c BLOCK_MARK, JOINT_MARK) or a fixed list (-1 - l), else 0 */
    double *Tx;     /* values while a pattern is (re)recorded (not kept while mapped) */
    int pattern_nt; /* entry count of the recorded pattern, 0 if none */
    int mapped;     /* pattern valid: values go straight into Ax through Map */
    int redo;       /* a mapped assembly left its pattern: repeat it (fmb_kkt_end) */
    int *Ap, *Ai, *Map;
    int nf, fcap; /* searched entries of the current assembly (fmb_kkt_addx_block) */
    int *Fi, *Fj;
    double *Fx;
    /* fmb_kkt_addx_block's places by call: block call b < nxbvalid of the last mapped
     * assemblies is Xbh[3 b .. 3 b + 2] = (its record's start in Xba, nr, nc), the record
     * being its rows, its columns and the nr nc places (the records contiguous from call 0) */
    int nxb, nxbvalid, xbhcap, xbacap;
    int *Xbh, *Xba;
    /* fixed lists recorded in the current pattern (fmb_kkt_fixed_begin): Tb[t] = -1 - l marks
     * list l's first entry; the list in progress and the scratch of unmapped assemblies */
    fmb_kkt_list_t *lists, lcur; /* lcur: the list between begin and end */
    int nlists, lcap;
    int lt, lmapped; /* lcur's first entry; its adds went straight into Ax */
    long nldirect;   /* lists served straight into Ax so far (a statistic for tests) */
    double *lx;      /* scratch values of unmapped assemblies (lxcap, with liota) */
    int *liota, lxcap;
    double *Ax;
    void *symbolic, *numeric;             /* UMFPACK */
    double *control;                      /* UMFPACK Control array (kept: no defaults per call) */
    void *kcommon, *ksymbolic, *knumeric; /* KLU */
    double *dscale;  /* KLU: symmetric scaling D A D of the factored matrix (n) */
    double *uweight; /* KLU: weights w_k of the diagonal of U in the scaled matrix of the last
                      * full factorization (n; kkt.c, factor_rcond) */
    int *dpos;       /* position of each diagonal entry in Ax, -1 if none (n) */
    int need_analyze;
    long nbegin, rebuilt_at; /* assemblies begun; nbegin at the last rebuild of the pattern */
    long nsymbolic, nnumeric, nfull; /* analyses, numeric factorizations, full KLU ones */
    /* the last order of kkt_order.c and the key of the pattern it was made for (n, the two
     * sets, the entries within the first set): a rebuilt pattern with the same key (a
     * slider's reach moved, whose rows are in the last set) takes it again instead of a
     * new CAMD order (kkt_order.c) */
    int *oP; /* NULL: none kept */
    unsigned long long okey;
    long norder_kept; /* orders taken again (a statistic for tests) */
    double rcond, rcond_full;
} fmb_kkt_t;

int fmb_kkt_init(fmb_kkt_t *k, int n);
/* Fill-reducing order of a KKT pattern for KLU (kkt_order.c), from the pattern alone: P[k] =
 * the unknown eliminated k-th; *nlast = unknowns ordered last (dense carrier coordinates
 * and the multipliers coupled to them). Returns 0 or FMB_ERR_NOMEM / FMB_ERR_LINSOLVE. */
int fmb_kkt_order(fmb_kkt_t *k, int *P, int *nlast);
void fmb_kkt_free(fmb_kkt_t *k);
/* An assembly is fmb_kkt_begin, the entries, then fmb_kkt_end: when it returns 1, the
 * assembly left the recorded pattern (an entry in a new place, fewer entries) and must be
 * repeated once with the same entries, which are then all recorded for the rebuild of the
 * pattern (a mapped assembly keeps no copy of its values: it adds them straight into the
 * matrix). Allocation failures while recording are reported by fmb_kkt_factor.
 *
 * The entries go in through three calls (and a joint's shortcut):
 *   fmb_kkt_add_block   a dense block at fixed places (fmb_kkt_add: its 1 x 1 form),
 *   fmb_kkt_addx_block  a dense block at places that follow the state, found by search
 *                       (fmb_kkt_addx: its 1 x 1 form),
 *   fmb_kkt_fixed_begin/end  a constant list written straight into the matrix's values,
 *   fmb_kkt_add_joint   a joint's J, cA J^T and points' Hessian as one fixed call.
 * Every index is >= 0 (no ground columns). The fixed calls emit one sequence of places
 * (row, column), recorded at the first assembly: an assembly that emits the same sequence
 * adds its values straight into the matrix, whichever fixed calls emit it. */
void fmb_kkt_begin(fmb_kkt_t *k);
int fmb_kkt_end(fmb_kkt_t *k);
/* a(rows[y], cols[x]) += a * B[y * rs + x * cs] for x < nc (outer), y < nr (inner): these
 * nr nc entries of the fixed sequence in this order. While mapped, the recorded sequence
 * is checked and the values scattered in one loop; a block recorded whole by one call of
 * the same shape is checked on its rows and columns alone (nr + nc tests instead of
 * 2 nr nc). From the first entry off the recorded sequence on, the assembly records its
 * entries (it is then repeated, fmb_kkt_end). */
void fmb_kkt_add_block(fmb_kkt_t *k, int nr, const int *rows, int nc, const int *cols,
                       const double *B, int rs, int cs, double a);
/* a(i, j) += x: the 1 x 1 form of fmb_kkt_add_block, inline (its fast check below). */
static inline void fmb_kkt_add(fmb_kkt_t *k, int i, int j, double x);
/* A block of searched entries: a(rows[y], cols[x]) += a * B[y * rs + x * cs] for x < nc
 * (outer), y < nr (inner), each entry found in the pattern by binary search (a new entry
 * grows the pattern: the assembly is repeated and the pattern rebuilt). The places found by
 * the b-th call of a mapped assembly are kept for the b-th call of the next one: when that
 * call has the same shape, rows and columns (nr + nc tests), its values go to the kept
 * places without a search; a call of another shape or place searches again and drops the
 * kept places of the later calls (found again at their next call). */
void fmb_kkt_addx_block(fmb_kkt_t *k, int nr, const int *rows, int nc, const int *cols,
                        const double *B, int rs, int cs, double a);
/* a(i, j) += x for an entry found by search: the 1 x 1 form of fmb_kkt_addx_block. */
static inline void fmb_kkt_addx(fmb_kkt_t *k, int i, int j, double x)
{
    fmb_kkt_addx_block(k, 1, &i, 1, &j, &x, 1, 1, 1.0);
}
/* A fixed list of entries: (off + Ii[e], off + j) for e in [Jp[j], Jp[j + 1]), j < ncol,
 * the same at every assembly (the arrays constant while the pattern lives: the list is
 * known by their addresses and off). The caller adds entry e's value x as A[pos[e]] += x
 * with the A and pos returned here, then calls fmb_kkt_fixed_end. While the assembly
 * follows its recorded sequence and this list was recorded at this point of it (checked
 * in O(1)), A is the matrix's values and pos the entries' places: the adds go straight
 * into the matrix. Otherwise A is a zeroed scratch (pos the identity) that
 * fmb_kkt_fixed_end adds entry by entry to the fixed sequence. Returns NULL when the
 * scratch cannot be allocated (the caller skips its adds; fmb_kkt_factor reports out of
 * memory). */
double *fmb_kkt_fixed_begin(fmb_kkt_t *k, int ncol, const int *Jp, const int *Ii, int off,
                            const int **pos);
void fmb_kkt_fixed_end(fmb_kkt_t *k);
/* A joint's entries in one fixed call: J (nr x nl, column-major) at rows R and columns g,
 * then cA J^T at rows g and columns R (each as fmb_kkt_add_block), then, when h0 (h1), the
 * theta column and row of body 0's (body 1's) diagonal block of cK H (nl x nl,
 * column-major): over that body's columns c (0 .. n0 - 1, or n0 .. nl - 1) with theta the
 * body's third column, the whole column c = theta, else the entry (theta, c), in that
 * order. Recorded whole, the call is checked on R and g alone (nr + nl tests) and its
 * 2 nr nl + (h0 ? 2 n0 - 1 : 0) + (h1 ? 2 (nl - n0) - 1 : 0) entries go straight to their
 * places. nr, nl < 256; h0 needs n0 >= 3, h1 nl - n0 >= 3. (The same entries as two block
 * calls and per-body blocks of the Hessian's row and column: one call costs half their
 * instructions, docs/performance.md.) */
void fmb_kkt_add_joint(fmb_kkt_t *k, int nr, const int *R, int nl, const int *g, const double *J,
                       double cA, int n0, int h0, int h1, const double *H, double cK);
/* Factor the assembled matrix: 0, FMB_ERR_SINGULAR, FMB_ERR_NOMEM or FMB_ERR_LINSOLVE. */
int fmb_kkt_factor(fmb_kkt_t *k);
/* Solve A x = b with the last factorization (b and x may not alias). */
int fmb_kkt_solve(fmb_kkt_t *k, const double *b, double *x);
/* Solve A X = B in place for nrhs right-hand sides (B: n x nrhs, column-major). */
int fmb_kkt_solve_many(fmb_kkt_t *k, int nrhs, double *B);
/* Build the compressed-column pattern of the assembly just ended without factoring (a
 * matrix used only for products: Ap, Ai, Ax unscaled); 0 or FMB_ERR_NOMEM. */
int fmb_kkt_pattern(fmb_kkt_t *k);
/* y = A x over the columns 0 .. ncol - 1 (x has ncol entries, y n; A as assembled). */
void fmb_kkt_matvec(const fmb_kkt_t *k, int ncol, const double *x, double *y);
/* KLU's fill and work of the present factorization: entries of L + U (diagonal once) and
 * flops of one (re)factorization (klu_flops); -1 and NAN without a KLU factorization
 * (benchmarks and tests). */
void fmb_kkt_fill(fmb_kkt_t *k, long *lu, double *flops);

/* Internal: fmb_kkt_add's fast check, inline for the assembler's loops of single entries
 * (the next entry of the recorded sequence, scattered through the map); any other case
 * goes through fmb_kkt_add_block (1.0 x multiplies exactly). */
static inline void fmb_kkt_add(fmb_kkt_t *k, int i, int j, double x)
{
    const int t = k->nt;
    if (k->mapped && t < k->pattern_nt && k->Ti[t] == i && k->Tj[t] == j) {
        k->Ax[k->Map[t]] += x;
        k->nt = t + 1;
        return;
    }
    fmb_kkt_add_block(k, 1, &i, 1, &j, &x, 1, 1, 1.0);
}

#endif

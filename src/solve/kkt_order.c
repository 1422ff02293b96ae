/* Fill-reducing order for the KKT systems factored by KLU (every size), computed from the
 * pattern alone, so that no dense row can be pivoted early, whatever the values.
 *
 * The KKT matrix of a floating-frame beam is [S G^T; G 0] with S = M + c K (+ Hessian
 * terms): banded along the beam, except for a few dense rows and columns: the 3 rigid
 * (carrier) coordinates of the beam's frame couple with every shape coordinate, and an
 * element whose columns follow the state reserves its reach (the slider's Jacobian rows and
 * Hessian on the guide columns near it, assemble.c and model.h reach(): dense rows only
 * when its window is more than ~10 sqrt(n) columns). The multipliers have zero diagonals.
 * A minimum-degree order of the whole pattern assumes diagonal pivots; at a multiplier the
 * LU has to pivot off the diagonal, and when the row it takes is a dense carrier row, U
 * fills (what KLU's own AMD / COLAMD orders did, docs/performance.md). Here CAMD
 * (constrained approximate minimum degree, SuiteSparse) orders two sets, one after the
 * other:
 *   0. every unknown that is neither dense nor a multiplier coupled to a dense coordinate,
 *   1. the dense coordinates and the multipliers coupled to them.
 * A multiplier of set 0 has no entry in a dense row, so its off-diagonal pivot (the largest
 * entry of its column, KLU's partial pivoting) is a sparse row next to it and its fill is
 * local; no dense row can be pivoted before the final block, whatever the values. Set 1 is
 * a small block at the end (the Schur complement on the carrier coordinates and their
 * joints' multipliers): L and U get O(n) entries per unknown of it. (Ordering every
 * multiplier after every coordinate instead, which avoids off-diagonal pivots altogether,
 * makes the Schur complement G S^-1 G^T dense for a chain of joints: a chain of 8,000
 * rigid bodies, tests/fuzz_cases, then took minutes instead of a second.)
 * "Dense": more than max(16, 10 sqrt(n)) off-diagonal entries in its row or column (AMD's
 * own definition of a dense row) for large systems (n > FMB_KKT_LARGE); more than 16 for
 * small ones, where 10 sqrt(n) (77 at n = 60) would miss the carrier coordinates of a beam of
 * 6-60 elements (3 per element + joints): ordered by minimum degree with the rest, they
 * were eliminated early with the multipliers' off-diagonal pivots and the factors filled
 * (quick-return, 10 elements: 12,708 flops against 7,149 with them last; 20 elements:
 * 35,179 against 12,319; docs/performance.md "KLU at small sizes"). */
#include <camd.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flexmb/flexmb.h"
#include "solve/kkt.h"

/* FNV-1a, 64 bits, of one int (the pattern key: a collision only gives an older valid
 * order, never a wrong factorization) */
static inline unsigned long long fnv(unsigned long long h, int v)
{
    for (int b = 0; b < 4; b++)
        h = (h ^ ((unsigned)v >> (8 * b) & 0xffu)) * 1099511628211ull;
    return h;
}

int fmb_kkt_order(fmb_kkt_t *k, int *P, int *nlast)
{
    const int n = k->n, *Ap = k->Ap, *Ai = k->Ai;
    const int nq = k->ncoord > 0 && k->ncoord <= n ? k->ncoord : n;
    int *rdeg = calloc((size_t)n + 1, sizeof *rdeg), *C = malloc(((size_t)n + 1) * sizeof *C);
    if (!rdeg || !C) {
        free(rdeg), free(C);
        return FMB_ERR_NOMEM;
    }
    for (int j = 0; j < n; j++)
        for (int p = Ap[j]; p < Ap[j + 1]; p++)
            if (Ai[p] != j) rdeg[Ai[p]]++;
    const double thr = n > FMB_KKT_LARGE ? fmax(16.0, 10.0 * sqrt((double)n)) : 16.0;
    for (int j = 0; j < n; j++) {
        const int cdeg = Ap[j + 1] - Ap[j];
        const int dense = j < nq && (cdeg - 1 > thr || rdeg[j] > thr);
        C[j] = dense;
    }
    /* multipliers coupled to a dense coordinate go last with it (rows or columns) */
    for (int j = 0; j < n; j++)
        for (int p = Ap[j]; p < Ap[j + 1]; p++) {
            const int i = Ai[p];
            if (j >= nq && i < nq && C[i] == 1) C[j] = 1;
            if (i >= nq && j < nq && C[j] == 1) C[i] = 1;
        }
    *nlast = 0;
    for (int j = 0; j < n; j++)
        *nlast += C[j];
    /* The order of the last pattern when this one has the same key: the same sets and the
     * same entries within set 0. CAMD's order of set 0 then differs only through the
     * degrees of set 1's rows, which come last whatever it is, and the old order is as
     * good (a slider's moved reach: its rows and coordinates are dense or coupled to the
     * dense ones). Why: CAMD updates the degrees of the dense rows at every elimination,
     * O(n) each, so a new order took 150 ms at 10,000 elements, at every rebuild of the
     * pattern (docs/performance.md "The slider's reach: a window"). */
    unsigned long long key = 14695981039346656037ull;
    key = fnv(key, n);
    for (int j = 0; j < n; j++) {
        key = fnv(key, C[j]);
        if (C[j]) continue;
        for (int p = Ap[j]; p < Ap[j + 1]; p++)
            if (!C[Ai[p]]) key = fnv(key, Ai[p]);
        key = fnv(key, -1); /* column end */
    }
    if (k->oP && k->okey == key) { /* (the key holds the sets: the same nlast) */
        memcpy(P, k->oP, (size_t)n * sizeof *P);
        k->norder_kept++;
        free(rdeg), free(C);
        return 0;
    }
    double control[CAMD_CONTROL], info[CAMD_INFO];
    camd_defaults(control);
    control[CAMD_DENSE] = -1.0; /* the sets above replace CAMD's own dense rows */
    const int st = camd_order(n, Ap, Ai, P, control, info, C);
    free(rdeg), free(C);
    if (st == CAMD_OUT_OF_MEMORY) return FMB_ERR_NOMEM;
    if (st != CAMD_OK && st != CAMD_OK_BUT_JUMBLED) return FMB_ERR_LINSOLVE;
    /* kept for the next pattern (no memory: simply not kept) */
    int *oP = realloc(k->oP, ((size_t)n + 1) * sizeof *oP);
    if (!oP) free(k->oP);
    k->oP = oP;
    if (oP) memcpy(oP, P, (size_t)n * sizeof *P), k->okey = key;
    return 0;
}

/*
 * The beam's part of the iteration matrix, cM M + cKm Kmq - cK Kq - cC Cq, as one list of
 * entries over the body's coordinates (the class's tangent_pattern / tangent_add), instead
 * of element blocks (beam_fast.c beam_blocks, which the quasi-static start still uses).
 *
 * From the element blocks written out in beam_inertia.c (z = [rbar, theta, U_e], thd and
 * thdd the carrier's rates, a = A^T g), with the two body scalars
 *   alpha = cM - cK thd^2,    beta = cKm thdd + 2 cC thd,
 * every entry outside the theta row and column is a constant combination of them:
 *   (rbar, rbar):  [alpha m,  -beta m;  beta m,  alpha m]
 *   (rbar_x, U):   alpha S_x - beta S_y        (U, rbar_x):  alpha S_x + beta S_y
 *   (rbar_y, U):   alpha S_y + beta S_x        (U, rbar_y):  alpha S_y - beta S_x
 *   (U, U):        alpha Mff + beta Sbar + cK k_e + cC (a_R Mff + b_R k_e)
 * (a_R, b_R the Rayleigh coefficients; linear beams only: a nonlinear beam's k_e follows
 * the state, it keeps the blocks). Summed over the elements once at build, these are the
 * list's constants tX = (XA, XB, XK[, XC]) per entry: value = alpha XA + beta XB + cK XK
 * (+ cC XC). The theta row and column follow the state: per element
 *   (theta, U_i):  cM g_i + cKm (S_x,i rdd_y - S_y,i rdd_x + 2 thdd pU_i - (Sbar Udd)_i)
 *                  - cK (t_i - 2 thd b_i) + 2 cC thd pU_i
 *   (U_i, theta):  cM g_i - cK t_i + 2 cC (hU_i - thd pU_i)
 * with t = S^T Itil^T a, b = S^T rd + Mff Ud, and the carrier block's theta entries from
 * the element sums of m, Pm, Vm, J, W and S Udd:
 *   (rbar_x, theta) = -cM Pm_y - cK m a_y - 2 cC (Vm_y + thd Pm_x)
 *   (rbar_y, theta) =  cM Pm_x + cK m a_x + 2 cC (Vm_x - thd Pm_y)
 *   (theta, rbar_x) = -cM Pm_y + cKm (m rdd_y + 2 thdd Pm_x + (S Udd)_y)
 *                     - cK (m a_y - 2 thd Vm_x) + 2 cC thd Pm_x
 *   (theta, rbar_y) =  cM Pm_x + cKm (-m rdd_x + 2 thdd Pm_y - (S Udd)_x)
 *                     + cK (m a_x + 2 thd Vm_y) + 2 cC thd Pm_y
 *   (theta, theta)  =  cM J + cK Pm.a + 2 cC W
 * The element states come from the beam's cache (the residual computed them at the same
 * iterate). The list is the union of the element blocks' entries (the same sparse pattern
 * as the blocks), in compressed columns with ascending rows: the carrier columns 0-2 hold
 * every row, an elastic column the carrier rows 0-2 first, then its elements' rows.
 * The sums run in another order than the blocks' (per entry instead of per element), so
 * the values equal the blocks' to rounding (tests/test_beam_inertia.c checks the list
 * against the quadrature reference; test_beam_tangent against the reference class's
 * blocks through the KKT assembly). The constant part's two-lane form lives in
 * beam_tangent_simd.c. No value is cached between calls: alpha, beta and the
 * coefficients are read at every call, so a changed step size cannot leave a stale part.
 */
#include "bodies/beam_internal.h"
#include "bodies/beam_kernels.h"
#include "bodies/beam_state.h"

#include <stdlib.h>
#include <string.h>

int fmb_beam_tangent_pattern(const fmb_body_t *b, const int **Jp, const int **Ii)
{
    const fmb_beam_t *bm = b->data;
    *Jp = bm->tJp, *Ii = bm->tIi;
    return bm->tnz;
}

/* Place of entry (row, col) in the list (present by construction). */
static int place(const fmb_beam_t *bm, int row, int col)
{
    if (col < 3) return bm->tJp[col] + row; /* carrier columns: every row */
    for (int e = bm->tJp[col]; e < bm->tJp[col + 1]; e++)
        if (bm->tIi[e] == row) return e;
    return -1;
}

static void sort_unique(int *r, int *n)
{
    for (int a = 1; a < *n; a++)
        for (int c = a; c > 0 && r[c - 1] > r[c]; c--) {
            const int t = r[c];
            r[c] = r[c - 1], r[c - 1] = t;
        }
    int m = 0;
    for (int a = 0; a < *n; a++)
        if (m == 0 || r[a] != r[m - 1]) r[m++] = r[a];
    *n = m;
}

/* A run of n entries at list places e0.. with their first nt terms, in pairs: the terms
 * of entries 2k and 2k + 1 interleaved (XA_2k, XA_2k+1, XB_2k, XB_2k+1, ...), so that
 * tangent_add reads each term of a pair as one two-lane vector; an odd last entry as its
 * nt terms. */
static double *pack_run(double *out, const double *in, int nv, int e0, int n, int nt)
{
    int i = 0;
    for (; i + 2 <= n; i += 2)
        for (int v = 0; v < nt; v++)
            *out++ = in[(size_t)nv * (e0 + i) + v], *out++ = in[(size_t)nv * (e0 + i + 1) + v];
    for (int v = 0; i < n && v < nt; v++)
        *out++ = in[(size_t)nv * (e0 + i) + v];
    return out;
}

/* tX from one tnv-tuple per list entry (as the build sums it) to the order tangent_add reads
 * it: column by column (theta's column left out), the carrier rows 0 and 1 as a pair of
 * (XA, XB), the theta row left out, then the rows of U in pairs (pack_run) of (XA, XB) in
 * the carrier columns 0 and 1 and of tnv-tuples in the elastic columns. The terms left out
 * are exact zeros (no XK or XC outside (U, U); the theta row and column come from the
 * state), and adding them did not change the matrix: the value of an entry differed by
 * them at most in the sign of a zero, which the add into the matrix's +0 removes. */
static int pack_terms(fmb_beam_t *bm)
{
    const int nv = bm->tnv, *Jp = bm->tJp;
    double *out = bm->tX, *in = malloc((size_t)Jp[bm->ndof] * nv * sizeof *in + 1);
    if (!in) return FMB_ERR_NOMEM;
    memcpy(in, bm->tX, (size_t)Jp[bm->ndof] * nv * sizeof *in);
    for (int c = 0; c < bm->ndof; c++) {
        if (c == 2) continue;
        out = pack_run(out, in, nv, Jp[c], 2, 2);
        out = pack_run(out, in, nv, Jp[c] + 3, Jp[c + 1] - Jp[c] - 3, c < 3 ? 2 : nv);
    }
    free(in);
    return 0;
}

int fmb_beam_tangent_build(fmb_beam_t *bm)
{
    bm->tnz = 0;
    if (bm->nonconstant_stiffness) return 0; /* blocks only */
    const int nd = bm->ndof, nel = bm->nnodes - 1;
    const int damped = bm->alpha != 0.0 || bm->beta != 0.0, nv = damped ? 4 : 3;
    /* the (at most two: a chain) elements of each elastic column; a column shared by a
     * third element would leave entries out of the list (place() -1, a write before tX):
     * such a beam keeps the blocks */
    int *ce = malloc(2 * (size_t)nd * sizeof *ce + 1);
    bm->tJp = malloc(((size_t)nd + 1) * sizeof *bm->tJp);
    if (!ce || !bm->tJp) {
        free(ce);
        return FMB_ERR_NOMEM;
    }
    for (int c = 0; c < 2 * nd; c++)
        ce[c] = -1;
    for (int e = 0; e < nel; e++)
        for (int k = 3; k < 9; k++) {
            const int c = bm->el[e].bcol[k];
            if (c < 0) continue;
            if (ce[2 * c] < 0) {
                ce[2 * c] = e;
            } else if (ce[2 * c] != e && ce[2 * c + 1] < 0) {
                ce[2 * c + 1] = e;
            } else if (ce[2 * c] != e && ce[2 * c + 1] != e) {
                free(ce);
                return 0; /* tnz = 0: blocks only */
            }
        }
    /* two passes over the columns: count, then fill */
    for (int pass = 0; pass < 2; pass++) {
        int nz = 0;
        for (int c = 0; c < nd; c++) {
            bm->tJp[c] = nz;
            int r[21], n = 0;
            if (c < 3) {
                if (pass)
                    for (int i = 0; i < nd; i++)
                        bm->tIi[nz + i] = i;
                nz += nd;
                continue;
            }
            r[n++] = 0, r[n++] = 1, r[n++] = 2;
            for (int s = 0; s < 2; s++) {
                const int e = ce[2 * c + s];
                if (e < 0) continue;
                for (int k = 3; k < 9; k++)
                    if (bm->el[e].bcol[k] >= 0) r[n++] = bm->el[e].bcol[k];
            }
            sort_unique(r, &n);
            if (pass) memcpy(bm->tIi + nz, r, (size_t)n * sizeof *r);
            nz += n;
        }
        bm->tJp[nd] = nz;
        if (pass) break;
        bm->tIi = malloc((size_t)nz * sizeof *bm->tIi + 1);
        bm->tX = calloc((size_t)nz * nv + 1, sizeof *bm->tX);
        if (!bm->tIi || !bm->tX) {
            free(ce);
            return FMB_ERR_NOMEM;
        }
    }
    free(ce);
    /* the constants, element by element (beam_inertia.c's blocks with alpha, beta) */
    for (int e = 0; e < nel; e++) {
        const fmb_beam_elem_t *el = bm->el + e;
        const double *Mff = fmb_beam_me(bm, e), *Sb = fmb_beam_sb(bm, e), *k = fmb_beam_ke(bm, e);
        for (int j = 0; j < 9; j++) {
            const int cj = el->bcol[j];
            if (cj < 0) continue;
            for (int i = 0; i < 9; i++) {
                const int ci = el->bcol[i];
                if (ci < 0 || i == 2 || j == 2) continue; /* theta row/column: state */
                double *x = bm->tX + (size_t)nv * place(bm, ci, cj);
                if (i < 3 && j < 3) { /* rbar, rbar */
                    if (i == j)
                        x[0] += el->m;
                    else
                        x[1] += i == 1 ? el->m : -el->m;
                } else if (i < 3) { /* rbar row, U column */
                    const double sx = el->Sx[j - 3], sy = el->Sy[j - 3];
                    x[0] += i == 0 ? sx : sy, x[1] += i == 0 ? -sy : sx;
                } else if (j < 3) { /* U row, rbar column */
                    const double sx = el->Sx[i - 3], sy = el->Sy[i - 3];
                    x[0] += j == 0 ? sx : sy, x[1] += j == 0 ? sy : -sx;
                } else {
                    const int z = (i - 3) + 6 * (j - 3);
                    x[0] += Mff[z], x[1] += Sb[z], x[2] += k[z];
                    if (damped) x[3] += bm->alpha * Mff[z] + bm->beta * k[z];
                }
            }
        }
    }
    bm->tnv = nv;
    if (pack_terms(bm)) return FMB_ERR_NOMEM;
    bm->tnz = bm->tJp[nd];
    return 0;
}

/* One entry's value k[0] XA + k[1] XB (+ k[2] XK (+ k[3] XC)), its nt terms at stride s. */
static inline double entry(int nt, const double *X, int s, const double k[4])
{
    double v = k[0] * X[0] + k[1] * X[s];
    if (nt > 2) v += k[2] * X[2 * s];
    if (nt > 3) v += k[3] * X[3 * s];
    return v;
}

/* A[pc[i]] += the value of entry i, for a run of n entries (pack_run's pairs, nt terms
 * each); returns the run's end in X. */
static const double *add_run(int nt, int n, const double *X, const double k[4], const int *pc,
                             double *A)
{
    int i = 0;
    for (; i + 2 <= n; i += 2, X += 2 * nt) {
        const double v0 = entry(nt, X, 2, k), v1 = entry(nt, X + 1, 2, k);
        A[pc[i]] += v0, A[pc[i + 1]] += v1;
    }
    if (i < n) A[pc[i]] += entry(nt, X, 1, k), X += nt;
    return X;
}

/* The constant combinations: every column but theta's, every row but theta's (tX in
 * pack_terms' order), k = (alpha, beta, cK, cC). */
void fmb_beam_tangent_constants(const fmb_beam_t *bm, const double k[4], const int *pos, double *A)
{
    const int *Jp = bm->tJp, nv = bm->tnv;
    const double *X = bm->tX;
    for (int c = 0; c < bm->ndof; c++) {
        if (c == 2) continue;
        const int e0 = Jp[c], n = Jp[c + 1] - e0 - 3;
        X = add_run(2, 2, X, k, pos + e0, A); /* (rbar, rbar) and (rbar, U) */
        if (n <= 0) continue;
        /* (U, rbar): alpha S + beta S; (U, U): nv terms */
        X = add_run(c < 3 ? 2 : nv, n, X, k, pos + e0 + 3, A);
    }
}

void fmb_beam_tangent_add(const fmb_body_t *b, const double *q, const double *qd, const double *qdd,
                          const double g[2], const double cf[4], const int *pos, double *A)
{
    const fmb_beam_t *bm = b->data;
    const double cM = cf[0], cKm = cf[1], cK = cf[2], cC = cf[3];
    const double th = qd[2], tdd = qdd[2], *rd = qd, *rdd = qdd;
    const double al = cM - cK * th * th, be = cKm * tdd + 2 * cC * th;
    const int *Jp = bm->tJp;
    /* the constant combinations, in their two-lane form where the compiler has vectors
     * (beam_tangent_simd.c) */
    const double k[4] = {al, be, cK, cC};
    fmb_beam_tangent_constants_v2(bm, k, pos, A);
    /* the theta row and column, element by element */
    double a[2];
    fmb_beam_gravity(q[2], g, a);
    double sm = 0, sP[2] = {0, 0}, sV[2] = {0, 0}, sJ = 0, sW = 0, sSU[2] = {0, 0};
    fmb_beam_plan_t p;
    fmb_beam_istate_t *sts = fmb_beam_states_begin(bm, q, qd, FMB_IS_ALL, &p);
    const int *th_col = pos + Jp[2]; /* (row, theta) sits at Jp[2] + row */
    for (int e = 0; e + 1 < bm->nnodes; e++) {
        const fmb_beam_elem_t *el = bm->el + e;
        fmb_beam_istate_t *s = sts + e;
        fmb_beam_state(bm, e, q, qd, &p, s); /* in the same pass (beam_state.h) */
        const double *Sb = fmb_beam_sb(bm, e), *Sx = el->Sx, *Sy = el->Sy;
        const int *d = bm->dof + 3 * e;
        double Udd[6];
        for (int i = 0; i < 6; i++)
            Udd[i] = d[i] >= 0 ? qdd[d[i]] : 0.0;
        sm += el->m;
        sP[0] += s->Pm[0], sP[1] += s->Pm[1], sV[0] += s->Vm[0], sV[1] += s->Vm[1];
        sJ += s->J, sW += s->W;
        sSU[0] += fmb_beam_srow(bm, Sx, 1, Udd), sSU[1] += fmb_beam_srow(bm, Sy, 0, Udd);
        for (int i = 0; i < 6; i++) {
            const int c = el->bcol[3 + i];
            if (c < 0) continue;
            const double t = Sx[i] * a[1] - Sy[i] * a[0];
            const double bb = Sx[i] * rd[0] + Sy[i] * rd[1] + s->MUd[i];
            const double sbu = fmb_beam_row(bm, Sb, i, 1, Udd);
            A[pos[Jp[c] + 2]] +=
                cM * s->g[i] + cKm * (Sx[i] * rdd[1] - Sy[i] * rdd[0] + 2 * tdd * s->pU[i] - sbu) -
                cK * (t - 2 * th * bb) + 2 * cC * th * s->pU[i];
            A[th_col[c]] += cM * s->g[i] - cK * t + 2 * cC * (s->hU[i] - th * s->pU[i]);
        }
    }
    /* (theta, rbar) and (rbar, theta), then (theta, theta) */
    A[pos[Jp[0] + 2]] += -cM * sP[1] + cKm * (sm * rdd[1] + 2 * tdd * sP[0] + sSU[1]) -
                         cK * (sm * a[1] - 2 * th * sV[0]) + 2 * cC * th * sP[0];
    A[pos[Jp[1] + 2]] += cM * sP[0] + cKm * (-sm * rdd[0] + 2 * tdd * sP[1] - sSU[0]) +
                         cK * (sm * a[0] + 2 * th * sV[1]) + 2 * cC * th * sP[1];
    A[th_col[0]] += -cM * sP[1] - cK * sm * a[1] - 2 * cC * (sV[1] + th * sP[0]);
    A[th_col[1]] += cM * sP[0] + cK * sm * a[0] + 2 * cC * (sV[0] - th * sP[1]);
    A[th_col[2]] += cM * sJ + cK * (sP[0] * a[0] + sP[1] * a[1]) + 2 * cC * sW;
}

/*
 * Beam data built once (the equations: beam.c's header): the dof map of the reference
 * conditions, the constant element matrices k_e (linear stiffness) and m_e (consistent
 * mass of the elastic dofs), the element's inertia shape integrals (beam_internal.h) and
 * column maps, the assembled K and Muu as nonzero lists, and the natural frequencies
 * (dense dsygv or CHOLMOD subspace iteration).
 * Memory is linear in the element count (FMB_BEAM_BYTES_PER_ELEMENT per element of a run).
 */
#include "bodies/beam_internal.h"

#include <cholmod.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Linear stiffness of element e in its local dofs (u1 v1 phi1 u2 v2 phi2). */
static void element_stiffness(const fmb_beam_t *bm, int e, double *ke)
{
    const double l = bm->x[e + 1] - bm->x[e];
    const double ea = bm->E * bm->A / l, ei = bm->E * bm->I / (l * l * l);
    for (int k = 0; k < 36; k++)
        ke[k] = 0.0;
    ke[0] = ke[3 + 6 * 3] = ea, ke[3] = ke[6 * 3] = -ea;
    const int v[4] = {1, 2, 4, 5};
    const double kb[16] = {12,  6 * l,  -12, 6 * l,  6 * l, 4 * l * l, -6 * l, 2 * l * l,
                           -12, -6 * l, 12,  -6 * l, 6 * l, 2 * l * l, -6 * l, 4 * l * l};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            ke[v[i] + 6 * v[j]] = ei * kb[i + 4 * j];
}

/* Inertia shape integrals of element e (beam_internal.h) and its consistent mass me, summed
 * over the element's mass points: the 4 Gauss points (exact for the degree-6 products of
 * the shape functions), each split into the pair y0 = +-sqrt(I/A) of half mass with rotary
 * inertia. Column maps of the element's local slots. */
void fmb_beam_element_inertia(const fmb_beam_t *bm, int e, fmb_beam_elem_t *el, double me[36],
                              double sb[36])
{
    const double l = bm->x[e + 1] - bm->x[e];
    memset(el, 0, sizeof *el);
    for (int k = 0; k < 36; k++)
        me[k] = 0.0, sb[k] = 0.0;
    const double ry = bm->rotary ? sqrt(bm->I / bm->A) : 0.0;
    for (int k = 0; k < 4; k++) {
        const double x = bm->x[e] + 0.5 * l * (1 + fmb_beam_gauss_x[k]);
        const double w = bm->rho * bm->A * 0.5 * l * fmb_beam_gauss_w[k];
        for (int s = 0; s < (bm->rotary ? 2 : 1); s++) {
            const double y0 = bm->rotary ? (s ? ry : -ry) : 0.0, ws = bm->rotary ? 0.5 * w : w;
            double nx[6], ny[6];
            fmb_beam_local_shape(bm, e, x, y0, nx, ny);
            el->m += ws;
            el->s0[0] += ws * x, el->s0[1] += ws * y0;
            el->J0 += ws * (x * x + y0 * y0);
            for (int i = 0; i < 6; i++) {
                el->Sx[i] += ws * nx[i], el->Sy[i] += ws * ny[i];
                el->s1[i] += ws * (nx[i] * x + ny[i] * y0);
                el->c1[i] += ws * (-nx[i] * y0 + ny[i] * x); /* Itil u = (-y0, x) */
                for (int j = 0; j < 6; j++) {
                    me[i + 6 * j] += ws * (nx[i] * nx[j] + ny[i] * ny[j]);
                    sb[i + 6 * j] += ws * (-nx[i] * ny[j] + ny[i] * nx[j]);
                }
            }
        }
    }
    const int *d = bm->dof + 3 * e;
    el->nl = 0;
    for (int k = 0; k < 9; k++) {
        const int c = k < 3 ? k : d[k - 3];
        el->pos[k] = c < 0 ? -1 : el->nl;
        el->bcol[k] = c < 0 ? -1 : c;
        if (c >= 0) el->cols[el->nl++] = c;
    }
}

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Assembled K and Muu over the free elastic dofs as column-major nonzero lists. */
static int build_nonzeros(fmb_beam_t *bm)
{
    const int nel = bm->nnodes - 1;
    const int64_t ne = bm->ndof - 3;
    int64_t *key = malloc((size_t)36 * nel * sizeof *key + 1);
    if (!key) return FMB_ERR_NOMEM;
    size_t nk = 0;
    for (int e = 0; e < nel; e++) {
        const int *d = bm->dof + 3 * e;
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++)
                if (d[i] >= 0 && d[j] >= 0) key[nk++] = (int64_t)(d[j] - 3) * ne + (d[i] - 3);
    }
    qsort(key, nk, sizeof *key, cmp_i64);
    size_t nz = 0;
    for (size_t k = 0; k < nk; k++)
        if (nz == 0 || key[k] != key[nz - 1]) key[nz++] = key[k];
    bm->nnz = (int)nz;
    bm->nz_i = malloc(nz * sizeof *bm->nz_i + 1);
    bm->nz_j = malloc(nz * sizeof *bm->nz_j + 1);
    bm->Kz = calloc(nz + 1, sizeof *bm->Kz);
    bm->Mz = calloc(nz + 1, sizeof *bm->Mz);
    if (!bm->nz_i || !bm->nz_j || !bm->Kz || !bm->Mz) {
        free(key);
        return FMB_ERR_NOMEM;
    }
    for (size_t z = 0; z < nz; z++)
        bm->nz_i[z] = (int)(key[z] % ne), bm->nz_j[z] = (int)(key[z] / ne);
    for (int e = 0; e < nel; e++) {
        const int *d = bm->dof + 3 * e;
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) {
                if (d[i] < 0 || d[j] < 0) continue;
                const int64_t k = (int64_t)(d[j] - 3) * ne + (d[i] - 3);
                const int64_t *hit = bsearch(&k, key, nz, sizeof *key, cmp_i64);
                bm->Kz[hit - key] += fmb_beam_ke(bm, e)[i + 6 * j];
                bm->Mz[hit - key] += fmb_beam_me(bm, e)[i + 6 * j];
            }
    }
    free(key);
    return 0;
}

/* Element e's set (ke, me, Sbar: 108 doubles) at p, for sorting the sets bit pattern by
 * bit pattern. */
typedef struct set_ref {
    const double *p;
    int e;
} set_ref_t;

static int cmp_set(const void *a, const void *b)
{
    const set_ref_t *x = a, *y = b;
    const int c = memcmp(x->p, y->p, 108 * sizeof *x->p);
    return c ? c : (x->e > y->e) - (x->e < y->e);
}

/* bm->ke, me, sb once per distinct set of the elements' sets (ne x 108 doubles: ke, me,
 * Sbar), each element pointing at its set (el->ke, Mff, Sb): equal means equal bit for bit
 * (memcmp), so every element computes with exactly its own numbers. */
static int share_sets(fmb_beam_t *bm, const double *set, int ne)
{
    set_ref_t *r = malloc((size_t)ne * sizeof *r + 1);
    if (!r) return FMB_ERR_NOMEM;
    for (int e = 0; e < ne; e++)
        r[e].p = set + 108 * (size_t)e, r[e].e = e;
    qsort(r, (size_t)ne, sizeof *r, cmp_set);
    int n = 0;
    for (int k = 1; k < ne; k++)
        n += memcmp(r[k].p, r[k - 1].p, 108 * sizeof *set) != 0;
    bm->nmat = ne > 0 ? n + 1 : 0;
    bm->ke = malloc((size_t)36 * bm->nmat * sizeof *bm->ke + 1);
    bm->me = malloc((size_t)36 * bm->nmat * sizeof *bm->me + 1);
    bm->sb = malloc((size_t)36 * bm->nmat * sizeof *bm->sb + 1);
    if (!bm->ke || !bm->me || !bm->sb) {
        free(r);
        return FMB_ERR_NOMEM;
    }
    for (int k = 0, m = -1; k < ne; k++) {
        if (k == 0 || memcmp(r[k].p, r[k - 1].p, 108 * sizeof *set) != 0) {
            m++;
            memcpy(bm->ke + 36 * (size_t)m, r[k].p, 36 * sizeof *set);
            memcpy(bm->me + 36 * (size_t)m, r[k].p + 36, 36 * sizeof *set);
            memcpy(bm->sb + 36 * (size_t)m, r[k].p + 72, 36 * sizeof *set);
        }
        fmb_beam_elem_t *el = bm->el + r[k].e;
        el->ke = bm->ke + 36 * (size_t)m;
        el->Mff = bm->me + 36 * (size_t)m;
        el->Sb = bm->sb + 36 * (size_t)m;
    }
    free(r);
    return 0;
}

/* 1 if every element's Mff, k_e, Sbar and S have exact zeros where beam.h's `decoupled`
 * says (slot classes: axial 0, 3; bending 1, 2, 4, 5). */
static int decoupled(const fmb_beam_t *bm)
{
    static const int axial[6] = {1, 0, 0, 1, 0, 0};
    for (int e = 0; e + 1 < bm->nnodes; e++) {
        const double *M = fmb_beam_me(bm, e), *K = fmb_beam_ke(bm, e), *Sb = fmb_beam_sb(bm, e);
        const fmb_beam_elem_t *el = bm->el + e;
        for (int i = 0; i < 6; i++) {
            if ((axial[i] ? el->Sy[i] : el->Sx[i]) != 0.0) return 0;
            for (int j = 0; j < 6; j++) {
                const int same = axial[i] == axial[j], z = i + 6 * j;
                if (!same && (M[z] != 0.0 || K[z] != 0.0)) return 0;
                if (same && Sb[z] != 0.0) return 0;
            }
        }
    }
    return 1;
}

int fmb_beam_build(fmb_beam_t *bm, char *msg, size_t len)
{
    const int nn = bm->nnodes;
    bm->dof = malloc((size_t)3 * nn * sizeof *bm->dof);
    if (!bm->dof) {
        snprintf(msg, len, "out of memory for %d nodes", nn);
        return FMB_ERR_NOMEM;
    }
    for (int k = 0; k < 3 * nn; k++)
        bm->dof[k] = 0;
    switch (bm->reference) {
    case FMB_BEAM_SIMPLY_SUPPORTED:
        bm->dof[0] = bm->dof[1] = bm->dof[3 * (nn - 1) + 1] = -1;
        break;
    case FMB_BEAM_CANTILEVER:
        bm->dof[0] = bm->dof[1] = bm->dof[2] = -1;
        break;
    default:
        snprintf(msg, len, "unsupported reference condition %d", (int)bm->reference);
        return FMB_ERR_MODEL;
    }
    int nd = 3;
    for (int k = 0; k < 3 * nn; k++)
        if (bm->dof[k] == 0) bm->dof[k] = nd++;
    bm->ndof = nd;
    /* memory grows linearly with the elements: element matrices, the iteration matrix's
     * entries and factors, about FMB_BEAM_BYTES_PER_ELEMENT each (docs/performance.md);
     * refuse before trying what the machine cannot hold */
    const double need = FMB_BEAM_BYTES_PER_ELEMENT * (double)(nn - 1);
    const double phys = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    if (phys > 0 && need > 0.5 * phys) {
        snprintf(msg, len,
                 "%d elements need about %.3g GB (%.0f kB per element: element matrices, the "
                 "iteration matrix and its factors), more than half of this machine's %.3g GB "
                 "memory; use fewer elements",
                 nn - 1, need / 1e9, FMB_BEAM_BYTES_PER_ELEMENT / 1e3, phys / 1e9);
        return FMB_ERR_NOMEM;
    }
    /* each element's ke, me, Sbar (108 doubles) first, then stored once per distinct set */
    double *set = malloc((size_t)108 * (nn - 1) * sizeof *set + 1);
    bm->el = malloc((size_t)(nn - 1) * sizeof *bm->el + 1);
    bm->cache = calloc(1, sizeof *bm->cache);
    if (bm->cache) {
        bm->cache->q = malloc(2 * (size_t)nd * sizeof *bm->cache->q);
        bm->cache->qd = bm->cache->q ? bm->cache->q + nd : NULL;
        bm->cache->st = malloc((size_t)(nn - 1) * sizeof *bm->cache->st + 1);
    }
    if (!set || !bm->el || !bm->cache || !bm->cache->q || !bm->cache->st) {
        free(set);
        snprintf(msg, len, "out of memory: %d elements need %.3g GB for the beam's matrices",
                 nn - 1, need / 1e9);
        return FMB_ERR_NOMEM;
    }
    for (int e = 0; e + 1 < nn; e++) {
        double *s = set + 108 * (size_t)e;
        element_stiffness(bm, e, s);
        fmb_beam_element_inertia(bm, e, bm->el + e, s + 36, s + 72);
    }
    const int rc = share_sets(bm, set, nn - 1);
    free(set);
    if (rc) {
        snprintf(msg, len, "out of memory for the beam's %d elements", nn - 1);
        return FMB_ERR_NOMEM;
    }
    bm->decoupled = decoupled(bm);
    if (build_nonzeros(bm) || fmb_beam_tangent_build(bm)) {
        snprintf(msg, len, "out of memory for the beam's %d elements", nn - 1);
        return FMB_ERR_NOMEM;
    }
    return 0;
}

extern void dsygv_(const int *itype, const char *jobz, const char *uplo, const int *n, double *a,
                   const int *lda, double *b, const int *ldb, double *w, double *work,
                   const int *lwork, int *info);

/* Dense generalized symmetric-definite eigenproblem A x = w B x (n x n, column-major, A
 * and B overwritten; eigenvectors in A when vectors). */
static int dense_gev(int n, double *A, double *B, double *w, int vectors)
{
    int itype = 1, info = 0, lwork = 3 * n + 64;
    double *work = malloc((size_t)lwork * sizeof *work);
    if (!work) return FMB_ERR_NOMEM;
    dsygv_(&itype, vectors ? "V" : "N", "U", &n, A, &n, B, &n, w, work, &lwork, &info);
    free(work);
    return info ? FMB_ERR_LINSOLVE : 0;
}

int fmb_beam_modes_dense(const fmb_beam_t *bm, double *omega, int nmax)
{
    const int ne = bm->ndof - 3;
    double *K = malloc((size_t)ne * ne * sizeof *K), *M = malloc((size_t)ne * ne * sizeof *M);
    double *w = malloc((size_t)ne * sizeof *w);
    int rc = (!K || !M || !w) ? FMB_ERR_NOMEM : 0, count = 0;
    if (!rc) {
        memset(K, 0, (size_t)ne * ne * sizeof *K);
        memset(M, 0, (size_t)ne * ne * sizeof *M);
        for (int z = 0; z < bm->nnz; z++) {
            K[bm->nz_i[z] + (size_t)ne * bm->nz_j[z]] = bm->Kz[z];
            M[bm->nz_i[z] + (size_t)ne * bm->nz_j[z]] = bm->Mz[z];
        }
        rc = dense_gev(ne, K, M, w, 0);
        for (int k = 0; !rc && k < ne && count < nmax; k++)
            omega[count++] = sqrt(fmax(w[k], 0.0));
    }
    free(K), free(M), free(w);
    return rc ? rc : count;
}

/* y = A x over the banded nonzeros of A (Kz or Mz). */
static void band_mult(const fmb_beam_t *bm, const double *Az, const double *x, double *y)
{
    const int ne = bm->ndof - 3;
    for (int i = 0; i < ne; i++)
        y[i] = 0.0;
    for (int z = 0; z < bm->nnz; z++)
        y[bm->nz_i[z]] += Az[z] * x[bm->nz_j[z]];
}

/*
 * Lowest modes of large beams: subspace iteration with a sparse Cholesky factorization
 * of K (CHOLMOD) and Rayleigh-Ritz on p = nmax + 8 vectors (Bathe's method):
 *   Y = K^{-1} M X,   Kr = Y^T K Y,   Mr = Y^T M Y,   Kr phi = w Mr phi,   X = Y phi
 * until the first nmax eigenvalues change by less than 1e-8 relative between iterations
 * (the projected K of a fine mesh is formed with cancellation: below ~1e-9 the change
 * is round-off; the discretization error of the frequencies is far larger).
 */
int fmb_beam_modes_sparse(const fmb_beam_t *bm, double *omega, int nmax)
{
    const int ne = bm->ndof - 3;
    if (nmax > ne) nmax = ne;
    int p = nmax + 8 < ne ? nmax + 8 : ne;
    cholmod_common cc;
    cholmod_start(&cc);
    int rc = 0, count = 0;
    int nup = 0;
    for (int z = 0; z < bm->nnz; z++)
        nup += bm->nz_i[z] <= bm->nz_j[z];
    cholmod_triplet *T =
        cholmod_allocate_triplet((size_t)ne, (size_t)ne, (size_t)nup, 1, CHOLMOD_REAL, &cc);
    cholmod_sparse *A = NULL;
    cholmod_factor *L = NULL;
    cholmod_dense *B = NULL, *Y = NULL;
    double *X = malloc((size_t)ne * p * sizeof *X), *KY = malloc((size_t)ne * p * sizeof *KY);
    double *MY = malloc((size_t)ne * p * sizeof *MY), *Kr = malloc((size_t)p * p * sizeof *Kr);
    double *Mr = malloc((size_t)p * p * sizeof *Mr), *w = malloc((size_t)p * sizeof *w);
    double *wold = calloc((size_t)p, sizeof *wold);
    if (!T || !X || !KY || !MY || !Kr || !Mr || !w || !wold) rc = FMB_ERR_NOMEM;
    if (!rc) {
        int *Ti = T->i, *Tj = T->j;
        double *Tx = T->x;
        for (int z = 0; z < bm->nnz; z++) {
            const int i = bm->nz_i[z], j = bm->nz_j[z];
            if (i > j) continue;
            Ti[T->nnz] = i, Tj[T->nnz] = j, Tx[T->nnz] = bm->Kz[z];
            T->nnz++;
        }
        A = cholmod_triplet_to_sparse(T, T->nnz, &cc);
        L = A ? cholmod_analyze(A, &cc) : NULL;
        if (!L || !cholmod_factorize(A, L, &cc) || cc.status != CHOLMOD_OK || L->minor < (size_t)ne)
            rc = FMB_ERR_LINSOLVE; /* K not positive definite: frame not fixed */
        B = cholmod_allocate_dense((size_t)ne, (size_t)p, (size_t)ne, CHOLMOD_REAL, &cc);
        if (!B) rc = FMB_ERR_NOMEM;
    }
    /* start vectors: deterministic, rich in low modes (x^(k+1) along the bar and noise) */
    for (int k = 0; !rc && k < p; k++)
        for (int i = 0; i < ne; i++)
            X[i + (size_t)ne * k] = sin((k + 1) * 0.7 * (i + 1)) + 1e-3 * k;
    for (int iter = 0; !rc && iter < 200; iter++) {
        double *Bx = B->x;
        for (int k = 0; k < p; k++)
            band_mult(bm, bm->Mz, X + (size_t)ne * k, Bx + (size_t)ne * k);
        if (Y) cholmod_free_dense(&Y, &cc);
        Y = cholmod_solve(CHOLMOD_A, L, B, &cc);
        if (!Y) {
            rc = FMB_ERR_LINSOLVE;
            break;
        }
        const double *Yx = Y->x;
        for (int k = 0; k < p; k++) {
            band_mult(bm, bm->Kz, Yx + (size_t)ne * k, KY + (size_t)ne * k);
            band_mult(bm, bm->Mz, Yx + (size_t)ne * k, MY + (size_t)ne * k);
        }
        for (int a = 0; a < p; a++)
            for (int b = 0; b < p; b++) {
                double kr = 0, mr = 0;
                for (int i = 0; i < ne; i++) {
                    kr += Yx[i + (size_t)ne * a] * KY[i + (size_t)ne * b];
                    mr += Yx[i + (size_t)ne * a] * MY[i + (size_t)ne * b];
                }
                Kr[a + p * b] = kr, Mr[a + p * b] = mr;
            }
        if ((rc = dense_gev(p, Kr, Mr, w, 1))) break;
        /* X = Y phi */
        for (int k = 0; k < p; k++)
            for (int i = 0; i < ne; i++) {
                double v = 0;
                for (int a = 0; a < p; a++)
                    v += Yx[i + (size_t)ne * a] * Kr[a + p * k];
                X[i + (size_t)ne * k] = v;
            }
        double change = 0;
        for (int k = 0; k < nmax; k++)
            change = fmax(change, fabs(w[k] - wold[k]) / fabs(w[k]));
        memcpy(wold, w, (size_t)p * sizeof *w);
        if (iter > 0 && change < 1e-8) {
            for (int k = 0; k < nmax; k++)
                omega[count++] = sqrt(fmax(w[k], 0.0));
            break;
        }
    }
    if (!rc && count == 0) rc = FMB_ERR_CONVERGENCE;
    cholmod_free_dense(&Y, &cc);
    cholmod_free_dense(&B, &cc);
    cholmod_free_factor(&L, &cc);
    cholmod_free_sparse(&A, &cc);
    cholmod_free_triplet(&T, &cc);
    cholmod_finish(&cc);
    free(X), free(KY), free(MY), free(Kr), free(Mr), free(w), free(wold);
    return rc ? rc : count;
}

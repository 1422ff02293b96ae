/* The C tests' dense copy of the assembled KKT matrix (column-major N x N, N = n + m): the
 * reference the tests compare an assembly against entry by entry. Include after
 * solve/sim_internal.h. */
#ifndef FMB_TESTS_KKT_DENSE_H
#define FMB_TESTS_KKT_DENSE_H

#include <string.h>

static inline void dense(const fmb_sim_t *s, double *A)
{
    const int N = s->n + s->m;
    memset(A, 0, (size_t)N * N * sizeof *A);
    for (int j = 0; j < N; j++)
        for (int p = s->as.kkt.Ap[j]; p < s->as.kkt.Ap[j + 1]; p++)
            A[s->as.kkt.Ai[p] + (size_t)N * j] += s->as.kkt.Ax[p];
}

#endif

/* The KKT tests' dense reference: the entries an assembly adds, summed into a dense N x N
 * matrix with each entry's term count and the sum of its terms' magnitudes, and the
 * compressed matrix compared with it to rounding (near.h). The including file defines N and
 * includes solve/kkt.h and near.h first. */
#ifndef FMB_TESTS_KKT_SUM_H
#define FMB_TESTS_KKT_SUM_H

#include <math.h>
#include <string.h>

static double D[N][N], Dm[N][N]; /* the dense sum and its terms' magnitudes */
static int Dk[N][N];             /* terms of each entry */

/* an empty dense sum (before an assembly) */
static void dreset(void)
{
    memset(D, 0, sizeof D), memset(Dm, 0, sizeof Dm), memset(Dk, 0, sizeof Dk);
}

/* a(i, j) += v in the dense reference */
static void dadd(int i, int j, double v)
{
    D[i][j] += v, Dm[i][j] += fabs(v), Dk[i][j]++;
}

/* the compressed matrix of k against the dense sum: entries off by more than rounding;
 * *d the largest difference */
static int off_dense(const fmb_kkt_t *k, double *d)
{
    static double C[N][N];
    memset(C, 0, sizeof C);
    for (int j = 0; j < N; j++)
        for (int p = k->Ap[j]; p < k->Ap[j + 1]; p++)
            C[k->Ai[p]][j] += k->Ax[p];
    int bad = 0;
    *d = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            *d = fmax(*d, fabs(C[i][j] - D[i][j]));
            bad += !near_tol(C[i][j], D[i][j], near_bound(Dk[i][j] + 1, Dm[i][j]));
        }
    return bad;
}

#endif

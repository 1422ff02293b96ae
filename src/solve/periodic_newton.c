/* Newton on the period map: the dense monodromy J = Y W, Newton-Picard on a subspace, and
 * the Floquet multipliers (docs/theory.md section 13, "Newton-Picard", "Floquet
 * multipliers"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solve/periodic.h"

/* J = Y W (4n x 4n) */
void fmb_periodic_form_monodromy(fmb_periodic_t *p)
{
    fmb_sim_t *s = p->s;
    const int n = p->n;
    const size_t nx = 4 * (size_t)n;
    double am, af, beta, gamma;
    fmb_sim_integrator_coefficients(s, &am, &af, &beta, &gamma);
    const double h = p->h, ca = -am / (1.0 - am), cq = af / (1.0 - am);
    for (int i = 0; i < n; i++) {
        /* columns of W: x component -> (qh, qdh, c) entries at coordinate i */
        const double wq[3] = {1.0, 0.0, 0.0};
        const double wv[3] = {h, 1.0, 0.0};
        const double wa[3] = {h * h * ((0.5 - beta) + beta * ca), h * ((1.0 - gamma) + gamma * ca),
                              ca};
        const double wd[3] = {h * h * beta * cq, h * gamma * cq, cq};
        const double *wc[4] = {wq, wv, wa, wd};
        const double *Y0 = p->Y + (size_t)i * nx, *Y1 = p->Y + (size_t)(n + i) * nx,
                     *Y2 = p->Y + (size_t)(2 * n + i) * nx;
        for (int blk = 0; blk < 4; blk++) {
            double *Jc = p->J + (size_t)(blk * n + i) * nx;
            const double *c = wc[blk];
            for (size_t r = 0; r < nx; r++)
                Jc[r] = c[0] * Y0[r] + c[1] * Y1[r] + c[2] * Y2[r];
        }
    }
}

/* Newton step: (J - I) dx = -G; 0 or FMB_ERR_SINGULAR. */
int fmb_periodic_newton_step(fmb_periodic_t *p)
{
    const int nx = 4 * p->n;
    double *A = p->A;
    memcpy(A, p->J, (size_t)nx * nx * sizeof *A);
    for (int i = 0; i < nx; i++)
        A[(size_t)i * nx + i] -= 1.0;
    double *b = p->y; /* P(x) is not needed any more */
    for (int i = 0; i < nx; i++)
        b[i] = -p->g[i];
    int *ipiv = malloc((size_t)nx * sizeof *ipiv + 1), one = 1, info = 0;
    if (!ipiv) return FMB_ERR_NOMEM;
    dgesv_(&nx, &one, A, &nx, ipiv, b, &nx, &info);
    free(ipiv);
    if (info != 0) return FMB_ERR_SINGULAR;
    for (int i = 0; i < nx; i++)
        p->x[i] += b[i];
    return 0;
}

/* Spectral radius of the integrator's amplification at infinite frequency and of a
 * prescribed coordinate's (q_{n+1} given: the constrained directions), over one step. */
double fmb_periodic_algorithmic_radius(const fmb_sim_t *s, double h)
{
    double am, af, beta, gamma;
    fmb_sim_integrator_coefficients(s, &am, &af, &beta, &gamma);
    const double r = (1.0 - af) / (1.0 - am), bh2 = beta * r * h * h, gp = gamma * r;
    const double ca = -am / (1.0 - am), cq = af / (1.0 - am);
    /* the map of (qd, a, qdd) with q held fixed (q_{n+1} = q_n = 0): qdd_{n+1} = -qh / bh2;
     * its 3 x 3 matrix by columns, eigenvalues by dgeev */
    double Amat[9];
    for (int c = 0; c < 3; c++) {
        double v = c == 0, a = c == 1, d = c == 2;
        const double cc = cq * d + ca * a;
        const double qh = h * v + h * h * ((0.5 - beta) * a + beta * cc);
        const double qdh = v + h * ((1.0 - gamma) * a + gamma * cc);
        const double d1 = -qh / bh2;
        Amat[3 * c + 0] = qdh + gp * h * d1;
        Amat[3 * c + 1] = r * d1 + cc;
        Amat[3 * c + 2] = d1;
    }
    int n3 = 3, one = 1, lw = 64, info = 0;
    double wr[3], wi[3], work[64], dummy[1];
    dgeev_("N", "N", &n3, Amat, &n3, wr, wi, dummy, &one, dummy, &one, work, &lw, &info);
    double rho = 0.0;
    if (info == 0)
        for (int k = 0; k < 3; k++)
            rho = fmax(rho, hypot(wr[k], wi[k]));
    /* infinite frequency, unconstrained: qdd = -w^2 q with w h -> inf is the same map on
     * (qd, a, qdd) once q is pinned by the stiffness, so rho covers both */
    return rho;
}

/* Eigenvalues and right eigenvectors of the k x k matrix A (overwritten) into p->mre,
 * p->mim, p->mvec (LAPACK dgeev), and p->order by decreasing modulus (insertion sort,
 * stable: a conjugate pair stays in dgeev's order); p->nmult = k. */
static int eig_sorted(fmb_periodic_t *p, double *A, int k)
{
    double dummy[1], wq;
    int one = 1, lw = -1, info = 0;
    dgeev_("N", "V", &k, A, &k, p->mre, p->mim, dummy, &one, p->mvec, &k, &wq, &lw, &info);
    lw = (int)wq;
    double *work = malloc((size_t)(lw > 0 ? lw : 1) * sizeof *work);
    if (!work) return FMB_ERR_NOMEM;
    dgeev_("N", "V", &k, A, &k, p->mre, p->mim, dummy, &one, p->mvec, &k, work, &lw, &info);
    free(work);
    if (info != 0) return FMB_ERR_LINSOLVE;
    for (int j = 0; j < k; j++) {
        const double mj = hypot(p->mre[j], p->mim[j]);
        int pos = j;
        while (pos > 0 && hypot(p->mre[p->order[pos - 1]], p->mim[p->order[pos - 1]]) < mj) {
            p->order[pos] = p->order[pos - 1];
            pos--;
        }
        p->order[pos] = j;
    }
    p->nmult = k;
    return 0;
}

int fmb_periodic_floquet_dense(fmb_periodic_t *p)
{
    const int n = p->n, nw = 3 * n;
    const size_t nx = 4 * (size_t)n;
    fmb_sim_t *s = p->s;
    double am, af, beta, gamma;
    fmb_sim_integrator_coefficients(s, &am, &af, &beta, &gamma);
    const double h = p->h, ca = -am / (1.0 - am), cq = af / (1.0 - am);
    /* M3 = W Y (3n x 3n): w_N of each column of Y */
    double *M3 = p->A;
    for (int j = 0; j < nw; j++) {
        const double *Yj = p->Y + (size_t)j * nx;
        double *Mj = M3 + (size_t)j * nw;
        for (int i = 0; i < n; i++) {
            const double dq = Yj[i], dv = Yj[n + i], da = Yj[2 * n + i], dd = Yj[3 * n + i];
            const double dc = cq * dd + ca * da;
            Mj[i] = dq + h * dv + h * h * ((0.5 - beta) * da + beta * dc);
            Mj[n + i] = dv + h * ((1.0 - gamma) * da + gamma * dc);
            Mj[2 * n + i] = dc;
        }
    }
    if (eig_sorted(p, M3, nw))
        return fmb_sim_error(s, FMB_ERR_LINSOLVE, "periodic: eigenvalues failed");
    return 0;
}

/* Orthonormalize the k columns of V (nx each, scaled space) in place by modified
 * Gram-Schmidt twice, dropping a column whose norm falls below 1e-10 of what it had;
 * returns the columns kept (packed at the front). */
static int orthonormalize(double *V, int k, size_t nx)
{
    int kept = 0;
    for (int j = 0; j < k; j++) {
        double *v = V + (size_t)j * nx;
        double n0 = 0.0;
        for (size_t i = 0; i < nx; i++)
            n0 += v[i] * v[i];
        n0 = sqrt(n0);
        for (int pass2 = 0; pass2 < 2; pass2++)
            for (int c = 0; c < kept; c++) {
                const double *u = V + (size_t)c * nx;
                double d = 0.0;
                for (size_t i = 0; i < nx; i++)
                    d += u[i] * v[i];
                for (size_t i = 0; i < nx; i++)
                    v[i] -= d * u[i];
            }
        double nn = 0.0;
        for (size_t i = 0; i < nx; i++)
            nn += v[i] * v[i];
        nn = sqrt(nn);
        if (!(nn > 1e-10 * n0) || !(nn > 0)) continue;
        double *dst = V + (size_t)kept * nx;
        for (size_t i = 0; i < nx; i++)
            dst[i] = v[i] / nn;
        kept++;
    }
    return kept;
}

/* Ritz values and vectors of the subspace: eigenpairs of S = V^T J V (k x k, scaled) as the
 * multipliers (largest moduli only) and their vectors for fmb_periodic_mode. */
static int ritz(fmb_periodic_t *p, const double *S, int k)
{
    memcpy(p->A, S, (size_t)k * k * sizeof *p->A);
    const int rc = eig_sorted(p, p->A, k);
    p->ritz = rc == 0;
    return rc;
}

/* The relative residual |J v - mu v| / |v| of the largest Ritz pair (v = V y, scaled
 * state; Z packed: J V scaled), k columns of length nx. */
static double ritz_residual(const fmb_periodic_t *p, const double *Z, int k, int nx)
{
    if (p->nmult < 1) return INFINITY;
    const int i = p->order[0];
    const double mr = p->mre[i], mi = p->mim[i];
    const double *yr, *yi;
    int conj; /* the conjugate pair has the same residual */
    fmb_periodic_eigvec(p, i, k, &yr, &yi, &conj);
    double num = 0.0, den = 0.0;
    for (int r = 0; r < nx; r++) {
        double vr = 0, vi = 0, zr = 0, zi = 0;
        for (int j = 0; j < k; j++) {
            const double a = p->V[(size_t)j * nx + r], z = Z[(size_t)j * nx + r];
            vr += a * yr[j], zr += z * yr[j];
            if (yi) vi += a * yi[j], zi += z * yi[j];
        }
        const double er = zr - (mr * vr - mi * vi), ei = zi - (mr * vi + mi * vr);
        num += er * er + ei * ei;
        den += vr * vr + vi * vi;
    }
    return den > 0 ? sqrt(num / den) : INFINITY;
}

/* Newton-Picard shooting (Lust, Roose, Spence and Champneys 1998): Newton on a small
 * subspace V (orthonormal in the scaled state, sig), Picard (x <- P(x)) on its complement.
 * Each pass at x gives P(x) and Z = J V (the columns propagated with the same exact step
 * linearization as the dense monodromy). With S = V^T Z and r = P(x) - x (scaled):
 *     x += V dp + (I - V V^T) r,    (S - I) dp = -V^T r
 * (the coupling V^T J (I - V V^T) r is left out: it is at most the complement's multipliers
 * times its part of r). The basis is the span of Z and the residual's complement part
 * (subspace iteration, grown by one direction per iteration, at most pmax), so it turns to
 * the dominant multipliers' invariant subspace; the complement then contracts with the
 * largest multiplier left outside. Returns 0 converged, 1 when it does not contract (the
 * caller switches to the dense monodromy), or a negative status. */
int fmb_periodic_newton_picard(fmb_periodic_t *p, const fmb_periodic_options_t *o, int maxit,
                               int *dense)
{
    fmb_sim_t *s = p->s;
    const int n = p->n, nx = 2 * n; /* the subspace: (q, qd) */
    const int pmax = p->pmax;
    double *V = p->V, *Z = p->Z, *S = p->S, *r = p->rs;
    double *sg = p->sigV; /* the scaled space: the first pass's scales, then fixed */
    int k = 0, rc;
    const size_t zs = 4 * (size_t)n; /* Z's columns: whole states (a, qdd parts seeded 0) */
    for (int it = 0;; it++) {
        /* seeds: V's columns in state units (sig from the last residual) */
        for (int j = 0; j < k; j++) {
            for (int i = 0; i < nx; i++)
                Z[(size_t)j * zs + i] = sg[i] * V[(size_t)j * nx + i];
            memset(Z + (size_t)j * zs + nx, 0, (zs - (size_t)nx) * sizeof *Z);
        }
        if ((rc = fmb_periodic_pass_damped(p, it, Z, k, 0, o->stop))) {
            /* still failing at the halved updates: back to the last iterate that passed,
             * for the dense monodromy when the caller may switch */
            if (it == 0 || !dense || rc == FMB_ERR_INTERRUPTED) return rc;
            memcpy(p->x, p->xlast, 4 * (size_t)n * sizeof *p->x);
            p->iters = it - 1;
            p->np_failed = 1;
            return 1;
        }
        double res_acc;
        const double res = fmb_periodic_residual_norm(p, &res_acc);
        p->res_acc = res_acc;
        p->res[it] = res;
        p->iters = it;
        if (o->progress) o->progress(it, res, o->user);
        if (it == 0) memcpy(sg, p->sig, 4 * (size_t)n * sizeof *sg);
        if (!isfinite(res))
            return fmb_sim_error(s, FMB_ERR_NONFINITE,
                                 "periodic: the residual is not finite at iteration %d", it);
        /* the a and qdd rows of J V (before Z is packed) */
        for (int j = 0; j < k; j++)
            memcpy(p->Za + (size_t)j * nx, Z + (size_t)j * zs + nx, (size_t)nx * sizeof *Z);
        /* J V in the scaled space */
        for (int j = 0; j < k; j++)
            for (int i = 0; i < nx; i++)
                Z[(size_t)j * nx + i] = Z[(size_t)j * zs + i] / sg[i]; /* packed, stride nx */
        for (int a = 0; a < k; a++)
            for (int b2 = 0; b2 < k; b2++) {
                double d = 0.0;
                for (int i = 0; i < nx; i++)
                    d += V[(size_t)a * nx + i] * Z[(size_t)b2 * nx + i];
                S[(size_t)b2 * k + a] = d;
            }
        if (res <= o->tol) {
            p->np_dim = k;
            return 0;
        }
        if (it >= maxit) return 1;
        /* a Picard-dominated iteration that does not contract: the dense monodromy */
        if (it >= 3 && res > 0.5 * p->res[it - 1] && dense) return 1;
        for (int i = 0; i < nx; i++)
            r[i] = p->g[i] / sg[i];
        /* V^T r and the complement part of r */
        double *vr = p->vr, *dp = p->dp;
        for (int a = 0; a < k; a++) {
            double d = 0.0;
            for (int i = 0; i < nx; i++)
                d += V[(size_t)a * nx + i] * r[i];
            vr[a] = d;
        }
        for (int a = 0; a < k; a++)
            for (int i = 0; i < nx; i++)
                r[i] -= vr[a] * V[(size_t)a * nx + i];
        if (k > 0) {
            double *A = p->A;
            for (int a = 0; a < k; a++)
                for (int b2 = 0; b2 < k; b2++)
                    A[(size_t)b2 * k + a] = S[(size_t)b2 * k + a] - (a == b2);
            for (int a = 0; a < k; a++)
                dp[a] = -vr[a];
            int one = 1, info = 0;
            dgesv_(&k, &one, A, &k, p->ipiv, dp, &k, &info);
            if (info != 0)
                return fmb_sim_error(s, FMB_ERR_SINGULAR,
                                     "periodic: a Floquet multiplier is 1 at iteration %d (an "
                                     "undriven free motion, or a period that is not the "
                                     "forcing's)",
                                     it);
        }
        for (int i = 0; i < nx; i++) {
            double d = r[i];
            for (int a = 0; a < k; a++)
                d += V[(size_t)a * nx + i] * dp[a];
            p->x[i] += sg[i] * d;
        }
        /* a and qdd: their values at the period's end plus the change the Newton part makes
         * there (J V dp); the fixed-point part's (J (I - V V^T) r) is left out with it */
        for (int i = 0; i < nx; i++) {
            double d = p->y[nx + i];
            for (int a = 0; a < k; a++)
                d += p->Za[(size_t)a * nx + i] * dp[a];
            p->x[nx + i] = d;
        }
        /* the next basis: orth(J V, complement of r), at most pmax */
        const int kz = k < pmax ? k : pmax;
        memcpy(V, Z, (size_t)kz * nx * sizeof *V);
        int kn = kz;
        if (kn < pmax) {
            memcpy(V + (size_t)kn * nx, r, (size_t)nx * sizeof *V);
            kn++;
        }
        k = orthonormalize(V, kn, (size_t)nx);
    }
}

/* The largest multipliers at the orbit by subspace iteration with Rayleigh-Ritz (the
 * subspace method's Floquet analysis; no dense matrix): m directions of (q, qd), the
 * Newton-Picard basis completed with pseudo-random ones, each pass Z = J V then
 * V <- orth(Z), until the largest Ritz value moves by less than FMB_PERIODIC_RITZ_TOL
 * between passes and its pair's residual |J v - mu v| is below it (at most
 * FMB_PERIODIC_FLOQUET_PASSES passes). The rate is |mu_{m+1} / mu_1| per pass. */
int fmb_periodic_floquet_dominant(fmb_periodic_t *p, const fmb_periodic_options_t *o, int k0)
{
    const int n = p->n, nx = 4 * n; /* whole states: a and qdd follow the eigenvector */
    const size_t zs = 4 * (size_t)n;
    const int m = 2 * n < FMB_PERIODIC_FLOQUET_DIM ? 2 * n : FMB_PERIODIC_FLOQUET_DIM;
    double *V = p->V, *Z = p->Z, *S = p->S, *sg = p->sigV;
    int k = k0 < m ? k0 : m, rc;
    /* the Newton-Picard basis (q, qd; stride 2n) into whole-state columns */
    for (int j = k - 1; j >= 0; j--) {
        memmove(V + (size_t)j * nx, V + (size_t)j * 2 * n, 2 * (size_t)n * sizeof *V);
        memset(V + (size_t)j * nx + 2 * n, 0, 2 * (size_t)n * sizeof *V);
    }
    unsigned long long seed = 0x9E3779B97F4A7C15ull;
    for (int j = k; j < m; j++)
        for (int i = 0; i < nx; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            V[(size_t)j * nx + i] = (double)(seed >> 11) / 9007199254740992.0 - 0.5;
        }
    k = orthonormalize(V, m, (size_t)nx);
    double last = -1.0;
    for (int pass_no = 0; pass_no < FMB_PERIODIC_FLOQUET_PASSES; pass_no++) {
        for (int j = 0; j < k; j++)
            for (int i = 0; i < nx; i++)
                Z[(size_t)j * zs + i] = sg[i] * V[(size_t)j * nx + i];
        if ((rc = fmb_periodic_pass(p, p->x, p->y, Z, k, 0, o->stop))) return rc;
        for (int j = 0; j < k; j++)
            for (int i = 0; i < nx; i++)
                Z[(size_t)j * zs + i] /= sg[i];
        for (int a = 0; a < k; a++)
            for (int b2 = 0; b2 < k; b2++) {
                double d = 0.0;
                for (int i = 0; i < nx; i++)
                    d += V[(size_t)a * nx + i] * Z[(size_t)b2 * nx + i];
                S[(size_t)b2 * k + a] = d;
            }
        if ((rc = ritz(p, S, k))) return rc;
        p->vstride = nx;
        p->ritz_res = ritz_residual(p, Z, k, nx);
        p->floquet_passes = pass_no + 1;
        double re, im;
        fmb_periodic_multiplier(p, 0, &re, &im);
        const double mod = hypot(re, im);
        if (fabs(mod - last) <= FMB_PERIODIC_RITZ_TOL * fmax(mod, 1e-3) &&
            p->ritz_res <= FMB_PERIODIC_RITZ_TOL)
            return 0;
        last = mod;
        memcpy(V, Z, (size_t)k * nx * sizeof *V);
        k = orthonormalize(V, k, (size_t)nx);
    }
    return 0; /* not converged: ritz_res says how far */
}

/* Newton with the dense monodromy from the present iterate (iterations from it0). */
int fmb_periodic_dense_newton(fmb_periodic_t *p, const fmb_periodic_options_t *o, int it0,
                              int maxit)
{
    fmb_sim_t *s = p->s;
    int rc;
    for (int it = it0;; it++) {
        if ((rc = fmb_periodic_pass_damped(p, it > it0, p->Y, 3 * p->n, 1, o->stop))) return rc;
        double res_acc;
        const double res = fmb_periodic_residual_norm(p, &res_acc);
        p->res_acc = res_acc;
        p->res[it] = res;
        p->iters = it;
        if (o->progress) o->progress(it, res, o->user);
        fmb_periodic_form_monodromy(p);
        if (!isfinite(res))
            return fmb_sim_error(s, FMB_ERR_NONFINITE,
                                 "periodic: the residual is not finite at iteration %d", it);
        if (res <= o->tol) return 0;
        if (it >= maxit) return 1;
        if ((rc = fmb_periodic_newton_step(p)))
            return fmb_sim_error(s, FMB_ERR_SINGULAR,
                                 "periodic: J - I is singular at iteration %d: a Floquet "
                                 "multiplier is 1 (an undriven free motion, or a period that is "
                                 "not the forcing's)",
                                 it);
    }
}

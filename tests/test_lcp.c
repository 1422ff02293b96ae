/* Tests of the dense LCP solver (src/contact/lcp.c): Siconos lexicographic Lemke against
 * the brute-force enumeration of complementary bases. Run as `test_lcp SUBTEST`. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "contact/lcp.h"
#include "flexmb/flexmb.h"

#define NMAX 20
#define MAX_SOL 64

static int failures = 0;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

/* splitmix64: reproducible on every platform. */
static uint64_t rng_state = 0x2545F4914F6CDD1DULL;

static uint64_t rng_next(void)
{
    uint64_t x = (rng_state += 0x9E3779B97F4A7C15ULL);
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

static double urand(double lo, double hi)
{
    return lo + (hi - lo) * (double)(rng_next() >> 11) * (1.0 / 9007199254740992.0);
}

static int irand(int lo, int hi)
{
    return lo + (int)(rng_next() % (uint64_t)(hi - lo + 1));
}

#define AT(M, n, i, j) (M)[(i) + (size_t)(j) * (n)]

static double vnorm(int n, const double *v)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s = fmax(s, fabs(v[i]));
    return s;
}

static double mnorm(int n, const double *M)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        double r = 0.0;
        for (int j = 0; j < n; j++)
            r += fabs(AT(M, n, i, j));
        s = fmax(s, r);
    }
    return s;
}

static double vdiff(int n, const double *a, const double *b)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s = fmax(s, fabs(a[i] - b[i]));
    return s;
}

/* Independent check of a claimed solution: |w - (Mz+q)|, z, w >= 0 and z_i w_i = 0, all
 * relative to |q| + |M||z| (w) and |z| (z). Returns the worst relative violation. */
static double lcp_violation(int n, const double *M, const double *q, const double *z,
                            const double *w)
{
    double zs = vnorm(n, z), ws = vnorm(n, q) + mnorm(n, M) * zs;
    double worst = 0.0;
    for (int i = 0; i < n; i++) {
        double r = q[i];
        for (int j = 0; j < n; j++)
            r += AT(M, n, i, j) * z[j];
        double rw = ws > 0.0 ? 1.0 / ws : 0.0, rz = zs > 0.0 ? 1.0 / zs : 0.0;
        worst = fmax(worst, fabs(w[i] - r) * rw);
        worst = fmax(worst, fmax(-z[i], 0.0) * rz);
        worst = fmax(worst, fmax(-w[i], 0.0) * rw);
        worst = fmax(worst, fmin(fabs(z[i]) * rz, fabs(w[i]) * rw));
        if (!isfinite(z[i]) || !isfinite(w[i])) worst = INFINITY;
    }
    return worst;
}

/* Random P-matrix of family fam (0..3); n x n column-major. */
static void random_pmatrix(int fam, int n, double *M)
{
    double A[NMAX * NMAX];
    switch (fam) {
    case 0: /* symmetric positive definite: A A^T + delta I */
    case 2: /* positive definite, nonsymmetric: A A^T + 0.1 I + K, K skew */
        for (int k = 0; k < n * n; k++)
            A[k] = urand(-1.0, 1.0);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double s = 0.0;
                for (int k = 0; k < n; k++)
                    s += AT(A, n, i, k) * AT(A, n, j, k);
                AT(M, n, i, j) = s;
            }
        for (int i = 0; i < n; i++)
            AT(M, n, i, i) += fam == 0 ? urand(0.1, 1.0) : 0.1;
        if (fam == 2)
            for (int i = 0; i < n; i++)
                for (int j = i + 1; j < n; j++) {
                    double k = urand(-2.0, 2.0);
                    AT(M, n, i, j) += k;
                    AT(M, n, j, i) -= k;
                }
        break;
    case 1: /* strictly row diagonally dominant, positive diagonal, nonsymmetric */
        for (int i = 0; i < n; i++) {
            double s = 0.0;
            for (int j = 0; j < n; j++)
                if (i != j) s += fabs(AT(M, n, i, j) = urand(-1.0, 1.0));
            AT(M, n, i, i) = s + urand(0.1, 1.0);
        }
        break;
    default: /* lower triangular with positive diagonal (not positive definite) */
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                AT(M, n, i, j) = j < i ? urand(-1.0, 1.0) : (j == i ? urand(0.5, 2.0) : 0.0);
        break;
    }
}

static int lemke_failures = 0; /* Lemke alone failed, the fallback solved it */
static int non_vertex = 0;     /* Lemke's solution valid but not a basic solution */

/* Lemke (fmb_lcp_lemke) on (M, q) must succeed (if lemke_may_fail, fmb_lcp_solve with its
 * enumeration fallback must), satisfy the LCP to tol and be one of the enumerated (basic)
 * solutions to 1e-9 relative. For a monotone LCP (M positive semidefinite) whose solution
 * set is not finite, Lemke may stop at a non-basic point of it after pivoting on
 * round-off: then it must satisfy the relations any two solutions z1, z2 of a monotone LCP
 * satisfy (Cottle, Pang, Stone, Thm 3.1.7): z1'w2 = z2'w1 = 0, (M + M')(z1 - z2) = 0.
 * Returns the number of enumerated solutions, -1 on failure. */
static int check_against_enumeration(int n, const double *M, const double *q, double tol,
                                     const char *what, bool lemke_may_fail)
{
    double z[NMAX], w[NMAX], zs[MAX_SOL * NMAX];
    char msg[512] = "";
    int rc = fmb_lcp_lemke(n, M, q, z, w, msg, sizeof msg);
    if (rc != 0 && lemke_may_fail) {
        printf("  %s n=%d: Lemke alone failed: %s\n", what, n, msg);
        lemke_failures++;
        rc = fmb_lcp_solve(n, M, q, z, w, msg, sizeof msg);
    }
    CHECK(rc == 0, "%s n=%d: returned %d: %s", what, n, rc, msg);
    if (rc != 0) return -1;
    double v = lcp_violation(n, M, q, z, w);
    CHECK(v <= tol, "%s n=%d: LCP violated by %.3g (tol %.3g)", what, n, v, tol);
    int ns = fmb_lcp_enumerate_all(n, M, q, zs, MAX_SOL);
    CHECK(ns >= 1 && ns <= MAX_SOL, "%s n=%d: enumeration found %d solutions", what, n, ns);
    if (ns < 1 || ns > MAX_SOL) return -1;
    bool member = false;
    for (int s = 0; s < ns && !member; s++) {
        const double *o = zs + (size_t)s * n;
        member = vdiff(n, z, o) <= 1e-9 * fmax(vnorm(n, z), vnorm(n, o));
    }
    if (member) return ns;
    if (!lemke_may_fail) {
        CHECK(member, "%s n=%d: Lemke's z is not among the %d enumerated", what, n, ns);
        return -1;
    }
    double zn = vnorm(n, z), ws = vnorm(n, q) + mnorm(n, M) * zn, worst = 0.0;
    for (int s = 0; s < ns; s++) {
        const double *zk = zs + (size_t)s * n;
        double wk[NMAX], zkn = vnorm(n, zk);
        for (int i = 0; i < n; i++) {
            wk[i] = q[i];
            for (int j = 0; j < n; j++)
                wk[i] += AT(M, n, i, j) * zk[j];
        }
        double c1 = 0.0, c2 = 0.0;
        for (int i = 0; i < n; i++)
            c1 += z[i] * wk[i], c2 += zk[i] * w[i];
        worst = fmax(worst, fmax(fabs(c1), fabs(c2)) / (fmax(zn, zkn) * ws));
        for (int i = 0; i < n; i++) {
            double d = 0.0;
            for (int j = 0; j < n; j++)
                d += (AT(M, n, i, j) + AT(M, n, j, i)) * (z[j] - zk[j]);
            worst = fmax(worst, fabs(d) / ws);
        }
    }
    CHECK(worst <= tol,
          "%s n=%d: Lemke's z is neither among the %d enumerated nor in their "
          "solution set (%.3g)",
          what, n, ns, worst);
    non_vertex++;
    return ns;
}

static int test_random_pmatrix(void)
{
    double M[NMAX * NMAX], q[NMAX], z[NMAX], w[NMAX], ze[NMAX], we[NMAX];
    char msg[256];
    double worst = 0.0;
    int count = 0;
    for (int p = 0; p < 1000; p++) {
        int n = 1 + p % 8, fam = (p / 8) % 4;
        random_pmatrix(fam, n, M);
        for (int i = 0; i < n; i++)
            q[i] = urand(-1.0, 1.0);
        int rc = fmb_lcp_lemke(n, M, q, z, w, msg, sizeof msg);
        CHECK(rc == 0, "problem %d (family %d, n=%d): %s", p, fam, n, msg);
        int ns = fmb_lcp_enumerate(n, M, q, ze, we);
        CHECK(ns == 1, "problem %d (family %d, n=%d): %d enumerated solutions, P-matrix has 1", p,
              fam, n, ns);
        if (rc != 0 || ns != 1) continue;
        double rz = vdiff(n, z, ze) / fmax(vnorm(n, ze), 1e-300);
        double ws = vnorm(n, q) + mnorm(n, M) * vnorm(n, ze);
        double rw = vdiff(n, w, we) / ws;
        if (vnorm(n, ze) == 0.0) rz = vnorm(n, z) == 0.0 ? 0.0 : INFINITY;
        CHECK(rz <= 1e-10 && rw <= 1e-10, "problem %d (family %d, n=%d): |dz| %.3g |dw| %.3g", p,
              fam, n, rz, rw);
        worst = fmax(worst, fmax(rz, rw));
        count++;
    }
    printf("lcp_random_pmatrix: %d/1000 problems agree, worst relative difference %.3g\n", count,
           worst);

    /* Cost of one solve at the largest size in use (n = 20), checked independently. */
    int reps = 2000;
    double tsum = 0.0, vworst = 0.0;
    for (int p = 0; p < reps; p++) {
        int n = 20;
        random_pmatrix(p % 4 == 3 ? 1 : p % 4, n, M);
        for (int i = 0; i < n; i++)
            q[i] = urand(-1.0, 1.0);
        struct timespec t0, t1;
        timespec_get(&t0, TIME_UTC);
        int rc = fmb_lcp_lemke(n, M, q, z, w, msg, sizeof msg);
        timespec_get(&t1, TIME_UTC);
        tsum += (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        CHECK(rc == 0, "n=20 problem %d: %s", p, msg);
        if (rc == 0) vworst = fmax(vworst, lcp_violation(n, M, q, z, w));
    }
    CHECK(vworst <= 1e-12, "n=20: LCP violated by %.3g", vworst);
    printf("lcp_random_pmatrix: n=20: %.1f us per solve, worst violation %.3g\n", 1e6 * tsum / reps,
           vworst);
    return failures;
}

static int test_degenerate(void)
{
    double M[NMAX * NMAX], q[NMAX], z[NMAX], w[NMAX];
    char msg[256];
    int multi = 0;

    /* q = 0: z = 0 is the only solution of a P-matrix LCP. */
    for (int p = 0; p < 100; p++) {
        int n = 1 + p % 8;
        random_pmatrix(p % 4, n, M);
        memset(q, 0, sizeof q);
        int rc = fmb_lcp_lemke(n, M, q, z, w, msg, sizeof msg);
        CHECK(rc == 0 && vnorm(n, z) == 0.0 && vnorm(n, w) == 0.0, "q = 0, n=%d: rc %d |z| %g", n,
              rc, vnorm(n, z));
        CHECK(check_against_enumeration(n, M, q, 1e-12, "q = 0", false) == 1, "q = 0: not unique");
    }

    /* Integer P-matrices (strictly diagonally dominant) and q with many zeros: several
     * bases give the same (unique) solution. */
    for (int p = 0; p < 300; p++) {
        int n = 1 + p % 8;
        for (int i = 0; i < n; i++) {
            int s = 0;
            for (int j = 0; j < n; j++)
                if (i != j) {
                    int v = irand(-1, 1);
                    AT(M, n, i, j) = v;
                    s += v < 0 ? -v : v;
                }
            AT(M, n, i, i) = s + irand(1, 2);
        }
        for (int i = 0; i < n; i++)
            q[i] = (double[]){-2, -1, 0, 0, 0, 1}[irand(0, 5)];
        CHECK(check_against_enumeration(n, M, q, 1e-12, "integer P, q with zeros", false) == 1,
              "integer P-matrix LCP not unique");
    }

    /* Positive semidefinite M = B B^T (+ skew part) of low rank with repeated rows of B
     * (repeated columns of M), and q = w* - M z* for a complementary pair (z*, w*) with
     * components where both vanish: feasible, so lexicographic Lemke must solve it
     * (copositive-plus M); solutions need not be unique. */
    for (int p = 0; p < 400; p++) {
        int n = 2 + p % 7, r = 1 + irand(0, n - 2);
        double B[NMAX * NMAX];
        for (int i = 0; i < n; i++)
            for (int k = 0; k < r; k++)
                AT(B, n, i, k) = irand(-1, 2);
        int dup = irand(1, n - 1); /* row dup repeats row 0 */
        for (int k = 0; k < r; k++)
            AT(B, n, dup, k) = AT(B, n, 0, k);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double s = 0.0;
                for (int k = 0; k < r; k++)
                    s += AT(B, n, i, k) * AT(B, n, j, k);
                AT(M, n, i, j) = s;
            }
        if (p % 3 == 2)
            for (int i = 0; i < n; i++)
                for (int j = i + 1; j < n; j++) {
                    int k = irand(-1, 1);
                    AT(M, n, i, j) += k;
                    AT(M, n, j, i) -= k;
                }
        double zs[NMAX], ws[NMAX];
        for (int i = 0; i < n; i++) {
            int kind = irand(0, 2); /* 0: z > 0, 1: w > 0, 2: both zero */
            zs[i] = kind == 0 ? irand(1, 3) : 0.0;
            ws[i] = kind == 1 ? irand(1, 3) : 0.0;
        }
        for (int i = 0; i < n; i++) {
            double s = 0.0;
            for (int j = 0; j < n; j++)
                s += AT(M, n, i, j) * zs[j];
            q[i] = ws[i] - s;
        }
        if (check_against_enumeration(n, M, q, 1e-12, "PSD repeated columns", true) > 1) multi++;
    }

    /* Hand-made cases. */
    struct {
        int n;
        double M[4], q[2];
        const char *what;
    } hand[] = {
        {2, {1, 1, 1, 1}, {-1, -1}, "M = [1 1; 1 1], q = (-1, -1): z1 + z2 = 1 segment"},
        {2, {1, 1, 1, 1}, {0, 0}, "M = [1 1; 1 1], q = 0"},
        {2, {1, 1, 1, 1}, {-1, -2}, "M = [1 1; 1 1], q = (-1, -2)"},
        {2, {0, -1, 1, 0}, {-1, 1}, "skew M, z = (1, 1), w = 0"},
        {2, {0, 0, 0, 0}, {0, 1}, "M = 0, q = (0, 1)"},
        {1, {0}, {0}, "M = 0, q = 0 (n = 1)"},
    };
    for (size_t h = 0; h < sizeof hand / sizeof hand[0]; h++)
        check_against_enumeration(hand[h].n, hand[h].M, hand[h].q, 1e-12, hand[h].what, false);
    int rc = fmb_lcp_lemke(2, hand[3].M, hand[3].q, z, w, msg, sizeof msg);
    CHECK(rc == 0 && vdiff(2, z, (double[]){1, 1}) < 1e-14 && vnorm(2, w) < 1e-14,
          "skew case: z = (%g, %g)", z[0], z[1]);
    rc = fmb_lcp_lemke(2, hand[2].M, hand[2].q, z, w, msg, sizeof msg);
    CHECK(rc == 0 && vdiff(2, z, (double[]){0, 2}) < 1e-14, "[1 1;1 1], (-1,-2): z = (%g, %g)",
          z[0], z[1]);
    printf("lcp_degenerate: %d of 400 PSD problems with several basic solutions; Lemke "
           "stopped at a non-basic solution in %d, failed in %d (enumeration fallback)\n",
           multi, non_vertex, lemke_failures);
    return failures;
}

static int test_no_solution(void)
{
    double z[2], w[2];
    char msg[512] = "";
    struct {
        int n;
        double M[4], q[2];
        const char *what;
    } bad[] = {
        {1, {-1}, {-1}, "M = [-1], q = [-1]"},
        {2, {-1, 0, 0, 1}, {-1, 1}, "M = diag(-1, 1), q = (-1, 1)"},
        {2, {1, -1, -1, 1}, {-1, -1}, "PSD M = [1 -1; -1 1], q = (-1, -1), w1 + w2 = -2"},
    };
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        int n = bad[b].n;
        msg[0] = '\0';
        int rc = fmb_lcp_solve(n, bad[b].M, bad[b].q, z, w, msg, sizeof msg);
        char want[32];
        snprintf(want, sizeof want, "n = %d", n);
        CHECK(rc == FMB_ERR_LINSOLVE, "%s: rc %d", bad[b].what, rc);
        CHECK(strstr(msg, want) && strstr(msg, "info") && strstr(msg, "no solution found"),
              "%s: message '%s'", bad[b].what, msg);
        CHECK(fmb_lcp_enumerate(n, bad[b].M, bad[b].q, NULL, NULL) == 0,
              "%s: enumeration found a solution", bad[b].what);
        CHECK(strstr(msg, "enumeration of the") != NULL, "%s: no fallback in '%s'", bad[b].what,
              msg);
        printf("lcp_no_solution: %s -> %d: %s\n", bad[b].what, rc, msg);
        /* Lemke alone reports the failure too (Siconos 4.4 says info 0 at a ray). */
        msg[0] = '\0';
        rc = fmb_lcp_lemke(n, bad[b].M, bad[b].q, z, w, msg, sizeof msg);
        CHECK(rc == FMB_ERR_LINSOLVE && strstr(msg, want) && strstr(msg, "no solution found"),
              "%s: Lemke alone: rc %d, message '%s'", bad[b].what, rc, msg);
        /* No message buffer: still the error code, no crash. */
        CHECK(fmb_lcp_solve(n, bad[b].M, bad[b].q, z, w, NULL, 0) == FMB_ERR_LINSOLVE,
              "%s without message buffer", bad[b].what);
    }

    /* Bad arguments. */
    double M1[1] = {1.0}, q1[1] = {NAN};
    CHECK(fmb_lcp_solve(-1, M1, q1, z, w, msg, sizeof msg) == FMB_ERR_ARG, "n = -1");
    CHECK(fmb_lcp_solve(1, M1, q1, z, w, msg, sizeof msg) == FMB_ERR_ARG, "NaN q");
    CHECK(strstr(msg, "not finite") != NULL, "NaN message '%s'", msg);
    CHECK(fmb_lcp_solve(1, NULL, q1, z, w, msg, sizeof msg) == FMB_ERR_ARG, "NULL M");
    CHECK(fmb_lcp_solve(0, NULL, NULL, NULL, NULL, msg, sizeof msg) == 0, "n = 0");
    CHECK(fmb_lcp_enumerate(FMB_LCP_ENUM_MAX_N + 1, M1, q1, z, w) == FMB_ERR_ARG, "enum n");
    return failures;
}

/* A block (mass m, half length a, half height h) slides to the right (v > 0) in a slot
 * with no clearance, pulled through its centre of mass, under gravity g and a torque T
 * (counter-clockwise). Corner i (1: x = -a, 2: x = +a) may push on the lower face with
 * F+_i >= 0 (upward on the block, at y = -h) or on the upper face with F-_i >= 0 (downward,
 * at y = +h); the normal force is N_i = F+_i - F-_i, and F+_i F-_i = 0. Friction on each
 * contact opposes the motion: -mu F+_i and -mu F-_i along x.
 *
 * Vertical balance:  F+_1 + F+_2 - F-_1 - F-_2 = m g.
 * Moment about the centre (x Fy - y Fx):
 *   (-a - mu h) F+_1 + (a - mu h) F+_2 + (a + mu h) F-_1 + (-a + mu h) F-_2 + T = 0.
 * Solving the two for F+ (determinant 2a) gives the corner-force LCP F+ = H00 F- + B with
 *   H00 = I,  B = ( (a - mu h) m g / (2a) + T / (2a),  (a + mu h) m g / (2a) - T / (2a) ),
 * so F+ = max(B, 0), F- = max(-B, 0) by hand (the friction moments of the two faces
 * cancel in H00 but shift the load to the front corner, and jam the block when
 * mu h > a). w = F+, z = F-, M = H00, q = B. */
static int slider_case(const char *what, double m, double g, double a, double h, double mu,
                       double T, const double Fp_hand[2], const double Fm_hand[2])
{
    double H00[4] = {1, 0, 0, 1};
    double B[2] = {(a - mu * h) * m * g / (2 * a) + T / (2 * a),
                   (a + mu * h) * m * g / (2 * a) - T / (2 * a)};
    double Fm[2], Fp[2], ze[2], we[2];
    char msg[256] = "";
    int rc = fmb_lcp_lemke(2, H00, B, Fm, Fp, msg, sizeof msg);
    CHECK(rc == 0, "%s: %s", what, msg);
    double tol = 1e-12 * m * g;
    CHECK(vdiff(2, Fp, Fp_hand) <= tol && vdiff(2, Fm, Fm_hand) <= tol,
          "%s: F+ = (%.15g, %.15g) F- = (%.15g, %.15g), by hand F+ = (%g, %g) F- = (%g, %g)", what,
          Fp[0], Fp[1], Fm[0], Fm[1], Fp_hand[0], Fp_hand[1], Fm_hand[0], Fm_hand[1]);
    /* The corner forces balance the block (independent of the H00, B algebra). */
    double fy = Fp[0] + Fp[1] - Fm[0] - Fm[1] - m * g;
    double mz = (-a - mu * h) * Fp[0] + (a - mu * h) * Fp[1] + (a + mu * h) * Fm[0] +
                (-a + mu * h) * Fm[1] + T;
    CHECK(fabs(fy) <= tol && fabs(mz) <= tol * a, "%s: residual force %g moment %g", what, fy, mz);
    CHECK(Fp[0] * Fm[0] == 0.0 && Fp[1] * Fm[1] == 0.0, "%s: both faces loaded", what);
    CHECK(fmb_lcp_enumerate(2, H00, B, ze, we) == 1 && vdiff(2, ze, Fm) <= tol &&
              vdiff(2, we, Fp) <= tol,
          "%s: enumeration disagrees", what);
    printf("lcp_slider_2x2: %-42s F+ = (%8.4f, %8.4f) N, F- = (%8.4f, %8.4f) N\n", what, Fp[0],
           Fp[1], Fm[0], Fm[1]);
    return failures;
}

static int test_slider_2x2(void)
{
    const double m = 2.0, g = 9.81, a = 0.05, h = 0.1, mg = m * g;
    /* Frictionless, no torque: each corner carries half the weight on the lower face. */
    slider_case("frictionless", m, g, a, h, 0.0, 0.0, (double[]){mg / 2, mg / 2}, (double[]){0, 0});
    /* Sliding with mu = 0.4 (mu h = 0.04 < a): the front corner carries 0.9 m g. */
    slider_case("mu = 0.4, sliding right", m, g, a, h, 0.4, 0.0, (double[]){0.1 * mg, 0.9 * mg},
                (double[]){0, 0});
    /* mu = 0.6 (mu h = 0.06 > a): the rear corner leaves the lower face and pushes on the
     * upper one with 0.1 m g, the front corner carries 1.1 m g (jamming). */
    slider_case("mu = 0.6, jamming", m, g, a, h, 0.6, 0.0, (double[]){0, 1.1 * mg},
                (double[]){0.1 * mg, 0});
    /* Frictionless with T = 2 m g a: the front corner is lifted onto the upper face. */
    slider_case("frictionless, T = 2 m g a", m, g, a, h, 0.0, 2 * mg * a, (double[]){1.5 * mg, 0},
                (double[]){0, 0.5 * mg});
    return failures;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr,
                "usage: %s lcp_random_pmatrix|lcp_degenerate|lcp_no_solution|"
                "lcp_slider_2x2\n",
                argv[0]);
        return 2;
    }
    const char *t = argv[1];
    int rc;
    if (!strcmp(t, "lcp_random_pmatrix"))
        rc = test_random_pmatrix();
    else if (!strcmp(t, "lcp_degenerate"))
        rc = test_degenerate();
    else if (!strcmp(t, "lcp_no_solution"))
        rc = test_no_solution();
    else if (!strcmp(t, "lcp_slider_2x2"))
        rc = test_slider_2x2();
    else {
        fprintf(stderr, "unknown sub-test '%s'\n", t);
        return 2;
    }
    if (rc) fprintf(stderr, "%s: %d check(s) failed\n", t, rc);
    return rc ? 1 : 0;
}

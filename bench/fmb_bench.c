/*
 * fmb_bench: stepping speed of the quick-return linkage at several rocker meshes and of a
 * rigid seven-bar mechanism, with the cost of one bare factorization + solve of the same
 * KKT matrix, of one assembly, one residual, one Phi and one solve measured in the same
 * process (the overhead ratios of docs/performance.md). A measurement, not a test: no thresholds.
 * See bench/README.md.
 *
 *   build/fmb_bench [-b SECONDS] [-R ROUNDS] [-u] [-r 0|1] [-v] [-n] [-s NAME=VALUE]...
 *                   [ELEMENTS...]
 *
 * ELEMENTS: rocker element counts (default 10 20 80 320 1000); the seven-bar runs unless -n.
 * -v: after the table, where the Newton iterations go (histograms, failed criteria).
 * -b: wall-clock budget per case and round (default 5 s): a case stops after one crank
 *     revolution (h = 1e-4 s, 20 rad/s: 3142 steps) or when its budget is spent.
 * -R: rounds (default 1): the run is repeated from its start and every chunk of 16 steps
 *     keeps its fastest round; us/step is that lower envelope, and the rounds' own
 *     us/step go to stderr. The pieces (factor + solve, assembly, ...) are always the
 *     fastest of 200 batches' mean times.
 * -u: factor with UMFPACK instead of KLU.  -r: reuse_jacobian 0 (full Newton) or 1
 *     (modified Newton; default: the case's setting, 1 for the quick-return, 0 for the
 *     seven-bar).
 * -s: extra case overrides (as flexmb run --set), e.g. -s reuse_jacobian=0 is not a
 *     parameter; solver settings come from the case.
 * Every case runs in its own child process, so the peak memory (max RSS) is per case.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "flexmb/flexmb.h"
#include "solve/sim_internal.h"

#ifndef FMB_SOURCE_DIR
#define FMB_SOURCE_DIR "."
#endif

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

extern void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
extern void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a,
                    const int *lda, const int *ipiv, double *b, const int *ldb, int *info);

/* The same KKT matrix (freshly assembled: KLU scales its values in place for large
 * systems) factored and solved densely by LAPACK (dgetrf + dgetrs, partial pivoting), for
 * n <= 400: would a dense path win for very small systems? The copy of the n x n matrix
 * is timed with it (a dense path would fill and zero the block at every assembly too).
 * The dense solution must agree with KLU's x (returns NAN and says so otherwise). */
static double dense_lu(fmb_sim_t *s, const fmb_coeffs_t *cf, const double *b, const double *xk)
{
    const int N = s->n + s->m;
    if (N > 400 || !s->as.kkt.Ap) return NAN;
    fmb_sim_assemble(s, s->st.q, s->st.qd, s->st.qdd, s->st.lam, s->st.t, cf);
    const size_t NN = (size_t)N * N;
    double *A = calloc(NN, sizeof *A), *LU = malloc(NN * sizeof *LU), *xd = malloc((size_t)N * sizeof *xd);
    int *ipiv = malloc((size_t)N * sizeof *ipiv), info = 0, one = 1, reps = 0;
    double t = NAN;
    if (A && LU && xd && ipiv) {
        for (int j = 0; j < N; j++)
            for (int p = s->as.kkt.Ap[j]; p < s->as.kkt.Ap[j + 1]; p++)
                A[s->as.kkt.Ai[p] + (size_t)N * j] = s->as.kkt.Ax[p];
        t = now();
        do {
            memcpy(LU, A, NN * sizeof *LU);
            dgetrf_(&N, &N, LU, &N, ipiv, &info);
            memcpy(xd, b, (size_t)N * sizeof *xd);
            if (!info) dgetrs_("N", &N, &one, LU, &N, ipiv, xd, &N, &info);
            reps++;
        } while (!info && now() - t < 0.2 && reps < 100000);
        t = (now() - t) / reps;
        double d = 0, xm = 0;
        for (int i = 0; i < N; i++)
            d = fmax(d, fabs(xd[i] - xk[i])), xm = fmax(xm, fabs(xk[i]));
        if (info || !(d <= 1e-6 * xm)) {
            fprintf(stderr, "dense LU: info %d, differs from KLU by %.3g (max |x| %.3g)\n", info, d, xm);
            t = NAN;
        }
    }
    free(A), free(LU), free(xd), free(ipiv);
    return t;
}

/* Run one case; prints one table row (without the memory column) to stdout. */
static int use_umfpack = 0, reuse = -1, verbose = 0, no_rigid = 0, rounds = 1;
static FILE *trace_out; /* -v: the children's traces, printed after the table */

/* -v: where the Newton iterations go (the counts of fmb_sim_try_step, solve/sim.h) */
static void trace_print(FILE *out, const char *label, const fmb_newton_trace_t *tr)
{
    static const char *crit[8] = {"-",       "dq",         "phi",        "dq+phi",
                                  "lambda", "dq+lambda", "phi+lambda", "dq+phi+lambda"};
    for (int k = 0; k < 2; k++) {
        if (!tr->steps[k]) continue;
        long sum = 0;
        fprintf(out, "%s: %ld steps starting on a %s matrix; iterations:", label,
                tr->steps[k], k ? "kept" : "new");
        for (int i = 0; i <= FMB_TRACE_MAXIT; i++)
            if (tr->iters[k][i]) {
                fprintf(out, " %d%s:%ld", i, i == FMB_TRACE_MAXIT ? "+" : "", tr->iters[k][i]);
                sum += i * tr->iters[k][i];
            }
        fprintf(out, " (mean %.2f)\n", (double)sum / tr->steps[k]);
    }
    for (int k = 0; k < 2; k++) {
        fprintf(out, "%s: failed tests after an increment on a %s matrix (all / each step's last):",
                label, k ? "kept" : "new");
        for (int f = 1; f < 8; f++)
            if (tr->fail[k][f]) fprintf(out, " %s %ld/%ld", crit[f], tr->fail[k][f], tr->last[k][f]);
        fprintf(out, "\n");
    }
    fprintf(out, "%s: kept matrices refreshed: %ld at the iteration limit, %ld not contracting; "
            "Phi evaluations %ld, residuals %ld\n",
            label, tr->drop_limit, tr->drop_ratio, tr->phi_evals, tr->force_evals);
}

/* Steps are timed in chunks of FMB_BENCH_CHUNK; with -R rounds > 1 the run is repeated
 * from the start and every chunk keeps its fastest round (the lower envelope), so that a
 * burst of interference (this machine is a VM whose other tenants take the core for
 * milliseconds) is dropped instead of averaged in. The pieces below are timed the same way:
 * FMB_BENCH_BATCHES batches, the fastest batch's mean per call. */
#define FMB_BENCH_CHUNK 16
#define FMB_BENCH_BATCHES 200

/* One round of the case: a new simulation from the case's start, nsteps steps (or until
 * the budget is spent: *nsteps is cut to what ran), each chunk's wall time min-merged into
 * cmin; returns the simulation (for the pieces' timing), NULL on failure. */
static fmb_sim_t *bench_round(const char *label, fmb_model_t *m, const fmb_sim_options_t *o,
                              long *nsteps, double budget, double *cmin, double *wall,
                              int *rc, fmb_sim_stats_t *st0)
{
    fmb_sim_t *s = fmb_sim_create(m, o);
    if (!s || fmb_sim_initialize(s)) {
        fprintf(stderr, "%s: start failed: %s\n", label, s ? fmb_sim_last_error(s) : "no memory");
        fmb_sim_destroy(&s);
        return NULL;
    }
    fmb_sim_get_stats(s, st0);
    const double t0 = now();
    double tc = t0;
    long k;
    *rc = 0;
    for (k = 0; k < *nsteps; k++) {
        if ((*rc = fmb_sim_step(s))) break;
        if (k % FMB_BENCH_CHUNK == FMB_BENCH_CHUNK - 1 || k + 1 == *nsteps) {
            const double t = now();
            const long ci = k / FMB_BENCH_CHUNK;
            if (!(t - tc >= cmin[ci])) cmin[ci] = t - tc;
            tc = t;
            if (t - t0 > budget && k + 1 < *nsteps) { /* cut at a chunk's end */
                k++;
                break;
            }
        }
    }
    *wall = now() - t0;
    if (*rc) fprintf(stderr, "%s: stopped at t = %g: %s\n", label, s->st.t, fmb_sim_last_error(s));
    *nsteps = k;
    return s;
}

/* The fastest of FMB_BENCH_BATCHES batches' mean time per call of body (a statement using
 * the loop's index r), each batch at least total / FMB_BENCH_BATCHES seconds long. */
#define BATCH_MIN(result, total, body)                                                     \
    do {                                                                                   \
        double best_ = INFINITY;                                                           \
        for (int b_ = 0; b_ < FMB_BENCH_BATCHES; b_++) {                                   \
            int r = 0;                                                                     \
            const double tb_ = now();                                                      \
            double te_;                                                                    \
            do {                                                                           \
                body;                                                                      \
                r++;                                                                       \
            } while ((te_ = now()) - tb_ < (total) / FMB_BENCH_BATCHES && r < 100000);     \
            if ((te_ - tb_) / r < best_) best_ = (te_ - tb_) / r;                          \
        }                                                                                  \
        (result) = best_;                                                                  \
    } while (0)

static int bench_case(const char *label, const char *path, const char **ov, int nov,
                      double budget)
{
    char err[1024];
    fmb_case_t *c = fmb_case_load(path, ov, nov, err, sizeof err);
    if (!c) {
        fprintf(stderr, "%s: %s\n", label, err);
        return 1;
    }
    fmb_model_t *m = fmb_case_model(c);
    fmb_sim_options_t o = *fmb_case_options(c);
    if (use_umfpack) o.linear_solver = FMB_LINEAR_UMFPACK;
    if (reuse >= 0) o.reuse_jacobian = reuse;
    long nsteps = (long)floor(o.t_end / o.h * (1 + 1e-12));
    const long nchunks = nsteps / FMB_BENCH_CHUNK + 1;
    double *cmin = malloc((size_t)nchunks * sizeof *cmin), wall = 0.0;
    double *walls = calloc((size_t)rounds, sizeof *walls);
    for (long i = 0; i < nchunks; i++)
        cmin[i] = INFINITY;
    fmb_sim_t *s = NULL;
    fmb_sim_stats_t st0, st;
    int rc = 0;
    for (int r = 0; r < rounds; r++) {
        fmb_sim_destroy(&s);
        s = bench_round(label, m, &o, &nsteps, budget, cmin, &wall, &rc, &st0);
        if (!s) return 1;
        walls[r] = wall;
        if (rc) break; /* a failed round: its steps are what the table shows */
    }
    fmb_sim_get_stats(s, &st);
    const long steps = st.steps - st0.steps;
    double env = 0.0; /* the lower envelope of the rounds' chunk times */
    for (long i = 0; i * FMB_BENCH_CHUNK < steps; i++)
        env += cmin[i];
    if (rounds > 1 && !rc) {
        fprintf(stderr, "%s: us/step of the %d rounds:", label, rounds);
        for (int r = 0; r < rounds; r++)
            fprintf(stderr, " %.2f", steps ? 1e6 * walls[r] / steps : NAN);
        fprintf(stderr, "; lower envelope %.2f\n", steps ? 1e6 * env / steps : NAN);
        wall = env;
    }
    free(cmin), free(walls);
    /* The same KKT matrix at the final state, with the step's coefficients (HHT). */
    const double h = o.h, al = o.alpha;
    const double beta = 0.25 * (1 - al) * (1 - al), gamma = 0.5 - al, ra = 1 + al;
    const fmb_coeffs_t cf = {1.0, beta * ra * h * h, beta * ra * h * h, gamma * ra * h, 1.0, 0.0, 0.0, 0};
    const int N = s->n + s->m;
    double *b = calloc((size_t)N, sizeof *b), *x = calloc((size_t)N, sizeof *x);
    double *R = calloc((size_t)N, sizeof *R), *M = calloc((size_t)N, sizeof *M);
    for (int i = 0; i < N; i++)
        b[i] = 1.0 / (1 + i);
    /* as in a step: the matrix is assembled right after a residual at the same iterate,
     * and takes the joints' views and Jacobians from it (solve/sim.h fmb_joint_memo_t) */
    fmb_sim_eval_forces(s, s->st.q, s->st.qd, s->st.qdd, s->st.lam, s->st.t, M, R);
    s->as.jm->handoff = 1;
    const long used0 = s->as.jm->used;
    long ncalls = 0;
    int fail = 0;
    double tf, tasm;
    BATCH_MIN(tf, 0.3, {
        fmb_sim_assemble(s, s->st.q, s->st.qd, s->st.qdd, s->st.lam, s->st.t, &cf);
        fail |= fmb_kkt_factor(&s->as.kkt) || fmb_kkt_solve(&s->as.kkt, b, x);
        ncalls++;
    });
    if (fail) tf = NAN;
    /* assembly alone, to split it off the factor + solve */
    BATCH_MIN(tasm, 0.2, {
        fmb_sim_assemble(s, s->st.q, s->st.qd, s->st.qdd, s->st.lam, s->st.t, &cf);
        ncalls++;
    });
    s->as.jm->handoff = 0;
    if (verbose) {
        long lu;
        double fl;
        fmb_kkt_fill(&s->as.kkt, &lu, &fl);
        fprintf(stderr,
                "%s: KKT L+U %ld entries, %.3g Mflop per factorization (KLU); %ld analyses, %ld "
                "of them on a kept order\n",
                label, lu, fl * 1e-6, s->as.kkt.nsymbolic, s->as.kkt.norder_kept);
    }
    if (s->as.jm->used - used0 != ncalls)
        fprintf(stderr, "%s: %ld of %ld assemblies took the joints' memo\n", label,
                s->as.jm->used - used0, ncalls);
    /* the residual: M qdd and the forces (fmb_sim_eval_forces), and Phi alone. Every
     * residual of a Newton iteration is at a new iterate, while a beam keeps its element
     * states of the last (q, qd) (src/bodies/beam_fast.c fmb_beam_states): the loop
     * alternates between the state and a copy nudged by ~1e-12 relative, so each residual
     * is computed afresh. (The assembly above may repeat the same state: in a step the
     * matrix is always assembled at the iterate of the last residual, so it finds the
     * states too, all but Mff Ud: 6 x 6 per element, < 5 % of an assembly.) */
    double *q2 = malloc((size_t)s->n * sizeof *q2), *qd2 = malloc((size_t)s->n * sizeof *qd2);
    for (int i = 0; i < s->n; i++)
        q2[i] = s->st.q[i] + 1e-12 * (1 + fabs(s->st.q[i])),
        qd2[i] = s->st.qd[i] * (1 + 1e-12) + 1e-12;
    double tres, tphi, tsol;
    BATCH_MIN(tres, 0.2, {
        if (r & 1)
            fmb_sim_eval_forces(s, q2, qd2, s->st.qdd, s->st.lam, s->st.t, M, R);
        else
            fmb_sim_eval_forces(s, s->st.q, s->st.qd, s->st.qdd, s->st.lam, s->st.t, M, R);
    });
    free(q2), free(qd2);
    BATCH_MIN(tphi, 0.1, fmb_sim_eval_phi(s, s->st.q, s->st.t, R + s->n, NULL));
    /* bare factor + solve: in a small system (KLU refactors the unscaled values, kkt.c) the
     * factorization leaves the matrix's values as they are, so it is timed directly on the
     * matrix just assembled; a large one is scaled in place (kkt.c scale_matrix) and needs
     * a fresh assembly per factorization: there the assembly's time is subtracted */
    double fs = tf - tasm;
    if (N <= FMB_KKT_LARGE && !use_umfpack && !fail) {
        fmb_sim_assemble(s, s->st.q, s->st.qd, s->st.qdd, s->st.lam, s->st.t, &cf);
        BATCH_MIN(fs, 0.3, fail |= fmb_kkt_factor(&s->as.kkt) || fmb_kkt_solve(&s->as.kkt, b, x));
        if (fail) fs = NAN;
    }
    /* one solve alone */
    BATCH_MIN(tsol, 0.1, fmb_kkt_solve(&s->as.kkt, b, x));
    const double tden = dense_lu(s, &cf, b, x);
    const double us = steps ? 1e6 * wall / steps : NAN;
    const long nnz = s->as.kkt.Ap ? s->as.kkt.Ap[N] : -1;
    const fmb_newton_trace_t *tr = &s->diag.trace;
    const double its = steps ? (double)(st.newton_iterations - st0.newton_iterations) / steps : NAN;
    const double fps = steps ? (double)(st.factorizations - st0.factorizations) / steps : NAN;
    /* a step's cost from its counts and the pieces' times: residuals, Phi evaluations,
     * solves (one per iteration), assemblies + factorizations; the rest of us/step is the
     * step's own work (predictor, updates, error estimate, step loop) */
    const double fe = steps ? (double)tr->force_evals / steps : NAN; /* failed tries too */
    const double pe = steps ? (double)tr->phi_evals / steps : NAN;
    const double acc = fe * tres + pe * tphi + fe * tsol + fps * (tasm + fs - tsol);
    char dcol[32] = "-";
    if (isfinite(tden)) snprintf(dcol, sizeof dcol, "%.1f", 1e6 * tden);
    printf("| %s | %d | %ld | %ld | %.0f | %.1f | %.2f | %.3f | %.1f | %s | %.1f | %.1f | %.1f "
           "| %.1f | %.1f | %.2f | %.2f |",
           label, N, nnz, steps, steps / wall, us, its, fps, 1e6 * fs, dcol, 1e6 * tasm,
           1e6 * tres, 1e6 * tphi, 1e6 * tsol, 1e6 * acc, us / (1e6 * fs),
           us / (1e6 * (tres + tsol)));
    fflush(stdout);
    if (verbose && trace_out) trace_print(trace_out, label, tr), fflush(trace_out);
    free(b), free(x), free(R), free(M);
    fmb_sim_destroy(&s);
    fmb_case_destroy(&c);
    return rc ? 2 : 0;
}

static void run_child(const char *label, const char *path, const char **ov, int nov, double budget)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) _exit(bench_case(label, path, ov, nov, budget));
    int status = 0;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) < 0) {
        printf("| %s | fork failed |\n", label);
        return;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) == 1) {
        printf("| %s | failed |\n", label);
        return;
    }
    printf(" %.0f |%s\n", ru.ru_maxrss / 1024.0, WEXITSTATUS(status) ? " (stopped early)" : "");
}

int main(int argc, char **argv)
{
    double budget = 5.0;
    const char *ov[64];
    int nov = 0, opt;
    while ((opt = getopt(argc, argv, "b:s:ur:vnR:h")) != -1) {
        if (opt == 'b')
            budget = atof(optarg);
        else if (opt == 'R')
            rounds = atoi(optarg) > 0 ? atoi(optarg) : 1;
        else if (opt == 'u')
            use_umfpack = 1;
        else if (opt == 'r')
            reuse = atoi(optarg);
        else if (opt == 'v')
            verbose = 1;
        else if (opt == 'n')
            no_rigid = 1;
        else if (opt == 's' && nov < 60)
            ov[nov++] = optarg;
        else {
            fprintf(stderr, "usage: %s [-b SECONDS] [-R ROUNDS] [-u] [-r 0|1] [-v] [-n] [-s NAME=VALUE]... "
                    "[ELEMENTS...]\n",
                    argv[0]);
            return opt == 'h' ? 0 : 1;
        }
    }
    if (verbose && !(trace_out = tmpfile())) perror("tmpfile");
    static const int def[] = {10, 20, 80, 320, 1000};
    int nel[64], ne = 0;
    for (int i = optind; i < argc && ne < 64; i++)
        nel[ne++] = atoi(argv[i]);
    if (!ne)
        for (ne = 0; ne < 5; ne++)
            nel[ne] = def[ne];
    printf("| case | KKT n | KKT nnz | steps | steps/s | us/step | Newton it/step | "
           "factorizations/step | factor+solve us | dense LU us | assembly us | residual us | Phi us | solve us | "
           "accounted us/step | step / (factor+solve) | step / (residual+solve) | max RSS MB |\n");
    printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
           "| ---: | ---: | ---: | ---: | ---: | ---: |\n");
    char qr[1024], sb[1024], buf[64][64];
    snprintf(qr, sizeof qr, "%s/cases/quick_return.yaml", FMB_SOURCE_DIR);
    snprintf(sb, sizeof sb, "%s/bench/cases/seven_body.yaml", FMB_SOURCE_DIR);
    for (int i = 0; i < ne; i++) {
        const char *o2[66];
        int n2 = 0;
        snprintf(buf[0], sizeof buf[0], "n_el=%d", nel[i]);
        o2[n2++] = buf[0];
        o2[n2++] = "revolutions=1";
        for (int k = 0; k < nov; k++)
            o2[n2++] = ov[k];
        char label[64];
        snprintf(label, sizeof label, "quick-return %d el", nel[i]);
        run_child(label, qr, o2, n2, budget);
    }
    if (!no_rigid) run_child("seven-bar (rigid)", sb, ov, nov, budget);
    if (trace_out) {
        char line[512];
        rewind(trace_out);
        printf("\n");
        while (fgets(line, sizeof line, trace_out))
            fputs(line, stdout);
        fclose(trace_out);
    }
    return 0;
}

/* `mpirun -n N flexmb sweep ...`: the runs of a sweep over MPI ranks (docs/sweep.md).
 * Built only when CMake finds MPI (FMB_HAVE_MPI).
 *
 * A dynamic work queue: rank 0 hands out run indices one at a time to the rank that asks;
 * every rank, rank 0 included, starts its run as a separate `flexmb run` process (as a
 * local sweep does) and reports the result (a short text: sweep_result_pack) with its
 * next request. Rank 0 alone writes the summary, so the run files may live on each host's
 * own disk; with --resume each rank checks the files it can see. */
#include "sweep.h"

#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { TAG_RESULT = 11, TAG_JOB = 12 };

int sweep_mpi_launched(void)
{
    /* OpenMPI, MPICH / PMI, PMIx: started by a launcher, not alone */
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i])) return 1;
    return 0;
}

char *sweep_result_pack(const sweep_run_t *r)
{
    const char *edge = r->sum.edge_peaks ? r->sum.edge_peaks : "";
    const char *warn = r->sum.warnings ? r->sum.warnings : "";
    size_t cap = 1024 + strlen(r->message) + strlen(edge) + strlen(warn);
    for (int m = 0; m < r->sum.nmetrics; m++)
        cap += strlen(r->sum.names[m]) + 32;
    char *t = malloc(cap);
    if (!t) return NULL;
    int n = snprintf(t, cap, "%d %d %.17g %ld %ld %.17g %.17g %ld %d %d %d\n", r->state,
                     r->executed, r->wall, r->sum.steps, r->sum.newton, r->sum.wall_time,
                     r->sum.t_final, r->sum.records, r->sum.complete, r->sum.exists,
                     r->sum.nmetrics);
    for (const char *c = r->message; *c; c++) /* one line */
        t[n++] = *c == '\n' ? ' ' : *c;
    n += snprintf(t + n, cap - (size_t)n, "\n%s\n", r->sum.status[0] ? r->sum.status : "-");
    n += snprintf(t + n, cap - (size_t)n, "%s\n%s\n", edge, warn); /* one line each */
    for (int m = 0; m < r->sum.nmetrics; m++)
        n += snprintf(t + n, cap - (size_t)n, "%.17g %s\n", r->sum.values[m], r->sum.names[m]);
    return t;
}

int sweep_result_unpack(const char *text, sweep_run_t *r)
{
    memset(r, 0, sizeof *r);
    int nm = 0;
    if (sscanf(text, "%d %d %lf %ld %ld %lf %lf %ld %d %d %d", &r->state, &r->executed, &r->wall,
               &r->sum.steps, &r->sum.newton, &r->sum.wall_time, &r->sum.t_final,
               &r->sum.records, &r->sum.complete, &r->sum.exists, &nm) != 11)
        return -1;
    const char *p = strchr(text, '\n');
    if (!p++) return -1;
    size_t n = strcspn(p, "\n");
    snprintf(r->message, sizeof r->message, "%.*s", (int)n, p);
    p += n;
    if (*p++ != '\n') return -1;
    n = strcspn(p, "\n");
    snprintf(r->sum.status, sizeof r->sum.status, "%.*s", (int)n, p);
    if (!strcmp(r->sum.status, "-")) r->sum.status[0] = '\0';
    p += n;
    for (int k = 0; k < 2; k++) { /* edge_peaks, warnings */
        if (*p++ != '\n') return -1;
        n = strcspn(p, "\n");
        char *v = malloc(n + 1);
        if (!v) return -1;
        memcpy(v, p, n);
        v[n] = '\0';
        *(k ? &r->sum.warnings : &r->sum.edge_peaks) = v;
        p += n;
    }
    for (int m = 0; m < nm && *p == '\n'; m++) {
        char *end = NULL;
        double v = strtod(++p, &end);
        if (end == p || *end != ' ') return -1;
        n = strcspn(end + 1, "\n");
        char name[600];
        snprintf(name, sizeof name, "%.*s", (int)n, end + 1);
        if (fmb_run_summary_add(&r->sum, name, v) < 0) return -1;
        p = end + 1 + n;
    }
    return 0;
}

/* Send "RUN\nRESULT" (run -1: the first request, no result). */
static void send_result(int run, const sweep_run_t *r)
{
    char *packed = r ? sweep_result_pack(r) : NULL;
    size_t n = (packed ? strlen(packed) : 0) + 32;
    char *msg = malloc(n);
    if (msg) {
        int len = snprintf(msg, n, "%d\n%s", run, packed ? packed : "");
        MPI_Send(msg, len + 1, MPI_CHAR, 0, TAG_RESULT, MPI_COMM_WORLD);
    }
    free(msg);
    free(packed);
}

/* Run k here, to the end: the worker's side (rank 0 uses the non-blocking form). */
static void run_blocking(sweep_t *s, int k, sweep_run_t *r)
{
    memset(r, 0, sizeof *r);
    double t0 = sweep_now();
    pid_t pid = sweep_spawn(s, k, r);
    if (pid <= 0) return;
    int ws = 0, forwarded = 0;
    for (;;) {
        pid_t w = waitpid(pid, &ws, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR)) break;
        if (*s->stop && !forwarded) kill(pid, SIGINT), forwarded = 1;
        struct timespec nap = {0, 20000000};
        nanosleep(&nap, NULL);
    }
    sweep_collect(s, k, ws, sweep_now() - t0, r);
}

static int worker(sweep_t *s)
{
    send_result(-1, NULL);
    for (;;) {
        int k = -1;
        MPI_Recv(&k, 1, MPI_INT, 0, TAG_JOB, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (k < 0) break;
        sweep_run_t r;
        run_blocking(s, k, &r);
        send_result(k, &r);
        fmb_run_summary_free(&r.sum);
    }
    return 0;
}

static int coordinator(sweep_t *s, int size)
{
    int next = 0, workers = size - 1, forwarded = 0;
    pid_t local = 0;
    int local_run = -1;
    double local_t0 = 0;
    while (workers > 0 || local > 0 || (next < s->nruns && !*s->stop)) {
        int busy = 0;
        while (!local && !*s->stop && next < s->nruns) { /* rank 0 runs too */
            sweep_run_t r;
            memset(&r, 0, sizeof r);
            pid_t p = sweep_spawn(s, next, &r);
            if (p <= 0) {
                sweep_record(s, next++, &r);
                continue;
            }
            local = p, local_run = next, local_t0 = sweep_now();
            sweep_mark_running(s, next++);
            busy = 1;
        }
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &flag, &st);
        if (flag) {
            int n = 0;
            MPI_Get_count(&st, MPI_CHAR, &n);
            char *msg = malloc((size_t)n + 1);
            MPI_Recv(msg, n, MPI_CHAR, st.MPI_SOURCE, TAG_RESULT, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            int k = msg ? atoi(msg) : -1;
            sweep_run_t r;
            const char *nl = msg ? strchr(msg, '\n') : NULL;
            if (k >= 0 && k < s->nruns) {
                if (!nl || sweep_result_unpack(nl + 1, &r) < 0) {
                    memset(&r, 0, sizeof r);
                    r.state = RUN_FAILED;
                    snprintf(r.message, sizeof r.message, "rank %d: unreadable result",
                             st.MPI_SOURCE);
                }
                sweep_record(s, k, &r);
            }
            free(msg);
            int job = !*s->stop && next < s->nruns ? next++ : -1;
            if (job >= 0) sweep_mark_running(s, job);
            else workers--;
            MPI_Send(&job, 1, MPI_INT, st.MPI_SOURCE, TAG_JOB, MPI_COMM_WORLD);
            busy = 1;
        }
        if (*s->stop && local && !forwarded) kill(local, SIGINT), forwarded = 1;
        int ws = 0;
        if (local && waitpid(local, &ws, WNOHANG) == local) {
            sweep_run_t r;
            memset(&r, 0, sizeof r);
            sweep_collect(s, local_run, ws, sweep_now() - local_t0, &r);
            sweep_record(s, local_run, &r);
            local = 0;
            busy = 1;
        }
        if (!busy) {
            struct timespec nap = {0, 5000000};
            nanosleep(&nap, NULL);
        }
    }
    return 0;
}

int sweep_mpi_main(sweep_t *s, int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int code = 0;
    if (rank == 0) {
        if (!s->spec.quiet)
            fprintf(stderr, "flexmb sweep: %d runs of %s (%s) over %d MPI ranks, into %s/\n",
                    s->nruns, s->spec.case_path, s->spec.zip ? "zip" : "grid", size,
                    s->spec.outdir);
        coordinator(s, size);
        code = *s->stop ? 130 : s->nfailed ? 4 : 0; /* as a local sweep */
        if (!s->spec.quiet)
            fprintf(stderr, "flexmb sweep: %d complete, %d failed, %d interrupted, %d not run\n",
                    s->ndone - s->nfailed - s->ninterrupted, s->nfailed, s->ninterrupted,
                    s->nruns - s->ndone);
    } else {
        worker(s);
    }
    MPI_Finalize();
    return code;
}

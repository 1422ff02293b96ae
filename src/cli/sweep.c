/* `flexmb sweep`: a parameter study (docs/sweep.md); the summary files: sweep_summary.c. Every run is a separate `flexmb run`
 * process (this executable) with --set NAME=VALUE for its parameters, writing DIR/STEM.h5
 * (+ .xmf) and DIR/STEM.log: a run is exactly the single run of the same parameters, and a
 * crash or failure of one run cannot stop the others. The sweep keeps up to -j N of them
 * going (or hands them to MPI ranks: sweep_mpi.c) and rewrites DIR/summary.csv and
 * DIR/summary.h5 (atomically) whenever a run ends. */
#include "sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "cli.h"
#include "flexmb/flexmb.h"

int fmb_cli_sweep(int argc, char **argv);

static const char sweep_usage[] =
    "usage: flexmb sweep CASE --vary NAME=VALUES... [--set NAME=VALUE]... [--grid | --zip]\n"
    "                    [-j N] [-o DIR] [--crank BODY] [--resume] [--force] [--quiet]\n"
    "       flexmb sweep STUDY.yaml [same options]   (a file with a `sweep:` section)\n"
    "       mpirun -n N flexmb sweep ...             (runs spread over MPI ranks)\n"
    "VALUES: comma-separated numbers, ranges start:stop:count, or names; see docs/sweep.md\n";

static volatile int g_stop, g_signal;

static void on_signal(int sig)
{
    g_signal = sig;
    g_stop = 1;
}

double sweep_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---------------------------------------------------------------- runs */

const char *sweep_value(const sweep_t *s, int k, int p)
{
    return s->spec.params[p].text[s->vi[k * s->spec.nparams + p]];
}

static char *path_in(const sweep_t *s, int k, const char *ext)
{
    size_t n = strlen(s->spec.outdir) + strlen(s->stem[k]) + strlen(ext) + 2;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s%s", s->spec.outdir, s->stem[k], ext);
    return p;
}

static int build_runs(sweep_t *s, char *err, size_t len)
{
    const sweep_spec_t *sp = &s->spec;
    long n = sp->zip ? sp->params[0].n : 1;
    for (int p = 0; p < sp->nparams; p++) {
        if (sp->zip && sp->params[p].n != n)
            return snprintf(err, len,
                            "--zip: %s has %d values but %s has %ld (zipped lists need equal "
                            "lengths; --grid runs every combination)",
                            sp->params[p].name, sp->params[p].n, sp->params[0].name, n),
                   -1;
        if (!sp->zip && (n *= sp->params[p].n) > 1000000)
            return snprintf(err, len, "the grid has more than 10^6 runs"), -1;
    }
    if (n < 1) return snprintf(err, len, "the sweep has no runs (a parameter has no values)"), -1;
    s->nruns = (int)n;
    s->vi = calloc((size_t)n * (size_t)sp->nparams, sizeof *s->vi);
    s->stem = calloc((size_t)n, sizeof *s->stem);
    s->run = calloc((size_t)n, sizeof *s->run);
    if (!s->vi || !s->stem || !s->run) return snprintf(err, len, "out of memory"), -1;
    for (int k = 0; k < n; k++) {
        int rem = k; /* grid: the first parameter varies slowest */
        for (int p = sp->nparams - 1; p >= 0; p--) {
            s->vi[k * sp->nparams + p] = sp->zip ? k : rem % sp->params[p].n;
            rem /= sp->params[p].n;
        }
        size_t sz = 1;
        for (int p = 0; p < sp->nparams; p++)
            sz += strlen(sp->params[p].name) + strlen(sweep_value(s, k, p)) + 2;
        if (!(s->stem[k] = malloc(sz))) return snprintf(err, len, "out of memory"), -1;
        s->stem[k][0] = '\0';
        for (int p = 0; p < sp->nparams; p++)
            sprintf(s->stem[k] + strlen(s->stem[k]), "%s%s=%s", p ? "_" : "",
                    sp->params[p].name, sweep_value(s, k, p));
        s->run[k].sum.steps = s->run[k].sum.newton = -1;
        s->run[k].sum.wall_time = s->run[k].sum.t_final = s->run[k].wall = NAN;
    }
    return 0;
}

pid_t sweep_spawn(const sweep_t *s, int k, sweep_run_t *r)
{
    char *h5 = path_in(s, k, ".h5"), *log = path_in(s, k, ".log");
    pid_t pid = -1;
    if (!h5 || !log) {
        snprintf(r->message, sizeof r->message, "out of memory");
        r->state = RUN_FAILED;
        goto done;
    }
    if (s->spec.resume) {
        char err[256] = "";
        fmb_run_summary_free(&r->sum);
        if (fmb_run_summary_read(h5, s->spec.crank, &r->sum, err, sizeof err) == 0 &&
            r->sum.complete) {
            r->state = RUN_COMPLETE;
            r->executed = 0;
            r->wall = r->sum.wall_time;
            snprintf(r->message, sizeof r->message, "complete already (--resume)");
            pid = 0;
            goto done;
        }
        fmb_run_summary_free(&r->sum);
    }
    const int np = s->spec.nparams, ns = s->spec.nsets;
    char **argv = calloc((size_t)(9 + 2 * (np + ns)), sizeof *argv);
    char **sets = calloc((size_t)np + 1, sizeof *sets);
    int a = 0, ok = argv && sets;
    if (ok) {
        argv[a++] = (char *)s->exe;
        argv[a++] = "run";
        argv[a++] = s->spec.case_path;
        argv[a++] = "--quiet";
        if (s->spec.force) argv[a++] = "--force";
        argv[a++] = "-o";
        argv[a++] = h5;
        for (int q = 0; q < ns; q++) {
            argv[a++] = "--set";
            argv[a++] = s->spec.sets[q];
        }
        for (int p = 0; p < np && ok; p++) {
            const char *name = s->spec.params[p].name, *val = sweep_value(s, k, p);
            if (!(sets[p] = malloc(strlen(name) + strlen(val) + 2))) ok = 0;
            else sprintf(sets[p], "%s=%s", name, val);
            argv[a++] = "--set";
            argv[a++] = sets[p];
        }
    }
    if (ok) {
        fflush(stdout);
        fflush(stderr);
        pid = fork();
    }
    if (pid == 0) {
        /* own process group: a Ctrl-C reaches the sweep, which passes it on once */
        setpgid(0, 0);
#ifdef __linux__
        prctl(PR_SET_PDEATHSIG, SIGTERM);
#endif
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
            close(fd);
            /* the first line marks the log as the sweep's (replaced without --force) */
            fprintf(stderr, CLI_SWEEP_LOG_HEAD "%d of %s\n", k, s->spec.case_path);
            fflush(stderr);
        }
        execv(s->exe, argv);
        fprintf(stderr, "flexmb sweep: cannot start %s: %s\n", s->exe, strerror(errno));
        _exit(127);
    }
    if (pid < 0) {
        snprintf(r->message, sizeof r->message, "cannot start the run: %s",
                 ok ? strerror(errno) : "out of memory");
        r->state = RUN_FAILED;
    }
    for (int p = 0; sets && p < np; p++)
        free(sets[p]);
    free(sets);
    free(argv);
done:
    free(h5);
    free(log);
    return pid;
}

/* The run's own error: the last line of its log that says "error", else its last line. */
static void log_message(const char *log, char *out, size_t len)
{
    FILE *f = fopen(log, "r");
    char line[1024], last[1024] = "", err[1024] = "";
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0] || !strncmp(line, CLI_SWEEP_LOG_HEAD, strlen(CLI_SWEEP_LOG_HEAD))) continue;
        snprintf(last, sizeof last, "%s", line);
        if (strstr(line, "error")) snprintf(err, sizeof err, "%s", line);
    }
    if (f) fclose(f);
    snprintf(out, len, "%s", err[0] ? err : last);
}

void sweep_collect(const sweep_t *s, int k, int wstatus, double wall, sweep_run_t *r)
{
    char *h5 = path_in(s, k, ".h5"), *log = path_in(s, k, ".log");
    char err[256] = "", msg[SWEEP_MSG] = "";
    fmb_run_summary_free(&r->sum);
    if (h5) fmb_run_summary_read(h5, s->spec.crank, &r->sum, err, sizeof err);
    r->executed = 1;
    r->wall = wall;
    if (log) log_message(log, msg, sizeof msg);
    const int code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
    const int sig = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
    if (code == 0 && r->sum.complete) {
        r->state = RUN_COMPLETE;
        msg[0] = '\0';
    } else if (code > 128 || sig == SIGINT || sig == SIGTERM) {
        r->state = RUN_INTERRUPTED;
    } else {
        r->state = RUN_FAILED;
        if (sig) snprintf(msg, sizeof msg, "killed by signal %d", sig);
        else if (code == 0) snprintf(msg, sizeof msg, "the results file is not complete");
    }
    if (r->state != RUN_COMPLETE && !msg[0]) {
        if (sig) snprintf(msg, sizeof msg, "stopped by signal %d", sig);
        else snprintf(msg, sizeof msg, "exit status %d", code);
    }
    snprintf(r->message, sizeof r->message, "%s%s%s", msg, err[0] ? "; " : "", err);
    free(h5);
    free(log);
}

/* ---------------------------------------------------------------- local processes */

static int run_local(sweep_t *s, int jobs)
{
    pid_t *pid = calloc((size_t)jobs, sizeof *pid);
    int *which = calloc((size_t)jobs, sizeof *which);
    double *t0 = calloc((size_t)jobs, sizeof *t0);
    if (!pid || !which || !t0) return free(pid), free(which), free(t0), 4;
    int next = 0, active = 0, forwarded = 0;
    while (next < s->nruns || active > 0) {
        while (!g_stop && next < s->nruns && active < jobs) {
            int slot = 0;
            while (pid[slot]) slot++;
            sweep_run_t r;
            memset(&r, 0, sizeof r);
            pid_t p = sweep_spawn(s, next, &r);
            if (p <= 0) {
                sweep_record(s, next++, &r);
                continue;
            }
            pid[slot] = p, which[slot] = next, t0[slot] = sweep_now();
            sweep_mark_running(s, next++);
            active++;
        }
        if (g_stop && !forwarded) { /* pass the interrupt on, once: runs close their files */
            for (int j = 0; j < jobs; j++)
                if (pid[j]) kill(pid[j], SIGINT);
            forwarded = 1;
        }
        if (active == 0) break;
        int ws = 0;
        pid_t done = waitpid(-1, &ws, WNOHANG);
        if (done <= 0) {
            struct timespec nap = {0, 20000000}; /* 20 ms; a signal ends it early */
            nanosleep(&nap, NULL);
            continue;
        }
        for (int j = 0; j < jobs; j++)
            if (pid[j] == done) {
                sweep_run_t r;
                memset(&r, 0, sizeof r);
                sweep_collect(s, which[j], ws, sweep_now() - t0[j], &r);
                if (g_stop && r.state == RUN_FAILED) r.state = RUN_INTERRUPTED;
                sweep_record(s, which[j], &r);
                pid[j] = 0;
                active--;
            }
    }
    free(pid), free(which), free(t0);
    return 0;
}

#ifndef FMB_HAVE_MPI
/* Built without MPI: every sweep runs locally. */
int sweep_mpi_launched(void)
{
    return 0;
}

int sweep_mpi_main(sweep_t *s, int *argc, char ***argv)
{
    (void)s, (void)argc, (void)argv;
    return 1;
}
#endif

/* ---------------------------------------------------------------- command */

static int usage(const char *msg, const char *arg)
{
    fprintf(stderr, "flexmb sweep: %s%s%s%s\n%s", msg, arg ? " '" : "", arg ? arg : "",
            arg ? "'" : "", sweep_usage);
    return -1;
}

static int add_set(sweep_spec_t *sp, const char *v)
{
    char **ns = realloc(sp->sets, (size_t)(sp->nsets + 1) * sizeof *ns);
    if (!ns) return -1;
    sp->sets = ns;
    size_t n = strlen(v) + 1;
    if (!(sp->sets[sp->nsets] = malloc(n))) return -1;
    memcpy(sp->sets[sp->nsets++], v, n);
    return 0;
}

static int parse(sweep_t *s, int argc, char **argv, char *err, size_t len)
{
    sweep_spec_t *sp = &s->spec;
    const char *input = NULL;
    int mode = -1, jobs = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        char where[160];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(sweep_usage, stdout);
            return 0;
        } else if (!strcmp(a, "--grid") || !strcmp(a, "--zip")) {
            mode = a[2] == 'z';
        } else if (!strcmp(a, "--resume")) {
            sp->resume = 1;
        } else if (!strcmp(a, "--force")) {
            sp->force = 1;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            sp->quiet = 1;
        } else if (!strcmp(a, "--vary") || !strcmp(a, "--set") || !strcmp(a, "-j") ||
                   !strcmp(a, "-o") || !strcmp(a, "--crank")) {
            if (!val) return usage("missing value after", a);
            snprintf(where, sizeof where, "argument %d (%s %.100s)", i + 2, a, val);
            i++;
            if (a[2] == 'v') {
                if (sweep_parse_vary(sp, val, where, err, len) < 0) return -2;
            } else if (a[2] == 's') {
                if (!strchr(val, '=') || val[0] == '=') return usage("expected NAME=VALUE after",
                                                                   a);
                if (add_set(sp, val) < 0) return usage("out of memory", NULL);
            } else if (a[1] == 'j') {
                char *end = NULL;
                long j = strtol(val, &end, 10);
                if (!*val || *end || j < 1 || j > 4096)
                    return usage("-j expects a positive number of processes, got", val);
                jobs = (int)j;
            } else {
                char **dst = a[1] == 'o' ? &sp->outdir : &sp->crank;
                free(*dst);
                if (!(*dst = malloc(strlen(val) + 1))) return usage("out of memory", NULL);
                strcpy(*dst, val);
            }
        } else if (a[0] == '-' && a[1]) {
            return usage("unknown option", a);
        } else if (!input) {
            input = a;
        } else {
            return usage("unexpected argument", a);
        }
    }
    if (!input) return usage("missing case or study file", NULL);
    /* A study file first, so that the command line's options replace its values. Its
     * --vary were parsed above already: re-apply them after the file's. */
    sweep_spec_t cli = *sp;
    memset(sp, 0, sizeof *sp);
    int st = sweep_load_yaml(sp, input, err, len);
    if (st < 0) {
        sweep_spec_free(&cli);
        return -2;
    }
    if (st == 0) {
        if (!(sp->case_path = malloc(strlen(input) + 1))) return usage("out of memory", NULL);
        strcpy(sp->case_path, input);
    }
    for (int p = 0; p < cli.nparams; p++) { /* move the command line's parameters in */
        sweep_param_t *np = realloc(sp->params, (size_t)(sp->nparams + 1) * sizeof *np);
        if (!np) return usage("out of memory", NULL);
        sp->params = np;
        int q = 0;
        while (q < sp->nparams && strcmp(sp->params[q].name, cli.params[p].name))
            q++;
        if (q < sp->nparams) { /* replaces the file's list */
            sweep_param_t old = sp->params[q];
            sp->params[q] = cli.params[p];
            cli.params[p] = old;
        } else {
            sp->params[sp->nparams++] = cli.params[p];
            memset(&cli.params[p], 0, sizeof cli.params[p]);
        }
    }
    for (int q = 0; q < cli.nsets; q++)
        if (add_set(sp, cli.sets[q]) < 0) return usage("out of memory", NULL);
    if (cli.outdir) free(sp->outdir), sp->outdir = cli.outdir, cli.outdir = NULL;
    if (cli.crank) free(sp->crank), sp->crank = cli.crank, cli.crank = NULL;
    sp->resume = cli.resume;
    sp->force = cli.force;
    sp->quiet = cli.quiet;
    sweep_spec_free(&cli);
    if (mode >= 0) sp->zip = mode;
    if (jobs) sp->jobs = jobs;
    if (sp->nparams == 0) return usage("nothing to vary: give --vary NAME=VALUES", NULL);
    return 1;
}

/* Every varied name must be a parameter of the case (or integrator / ordering). */
static int check_names(sweep_t *s, fmb_case_t **out, char *err, size_t len)
{
    const sweep_spec_t *sp = &s->spec;
    fmb_case_t *c = fmb_case_load(sp->case_path, (const char *const *)sp->sets, sp->nsets, err,
                                  len);
    if (!(*out = c)) return -1;
    int rc = 0;
    for (int p = 0; p < sp->nparams && !rc; p++) {
        const char *name = sp->params[p].name;
        double v;
        if (!strcmp(name, "integrator") || !strcmp(name, "ordering") ||
            fmb_case_param(c, name, &v) == 0)
            continue;
        const char *variants = fmb_case_variants(c, name);
        if (variants) { /* a variant group: every value must name one of its variants */
            const sweep_param_t *sp_p = &sp->params[p];
            for (int k = 0; k < sp_p->n && !rc; k++) {
                const char *val = sp_p->text[k], *q = variants;
                const size_t n = strlen(val);
                int found = 0;
                while (*q && !found) {
                    const size_t m = strcspn(q, ",");
                    found = m == n && !strncmp(q, val, n);
                    q += m;
                    if (*q == ',') q++;
                }
                if (!found) {
                    snprintf(err, len, "%s: '%s' is not a variant of '%s' (%s declares: %s)",
                             sp_p->where, val, name, sp->case_path, variants);
                    rc = -1;
                }
            }
            continue;
        }
        int n = snprintf(err, len, "%s: unknown parameter '%s' (%s has", sp->params[p].where,
                         name, sp->case_path);
        for (int k = 0; k < fmb_case_num_params(c) && n > 0 && (size_t)n < len; k++)
            n += snprintf(err + n, len - (size_t)n, "%s%s", k ? ", " : ": ",
                          fmb_case_param_name(c, k));
        if (n > 0 && (size_t)n < len)
            n += snprintf(err + n, len - (size_t)n, "%s",
                          fmb_case_num_params(c) ? "" : " no parameters");
        for (int k = 0; k < fmb_case_num_variant_groups(c) && n > 0 && (size_t)n < len; k++)
            n += snprintf(err + n, len - (size_t)n, "%s%s", k ? ", " : "; variant groups: ",
                          fmb_case_variant_group(c, k));
        if (n > 0 && (size_t)n < len) snprintf(err + n, len - (size_t)n, ")");
        rc = -1;
    }
    return rc;
}

/* The sweep writes DIR/summary.csv, DIR/summary.h5 and each run's STEM.log, STEM.h5 and
 * STEM.xmf: the same rule as `flexmb run -o` for every one of them (docs/output.md, "Output
 * safety"), checked before anything is written. */
static int check_outputs(const sweep_t *s, const fmb_case_t *c, char *err, size_t len)
{
    static const char *const ext[] = {".log", ".h5", ".xmf"};
    static const int kind[] = {CLI_OUT_LOG, CLI_OUT_RESULTS, CLI_OUT_XDMF};
    const int force = s->spec.force;
    char path[4200];
    snprintf(path, sizeof path, "%s/summary.csv", s->spec.outdir);
    if (cli_output_refused(c, path, CLI_OUT_SUMMARY_CSV, force, err, len)) return -1;
    snprintf(path, sizeof path, "%s/summary.h5", s->spec.outdir);
    if (cli_output_refused(c, path, CLI_OUT_SUMMARY_H5, force, err, len)) return -1;
    for (int k = 0; k < s->nruns; k++)
        for (int e = 0; e < 3; e++) {
            snprintf(path, sizeof path, "%s/%s%s", s->spec.outdir, s->stem[k], ext[e]);
            if (cli_output_refused(c, path, kind[e], force, err, len)) return -1;
        }
    return 0;
}

static int make_dir(const char *path, char *err, size_t len)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1;; p++)
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return snprintf(err, len, "%.1024s: cannot create the directory: %s", buf,
                                strerror(errno)),
                       -1;
            if (!(*p = c)) break;
        }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return snprintf(err, len, "%s is not a directory", path), -1;
    return 0;
}

static void free_sweep(sweep_t *s)
{
    for (int k = 0; s->stem && k < s->nruns; k++)
        free(s->stem[k]);
    for (int k = 0; s->run && k < s->nruns; k++)
        fmb_run_summary_free(&s->run[k].sum);
    free(s->stem), free(s->run), free(s->vi);
    sweep_spec_free(&s->spec);
}

int fmb_cli_sweep(int argc, char **argv)
{
    sweep_t s;
    memset(&s, 0, sizeof s);
    char err[2048] = "";
    int code = 1;
    const int mpi = sweep_mpi_launched();
    int st = parse(&s, argc, argv, err, sizeof err);
    if (st <= 0) {
        if (st == -2) fprintf(stderr, "flexmb sweep: %s\n", err);
        code = st == 0 ? 0 : st == -2 ? 2 : 1; /* help, study error, usage error */
        goto done;
    }
    if (!s.spec.outdir) { /* default: CASESTEM_sweep in the current directory */
        const char *b = strrchr(s.spec.case_path, '/');
        b = b ? b + 1 : s.spec.case_path;
        size_t n = strcspn(b, ".");
        if ((s.spec.outdir = malloc(n + 7))) sprintf(s.spec.outdir, "%.*s_sweep", (int)n, b);
    }
    ssize_t n = readlink("/proc/self/exe", s.exe, sizeof s.exe - 1);
    if (n <= 0) snprintf(s.exe, sizeof s.exe, "%s", argv[0]);
    fmb_case_t *c = NULL;
    st = check_names(&s, &c, err, sizeof err) < 0 || build_runs(&s, err, sizeof err) < 0 ||
         make_dir(s.spec.outdir, err, sizeof err) < 0 || check_outputs(&s, c, err, sizeof err) < 0;
    fmb_case_destroy(&c);
    if (st) {
        fprintf(stderr, "flexmb sweep: %s\n", err);
        code = 2;
        goto done;
    }
    for (int k = 0; k < s.nruns; k++)
        for (int j = 0; j < k; j++)
            if (!strcmp(s.stem[k], s.stem[j])) {
                fprintf(stderr, "flexmb sweep: runs %d and %d have the same parameters (%s)\n", j,
                        k, s.stem[k]);
                code = 2;
                goto done;
            }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    s.stop = &g_stop;
    s.t_start = sweep_now();
    int jobs = s.spec.jobs;
    if (jobs <= 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = c > 0 ? (int)c : 1;
    }
    if (mpi) {
        code = sweep_mpi_main(&s, &argc, &argv);
        goto done;
    }
    if (!s.spec.quiet)
        fprintf(stderr, "flexmb sweep: %d runs of %s (%s), %d at a time, into %s/\n", s.nruns,
                s.spec.case_path, s.spec.zip ? "zip" : "grid", jobs, s.spec.outdir);
    sweep_write_summary(&s);
    code = run_local(&s, jobs);
    if (!code) code = g_stop ? 128 + (g_signal ? (int)g_signal : SIGINT) : s.nfailed ? 4 : 0;
    if (!s.spec.quiet)
        fprintf(stderr, "flexmb sweep: %d complete (%d run now, %d complete already), %d failed, "
                "%d interrupted, %d not run; summary: %s/summary.csv, %s/summary.h5\n",
                s.ndone - s.nfailed - s.ninterrupted, s.nexecuted - s.nfailed - s.ninterrupted,
                s.ndone - s.nexecuted, s.nfailed, s.ninterrupted, s.nruns - s.ndone,
                s.spec.outdir, s.spec.outdir);
done:
    free_sweep(&s);
    return code;
}

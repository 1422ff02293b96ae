/* flexmb command line: run a case to an HDF5 file, check a model, list a beam's natural
 * frequencies, compare two result files.
 * Exit codes (also in --help and docs/output.md). */
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

#include "flexmb/flexmb.h"
#include "flexmb/compare.h"

enum {
    EXIT_OK = 0,
    EXIT_USAGE = 1,
    EXIT_CASE = 2,
    EXIT_MODEL = 3,
    EXIT_RUN = 4,
    EXIT_INTERRUPTED = 130 /* 128 + SIGINT; SIGTERM gives 143 */
};

#define MAX_SETS 256

int fmb_cli_sweep(int argc, char **argv); /* sweep.c */

static const char usage_text[] =
    "usage: flexmb run CASE [-o OUT.h5] [--set NAME=VALUE]... [--no-viz] [--quiet]\n"
    "       flexmb check CASE [--set NAME=VALUE]...\n"
    "       flexmb modes CASE [BODY] [--at T] [--set NAME=VALUE]... [-n N]\n"
    "       flexmb compare A.h5 B.h5 [-o PREFIX] [--by BODY] [--wrap] [--only KINDS]\n"
    "                      [--stations N] [--noise X] [--quiet]\n"
    "       flexmb sweep CASE --vary NAME=VALUES... [--grid|--zip] [-j N] [-o DIR] [--resume]\n"
    "       flexmb --help | --version\n";

static const char help_text[] =
    "\n"
    "Planar flexible multibody dynamics.\n"
    "\n"
    "commands:\n"
    "  run CASE     simulate the YAML case and write the results to an HDF5 file\n"
    "               with an XDMF sidecar (OUT.xmf) that ParaView opens\n"
    "  check CASE   print the model, assemble it and analyse its constraints\n"
    "  modes CASE   modes of the whole mechanism, linearized at the start (or at\n"
    "               --at T after running to T): frequencies (rad/s and Hz) and each\n"
    "               body's share of the mode's kinetic energy\n"
    "  modes CASE BODY\n"
    "               natural frequencies of the beam BODY alone under its reference\n"
    "               conditions (rad/s and Hz)\n"
    "  sweep CASE   a parameter study: one run per combination of the --vary values\n"
    "               (or a STUDY.yaml with a `sweep:` section), -j N at a time or over\n"
    "               MPI ranks; DIR/summary.csv and summary.h5 (`flexmb sweep --help`,\n"
    "               docs/sweep.md)\n"
    "  compare A.h5 B.h5\n"
    "               differences between two runs (B interpolated onto A's times):\n"
    "               table on stdout, PREFIX.csv, and PREFIX.png when\n"
    "               scripts/plot_compare.py and /usr/bin/python3 are available\n"
    "\n"
    "options:\n"
    "  -o, --output OUT.h5   run: results file (default: the case's `output`, else the\n"
    "                        case file name with .h5, in the current directory);\n"
    "                        compare: output prefix (default: A_vs_B from the names)\n"
    "  -s, --set NAME=VALUE  override a case parameter (repeatable)\n"
    "      --force           run: replace an existing OUT.h5 / .xmf that flexmb did not\n"
    "                        write (inputs of the case are never replaced)\n"
    "      --no-room-check   run: start even when all the records would not fit on the\n"
    "                        disk (the run still stops before the disk is full)\n"
    "  -n, --modes N         modes: number of frequencies (default 6)\n"
    "      --by BODY         compare: abscissa = BODY's angle (e.g. the crank), so runs\n"
    "                        at different speeds compare at equal angles; default time\n"
    "      --wrap            compare: report angles of maxima in [0, 360) deg\n"
    "      --only KINDS      compare: poses, coords, reactions, deflection, sliders,\n"
    "                        energy or all (comma-separated; default all but coords)\n"
    "      --stations N      compare: beam deflection at N stations (default 11)\n"
    "      --noise X         compare: differences below X times the scale are 0\n"
    "                        (default 1e-9)\n"
    "      --at T            modes: linearize at time T (s) of the run (default 0)\n"
    "      --no-viz          run: no visualization frames (/viz) and no OUT.xmf\n"
    "  -q, --quiet           no progress bar and no summary (compare: no table)\n"
    "  -h, --help            this help\n"
    "  -V, --version         print the version\n"
    "\n"
    "Ctrl-C (SIGINT), SIGTERM or SIGHUP stops a run after the current step; the results\n"
    "file is closed properly and holds every record so far plus the last completed step.\n"
    "\n"
    "exit status:\n"
    "  0    success\n"
    "  1    usage error\n"
    "  2    case file error (cannot read or parse the case; modes: no such body;\n"
    "       compare: an input is not a readable results file)\n"
    "  3    model error: cannot initialize, assembly fails, redundant constraints\n"
    "       (modes: the body is not a beam; compare: no common time or quantity)\n"
    "  4    run failure: a step failed or the results file cannot be written\n"
    "       (compare: the CSV cannot be written)\n"
    "       (the file keeps the steps completed before the failure)\n"
    "  130  interrupted by SIGINT (143 for SIGTERM, 129 for SIGHUP)\n"
    "\n"
    "Output layout: docs/output.md.\n";

typedef struct cli_args {
    const char *command;
    const char *case_path;
    const char *arg2; /* modes: BODY; compare: B.h5 */
    const char *output;
    int nmodes;                /* modes: -n (0: default) */
    double at;                 /* modes: --at T (< 0: not given) */
    fmb_compare_options_t cmp; /* compare: --by, --wrap, --only, --stations, --noise */
    int force;                 /* run: replace an existing file that is not a flexmb result */
    int no_room_check;         /* run: start even when the records would not fit on the disk */
    int no_viz;                /* run: --no-viz */
    int cmp_given;
    const char *sets[MAX_SETS];
    int nsets;
    int quiet;
} cli_args_t;

/* ---------------------------------------------------------------- signals */

static volatile int g_stop;   /* polled by fmb_sim_run */
static volatile int g_signal; /* the signal that stopped the run */

static void on_signal(int sig)
{
    g_signal = sig;
    g_stop = 1;
}

static void install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* A second signal kills the process as usual. */
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL); /* a closed terminal stops the run like SIGTERM */
}

/* ---------------------------------------------------------------- helpers */

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static char *str_dup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

/* Same file (device and inode)? */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* Refuse output paths that would destroy input or other files (docs/output.md, "Output
 * safety"): the results or the sidecar being an input of the case, a directory, or an
 * existing file that is not a previous flexmb result (unless --force). 0 or a message. */
static int output_unsafe(const fmb_case_t *c, const char *out, const char *xmf, int force,
                         char *msg, size_t len)
{
    const char *paths[2] = {out, xmf};
    for (int p = 0; p < 2; p++) {
        struct stat st;
        for (int k = 0; k < fmb_case_num_inputs(c); k++)
            if (same_file(paths[p], fmb_case_input(c, k))) {
                snprintf(msg, len, "output %s is %s %s: refusing to overwrite an input",
                         paths[p], k == 0 ? "the case file" : "the mesh", fmb_case_input(c, k));
                return 1;
            }
        if (stat(paths[p], &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            snprintf(msg, len, "output %s is a directory", paths[p]);
            return 1;
        }
        if (force) continue;
        int ok;
        if (p == 0) {
            ok = fmb_results_file_kind(paths[p]) == 1;
        } else { /* a sidecar flexmb wrote: XDMF that points into the results file */
            char head[256] = "";
            FILE *f = fopen(paths[p], "r");
            size_t n = f ? fread(head, 1, sizeof head - 1, f) : 0;
            if (f) fclose(f);
            head[n] = '\0';
            ok = strstr(head, "<Xdmf") != NULL;
        }
        if (!ok) {
            snprintf(msg, len,
                     "%s exists and is not a flexmb %s: not replaced (use --force to replace "
                     "it)",
                     paths[p], p == 0 ? "results file" : "XDMF sidecar");
            return 1;
        }
    }
    return 0;
}

/* "dir/name.yaml" -> "name.h5" (in the current directory). */
static char *default_output(const char *case_path)
{
    const char *base = strrchr(case_path, '/');
    base = base ? base + 1 : case_path;
    const char *dot = strrchr(base, '.');
    size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    char *p = malloc(n + 4);
    if (p) {
        memcpy(p, base, n);
        memcpy(p + n, ".h5", 4);
    }
    return p;
}

/* Same rule as the writer: .h5/.hdf5/.hdf replaced by .xmf, else appended. */
static char *xmf_path(const char *h5)
{
    static const char *const exts[] = {".h5", ".hdf5", ".hdf"};
    size_t n = strlen(h5), keep = n;
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        size_t e = strlen(exts[i]);
        if (n > e && strcmp(h5 + n - e, exts[i]) == 0) {
            keep = n - e;
            break;
        }
    }
    char *p = malloc(keep + 5);
    if (p) {
        memcpy(p, h5, keep);
        memcpy(p + keep, ".xmf", 5);
    }
    return p;
}

static void format_duration(double s, char *out, size_t len)
{
    if (!(s >= 0) || s > 359999)
        snprintf(out, len, "--:--");
    else if (s >= 3600)
        snprintf(out, len, "%d:%02d:%02d", (int)s / 3600, ((int)s / 60) % 60, (int)s % 60);
    else
        snprintf(out, len, "%d:%02d", (int)s / 60, (int)s % 60);
}

/* ---------------------------------------------------------------- arguments */

static int usage_error(const char *msg, const char *arg)
{
    if (arg)
        fprintf(stderr, "flexmb: %s '%s'\n", msg, arg);
    else
        fprintf(stderr, "flexmb: %s\n", msg);
    fputs(usage_text, stderr);
    fputs("Try 'flexmb --help' for more information.\n", stderr);
    return EXIT_USAGE;
}

/* Returns -1 to continue, else an exit status. */
static int parse_args(int argc, char **argv, cli_args_t *a)
{
    memset(a, 0, sizeof *a);
    a->at = -1.0;
    fmb_compare_options_default(&a->cmp);
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        const char *val = NULL;
        if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) {
            fputs(usage_text, stdout);
            fputs(help_text, stdout);
            return EXIT_OK;
        }
        if (strcmp(s, "-V") == 0 || strcmp(s, "--version") == 0) {
            printf("flexmb %s\n", fmb_version());
            return EXIT_OK;
        }
        if (strcmp(s, "-q") == 0 || strcmp(s, "--quiet") == 0) {
            a->quiet = 1;
        } else if (strcmp(s, "--force") == 0) {
            a->force = 1;
        } else if (strcmp(s, "--no-room-check") == 0) {
            a->no_room_check = 1;
        } else if (strcmp(s, "--no-viz") == 0) {
            a->no_viz = 1;
        } else if (strcmp(s, "--by") == 0 || strncmp(s, "--by=", 5) == 0) {
            val = s[4] == '=' ? s + 5 : (i + 1 < argc ? argv[++i] : NULL);
            if (!val || !*val) return usage_error("expected `time` or a body name after", s);
            a->cmp.by = val;
            a->cmp_given = 1;
        } else if (strcmp(s, "--wrap") == 0) {
            a->cmp.wrap = 1;
            a->cmp_given = 1;
        } else if (strcmp(s, "--only") == 0 || strncmp(s, "--only=", 7) == 0) {
            val = s[6] == '=' ? s + 7 : (i + 1 < argc ? argv[++i] : NULL);
            if (!val || fmb_compare_parse_kinds(val, &a->cmp.kinds) < 0)
                return usage_error("expected kinds (poses, coords, reactions, deflection, "
                                   "sliders, energy, all; comma-separated) after",
                                   s);
            a->cmp_given = 1;
        } else if (strcmp(s, "--stations") == 0 || strncmp(s, "--stations=", 11) == 0) {
            val = s[10] == '=' ? s + 11 : (i + 1 < argc ? argv[++i] : NULL);
            char *end = NULL;
            long n = val ? strtol(val, &end, 10) : 0;
            if (!val || !*val || *end || n < 2 || n > 10000)
                return usage_error("expected a station count >= 2 after", s);
            a->cmp.stations = (int)n;
            a->cmp_given = 1;
        } else if (strcmp(s, "--noise") == 0 || strncmp(s, "--noise=", 8) == 0) {
            val = s[7] == '=' ? s + 8 : (i + 1 < argc ? argv[++i] : NULL);
            char *end = NULL;
            double x = val ? strtod(val, &end) : -1.0;
            if (!val || !*val || *end || !(x >= 0 && x < 1))
                return usage_error("expected a relative noise floor in [0, 1) after", s);
            a->cmp.noise = x;
            a->cmp_given = 1;
        } else if (strcmp(s, "--at") == 0 || strncmp(s, "--at=", 5) == 0) {
            val = s[4] == '=' ? s + 5 : (i + 1 < argc ? argv[++i] : NULL);
            char *end = NULL;
            double t = val ? strtod(val, &end) : -1.0;
            if (!val || !*val || *end || !(t >= 0) || !isfinite(t))
                return usage_error("expected a time >= 0 in seconds after", s);
            a->at = t;
        } else if (strcmp(s, "-n") == 0 || strcmp(s, "--modes") == 0 ||
                   strncmp(s, "--modes=", 8) == 0) {
            val = s[1] == '-' && s[7] == '=' ? s + 8 : (i + 1 < argc ? argv[++i] : NULL);
            char *end = NULL;
            long n = val ? strtol(val, &end, 10) : 0;
            if (!val || !*val || *end || n < 1 || n > 100000)
                return usage_error("expected a positive count after", s);
            a->nmodes = (int)n;
        } else if (strcmp(s, "-o") == 0 || strcmp(s, "--output") == 0 ||
                   strncmp(s, "--output=", 9) == 0) {
            val = s[1] == '-' && s[8] == '=' ? s + 9 : (i + 1 < argc ? argv[++i] : NULL);
            if (!val || !*val) return usage_error("missing file name after", s);
            a->output = val;
        } else if (strcmp(s, "-s") == 0 || strcmp(s, "--set") == 0 ||
                   strncmp(s, "--set=", 6) == 0) {
            val = s[1] == '-' && s[5] == '=' ? s + 6 : (i + 1 < argc ? argv[++i] : NULL);
            if (!val || !strchr(val, '=') || val[0] == '=')
                return usage_error("expected NAME=VALUE after", s);
            if (a->nsets == MAX_SETS) return usage_error("too many --set options", NULL);
            a->sets[a->nsets++] = val;
        } else if (s[0] == '-' && s[1] != '\0') {
            return usage_error("unknown option", s);
        } else if (!a->command) {
            a->command = s;
        } else if (!a->case_path) {
            a->case_path = s;
        } else if (!a->arg2 && a->command &&
                   (strcmp(a->command, "modes") == 0 || strcmp(a->command, "compare") == 0)) {
            a->arg2 = s;
        } else {
            return usage_error("unexpected argument", s);
        }
    }
    if (!a->command) return usage_error("missing command", NULL);
    int is_run = strcmp(a->command, "run") == 0, is_modes = strcmp(a->command, "modes") == 0;
    int is_compare = strcmp(a->command, "compare") == 0;
    if (!is_run && !is_modes && !is_compare && strcmp(a->command, "check") != 0)
        return usage_error("unknown command", a->command);
    if (!a->case_path)
        return usage_error(is_compare ? "missing results files" : "missing case file", NULL);
    if (a->force && !is_run) return usage_error("--force is only valid with", "run");
    if (a->no_room_check && !is_run)
        return usage_error("--no-room-check is only valid with", "run");
    if (a->no_viz && !is_run) return usage_error("--no-viz is only valid with", "run");
    if (a->at >= 0 && !(is_modes && !a->arg2))
        return usage_error("--at is only valid with", "modes CASE (mechanism modes)");
    if (is_compare && !a->arg2)
        return usage_error("missing second results file after", a->case_path);
    if (a->output && !is_run && !is_compare && !(is_modes && !a->arg2))
        return usage_error("-o is only valid with", "run, compare or modes CASE");
    if (a->nmodes && !is_modes) return usage_error("-n is only valid with", "modes");
    if (a->nsets && is_compare) return usage_error("--set is not valid with", "compare");
    if (a->cmp_given && !is_compare)
        return usage_error("--by, --wrap, --only, --stations and --noise are only valid with",
                           "compare");
    return -1;
}

static fmb_case_t *load_case(const cli_args_t *a)
{
    char err[1024] = "";
    fmb_case_t *c = fmb_case_load(a->case_path, a->sets, a->nsets, err, sizeof err);
    if (!c) fprintf(stderr, "%s\n", err[0] ? err : "cannot load case");
    return c;
}

/* ---------------------------------------------------------------- run */

typedef struct run_ctx {
    fmb_writer_t *writer;
    int writer_failed; /* status of a failed append */
    int progress;      /* draw the progress bar */
    double t0, t_end, start, last_draw;
    double last_t; /* time of the last record written */
    int max_newton;
    int drawn;
    /* largest transverse deflection seen per beam body (index by body) */
    double *beam_vmax;
    double *beam_buf;
} run_ctx_t;

/* Small-deflection check: the linear beam model (geometry: linear) is trustworthy while
 * deflections stay a few percent of the length (docs/theory.md section 7); nonlinear
 * beams hold for large deflections (small strains) and are not warned about. */
#define FMB_SMALL_DEFLECTION 0.05

static void track_beams(run_ctx_t *r, const fmb_sim_t *sim)
{
    const fmb_model_t *m = fmb_sim_model(sim);
    if (!r->beam_vmax) return;
    for (int b = 1; b < fmb_model_num_bodies(m); b++) {
        if (!fmb_model_body_is_beam(m, b)) continue;
        const int nn = fmb_model_beam_num_nodes(m, b);
        fmb_sim_beam_state(sim, b, NULL, NULL, r->beam_buf);
        for (int k = 0; k < nn; k++)
            if (fabs(r->beam_buf[k]) > r->beam_vmax[b]) r->beam_vmax[b] = fabs(r->beam_buf[k]);
    }
}

static void report_beams(const run_ctx_t *r, const fmb_model_t *m)
{
    if (!r->beam_vmax) return;
    for (int b = 1; b < fmb_model_num_bodies(m); b++) {
        if (!fmb_model_body_is_beam(m, b)) continue;
        const int nn = fmb_model_beam_num_nodes(m, b);
        const double len = fmb_model_beam_node_x(m, b, nn - 1) - fmb_model_beam_node_x(m, b, 0);
        const double ratio = r->beam_vmax[b] / len;
        printf("  beam %-14s max transverse deflection at the nodes %.4g m (%.2f %% of its "
               "length; between nodes it can be larger: scripts/plot_quick_return.py samples "
               "the Hermite curve)\n",
               fmb_model_body_name(m, b), r->beam_vmax[b], 100 * ratio);
        if (ratio > FMB_SMALL_DEFLECTION && fmb_model_beam_geometry(m, b) == FMB_BEAM_LINEAR)
            fprintf(stderr,
                    "warning: beam '%s' deflects %.1f %% of its length: beyond the "
                    "small-deflection range (%.0f %%) of the linear beam model; treat the "
                    "results as qualitative or use 'geometry: nonlinear'\n",
                    fmb_model_body_name(m, b), 100 * ratio, 100 * FMB_SMALL_DEFLECTION);
    }
}

static void draw_progress(run_ctx_t *r, const fmb_sim_t *sim, int final)
{
    double now = wall_seconds();
    if (!final && now - r->last_draw < 0.1) return;
    r->last_draw = now;
    fmb_sim_stats_t st;
    fmb_sim_get_stats(sim, &st);
    double t = fmb_sim_time(sim), span = r->t_end - r->t0;
    double frac = span > 0 ? (t - r->t0) / span : 1.0;
    frac = frac < 0 ? 0 : frac > 1 ? 1 : frac;
    double el = now - r->start;
    double rate = el > 0 ? (double)st.steps / el : 0.0;
    double eta = frac > 0 ? el * (1 - frac) / frac : -1;
    char bar[31], etas[32], els[32];
    int fill = (int)(frac * 30 + 0.5);
    for (int i = 0; i < 30; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[30] = '\0';
    format_duration(eta, etas, sizeof etas);
    format_duration(el, els, sizeof els);
    fprintf(stderr, "\r[%s] %5.1f%%  t = %-10.4g %8.0f steps/s  %s  ETA %s \033[K", bar, 100 * frac,
            t, rate, els, etas);
    fflush(stderr);
    r->drawn = 1;
}

static int observer(fmb_sim_t *sim, void *user)
{
    run_ctx_t *r = user;
    int st = fmb_writer_append(r->writer, sim);
    r->last_t = fmb_sim_time(sim);
    if (st < 0) {
        r->writer_failed = st;
        return st;
    }
    int it = fmb_sim_last_newton_iterations(sim);
    if (it > r->max_newton) r->max_newton = it;
    track_beams(r, sim);
    if (r->progress) draw_progress(r, sim, 0);
    return 0;
}

/* "CASE:LINE: error: message" when the error is about a joint of the case file. */
static void print_sim_error(const char *path, const fmb_sim_t *sim, int st)
{
    const char *msg = fmb_sim_last_error(sim);
    const int line = fmb_sim_last_error_line(sim);
    if (!msg || !*msg) msg = fmb_status_message(st);
    if (line > 0)
        fprintf(stderr, "%s:%d: error: %s\n", path, line, msg);
    else
        fprintf(stderr, "%s: error: %s\n", path, msg);
}

/* ---------------------------------------------------------------- start report */

/* The bodies whose given initial velocity the consistent start had to change (elastic
 * velocities are kept; carrier ones are projected onto the joints). Returns the count. */
static int report_start_velocities(FILE *f, const fmb_model_t *m, const fmb_sim_t *sim)
{
    int changed = 0;
    for (int b = 1; b < fmb_model_num_bodies(m); b++) {
        double dv[3];
        if (fmb_sim_start_velocity_change(sim, b, dv) != 1) continue;
        const double vmax = fmax(fabs(dv[0]), fmax(fabs(dv[1]), fabs(dv[2])));
        if (vmax <= 1e-9) continue;
        fprintf(f,
                "note: body '%s': the given initial velocity was changed by (%.4g m/s, %.4g m/s, "
                "%.4g rad/s) to satisfy the joints\n",
                fmb_model_body_name(m, b), dv[0], dv[1], dv[2]);
        changed++;
    }
    return changed;
}

static int cmd_run(const cli_args_t *a)
{
    int code = EXIT_OK;
    char *out = NULL, *xmf = NULL;
    fmb_sim_t *sim = NULL;
    fmb_writer_t *writer = NULL;
    fmb_case_t *c = load_case(a);
    if (!c) return EXIT_CASE;
    fmb_model_t *model = fmb_case_model(c);
    fmb_sim_options_t opts = *fmb_case_options(c);
    if (a->no_viz) opts.viz_frames = 0; /* no /viz, no sidecar */
    sim = fmb_sim_create(model, &opts);
    if (!sim) {
        fprintf(stderr, "%s: error: %s\n", a->case_path,
                model ? fmb_model_last_error(model) : "cannot create the simulation");
        code = EXIT_MODEL;
        goto done;
    }
    if (fmb_sim_initialize(sim) < 0) {
        print_sim_error(a->case_path, sim, 0);
        code = EXIT_MODEL;
        goto done;
    }
    if (!a->quiet) report_start_velocities(stderr, model, sim);
    if (a->output)
        out = str_dup(a->output);
    else if (fmb_case_output(c) && *fmb_case_output(c))
        out = str_dup(fmb_case_output(c));
    else
        out = default_output(a->case_path);
    xmf = out ? xmf_path(out) : NULL;
    if (!out || !xmf) {
        fprintf(stderr, "flexmb: out of memory\n");
        code = EXIT_RUN;
        goto done;
    }
    char err[1024] = "";
    if (output_unsafe(c, out, xmf, a->force, err, sizeof err)) {
        fprintf(stderr, "%s: error: %s\n", a->case_path, err);
        code = EXIT_CASE;
        goto done;
    }
    writer = fmb_writer_create(out, sim, fmb_case_text(c), err, sizeof err);
    if (!writer || fmb_writer_provenance(writer, c, a->sets, a->nsets) < 0) {
        fprintf(stderr, "%s: error: %s\n", a->case_path,
                writer ? fmb_writer_last_error(writer) : (err[0] ? err : "cannot create output"));
        code = EXIT_RUN;
        goto done;
    }

    const fmb_sim_options_t *o = fmb_sim_options(sim);
    if (o && o->h > 0 && !a->no_room_check) {
        /* refuse a run whose records cannot fit on the disk before writing any of them */
        const double steps = ceil((o->t_end - fmb_sim_time(sim)) / o->h * (1.0 - 1e-12));
        const double nrec = floor(steps / (o->output_every > 0 ? o->output_every : 1)) + 2;
        if (fmb_writer_check_room(writer, nrec) < 0) {
            fprintf(stderr, "%s: error: %s\n", a->case_path, fmb_writer_last_error(writer));
            fmb_writer_destroy(&writer);
            remove(out); /* flexmb's own empty file; nothing of the user's */
            remove(xmf);
            code = EXIT_CASE;
            goto done;
        }
    }
    run_ctx_t r;
    memset(&r, 0, sizeof r);
    r.writer = writer;
    r.progress = !a->quiet && isatty(STDERR_FILENO);
    r.t0 = fmb_sim_time(sim);
    r.t_end = o ? o->t_end : r.t0;
    r.start = wall_seconds();
    {
        int nb = fmb_model_num_bodies(model), maxn = 0;
        for (int b = 1; b < nb; b++)
            if (fmb_model_body_is_beam(model, b) && fmb_model_beam_num_nodes(model, b) > maxn)
                maxn = fmb_model_beam_num_nodes(model, b);
        if (maxn > 0) {
            r.beam_vmax = calloc((size_t)nb, sizeof *r.beam_vmax);
            r.beam_buf = calloc((size_t)maxn, sizeof *r.beam_buf);
            if (!r.beam_vmax || !r.beam_buf) {
                free(r.beam_vmax), free(r.beam_buf);
                r.beam_vmax = r.beam_buf = NULL;
            }
        }
    }

    install_handlers();
    int st = fmb_sim_run(sim, observer, &r, &g_stop);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    /* stopped (signal or failure) between records: keep the last completed step too */
    if (!r.writer_failed && fmb_sim_time(sim) > r.last_t) observer(sim, &r);
    double wall = wall_seconds() - r.start;
    if (r.progress && r.drawn) {
        draw_progress(&r, sim, 1);
        fputc('\n', stderr);
    }

    /* Close the file before reporting: it then holds every completed step. */
    char werr[600] = "";
    if (r.writer_failed) snprintf(werr, sizeof werr, "%s", fmb_writer_last_error(writer));
    long records = fmb_writer_records(writer);
    const char *status = g_stop                        ? "interrupted"
                         : (st < 0 || r.writer_failed) ? "failed"
                                                       : "complete";
    /* The buffered records first: a run is marked complete only once all of them are in
     * the file (a final batch refused for want of disk left complete = 1 before). */
    int flush_st = r.writer_failed ? 0 : fmb_writer_flush(writer);
    if (flush_st >= 0 && !r.writer_failed)
        flush_st = fmb_writer_statistics(writer, sim, wall, status);
    if (flush_st < 0 && !werr[0]) snprintf(werr, sizeof werr, "%s", fmb_writer_last_error(writer));
    fmb_writer_destroy(&writer);

    if (g_stop) {
        fprintf(stderr, "%s: interrupted by signal %d at t = %g s\n", a->case_path, (int)g_signal,
                fmb_sim_time(sim));
        code = 128 + (g_signal ? (int)g_signal : SIGINT);
    } else if (r.writer_failed || flush_st < 0) {
        fprintf(stderr, "%s: error: %s\n", a->case_path,
                werr[0] ? werr : fmb_status_message(r.writer_failed ? r.writer_failed : flush_st));
        code = EXIT_RUN;
    } else if (st < 0) {
        print_sim_error(a->case_path, sim, st);
        code = st == FMB_ERR_INTERRUPTED ? EXIT_INTERRUPTED : EXIT_RUN;
    }

    {
        char wmsg[700];
        if (st >= 0 && fmb_sim_step_warning(sim, wmsg, sizeof wmsg)) /* a failure says it */
            fprintf(stderr, "%s: warning: %s\n", a->case_path, wmsg);
    }
    if (!a->quiet) {
        fmb_sim_stats_t s;
        fmb_sim_get_stats(sim, &s);
        char ws[32];
        format_duration(wall, ws, sizeof ws);
        printf("%s: %s\n", a->case_path, code == EXIT_OK ? "done" : "stopped");
        if (o && !o->adaptive) {
            const double full = floor(o->t_end / o->h * (1.0 + 1e-12));
            const double rem = o->t_end - full * o->h;
            if (rem > 1e-9 * o->h)
                printf("  last step           shortened to %.6g s to end at t_end = %g s (h = %g s "
                       "does not divide it)\n",
                       rem, o->t_end, o->h);
        }
        printf("  steps               %ld (t = %g s, %ld records)\n", s.steps, fmb_sim_time(sim),
               records);
        printf("  Newton iterations   %.2f per step (mean), %d max, %ld total\n",
               s.steps > 0 ? (double)s.newton_iterations / (double)s.steps : 0.0, r.max_newton,
               s.newton_iterations);
        printf("  factorizations      %ld numeric, %ld symbolic, %ld step halvings\n",
               s.factorizations, s.symbolic, s.halvings);
        printf("  max violation       %.3e\n", s.max_violation);
        if (o) {
            char where[160];
            fmb_sim_coord_name(sim, s.max_error_coord, where, sizeof where);
            printf("  step size           %s, h %.3g .. %.3g s, %ld rejected by the error "
                   "estimate, %ld by elements\n",
                   o->adaptive ? "adaptive" : "fixed", s.h_min_used, s.h_max_used,
                   s.rejected_error, s.rejected_event);
            printf("  error estimate      %.3g of the tolerance at most (rtol_step %g, atol_step "
                   "%g; t = %g s, %s)\n",
                   s.max_error, o->rtol_step, o->atol_step, s.max_error_time,
                   where[0] ? where : "-");
        }
        printf("  wall time           %.3f s (%s, %.0f steps/s)\n", wall, ws,
               wall > 0 ? (double)s.steps / wall : 0.0);
        printf("  output              %s\n", out);
        if (!a->no_viz && opts.viz_frames > 0) printf("  ParaView            %s\n", xmf);
    }
    if (!a->quiet) report_beams(&r, model);
    free(r.beam_vmax);
    free(r.beam_buf);

done:
    fmb_writer_destroy(&writer);
    fmb_sim_destroy(&sim);
    fmb_case_destroy(&c);
    free(out);
    free(xmf);
    return code;
}

/* ---------------------------------------------------------------- check */

static const char *body_name(const fmb_model_t *m, int b)
{
    const char *s = b >= 0 ? fmb_model_body_name(m, b) : NULL;
    return s ? s : "-";
}

static int cmd_check(const cli_args_t *a)
{
    fmb_case_t *c = load_case(a);
    if (!c) return EXIT_CASE;
    fmb_model_t *m = fmb_case_model(c);
    int nb = fmb_model_num_bodies(m), nj = fmb_model_num_joints(m);
    int nf = fmb_model_num_forces(m);

    printf("case: %s\n", a->case_path);
    printf("\nbodies (%d, ground excluded):\n", nb - 1);
    printf("  %-20s %12s %12s %7s %5s %7s\n", "name", "mass [kg]", "inertia", "offset", "ndof",
           "points");
    for (int b = 1; b < nb; b++)
        printf("  %-20s %12.6g %12.6g %7d %5d %7d\n", body_name(m, b), fmb_model_body_mass(m, b),
               fmb_model_body_inertia(m, b), fmb_model_body_offset(m, b), fmb_model_body_ndof(m, b),
               fmb_model_body_num_points(m, b));
    printf("\njoints (%d):\n", nj);
    printf("  %-20s %-14s %-16s %-16s %5s\n", "name", "type", "body 1", "body 2", "rows");
    for (int j = 0; j < nj; j++) {
        int jb[2];
        fmb_model_joint_bodies(m, j, jb);
        const char *tn = fmb_model_joint_type_name(m, j);
        printf("  %-20s %-14s %-16s %-16s %5d\n", fmb_model_joint_name(m, j), tn ? tn : "?",
               body_name(m, jb[0]), body_name(m, jb[1]), fmb_model_joint_rows(m, j));
    }
    printf("\nforces (%d):\n", nf);
    if (nf > 0) printf("  %-20s %-14s %-16s %s\n", "name", "type", "body 1", "body 2");
    for (int f = 0; f < nf; f++) {
        int fb[2];
        fmb_model_force_bodies(m, f, fb);
        const char *tn = fmb_model_force_type_name(m, f);
        if (fb[1] >= 0)
            printf("  %-20s %-14s %-16s %s\n", fmb_model_force_name(m, f), tn ? tn : "?",
                   body_name(m, fb[0]), body_name(m, fb[1]));
        else
            printf("  %-20s %-14s %s\n", fmb_model_force_name(m, f), tn ? tn : "?",
                   body_name(m, fb[0]));
    }
    printf("\ncoordinates: %d\nconstraints: %d\n", fmb_model_num_coords(m),
           fmb_model_num_constraints(m));

    fmb_check_report_t rep;
    memset(&rep, 0, sizeof rep);
    int st = fmb_model_check(m, &rep);
    int code = EXIT_OK;
    if (st < 0) {
        const char *msg = fmb_model_last_error(m);
        fprintf(stderr, "%s: error: %s\n", a->case_path,
                msg && *msg ? msg : fmb_status_message(st));
        code = EXIT_MODEL;
    }
    if (st >= 0) {
        printf("\nJacobian rank: %d\ndegrees of freedom: %d\nredundant constraints: %d\n",
               rep.jacobian_rank, rep.dof, rep.num_redundant);
        int shown = rep.num_redundant < 64 ? rep.num_redundant : 64;
        for (int k = 0; k < shown; k++) {
            int local = -1, row = rep.redundant_rows[k];
            int j = fmb_model_row_joint(m, row, &local);
            if (j >= 0)
                printf("  row %d: joint '%s' (%s) row %d\n", row, fmb_model_joint_name(m, j),
                       fmb_model_joint_type_name(m, j), local);
            else
                printf("  row %d\n", row);
        }
        if (rep.num_redundant > shown) printf("  ... and %d more\n", rep.num_redundant - shown);
        printf("max violation after assembly: %.3e\n", rep.max_violation);
    }
    if (st >= 0 && rep.num_redundant > 0) {
        fprintf(stderr, "%s: error: %d redundant constraint%s\n", a->case_path, rep.num_redundant,
                rep.num_redundant == 1 ? "" : "s");
        code = EXIT_MODEL;
    }
    if (code == EXIT_OK) {
        /* the consistent start: velocities the case gave that the joints do not allow */
        fmb_sim_t *sim = fmb_sim_create(fmb_case_model(c), fmb_case_options(c));
        if (sim && fmb_sim_initialize(sim) == 0) {
            if (report_start_velocities(stdout, fmb_case_model(c), sim) == 0)
                printf("initial velocities: every given velocity is consistent with the joints "
                       "(elastic coordinates start at rest relative to their carrier frames)\n");
            /* switching elements and their modes at the consistent start */
            const fmb_model_t *mm = fmb_case_model(c);
            for (int f = 0, first = 1; f < fmb_model_num_forces(mm); f++) {
                int mode = -1;
                double fo = 0, vr = 0;
                if (fmb_sim_switch_state(sim, f, &mode, &fo, &vr)) continue;
                if (first) printf("\nswitching elements (initial mode, force, relative velocity):\n");
                first = 0;
                const char *mn = fmb_model_force_mode_name(mm, f, mode);
                printf("  %-20s %-14s %-14s %12.6g %12.6g\n", fmb_model_force_name(mm, f),
                       fmb_model_force_type_name(mm, f), mn ? mn : "?", fo + 0.0, vr + 0.0);
            }
        } else if (sim) {
            fprintf(stderr, "%s: error: %s\n", a->case_path, fmb_sim_last_error(sim));
            code = EXIT_MODEL;
        }
        fmb_sim_destroy(&sim);
    }
    if (code == EXIT_OK) printf("OK\n");
    fmb_case_destroy(&c);
    return code;
}

/* ---------------------------------------------------------------- modes */

/* Mechanism modes: the constrained system linearized at t = 0 or after a run to --at T. */
static int cmd_mech_modes(const cli_args_t *a)
{
    fmb_case_t *c = load_case(a);
    if (!c) return EXIT_CASE;
    fmb_model_t *m = fmb_case_model(c);
    fmb_sim_options_t o = *fmb_case_options(c);
    const double at = a->at > 0 ? a->at : 0.0;
    o.t_end = at;
    int code = EXIT_OK, nmax = a->nmodes > 0 ? a->nmodes : 6;
    const int nb = fmb_model_num_bodies(m);
    double *shapes = NULL;
    double *om = malloc((size_t)nmax * sizeof *om);
    double *share = malloc((size_t)nmax * (size_t)nb * sizeof *share);
    fmb_sim_t *s = fmb_sim_create(m, &o);
    if (!om || !share || !s) {
        fprintf(stderr, "flexmb: out of memory\n");
        code = EXIT_MODEL;
        goto done;
    }
    int rc = fmb_sim_initialize(s);
    if (rc == 0 && at > 0) {
        install_handlers();
        rc = fmb_sim_run(s, NULL, NULL, &g_stop);
    }
    if (rc) {
        fprintf(stderr, "%s: error: %s\n", a->case_path, fmb_sim_last_error(s));
        code = rc == FMB_ERR_INTERRUPTED ? EXIT_INTERRUPTED : at > 0 ? EXIT_RUN : EXIT_MODEL;
        goto done;
    }
    double asym = 0.0;
    if (a->output &&
        !(shapes = malloc((size_t)nmax * (size_t)fmb_model_num_coords(m) * sizeof *shapes + 1))) {
        fprintf(stderr, "flexmb: out of memory\n");
        code = EXIT_MODEL;
        goto done;
    }
    int n = fmb_sim_modes(s, nmax, om, shapes, share, &asym);
    if (n < 0) {
        fprintf(stderr, "%s: error: %s\n", a->case_path, fmb_sim_last_error(s));
        code = EXIT_MODEL;
        goto done;
    }
    printf("case: %s\n", a->case_path);
    printf("mechanism modes at t = %.9g s: %d coordinates, %d constraint equations\n",
           fmb_sim_time(s), fmb_model_num_coords(m), fmb_model_num_constraints(m));
    printf("linearized with the velocities, accelerations and multipliers of that state "
           "frozen; stiffness asymmetry %.2g (docs/theory.md, \"Mechanism modes\")\n",
           asym);
    printf("  %4s %16s %14s   %s\n", "mode", "omega [rad/s]", "f [Hz]", "kinetic energy by body");
    for (int k = 0; k < n; k++) {
        printf("  %4d %16.8g %14.8g  ", k + 1, om[k], om[k] / (2 * 3.14159265358979323846));
        const double *sh = share + (size_t)nb * k;
        for (int shown = 0; shown < 3; shown++) { /* the three largest shares */
            int best = 0;
            for (int b = 1; b < nb; b++)
                if (sh[b] > sh[best]) best = b;
            if (best == 0 || sh[best] < 0.005) break;
            printf(" %s %.0f%%", fmb_model_body_name(m, best), 100 * sh[best]);
            share[(size_t)nb * k + best] = -1.0;
        }
        putchar('\n');
    }
    if (n < nmax) printf("(%d requested; the mechanism has %d degrees of freedom)\n", nmax, n);
    printf("(negative omega: a statically unstable direction, omega = -sqrt(-lambda))\n");
    if (a->output && n > 0) {
        char err[1024] = "";
        /* share was overwritten by the listing: recompute */
        fmb_sim_modes(s, nmax, om, shapes, share, NULL);
        if (fmb_sim_write_modes(s, a->output, n, om, shapes, share, 0.05, err, sizeof err) < 0) {
            fprintf(stderr, "%s: error: %s\n", a->case_path, err[0] ? err : "cannot write");
            code = EXIT_RUN;
        } else {
            printf("mode shapes: %s (record k = mode k; open the .xmf in ParaView)\n", a->output);
        }
    }
done:
    fmb_sim_destroy(&s);
    free(om), free(share), free(shapes);
    fmb_case_destroy(&c);
    return code;
}

static int cmd_modes(const cli_args_t *a)
{
    if (!a->arg2) return cmd_mech_modes(a);
    fmb_case_t *c = load_case(a);
    if (!c) return EXIT_CASE;
    fmb_model_t *m = fmb_case_model(c);
    int code = EXIT_OK;
    double *om = NULL;
    int b = fmb_model_find_body(m, a->arg2);
    if (b < 0) {
        fprintf(stderr, "%s: error: no body named '%s'", a->case_path, a->arg2);
        int nb = fmb_model_num_bodies(m), shown = 0;
        for (int k = 1; k < nb; k++)
            if (fmb_model_body_is_beam(m, k) > 0)
                fprintf(stderr, "%s'%s'", shown++ ? ", " : " (beams: ", fmb_model_body_name(m, k));
        fputs(shown ? ")\n" : " (the case has no beam body)\n", stderr);
        code = EXIT_CASE;
        goto done;
    }
    if (fmb_model_body_is_beam(m, b) <= 0) {
        fprintf(stderr, "%s: error: body '%s' is rigid: natural frequencies need a beam body\n",
                a->case_path, a->arg2);
        code = EXIT_MODEL;
        goto done;
    }
    int nmax = a->nmodes > 0 ? a->nmodes : 6;
    om = malloc((size_t)nmax * sizeof *om);
    if (!om) {
        fprintf(stderr, "flexmb: out of memory\n");
        code = EXIT_MODEL;
        goto done;
    }
    int n = fmb_model_beam_modes(m, b, om, nmax);
    if (n < 0) {
        const char *msg = fmb_model_last_error(m);
        fprintf(stderr, "%s: error: %s\n", a->case_path, msg && *msg ? msg : fmb_status_message(n));
        code = EXIT_MODEL;
        goto done;
    }
    int nn = fmb_model_beam_num_nodes(m, b);
    double len = fmb_model_beam_node_x(m, b, nn - 1) - fmb_model_beam_node_x(m, b, 0);
    printf("case: %s\n", a->case_path);
    printf("beam '%s': %d nodes, %d elements, length %.6g m, mass %.6g kg, %d elastic "
           "coordinates\n",
           fmb_model_body_name(m, b), nn, nn - 1, len, fmb_model_body_mass(m, b),
           fmb_model_body_ndof(m, b) - 3);
    printf("natural frequencies under the reference conditions (K phi = omega^2 M phi):\n");
    printf("  %4s %16s %14s\n", "mode", "omega [rad/s]", "f [Hz]");
    for (int k = 0; k < n; k++)
        printf("  %4d %16.8g %14.8g\n", k + 1, om[k], om[k] / (2 * 3.14159265358979323846));
    if (n < nmax) printf("(%d requested; the model has %d elastic coordinates)\n", nmax, n);
done:
    free(om);
    fmb_case_destroy(&c);
    return code;
}

/* ---------------------------------------------------------------- compare */

/* File name without directory and without .h5/.hdf5/.hdf. */
static void file_stem(const char *path, char *out, size_t len)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(out, len, "%s", base);
    static const char *const exts[] = {".h5", ".hdf5", ".hdf"};
    size_t n = strlen(out);
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        size_t e = strlen(exts[i]);
        if (n > e && strcmp(out + n - e, exts[i]) == 0) {
            out[n - e] = '\0';
            break;
        }
    }
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* scripts/NAME: $FMB_SCRIPTS/NAME, EXE_DIR/../scripts/NAME, EXE_DIR/../share/flexmb/
 * scripts/NAME, ./scripts/NAME (first found), written to out. Returns 0 or -1. */
static int find_script(const char *name, char *out, size_t len)
{
    const char *env = getenv("FMB_SCRIPTS");
    if (env && *env) {
        snprintf(out, len, "%s/%s", env, name);
        if (is_file(out)) return 0;
    }
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            static const char *const rel[] = {"../scripts", "../share/flexmb/scripts"};
            for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
                snprintf(out, len, "%s/%s/%s", exe, rel[i], name);
                if (is_file(out)) return 0;
            }
        }
    }
    /* never the current directory: a scripts/ folder there is not ours to run */
    out[0] = '\0';
    return -1;
}

/* Run PYTHON SCRIPT args... (args NULL-terminated); exit status, or -1. */
static int run_python(const char *python, char *const argv[])
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        /* The script's own messages would mix with the table: errors only. */
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) dup2(null, STDOUT_FILENO);
        execv(python, argv);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int cmd_compare(const cli_args_t *a)
{
    char prefix[2048], sa[512], sb[512];
    if (a->output) {
        snprintf(prefix, sizeof prefix, "%s", a->output);
    } else {
        file_stem(a->case_path, sa, sizeof sa);
        file_stem(a->arg2, sb, sizeof sb);
        snprintf(prefix, sizeof prefix, "%s_vs_%s", sa, sb);
    }
    size_t pl = strlen(prefix);
    if (pl > 4 && strcmp(prefix + pl - 4, ".csv") == 0)
        prefix[pl - 4] = '\0'; /* -o out.csv means the prefix out */
    char csv[2100], png[2100], err[1024] = "";
    snprintf(csv, sizeof csv, "%s.csv", prefix);
    snprintf(png, sizeof png, "%s.png", prefix);
    fmb_compare_summary_t sum;
    int st = fmb_compare_files(a->case_path, a->arg2, &a->cmp, csv, a->quiet ? NULL : stdout, &sum,
                               err, sizeof err);
    if (st < 0) {
        fprintf(stderr, "flexmb compare: error: %s\n", err[0] ? err : fmb_status_message(st));
        return st == FMB_ERR_HDF5 ? EXIT_CASE : st == FMB_ERR_NOTFOUND ? EXIT_MODEL : EXIT_RUN;
    }
    if (!a->quiet) {
        printf("\n%d quantities over %ld records of A\n", sum.nquantities, sum.ntimes);
        printf("largest relative difference per kind (max|A-B| / max(|A|, |B|)):\n");
        for (int k = 0; k < FMB_CMP_NKINDS; k++) {
            if (!sum.kind_rows[k]) continue;
            if (sum.kind_worst[k][0])
                printf("  %-11s %10.3e  %s\n", fmb_compare_kind_name(k), sum.kind_rel[k],
                       sum.kind_worst[k]);
            else
                printf("  %-11s %10s  (%d quantities, every difference below the noise floor)\n",
                       fmb_compare_kind_name(k), "0", sum.kind_rows[k]);
        }
        printf("csv: %s\n", csv);
    }
    /* The plot is optional: a missing python or script is a note, not an error. */
    const char *python = getenv("FMB_PYTHON");
    if (!python || !*python) python = "/usr/bin/python3";
    char script[4200];
    if (find_script("plot_compare.py", script, sizeof script) < 0) {
        fprintf(stderr, "flexmb compare: note: scripts/plot_compare.py not found (set "
                        "FMB_SCRIPTS to its directory): no plot, CSV only\n");
    } else if (access(python, X_OK) != 0) {
        fprintf(stderr,
                "flexmb compare: note: %s not found (set FMB_PYTHON): no plot, CSV "
                "only\n",
                python);
    } else {
        remove(png);
        char *argv[] = {(char *)python,
                        script,
                        csv,
                        (char *)a->case_path,
                        (char *)a->arg2,
                        png,
                        a->cmp.by ? "--by" : NULL,
                        (char *)a->cmp.by,
                        NULL};
        int rc = run_python(python, argv);
        if (rc == 0 && is_file(png)) {
            if (!a->quiet) printf("plot: %s\n", png);
        } else if (rc == 0) {
            if (!a->quiet) printf("plot: none (every difference is below the noise floor)\n");
        } else {
            fprintf(stderr, "flexmb compare: note: %s failed (exit %d): no plot, CSV only\n",
                    script, rc);
        }
    }
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "sweep") == 0) return fmb_cli_sweep(argc - 1, argv + 1);
    cli_args_t a;
    int code = parse_args(argc, argv, &a);
    if (code >= 0) return code;
    if (strcmp(a.command, "run") == 0) return cmd_run(&a);
    if (strcmp(a.command, "modes") == 0) return cmd_modes(&a);
    if (strcmp(a.command, "compare") == 0) return cmd_compare(&a);
    return cmd_check(&a);
}

/* flexmb run: signals, output paths, progress, the run summary. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "flexmb/periodic.h"
#include "flexmb/study.h"

/* ---------------------------------------------------------------- signals */

volatile int cli_stop;        /* polled by fmb_sim_run */
static volatile int g_signal; /* the signal that stopped the run */
/* The close: the results file is being completed and moved to its name (short); signals
 * are deferred, g_late_signal the one received then while the run had not been stopped. */
static volatile sig_atomic_t g_closing, g_late_signal;
/* Written by the handler (async-signal-safe write): where the results are. */
static char g_quit_msg[1400], g_close_msg[1400];
static size_t g_quit_len, g_close_len;

static void on_signal(int sig)
{
    if (g_closing) { /* defer: the file is complete in a moment */
        if (!cli_stop && !g_late_signal) g_late_signal = sig;
        if (g_close_len && write(STDERR_FILENO, g_close_msg, g_close_len) < 0) g_close_len = 0;
        return;
    }
    if (cli_stop) { /* a second signal while the run stops: quit now, saying where */
        if (g_quit_len && write(STDERR_FILENO, g_quit_msg, g_quit_len) < 0) g_quit_len = 0;
        signal(sig, SIG_DFL);
        raise(sig); /* delivered, with the default action, when the handler returns */
        return;
    }
    g_signal = sig;
    cli_stop = 1;
}

void cli_install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaddset(&sa.sa_mask, SIGHUP);
    /* A second signal while the run stops ends the process (on_signal), during the close it
     * waits for the close. */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL); /* a closed terminal stops the run like SIGTERM */
}

/* The handler's messages for the results file out (staged as DIR/.NAME.partial until the
 * close: docs/output.md, "Records and crash safety"). */
static void signal_messages(const char *out)
{
    const char *slash = strrchr(out, '/');
    const int dir = slash ? (int)(slash - out) + 1 : 0;
    int n = snprintf(g_quit_msg, sizeof g_quit_msg,
                     "flexmb: interrupted again: quitting now; the records committed so far are "
                     "in %.*s.%.600s.partial (not moved to %.600s)\n",
                     dir, out, out + dir, out);
    g_quit_len = n > 0 ? strlen(g_quit_msg) : 0;
    n = snprintf(g_close_msg, sizeof g_close_msg,
                 "flexmb: closing %.1200s, a moment: the results are saved first\n", out);
    g_close_len = n > 0 ? strlen(g_close_msg) : 0;
}

/* ---------------------------------------------------------------- helpers */

double cli_wall_seconds(void)
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

/* A message that quotes paths: long ones shortened, so that the cause stays visible. */
static void put_msg(char *msg, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fmb_vformat(msg, len, fmt, ap);
    va_end(ap);
}

/* Did flexmb write the existing file at path, as an output of this kind? */
static int written_by_flexmb(const char *path, int kind)
{
    if (kind == CLI_OUT_RESULTS || kind == CLI_OUT_SUMMARY_H5)
        return fmb_results_file_kind(path) == 1;
    char head[256] = "";
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(head, 1, sizeof head - 1, f) : 0;
    if (f) fclose(f);
    head[n] = '\0';
    switch (kind) {
    case CLI_OUT_XDMF: /* a sidecar flexmb wrote: XDMF that points into the results file */
        return strstr(head, "<Xdmf") != NULL;
    case CLI_OUT_SUMMARY_CSV:
        return strncmp(head, "run,file", 8) == 0;
    default: /* a sweep's run log: empty, or opened by the sweep's own first line */
        return n == 0 || strncmp(head, CLI_SWEEP_LOG_HEAD, strlen(CLI_SWEEP_LOG_HEAD)) == 0;
    }
}

int cli_output_refused(const fmb_case_t *c, const char *path, int kind, int force, char *msg,
                       size_t len)
{
    static const char *const what[] = {"results file", "XDMF sidecar", "sweep summary",
                                       "sweep summary", "sweep run log"};
    struct stat st;
    for (int k = 0; k < fmb_case_num_inputs(c); k++)
        if (same_file(path, fmb_case_input(c, k))) {
            if (k == 0)
                put_msg(msg, len, "output %s is the case file: refusing to overwrite an input",
                        path);
            else
                put_msg(msg, len,
                        "output %s is %s, a file the case reads: refusing to overwrite an "
                        "input",
                        path, fmb_case_input(c, k));
            return 1;
        }
    if (stat(path, &st) != 0) return 0;
    if (S_ISDIR(st.st_mode)) return put_msg(msg, len, "output %s is a directory", path), 1;
    if (!S_ISREG(st.st_mode)) /* a FIFO or a device: never replaced, nor opened to be tested */
        return put_msg(msg, len, "output %s is not a regular file", path), 1;
    if (force || written_by_flexmb(path, kind)) return 0;
    put_msg(msg, len, "%s exists and is not a flexmb %s: not replaced (use --force to replace it)",
            path, what[kind]);
    return 1;
}

/* Refuse output paths that would destroy input or other files (docs/output.md, "Output
 * safety"): the results or the sidecar being an input of the case, a directory, or an
 * existing file that is not a previous flexmb result (unless --force). 0 or a message. */
static int output_unsafe(const fmb_case_t *c, const char *out, const char *xmf, int force,
                         char *msg, size_t len)
{
    return cli_output_refused(c, out, CLI_OUT_RESULTS, force, msg, len) ||
           cli_output_refused(c, xmf, CLI_OUT_XDMF, force, msg, len);
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
char *cli_xmf_path(const char *h5)
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

/* The run's warnings, one per line: printed on stderr and kept in the results file
 * (/solver/statistics@warnings) for the summaries. */
typedef struct warn_list {
    char text[8192];
    int n;
} warn_list_t;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
add_warning(warn_list_t *w, const char *fmt, ...)
{
    if (!w) return;
    const size_t used = strlen(w->text);
    if (used + 2 >= sizeof w->text) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->text + used, sizeof w->text - used - 1, fmt, ap);
    va_end(ap);
    strcat(w->text, "\n");
    w->n++;
}

static double summary_metric(const fmb_run_summary_t *s, const char *name)
{
    for (int k = 0; k < s->nmetrics; k++)
        if (!strcmp(s->names[k], name)) return s->values[k];
    return NAN;
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
    /* peak combined stress per beam body (Pa), its time and node; scratch 3 per node */
    double *beam_smax, *beam_stime, *beam_sbuf;
    int *beam_snode;
    /* energy balance over the records: E = T + V - W at the first record, the largest
     * |E - E0| and its time, the largest |T|, |V|, |W| */
    double e0, edrift, edrift_t, escale;
    int erecs;
} run_ctx_t;

/* Largest drift of the energy balance T + V - W (W: the work of drivers, applied forces,
 * spring-dampers, beam damping and friction) over the largest energy of the run above
 * which a run warns (docs/theory.md "Energy balance check"). */
#define ENERGY_DRIFT_LIMIT 1e-2

static void track_energy(run_ctx_t *r, const fmb_sim_t *sim)
{
    double e[FMB_ENERGY_COLUMNS]; /* the row the writer computed for /energy */
    if (fmb_writer_last_energy(r->writer, e)) return;
    if (r->erecs++ == 0) r->e0 = e[3];
    const double d = fabs(e[3] - r->e0);
    if (d > r->edrift) r->edrift = d, r->edrift_t = fmb_sim_time(sim);
    for (int c = 0; c < 3; c++)
        r->escale = fmax(r->escale, fabs(e[c]));
}

/* A warning when the energy balance drifts by more than ENERGY_DRIFT_LIMIT of the largest
 * energy: energy the integrator made or lost (numerical damping, a step too large for the
 * motion, an impact), not work of a modelled force. */
static void report_energy(const run_ctx_t *r, const fmb_sim_t *sim, warn_list_t *wl)
{
    if (r->erecs < 2 || !(r->escale > 0)) return;
    const double ratio = r->edrift / r->escale;
    if (!(ratio > ENERGY_DRIFT_LIMIT)) return;
    const fmb_sim_options_t *o = fmb_sim_options(sim);
    if (o && o->adaptive)
        add_warning(wl,
                    "the energy balance T + V - W drifted by %.3g J, %.3g of the largest energy "
                    "(limit %g), largest at t = %g s: energy the integrator made or lost; the "
                    "results may be inaccurate; a tighter tolerance (rtol_step %g, atol_step %g) "
                    "or less numerical damping (alpha, rho_inf) keeps it",
                    r->edrift, ratio, ENERGY_DRIFT_LIMIT, r->edrift_t, 0.1 * o->rtol_step,
                    0.1 * o->atol_step);
    else
        add_warning(wl,
                    "the energy balance T + V - W drifted by %.3g J, %.3g of the largest energy "
                    "(limit %g), largest at t = %g s: energy the integrator made or lost; the "
                    "results may be inaccurate; h = %.2g s keeps it (a first-order drift "
                    "shrinks with h), or less numerical damping (alpha, gamma, rho_inf)",
                    r->edrift, ratio, ENERGY_DRIFT_LIMIT, r->edrift_t,
                    o ? 0.8 * o->h * ENERGY_DRIFT_LIMIT / ratio : 0.0);
}

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
        fmb_beam_props_t bp;
        if (fmb_model_beam_props(m, b, &bp) || !(bp.c > 0)) continue;
        fmb_sim_beam_stress(sim, b, NULL, NULL, r->beam_sbuf);
        for (int k = 0; k < nn; k++)
            if (r->beam_sbuf[3 * k + 2] > r->beam_smax[b]) {
                r->beam_smax[b] = r->beam_sbuf[3 * k + 2];
                r->beam_stime[b] = fmb_sim_time(sim);
                r->beam_snode[b] = k;
            }
    }
}

/* Peak stress of every beam with a known section and its share of the yield stress
 * (printed unless quiet); a warning when it exceeds the yield stress. */
static void report_stress(const run_ctx_t *r, const fmb_model_t *m, int quiet, warn_list_t *wl)
{
    if (!r->beam_smax) return;
    for (int b = 1; b < fmb_model_num_bodies(m); b++) {
        fmb_beam_props_t bp;
        if (fmb_model_beam_props(m, b, &bp) || !(bp.c > 0)) continue;
        const double y = bp.yield_stress;
        const int k = r->beam_snode[b];
        const double x = fmb_model_beam_node_x(m, b, k), s = r->beam_smax[b];
        if (!quiet) {
            printf("  beam %-14s peak stress %.4g MPa (t = %g s, node %d at x = %g m)",
                   fmb_model_body_name(m, b), s / 1e6, r->beam_stime[b], k, x);
            if (y > 0)
                printf(", %.0f %% of yield %.4g MPa\n", 100 * s / y, y / 1e6);
            else
                printf(", no yield given\n");
        }
        if (y > 0 && s > y)
            add_warning(wl,
                        "beam '%s' exceeds its yield stress: %.4g MPa at t = %g s, node %d (x = "
                        "%g m), %.2f times the yield %.4g MPa; the linear-elastic results beyond "
                        "it are not valid",
                        fmb_model_body_name(m, b), s / 1e6, r->beam_stime[b], k, x, s / y, y / 1e6);
    }
}

/* Largest deflection of every beam (printed unless quiet); a warning beyond the linear
 * beam model's range. */
static void report_beams(const run_ctx_t *r, const fmb_model_t *m, int quiet, warn_list_t *wl)
{
    if (!r->beam_vmax) return;
    for (int b = 1; b < fmb_model_num_bodies(m); b++) {
        if (!fmb_model_body_is_beam(m, b)) continue;
        const int nn = fmb_model_beam_num_nodes(m, b);
        const double len = fmb_model_beam_node_x(m, b, nn - 1) - fmb_model_beam_node_x(m, b, 0);
        const double ratio = r->beam_vmax[b] / len;
        if (!quiet)
            printf("  beam %-14s max transverse deflection at the nodes %.4g m (%.2f %% of its "
                   "length; between nodes it can be larger: scripts/plot_quick_return.py "
                   "samples the Hermite curve)\n",
                   fmb_model_body_name(m, b), r->beam_vmax[b], 100 * ratio);
        if (ratio > FMB_BEAM_LINEAR_RANGE && fmb_model_beam_geometry(m, b) == FMB_BEAM_LINEAR)
            add_warning(wl,
                        "beam '%s' deflects %.1f %% of its length: beyond the small-deflection "
                        "range (%.0f %%) of the linear beam model; treat the results as "
                        "qualitative or use 'geometry: nonlinear'",
                        fmb_model_body_name(m, b), 100 * ratio, 100 * FMB_BEAM_LINEAR_RANGE);
    }
}

/* The peak joint forces and drive torques / forces of the run (the summary's metrics
 * reaction_max.*, drive_torque_max.*, drive_force_max.*), one line each. */
static void report_joints(const fmb_run_summary_t *s)
{
    static const char *const kinds[][4] = {{"drive_torque_max.", "drive torque", "N m", "T"},
                                           {"drive_force_max.", "drive force", "N", "F"},
                                           {"reaction_max.", "joint forces", "N", "F"}};
    for (int k = 0; k < 3; k++) {
        const size_t pl = strlen(kinds[k][0]);
        int first = 1;
        for (int i = 0; i < s->nmetrics; i++) {
            if (strncmp(s->names[i], kinds[k][0], pl) || s->values[i] != s->values[i]) continue;
            if (first) printf("  %-19s peak |%s|:", kinds[k][1], kinds[k][3]);
            printf("%s %s %.4g %s", first ? "" : ",", s->names[i] + pl, s->values[i], kinds[k][2]);
            first = 0;
        }
        if (!first) printf("\n");
    }
}

/* The validity line of `run --quiet` (and the validity lines of the full summary): error
 * ratio, energy drift, each beam's deflection against its model's range and stress against
 * yield, the peaks on the window's edge, the number of warnings. */
static void report_validity(const char *case_path, const char *status, const fmb_model_t *m,
                            const fmb_run_summary_t *s, int nwarn, int quiet)
{
    char line[4096];
    size_t n = 0;
#define ADD(...)                                                                                   \
    do {                                                                                           \
        if (n < sizeof line) n += (size_t)snprintf(line + n, sizeof line - n, __VA_ARGS__);        \
    } while (0)
    const double er = summary_metric(s, "error_ratio"), ed = summary_metric(s, "energy_drift");
    const double edr = summary_metric(s, "energy_drift_ratio");
    if (er == er) ADD("error ratio %.3g", er);
    if (edr == edr)
        ADD("%senergy drift %.3g of the largest energy (%.3g J)", n ? "; " : "", edr, ed);
    for (int b = 1; b < fmb_model_num_bodies(m); b++) {
        if (fmb_model_body_is_beam(m, b) <= 0) continue;
        char key[300];
        const char *bn = fmb_model_body_name(m, b);
        snprintf(key, sizeof key, "deflection_ratio.%s", bn);
        const double dr = summary_metric(s, key);
        const int lin = fmb_model_beam_geometry(m, b) == FMB_BEAM_LINEAR;
        if (dr == dr && lin)
            ADD("%sbeam %s deflection %.3g %% of its length (linear beam: range %.0f %%)",
                n ? "; " : "", bn, 100 * dr, 100 * FMB_BEAM_LINEAR_RANGE);
        else if (dr == dr)
            ADD("%sbeam %s deflection %.3g %% of its length (nonlinear beam: large "
                "deflections)",
                n ? "; " : "", bn, 100 * dr);
        snprintf(key, sizeof key, "stress_yield_ratio.%s", bn);
        const double yr = summary_metric(s, key);
        if (yr == yr) ADD(", stress %.3g %% of yield", 100 * yr);
    }
    if (s->edge_peaks && s->edge_peaks[0])
        ADD("%speaks on the window's edge: %s", n ? "; " : "", s->edge_peaks);
    ADD("%s%d warning%s", n ? "; " : "", nwarn, nwarn == 1 ? "" : "s");
#undef ADD
    if (quiet)
        printf("%s: %s; %s\n", case_path, status, line);
    else
        printf("  validity            %s\n", line);
}

static void draw_progress(run_ctx_t *r, const fmb_sim_t *sim, int final)
{
    double now = cli_wall_seconds();
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
    track_energy(r, sim);
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
int cli_report_start_velocities(FILE *f, const fmb_model_t *m, const fmb_sim_t *sim)
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

int cli_cmd_run(const cli_args_t *a)
{
    int code = EXIT_OK;
    char *out = NULL, *xmf = NULL;
    fmb_sim_t *sim = NULL;
    fmb_writer_t *writer = NULL;
    fmb_periodic_t *per = NULL;
    fmb_case_t *c = cli_load_case(a);
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
    if (!a->quiet) cli_report_start_velocities(stderr, model, sim);
    if (a->periodic) { /* flexmb periodic: the orbit first (periodic.c) */
        cli_install_handlers();
        if ((code = cli_periodic_solve(a, sim, &per)) != EXIT_OK) goto done;
    }
    if (a->output)
        out = str_dup(a->output);
    else if (fmb_case_output(c) && *fmb_case_output(c))
        out = str_dup(fmb_case_output(c));
    else
        out = default_output(a->case_path);
    xmf = out ? cli_xmf_path(out) : NULL;
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
        const double nrec =
            o->output_dt > 0
                ? ceil((o->t_end - fmb_sim_time(sim)) / o->output_dt * (1.0 - 1e-12)) + 2
                : floor(steps / (o->output_every > 0 ? o->output_every : 1)) + 2;
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
    r.start = cli_wall_seconds();
    {
        int nb = fmb_model_num_bodies(model), maxn = 0;
        for (int b = 1; b < nb; b++)
            if (fmb_model_body_is_beam(model, b) && fmb_model_beam_num_nodes(model, b) > maxn)
                maxn = fmb_model_beam_num_nodes(model, b);
        if (maxn > 0) {
            r.beam_vmax = calloc((size_t)nb, sizeof *r.beam_vmax);
            r.beam_buf = calloc((size_t)maxn, sizeof *r.beam_buf);
            r.beam_smax = calloc((size_t)nb, sizeof *r.beam_smax);
            r.beam_stime = calloc((size_t)nb, sizeof *r.beam_stime);
            r.beam_sbuf = calloc(3 * (size_t)maxn, sizeof *r.beam_sbuf);
            r.beam_snode = calloc((size_t)nb, sizeof *r.beam_snode);
            if (!r.beam_vmax || !r.beam_buf || !r.beam_smax || !r.beam_stime || !r.beam_sbuf ||
                !r.beam_snode) {
                free(r.beam_vmax), free(r.beam_buf), free(r.beam_smax), free(r.beam_stime);
                free(r.beam_sbuf), free(r.beam_snode);
                r.beam_vmax = r.beam_buf = r.beam_smax = r.beam_stime = r.beam_sbuf = NULL;
                r.beam_snode = NULL;
            }
        }
    }

    signal_messages(out);
    cli_install_handlers();
    int st = fmb_sim_run(sim, observer, &r, &cli_stop);
    g_closing = 1; /* from here to the close, a signal waits (on_signal) */
    /* stopped (signal or failure) between records: keep the last completed step too */
    if (!r.writer_failed && fmb_sim_time(sim) > r.last_t) observer(sim, &r);
    double wall = cli_wall_seconds() - r.start;
    if (r.progress && r.drawn) {
        draw_progress(&r, sim, 1);
        fputc('\n', stderr);
    }

    if (per && !r.writer_failed && cli_periodic_write(a, writer, per, sim, out) < 0)
        r.writer_failed = FMB_ERR_HDF5;
    /* Close the file before reporting: it then holds every completed step. */
    char werr[600] = "";
    if (r.writer_failed) snprintf(werr, sizeof werr, "%s", fmb_writer_last_error(writer));
    long records = fmb_writer_records(writer);
    const char *status = cli_stop                      ? "interrupted"
                         : (st < 0 || r.writer_failed) ? "failed"
                                                       : "complete";
    /* The buffered records first: a run is marked complete only once all of them are in
     * the file (a final batch refused for want of disk left complete = 1 before). */
    int flush_st = r.writer_failed ? 0 : fmb_writer_flush(writer);
    if (flush_st >= 0 && !r.writer_failed)
        flush_st = fmb_writer_statistics(writer, sim, wall, status);
    /* the warnings, kept in the file with the run's validity metrics */
    static warn_list_t wl;
    memset(&wl, 0, sizeof wl);
    {
        char wmsg[1024];
        if (st >= 0 && fmb_sim_step_warning(sim, wmsg, sizeof wmsg)) /* a failure says it */
            add_warning(&wl, "%s", wmsg);
    }
    if (st >= 0) report_energy(&r, sim, &wl);
    {
        char pmsg[512];
        if (per && cli_periodic_warning(per, pmsg, sizeof pmsg)) add_warning(&wl, "%s", pmsg);
    }
    report_beams(&r, model, 1, &wl);
    report_stress(&r, model, 1, &wl);
    fmb_run_summary_t sum;
    memset(&sum, 0, sizeof sum);
    if (flush_st >= 0 && !r.writer_failed)
        flush_st = fmb_writer_validity(writer, NULL, wl.text, &sum);
    if (flush_st < 0 && !werr[0]) snprintf(werr, sizeof werr, "%s", fmb_writer_last_error(writer));
    fmb_writer_destroy(&writer);
    /* the file is complete under its name: what is left is the summary (a few lines), which
     * a second signal must not cut short (the exit status says that the run was stopped) */
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    g_closing = 0;

    if (g_late_signal) { /* the run had ended: its file is as it would be without it */
        fprintf(stderr, "%s: signal %d while closing %s: the file was closed first\n", a->case_path,
                (int)g_late_signal, out);
        code = 128 + (int)g_late_signal;
    }
    if (cli_stop) {
        fprintf(stderr, "%s: interrupted by signal %d at t = %g s; the records so far are in %s\n",
                a->case_path, (int)g_signal, fmb_sim_time(sim), out);
        code = 128 + (g_signal ? (int)g_signal : SIGINT);
    } else if (r.writer_failed || flush_st < 0) {
        fprintf(stderr, "%s: error: %s\n", a->case_path,
                werr[0] ? werr : fmb_status_message(r.writer_failed ? r.writer_failed : flush_st));
        code = EXIT_RUN;
    } else if (st < 0) {
        print_sim_error(a->case_path, sim, st);
        code = st == FMB_ERR_INTERRUPTED ? EXIT_INTERRUPTED : EXIT_RUN;
    }

    for (const char *w = a->no_warnings ? "" : wl.text; *w;) {
        const size_t n = strcspn(w, "\n");
        fprintf(stderr, "%s: warning: %.*s\n", a->case_path, (int)n, w);
        w += n + (w[n] == '\n');
    }
    if (!a->quiet) {
        fmb_sim_stats_t s;
        fmb_sim_get_stats(sim, &s);
        char ws[32];
        format_duration(wall, ws, sizeof ws);
        printf("%s: %s\n", a->case_path, code == EXIT_OK ? "done" : "stopped");
        if (o && !o->adaptive && code == EXIT_OK) { /* a stopped run did not reach t_end */
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
                   "estimate, %ld by elements, %ld restarts\n",
                   o->adaptive ? "adaptive" : "fixed", s.h_min_used, s.h_max_used, s.rejected_error,
                   s.rejected_event, s.restarts);
            printf("  error estimate      %.3g of the tolerance accumulated over the run (the "
                   "warning's criterion); a step's ratio %.3g of the tolerance at most "
                   "(rtol_step %g, atol_step %g; t = %g s, %s)\n",
                   s.error_sum, s.max_error, o->rtol_step, o->atol_step, s.max_error_time,
                   where[0] ? where : "-");
            if (s.jump_steps > 0) {
                /* steps accepted above the ratio as acceleration jumps: their error is made
                 * once (docs/theory.md "Local error estimate and step control") */
                fmb_sim_coord_name(sim, s.jump_coord, where, sizeof where);
                printf("  jump rule           %ld steps accepted above the ratio as acceleration "
                       "jumps: one-time error r h / t_span %.3g of the tolerance at most (ratio "
                       "r %.3g; t = %g s, %s)\n",
                       s.jump_steps, s.jump_error, s.jump_ratio, s.jump_time,
                       where[0] ? where : "-");
            }
        }
        printf("  wall time           %.3f s (%s, %.0f steps/s)\n", wall, ws,
               wall > 0 ? (double)s.steps / wall : 0.0);
        printf("  output              %s\n", out);
        if (!a->no_viz && opts.viz_frames > 0) printf("  ParaView            %s\n", xmf);
    }
    if (!a->quiet && per) cli_periodic_report(per);
    if (!a->quiet) {
        report_beams(&r, model, 0, NULL);
        report_stress(&r, model, 0, NULL);
        if (sum.exists) report_joints(&sum);
    }
    if (sum.exists && !a->no_warnings)
        report_validity(a->case_path, status, model, &sum, wl.n, a->quiet);
    fmb_run_summary_free(&sum);
    free(r.beam_vmax);
    free(r.beam_buf);
    free(r.beam_smax), free(r.beam_stime), free(r.beam_sbuf), free(r.beam_snode);

done:
    fmb_writer_destroy(&writer);
    fmb_periodic_destroy(&per);
    fmb_sim_destroy(&sim);
    fmb_case_destroy(&c);
    free(out);
    free(xmf);
    return code;
}

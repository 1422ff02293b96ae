/* `flexmb sweep`: the summary of a sweep (docs/sweep.md, "Summary columns"): DIR/summary.csv
 * and DIR/summary.h5, one row per run, rewritten whole (temporary name, then renamed) at
 * the start and whenever a run ends, and the progress line of each finished run. */
#include "sweep.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flexmb/flexmb.h"

static const char *const state_name[] = {"pending", "running", "complete", "failed",
                                         "interrupted"};

/* Metric names of every run, in run order (then each run's own order): the columns. */
static int metric_columns(const sweep_t *s, char ***out)
{
    char **cols = NULL;
    int n = 0;
    for (int k = 0; k < s->nruns; k++)
        for (int m = 0; m < s->run[k].sum.nmetrics; m++) {
            const char *name = s->run[k].sum.names[m];
            int seen = 0;
            for (int c = 0; c < n && !seen; c++)
                seen = !strcmp(cols[c], name);
            if (seen) continue;
            char **nc = realloc(cols, (size_t)(n + 1) * sizeof *nc);
            if (!nc) break;
            cols = nc;
            cols[n++] = (char *)name;
        }
    *out = cols;
    return n;
}

static double metric(const sweep_run_t *r, const char *name)
{
    for (int m = 0; m < r->sum.nmetrics; m++)
        if (!strcmp(r->sum.names[m], name)) return r->sum.values[m];
    return NAN;
}

static void csv_text(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv_num(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, ",%.17g", v);
    else fputc(',', f);
}

static int write_csv(const sweep_t *s, char **mcols, int nm, const char *path)
{
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path); /* a new file: never one of the user's */
    int fd = mkstemp(tmp);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0) close(fd), remove(tmp);
        return -1;
    }
    fchmod(fd, 0644);
    fputs("run,file", f);
    for (int p = 0; p < s->spec.nparams; p++)
        fprintf(f, ",%s", s->spec.params[p].name);
    fputs(",status,message,steps,newton_iterations,wall_time,t_final", f);
    for (int c = 0; c < nm; c++)
        fprintf(f, ",%s", mcols[c]);
    fputc('\n', f);
    for (int k = 0; k < s->nruns; k++) {
        const sweep_run_t *r = &s->run[k];
        fprintf(f, "%d,%s.h5", k, s->stem[k]);
        for (int p = 0; p < s->spec.nparams; p++)
            fprintf(f, ",%s", sweep_value(s, k, p));
        fprintf(f, ",%s,", state_name[r->state]);
        csv_text(f, r->message);
        csv_num(f, r->sum.steps >= 0 ? (double)r->sum.steps : NAN);
        csv_num(f, r->sum.newton >= 0 ? (double)r->sum.newton : NAN);
        csv_num(f, r->wall);
        csv_num(f, r->sum.t_final);
        for (int c = 0; c < nm; c++)
            csv_num(f, metric(r, mcols[c]));
        fputc('\n', f);
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        remove(tmp);
        return -1;
    }
    return 0;
}

static int write_h5(const sweep_t *s, char **mcols, int nm, const char *path, char *err,
                    size_t len)
{
    const int n = s->nruns, np = s->spec.nparams, ncols = 8 + np + nm;
    fmb_table_col_t *c = calloc((size_t)ncols, sizeof *c);
    long *ints = calloc((size_t)n * 3 + 1, sizeof *ints);
    double *real = calloc((size_t)n * (size_t)(np + nm + 2) + 1, sizeof *real);
    const char **text = calloc((size_t)n * (size_t)(np + 3) + 1, sizeof *text);
    int st = -1, q = 0;
    if (!c || !ints || !real || !text) goto done;
    long *run = ints, *steps = ints + n, *newton = ints + 2 * n;
    const char **file = text, **status = text + n, **msg = text + 2 * n;
    for (int k = 0; k < n; k++) {
        run[k] = k;
        steps[k] = s->run[k].sum.steps;
        newton[k] = s->run[k].sum.newton;
        file[k] = s->stem[k];
        status[k] = state_name[s->run[k].state];
        msg[k] = s->run[k].message;
    }
    c[q++] = (fmb_table_col_t){"run", "", "", FMB_COL_INT, NULL, run, NULL};
    c[q++] = (fmb_table_col_t){"file", "", "", FMB_COL_TEXT, NULL, NULL, file};
    for (int p = 0; p < np; p++) {
        const sweep_param_t *pp = &s->spec.params[p];
        double *v = real + (size_t)n * (size_t)p;
        const char **t = text + (size_t)n * (size_t)(3 + p);
        for (int k = 0; k < n; k++) {
            v[k] = pp->num[s->vi[k * np + p]];
            t[k] = sweep_value(s, k, p);
        }
        c[q++] = (fmb_table_col_t){pp->name, "parameters", "", pp->numeric ? FMB_COL_REAL
                                                                           : FMB_COL_TEXT,
                                   v, NULL, t};
    }
    c[q++] = (fmb_table_col_t){"status", "", "", FMB_COL_TEXT, NULL, NULL, status};
    c[q++] = (fmb_table_col_t){"message", "", "", FMB_COL_TEXT, NULL, NULL, msg};
    c[q++] = (fmb_table_col_t){"steps", "", "", FMB_COL_INT, NULL, steps, NULL};
    c[q++] = (fmb_table_col_t){"newton_iterations", "", "", FMB_COL_INT, NULL, newton, NULL};
    double *wall = real + (size_t)n * (size_t)(np + nm), *tf = wall + n;
    for (int k = 0; k < n; k++) {
        wall[k] = s->run[k].wall;
        tf[k] = s->run[k].sum.t_final;
    }
    c[q++] = (fmb_table_col_t){"wall_time", "", "s", FMB_COL_REAL, wall, NULL, NULL};
    c[q++] = (fmb_table_col_t){"t_final", "", "s", FMB_COL_REAL, tf, NULL, NULL};
    for (int m = 0; m < nm; m++) {
        double *v = real + (size_t)n * (size_t)(np + m);
        for (int k = 0; k < n; k++)
            v[k] = metric(&s->run[k], mcols[m]);
        const char *u = !strncmp(mcols[m], "deflection_max_angle", 20)  ? "deg"
                        : !strncmp(mcols[m], "deflection_max_time", 19) ? "s"
                        : !strncmp(mcols[m], "deflection", 10)          ? "m"
                        : !strncmp(mcols[m], "energy", 6)               ? "J"
                        : !strncmp(mcols[m], "drive_torque", 12)        ? "N m"
                        : !strncmp(mcols[m], "contact_fraction", 16) ||
                                !strncmp(mcols[m], "impacts", 7) ||
                                !strncmp(mcols[m], "mode_changes", 12)
                            ? "1"
                            : "N";
        c[q++] = (fmb_table_col_t){mcols[m], "metrics", u, FMB_COL_REAL, v, NULL, NULL};
    }
    char names[2048] = ""; /* the varied parameters in the study's order */
    for (int p = 0; p < np; p++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", p ? "," : "",
                 s->spec.params[p].name);
    const char *an[] = {"case", "mode", "crank", "parameters"};
    const char *av[] = {s->spec.case_path, s->spec.zip ? "zip" : "grid",
                        s->spec.crank ? s->spec.crank : "", names};
    st = fmb_table_write_h5(path, c, q, n, an, av, 4, s->ndone == s->nruns, err, len);
done:
    free(c), free(ints), free(real), free(text);
    return st;
}

void sweep_write_summary(const sweep_t *s)
{
    char **mcols = NULL, csv[4200], h5[4200], err[600] = "";
    int nm = metric_columns(s, &mcols);
    snprintf(csv, sizeof csv, "%s/summary.csv", s->spec.outdir);
    snprintf(h5, sizeof h5, "%s/summary.h5", s->spec.outdir);
    if (write_csv(s, mcols, nm, csv) < 0)
        fprintf(stderr, "flexmb sweep: warning: cannot write %s: %s\n", csv, strerror(errno));
    if (write_h5(s, mcols, nm, h5, err, sizeof err) < 0)
        fprintf(stderr, "flexmb sweep: warning: %s\n", err[0] ? err : "cannot write summary.h5");
    free(mcols);
}

static void duration(double sec, char *out, size_t len)
{
    if (!(sec >= 0) || sec > 359999) snprintf(out, len, "--:--");
    else if (sec >= 3600) snprintf(out, len, "%d:%02d:%02d", (int)sec / 3600, (int)sec / 60 % 60,
                                   (int)sec % 60);
    else snprintf(out, len, "%d:%02d", (int)sec / 60, (int)sec % 60);
}

void sweep_mark_running(sweep_t *s, int k)
{
    s->run[k].state = RUN_RUNNING;
    s->nrunning++;
}

void sweep_record(sweep_t *s, int k, sweep_run_t *r)
{
    sweep_run_t *dst = &s->run[k];
    if (dst->state == RUN_RUNNING) s->nrunning--;
    fmb_run_summary_free(&dst->sum);
    *dst = *r;
    memset(&r->sum, 0, sizeof r->sum); /* moved */
    s->ndone++;
    s->nfailed += dst->state == RUN_FAILED;
    s->ninterrupted += dst->state == RUN_INTERRUPTED;
    if (dst->executed) {
        s->nexecuted++;
        s->exec_wall += isfinite(dst->wall) ? dst->wall : 0.0;
    }
    sweep_write_summary(s);
    if (s->spec.quiet) return;
    /* ETA: the runs left at the pace of the runs executed so far */
    double el = sweep_now() - s->t_start, eta = -1;
    if (s->nexecuted > 0) eta = el / s->nexecuted * (s->nruns - s->ndone);
    if (s->ndone == s->nruns) eta = 0;
    char es[32], ets[32];
    duration(el, es, sizeof es);
    duration(eta, ets, sizeof ets);
    char intr[48] = "";
    if (s->ninterrupted) snprintf(intr, sizeof intr, ", %d interrupted", s->ninterrupted);
    fprintf(stderr, "[%d/%d done, %d running, %d failed%s, %s, ETA %s] %s: %s%s%s\n", s->ndone,
            s->nruns, s->nrunning, s->nfailed, intr, es, ets, s->stem[k],
            state_name[dst->state], dst->message[0] ? ": " : "", dst->message);
}

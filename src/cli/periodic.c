/* `flexmb periodic`: the periodic steady state of a driven mechanism, written like a run
 * (run.c does the writing; the shooting, /periodic and the continuation are here).
 * docs/case-format.md "flexmb periodic", docs/theory.md section 13. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "flexmb/periodic.h"
#include "flexmb/study.h"

static double g_t0; /* the solve's start (progress lines) */

static void progress(int it, double res, void *user)
{
    const cli_args_t *a = user;
    if (!a->quiet)
        fprintf(stderr, "periodic: iteration %d  residual %.3e  (%.2f s)\n", it, res,
                cli_wall_seconds() - g_t0);
}

/* Unstable: a multiplier above 1 by more than this (the converged orbit's multipliers are
 * accurate to about the residual tolerance; a conservative system's lie on |mu| = 1 or,
 * with the integrator's dissipation, just inside) */
#define CLI_UNSTABLE 1e-6

int cli_periodic_solve(const cli_args_t *a, fmb_sim_t *sim, fmb_periodic_t **out)
{
    *out = NULL;
    fmb_periodic_t *p = fmb_periodic_create(sim);
    if (!p) {
        fprintf(stderr, "%s: error: %s\n", a->case_path, fmb_sim_last_error(sim));
        return EXIT_MODEL;
    }
    const int n = fmb_model_num_coords(fmb_sim_model(sim));
    if (a->pc && a->pc->guess && a->pc->nguess == n) {
        /* continuation: the previous orbit, extrapolated along the secant through the two
         * before (the driven speeds and the elastic state move with the parameter); the
         * step along it at most twice the last one */
        const cli_periodic_t *q = a->pc;
        double *x = malloc(4 * (size_t)n * sizeof *x);
        if (x && q->prev && q->v_guess != q->v_prev) {
            double f = (q->target - q->v_guess) / (q->v_guess - q->v_prev);
            f = fmax(-2.0, fmin(2.0, f));
            for (int i = 0; i < 4 * n; i++)
                x[i] = q->guess[i] + f * (q->guess[i] - q->prev[i]);
            fmb_periodic_set_guess(p, x);
        } else {
            fmb_periodic_set_guess(p, q->guess);
        }
        free(x);
    }
    fmb_periodic_options_t o;
    fmb_periodic_options_default(&o);
    o.period = a->period;
    if (a->ptol > 0) o.tol = a->ptol;
    if (a->pmaxit > 0) o.max_iter = a->pmaxit;
    o.method = a->pmethod == 1   ? FMB_PERIODIC_DENSE
               : a->pmethod == 2 ? FMB_PERIODIC_SUBSPACE
                                 : FMB_PERIODIC_AUTO;
    o.floquet = a->pfloquet;
    o.progress = progress;
    o.user = (void *)a;
    o.stop = &cli_stop;
    const double t0 = cli_wall_seconds();
    g_t0 = t0;
    int rc = fmb_periodic_solve(p, &o);
    if (a->pc) {
        a->pc->wall_solve = cli_wall_seconds() - t0;
        a->pc->iterations = fmb_periodic_iterations(p);
        a->pc->residual = fmb_periodic_residual(p, fmb_periodic_iterations(p));
        a->pc->converged = rc == 0;
    }
    if (rc) {
        fprintf(stderr, "%s: error: %s\n", a->case_path, fmb_sim_last_error(sim));
        fmb_periodic_destroy(&p);
        return rc == FMB_ERR_INTERRUPTED ? EXIT_INTERRUPTED
               : rc == FMB_ERR_NOTFOUND  ? EXIT_CASE
                                         : EXIT_RUN;
    }
    if (a->pc) {
        double re, im;
        fmb_periodic_multiplier(p, 0, &re, &im);
        a->pc->max_modulus = fmb_periodic_num_multipliers(p) ? hypot(re, im) : NAN;
        a->pc->bound = fmb_periodic_algorithmic_bound(p);
        a->pc->unstable = a->pc->max_modulus > 1.0 + CLI_UNSTABLE;
        free(a->pc->prev);
        a->pc->prev = a->pc->nguess == n ? a->pc->guess : NULL;
        if (!a->pc->prev) free(a->pc->guess);
        a->pc->v_prev = a->pc->v_guess;
        a->pc->guess = malloc(4 * (size_t)n * sizeof(double));
        a->pc->v_guess = a->pc->target;
        if (a->pc->guess) {
            memcpy(a->pc->guess, fmb_periodic_state(p), 4 * (size_t)n * sizeof(double));
            a->pc->nguess = n;
        }
    }
    if (!a->quiet) {
        int passes, tp, dim = 0;
        fmb_periodic_passes(p, &passes, &tp);
        const int dense = fmb_periodic_method_used(p, &dim) == FMB_PERIODIC_DENSE;
        fprintf(stderr,
                "periodic: converged in %d Newton iterations (period %.9g s, %ld steps of %.6g "
                "s; %s; %d passes over the period, %d of them propagating monodromy "
                "directions; %.2f s)\n",
                fmb_periodic_iterations(p), fmb_periodic_period(p), fmb_periodic_steps(p),
                fmb_periodic_period(p) / (double)fmb_periodic_steps(p),
                dense ? "dense monodromy" : "subspace (Newton-Picard)", passes, tp,
                cli_wall_seconds() - t0);
    }
    *out = p;
    return fmb_periodic_prepare_run(p, a->periods > 0 ? a->periods : 1) ? EXIT_RUN : EXIT_OK;
}

/* The largest multiplier's modulus and whether the orbit is unstable. */
static double max_modulus(const fmb_periodic_t *p, int *unstable)
{
    double re = NAN, im = NAN;
    if (fmb_periodic_num_multipliers(p) > 0) fmb_periodic_multiplier(p, 0, &re, &im);
    const double mod = hypot(re, im);
    *unstable = mod > 1.0 + CLI_UNSTABLE;
    return mod;
}

int cli_periodic_warning(const fmb_periodic_t *p, char *msg, size_t len)
{
    int unstable;
    const double mod = max_modulus(p, &unstable);
    if (!unstable) return 0;
    double re, im;
    fmb_periodic_multiplier(p, 0, &re, &im);
    snprintf(msg, len,
             "the periodic orbit is unstable: Floquet multiplier %.6g%+.6gi (modulus %.6g > 1; "
             "%s); a disturbance grows %.3g-fold per period; its mode shape is in "
             "/periodic/critical_mode and the Floquet mode file",
             re, im, mod,
             im != 0.0 ? "a complex pair: flutter-like growth"
             : re < 0  ? "real and negative: period-doubling, e.g. parametric resonance"
                       : "real and positive",
             mod);
    return 1;
}

/* /periodic in the results file, and the critical mode as a ParaView mode file next to
 * it (OUT_floquet.h5) when the orbit is unstable. */
int cli_periodic_write(const cli_args_t *a, fmb_writer_t *w, fmb_periodic_t *p, fmb_sim_t *sim,
                       const char *out)
{
    const int it = fmb_periodic_iterations(p), nm = fmb_periodic_num_multipliers(p);
    const int n = fmb_model_num_coords(fmb_sim_model(sim));
    int unstable;
    const double mod = max_modulus(p, &unstable);
    double info[6] = {fmb_periodic_period(p),
                      (double)fmb_periodic_steps(p),
                      (double)it,
                      fmb_periodic_residual(p, it),
                      mod,
                      fmb_periodic_algorithmic_bound(p)};
    double *res = malloc(((size_t)it + 1) * sizeof *res);
    double *mu = malloc(3 * ((size_t)nm + 1) * sizeof *mu);
    double *mode = malloc(2 * (size_t)n * sizeof *mode + 1);
    double *re = malloc(2 * (size_t)n * sizeof *re + 1);
    int rc = res && mu && mode && re ? 0 : FMB_ERR_NOMEM;
    if (rc == 0) {
        for (int k = 0; k <= it; k++)
            res[k] = fmb_periodic_residual(p, k);
        for (int k = 0; k < nm; k++) {
            fmb_periodic_multiplier(p, k, &mu[3 * k], &mu[3 * k + 1]);
            mu[3 * k + 2] = hypot(mu[3 * k], mu[3 * k + 1]);
        }
        rc = fmb_writer_matrix(w, "periodic", "summary", info, 1, 6);
        if (!rc) rc = fmb_writer_matrix(w, "periodic", "residual", res, it + 1, 1);
        if (!rc && nm) rc = fmb_writer_matrix(w, "periodic", "multipliers", mu, nm, 3);
        if (!rc && nm && fmb_periodic_mode(p, 0, re, re + n) == 0) {
            for (int i = 0; i < n; i++)
                mode[2 * i] = re[i], mode[2 * i + 1] = re[n + i];
            rc = fmb_writer_matrix(w, "periodic", "critical_mode", mode, n, 2);
        }
    }
    if (rc == 0 && unstable && nm && out) {
        /* the critical mode at the orbit's start, as a mode file ParaView opens */
        const size_t len = strlen(out);
        char *path = malloc(len + 16);
        if (path) {
            const char *dot = strrchr(out, '.');
            const size_t stem = dot && strchr(dot, '/') == NULL ? (size_t)(dot - out) : len;
            snprintf(path, len + 16, "%.*s_floquet.h5", (int)stem, out);
            double re0, im0;
            fmb_periodic_multiplier(p, 0, &re0, &im0);
            const double rate = log(mod) / fmb_periodic_period(p); /* growth rate, 1/s */
            char err[512] = "";
            if (fmb_sim_write_modes(sim, path, 1, &rate, re, NULL, 0.05, err, sizeof err) < 0)
                fprintf(stderr, "%s: warning: cannot write the Floquet mode file: %s\n",
                        a->case_path, err);
            else if (!a->quiet)
                printf("  Floquet mode        %s (critical multiplier's shape; ParaView: "
                       "%.*s_floquet.xmf)\n",
                       path, (int)stem, out);
            free(path);
        }
    }
    free(res), free(mu), free(mode), free(re);
    return rc;
}

void cli_periodic_report(const fmb_periodic_t *p)
{
    const int it = fmb_periodic_iterations(p), nm = fmb_periodic_num_multipliers(p);
    printf("  periodic orbit      period %.9g s, %ld steps, %d Newton iterations, residual "
           "%.3g\n",
           fmb_periodic_period(p), fmb_periodic_steps(p), it, fmb_periodic_residual(p, it));
    const double bound = fmb_periodic_algorithmic_bound(p);
    int shown = 0;
    for (int k = 0; k < nm && shown < 6; k++) {
        double re, im;
        fmb_periodic_multiplier(p, k, &re, &im);
        const double mod = hypot(re, im);
        if (k > 0 && (mod <= bound || mod <= 1e-9)) break;
        printf("  Floquet multiplier  %2d: %+.6f %+.6fi  |mu| %.6f\n", k + 1, re, im, mod);
        shown++;
    }
    if (fmb_periodic_multipliers_are_ritz(p))
        printf("  (the largest multipliers, by subspace iteration at the orbit; --floquet all: "
               "every one; below %.3g they are the integrator's own decay)\n",
               fmax(bound, 1e-9));
    else
        printf("  (every multiplier of the monodromy; below %.3g they are the integrator's own "
               "decay)\n",
               fmax(bound, 1e-9));
}

/* ---------------------------------------------------------------- continuation */

int cli_cmd_periodic(const cli_args_t *a)
{
    if (!a->vary) {
        cli_periodic_t pc;
        memset(&pc, 0, sizeof pc);
        cli_args_t b = *a;
        b.pc = &pc;
        int code = cli_cmd_run(&b);
        free(pc.guess);
        free(pc.prev);
        return code;
    }
    /* NAME=FROM:TO:COUNT */
    const char *eq = strchr(a->vary, '=');
    char name[128];
    const size_t nl = (size_t)(eq - a->vary);
    if (nl >= sizeof name) {
        fprintf(stderr, "flexmb periodic: --vary: parameter name too long\n");
        return EXIT_USAGE;
    }
    memcpy(name, a->vary, nl);
    name[nl] = '\0';
    double from, to;
    int count, used = 0;
    if (sscanf(eq + 1, "%lf:%lf:%d%n", &from, &to, &count, &used) != 3 || eq[1 + used] != '\0' ||
        count < 1 || count > 10000 || !isfinite(from) || !isfinite(to)) {
        fprintf(stderr,
                "flexmb periodic: --vary %s: expected NAME=FROM:TO:COUNT (COUNT 1..10000), e.g. "
                "omega=5:30:26\n",
                a->vary);
        return EXIT_USAGE;
    }
    if (a->nsets + 1 > MAX_SETS) {
        fprintf(stderr, "flexmb periodic: too many --set options\n");
        return EXIT_USAGE;
    }
    /* outputs: PREFIX_NAME=VALUE.h5 (PREFIX from -o without .h5, else the case's name) */
    char prefix[1024];
    {
        const char *src = a->output ? a->output : a->case_path;
        const char *base = a->output ? src : strrchr(src, '/');
        base = base ? (a->output ? base : base + 1) : src;
        const char *dot = strrchr(base, '.');
        const size_t k =
            dot && dot != base && !strchr(dot, '/') ? (size_t)(dot - base) : strlen(base);
        snprintf(prefix, sizeof prefix, "%.*s", (int)(k < sizeof prefix ? k : sizeof prefix - 1),
                 base);
    }
    char csv_path[1100];
    snprintf(csv_path, sizeof csv_path, "%s_continuation.csv", prefix);
    FILE *csv = fopen(csv_path, "w");
    if (!csv) {
        fprintf(stderr, "flexmb periodic: cannot write %s\n", csv_path);
        return EXIT_RUN;
    }
    cli_periodic_t pc;
    memset(&pc, 0, sizeof pc);
    int failures = 0, code = EXIT_OK, header = 0;
    const double step = count > 1 ? (to - from) / (count - 1) : 0.0;
    double v = from, last_ok = NAN;
    int k = 0, cuts = 0;
    while (k < count) {
        const double target = from + step * k;
        char set[200], out[1200];
        snprintf(set, sizeof set, "%s=%.10g", name, v);
        snprintf(out, sizeof out, "%s_%s=%.10g.h5", prefix, name, v);
        cli_args_t b = *a;
        b.vary = NULL;
        b.pc = &pc;
        pc.target = v;
        b.sets[b.nsets++] = set;
        b.output = out;
        b.quiet = 1;
        b.no_warnings = 1;
        fflush(stdout);
        const int c = cli_cmd_run(&b);
        if (c == EXIT_INTERRUPTED || c >= 128) {
            code = c;
            break;
        }
        if (c != EXIT_OK && pc.guess && isfinite(last_ok) && cuts < 4 && count > 1) {
            /* Newton failed from the previous orbit: a step cut towards it, then on */
            cuts++;
            const double cut = 0.5 * (v + last_ok);
            if (!a->quiet)
                printf("periodic: no orbit found at %s = %.10g; step cut to %.10g\n", name, v, cut);
            v = cut;
            continue;
        }
        /* the point's metrics from its file (as flexmb sweep's summary) */
        fmb_run_summary_t sum;
        memset(&sum, 0, sizeof sum);
        char err[256];
        if (c == EXIT_OK) fmb_run_summary_read(out, NULL, &sum, err, sizeof err);
        int nw = 0; /* the point's warnings (kept in its file), joined by " | " */
        for (const char *w = sum.warnings; w && *w; nw++) {
            const char *sep = strstr(w, " | ");
            w = sep ? sep + 3 : w + strlen(w);
        }
        if (!header && c == EXIT_OK) {
            fprintf(csv, "%s,status,iterations,residual,max_modulus,stable,warnings", name);
            for (int i = 0; i < sum.nmetrics; i++)
                fprintf(csv, ",%s", sum.names[i]);
            fprintf(csv, ",file\n");
            header = sum.nmetrics + 1;
        }
        if (header) {
            /* a failure is the grid value's, after its step cuts */
            fprintf(csv, "%.10g,%s,%d,%.3e,%.9g,%s,%d", c == EXIT_OK ? v : target,
                    c == EXIT_OK ? "converged" : "failed", pc.iterations, pc.residual,
                    c == EXIT_OK ? pc.max_modulus : NAN,
                    c != EXIT_OK  ? ""
                    : pc.unstable ? "no"
                                  : "yes",
                    nw);
            for (int i = 0; i < header - 1; i++)
                fprintf(csv, ",%.9g", c == EXIT_OK && i < sum.nmetrics ? sum.values[i] : NAN);
            fprintf(csv, ",%s\n", c == EXIT_OK ? out : "");
            fflush(csv);
        }
        if (!a->quiet) {
            double dmax = NAN, ang = NAN;
            for (int i = 0; i < sum.nmetrics; i++) {
                if (strncmp(sum.names[i], "deflection_max.", 15) == 0 && isnan(dmax))
                    dmax = sum.values[i];
                if (strncmp(sum.names[i], "deflection_max_angle.", 21) == 0 && isnan(ang))
                    ang = sum.values[i];
            }
            if (isnan(dmax))
                printf("  %s = %-10.6g %s  %d iterations  largest |mu| %.6f%s  %d warning%s\n",
                       name, c == EXIT_OK ? v : target, c == EXIT_OK ? "converged" : "FAILED   ",
                       pc.iterations, c == EXIT_OK ? pc.max_modulus : NAN,
                       c == EXIT_OK && pc.unstable ? " UNSTABLE" : "", nw, nw == 1 ? "" : "s");
            else
                printf("  %s = %-10.6g %s  %d iterations  largest |mu| %.6f%s  peak deflection "
                       "%.4g mm at %.1f deg  %d warning%s\n",
                       name, v, c == EXIT_OK ? "converged" : "FAILED   ", pc.iterations,
                       c == EXIT_OK ? pc.max_modulus : NAN,
                       c == EXIT_OK && pc.unstable ? " UNSTABLE" : "", 1e3 * dmax, ang, nw,
                       nw == 1 ? "" : "s");
        }
        fmb_run_summary_free(&sum);
        if (c == EXIT_OK)
            last_ok = v;
        else
            failures++;
        cuts = 0;
        if (v == target || c != EXIT_OK) { /* done, or given up after its step cuts */
            k++;
            v = from + step * k;
        } else {
            v = target; /* the grid point again, from the orbit just found */
        }
    }
    fclose(csv);
    free(pc.guess);
    free(pc.prev);
    if (!a->quiet)
        printf("periodic: continuation summary in %s (each point's warnings are in its file: "
               "/solver/statistics@warnings)\n",
               csv_path);
    if (code == EXIT_OK && failures) code = EXIT_RUN;
    return code;
}

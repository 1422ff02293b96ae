/* flexmb compare: differences between two result files, CSV and an optional plot. */
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

/* A message that quotes paths: long ones shortened, so that the cause stays visible. */
static void put_msg(char *msg, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fmb_vformat(msg, len, fmt, ap);
    va_end(ap);
}

/* The comparison's outputs follow the rule of `run -o` (docs/output.md, "Output safety"):
 * never one of the two results files, a directory or another non-regular file, nor,
 * without --force, an existing file that is not an earlier comparison (a CSV starting with
 * the comparison's header, a PNG that matplotlib wrote). 0, or 1 with a message. */
static int compare_output_refused(const cli_args_t *a, const char *path, int png, char *msg,
                                  size_t len)
{
    struct stat sp, si;
    if (stat(path, &sp) != 0) return 0;
    const char *in[2] = {a->case_path, a->arg2};
    for (int k = 0; k < 2; k++)
        if (stat(in[k], &si) == 0 && si.st_dev == sp.st_dev && si.st_ino == sp.st_ino)
            return put_msg(msg, len,
                           "output %s is the results file %s: refusing to overwrite an "
                           "input",
                           path, in[k]),
                   1;
    if (!S_ISREG(sp.st_mode)) return put_msg(msg, len, "output %s is not a regular file", path), 1;
    if (a->force) return 0;
    char head[512] = "";
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(head, 1, sizeof head - 1, f) : 0;
    if (f) fclose(f);
    head[n] = '\0';
    int ours = !png && !strncmp(head, "quantity,kind,", 14);
    for (size_t i = 0; png && !ours && n > 8 && !memcmp(head, "\x89PNG", 4) && i + 10 <= n; i++)
        ours = !memcmp(head + i, "matplotlib", 10); /* its tEXt chunk "Software" */
    if (ours) return 0;
    put_msg(msg, len,
            "%s exists and is not a flexmb comparison %s: not replaced (use --force to "
            "replace it)",
            path, png ? "plot" : "CSV");
    return 1;
}

int cli_cmd_compare(const cli_args_t *a)
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
    if (compare_output_refused(a, csv, 0, err, sizeof err) ||
        compare_output_refused(a, png, 1, err, sizeof err)) {
        fprintf(stderr, "flexmb compare: error: %s\n", err);
        return EXIT_CASE;
    }
    fmb_compare_summary_t sum;
    int st = fmb_compare_files(a->case_path, a->arg2, &a->cmp, csv, a->quiet ? NULL : stdout, &sum,
                               err, sizeof err);
    if (st < 0) {
        fprintf(stderr, "flexmb compare: error: %s\n", err[0] ? err : fmb_status_message(st));
        return st == FMB_ERR_HDF5 ? EXIT_CASE : st == FMB_ERR_NOTFOUND ? EXIT_MODEL : EXIT_RUN;
    }
    if (!a->quiet) {
        printf("\n%d quantities over %ld records of A", sum.nquantities, sum.ntimes);
        if (sum.nzero) printf("; %d zero in both runs left out", sum.nzero);
        printf("\nlargest differences (max|A-B| against the scale of the mechanism's "
               "quantities of the same kind and unit):\n");
        for (int h = 0; h < sum.nhead; h++)
            printf("  %d. %-40s %10.4g %-4s = %8.2e of %.4g %s (%.3g of its own max)\n", h + 1,
                   sum.head[h].label, sum.head[h].maxd, sum.head[h].unit, sum.head[h].mrel,
                   sum.head[h].scale, sum.head[h].unit, sum.head[h].rel);
        if (!sum.nhead) printf("  none: every difference is below the noise floor\n");
        printf("largest difference per kind (against the mechanism scale; own max):\n");
        for (int k = 0; k < FMB_CMP_NKINDS; k++) {
            if (!sum.kind_rows[k]) continue;
            if (sum.kind_worst[k][0])
                printf("  %-11s %10.3e %10.3e  %s\n", fmb_compare_kind_name(k), sum.kind_mrel[k],
                       sum.kind_rel[k], sum.kind_worst[k]);
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

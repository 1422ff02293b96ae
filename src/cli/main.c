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

#include "cli.h"

static const char usage_text[] =
    "usage: flexmb run CASE [-o OUT.h5] [--set NAME=VALUE]... [--no-viz] [--quiet]\n"
    "       flexmb periodic CASE [-o OUT.h5] [--period T] [--periods N] [--tol X]\n"
    "                       [--max-iter N] [--method auto|subspace|dense]\n"
    "                       [--floquet dominant|all|none] [--vary NAME=FROM:TO:COUNT]\n"
    "                       [--set NAME=VALUE]...\n"
    "       flexmb check CASE [--set NAME=VALUE]...\n"
    "       flexmb modes CASE [BODY] [--at T] [--set NAME=VALUE]... [-n N]\n"
    "       flexmb compare A.h5 B.h5 [-o PREFIX] [--by BODY] [--wrap] [--only KINDS]\n"
    "                      [--quantity LIST] [--stations N] [--noise X] [--force] [--quiet]\n"
    "       flexmb sweep CASE --vary NAME=VALUES... [--grid|--zip] [-j N] [-o DIR] [--resume]\n"
    "                    [--force]\n"
    "       flexmb keys [joints|forces|friction] [TYPE]\n"
    "       flexmb --help | --version\n";

static const char help_text[] =
    "\n"
    "Planar flexible multibody dynamics.\n"
    "\n"
    "commands:\n"
    "  run CASE     simulate the YAML case and write the results to an HDF5 file\n"
    "               with an XDMF sidecar (OUT.xmf) that ParaView opens\n"
    "  periodic CASE\n"
    "               the periodic steady state of a driven mechanism (shooting with the\n"
    "               integrator's exact monodromy) and its Floquet multipliers; one\n"
    "               period (--periods N: N) written like a run, plus /periodic;\n"
    "               --vary NAME=FROM:TO:COUNT follows the orbit over a parameter\n"
    "               (docs/quick_return.md \"Periodic steady state\")\n"
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
    "  keys [SECTION [TYPE]]\n"
    "               the case keys of a joint, force or friction-model type (kind, unit,\n"
    "               default, bounds, meaning) from the classes' tables\n"
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
    "      --force           run, modes -o, compare: replace an existing OUT.h5 / .xmf\n"
    "                        (PREFIX.csv / .png) that flexmb did not write (inputs of the\n"
    "                        case or the comparison are never replaced)\n"
    "      --no-room-check   run: start even when the records, frames and sidecar would\n"
    "                        not fit on the disk (the run still stops before it is full)\n"
    "  -n, --modes N         modes: number of frequencies (default 6)\n"
    "      --by BODY         compare: abscissa = BODY's angle (e.g. the crank), so runs\n"
    "                        at different speeds compare at equal angles; default time\n"
    "      --wrap            compare: report angles of maxima in [0, 360) deg\n"
    "      --only KINDS      compare: every quantity of these kinds: poses, coords,\n"
    "                        reactions, deflection, sliders, energy, all (comma-separated);\n"
    "                        default: beam deflections, slider and ram positions, joint\n"
    "                        forces, drive torques\n"
    "      --quantity LIST   compare: these quantities only (labels as in the CSV, `*`\n"
    "                        wildcards, a prefix such as joints/B; comma-separated)\n"
    "      --stations N      compare: beam deflection at N stations (default 11)\n"
    "      --noise X         compare: differences below X times the scale are 0\n"
    "                        (default 1e-9)\n"
    "      --at T            modes: linearize at time T (s) of the run (default 0)\n";
static const char help_text2[] =
    "      --period T        periodic: the period, s (default: 2 pi / the rate of the\n"
    "                        constant-rate drivers)\n"
    "      --periods N       periodic: periods written (default 1)\n"
    "      --tol X           periodic: residual / state scale to stop at (default 1e-8)\n"
    "      --max-iter N      periodic: Newton iterations (default 12)\n"
    "      --method M        periodic: auto (default), subspace (Newton-Picard: a few\n"
    "                        directions of the monodromy per pass) or dense (the whole\n"
    "                        monodromy, every multiplier)\n"
    "      --floquet F       periodic: dominant (default: the largest multipliers), all\n"
    "                        (every multiplier: one dense pass more) or none\n"
    "      --vary NAME=FROM:TO:COUNT\n"
    "                        periodic: continuation over COUNT values of a parameter,\n"
    "                        each orbit starting from the previous one\n"
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
    a->pfloquet = 1;
    fmb_compare_options_default(&a->cmp);
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        const char *val = NULL;
        if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) {
            fputs(usage_text, stdout);
            fputs(help_text, stdout);
            fputs(help_text2, stdout);
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
        } else if (strcmp(s, "--quantity") == 0 || strncmp(s, "--quantity=", 11) == 0) {
            val = s[10] == '=' ? s + 11 : (i + 1 < argc ? argv[++i] : NULL);
            if (!val || !*val || *val == ',')
                return usage_error("expected quantities (labels or patterns, comma-separated, "
                                   "e.g. bodies/ram/pose[x],joints/*/force_magnitude) after",
                                   s);
            static char quantities[4096]; /* repeated options: one comma-separated list */
            size_t used = strlen(quantities);
            if (used + strlen(val) + 2 > sizeof quantities)
                return usage_error("--quantity lists too long at", val);
            snprintf(quantities + used, sizeof quantities - used, "%s%s", used ? "," : "", val);
            a->cmp.quantity = quantities;
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
        } else if (strcmp(s, "--period") == 0 || strncmp(s, "--period=", 9) == 0) {
            val = s[8] == '=' ? s + 9 : (i + 1 < argc ? argv[++i] : NULL);
            char *end = NULL;
            double t = val ? strtod(val, &end) : -1.0;
            if (!val || !*val || *end || !(t > 0) || !isfinite(t))
                return usage_error("expected a period > 0 in seconds after", s);
            a->period = t;
        } else if (strcmp(s, "--periods") == 0 || strncmp(s, "--periods=", 10) == 0) {
            val = s[9] == '=' ? s + 10 : (i + 1 < argc ? argv[++i] : NULL);
            char *end = NULL;
            long n = val ? strtol(val, &end, 10) : 0;
            if (!val || !*val || *end || n < 1 || n > 100000)
                return usage_error("expected a period count >= 1 after", s);
            a->periods = (int)n;
        } else if (strcmp(s, "--tol") == 0 || strncmp(s, "--tol=", 6) == 0) {
            val = s[5] == '=' ? s + 6 : (i + 1 < argc ? argv[++i] : NULL);
            char *end = NULL;
            double x = val ? strtod(val, &end) : -1.0;
            if (!val || !*val || *end || !(x > 0 && x < 1))
                return usage_error("expected a tolerance in (0, 1) after", s);
            a->ptol = x;
        } else if (strcmp(s, "--max-iter") == 0 || strncmp(s, "--max-iter=", 11) == 0) {
            val = s[10] == '=' ? s + 11 : (i + 1 < argc ? argv[++i] : NULL);
            char *end = NULL;
            long n = val ? strtol(val, &end, 10) : 0;
            if (!val || !*val || *end || n < 1 || n > 64)
                return usage_error("expected an iteration count in 1..64 after", s);
            a->pmaxit = (int)n;
        } else if (strcmp(s, "--method") == 0 || strncmp(s, "--method=", 9) == 0) {
            val = s[8] == '=' ? s + 9 : (i + 1 < argc ? argv[++i] : NULL);
            if (!val || (strcmp(val, "auto") && strcmp(val, "dense") && strcmp(val, "subspace")))
                return usage_error("expected auto, dense or subspace after", s);
            a->pmethod = strcmp(val, "dense") == 0 ? 1 : strcmp(val, "subspace") == 0 ? 2 : 0;
            a->pgiven = 1;
        } else if (strcmp(s, "--floquet") == 0 || strncmp(s, "--floquet=", 10) == 0) {
            val = s[9] == '=' ? s + 10 : (i + 1 < argc ? argv[++i] : NULL);
            if (!val || (strcmp(val, "none") && strcmp(val, "dominant") && strcmp(val, "all")))
                return usage_error("expected none, dominant or all after", s);
            a->pfloquet = strcmp(val, "none") == 0 ? 0 : strcmp(val, "all") == 0 ? 2 : 1;
            a->pgiven = 1;
        } else if (strcmp(s, "--vary") == 0 || strncmp(s, "--vary=", 7) == 0) {
            val = s[6] == '=' ? s + 7 : (i + 1 < argc ? argv[++i] : NULL);
            if (!val || !strchr(val, '=') || val[0] == '=')
                return usage_error("expected NAME=FROM:TO:COUNT after", s);
            a->vary = val;
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
    const int is_periodic = strcmp(a->command, "periodic") == 0;
    if (is_periodic) a->periodic = 1, is_run = 1; /* a run with the shooting first */
    if ((a->period > 0 || a->periods || a->ptol > 0 || a->pmaxit || a->vary || a->pgiven) &&
        !is_periodic)
        return usage_error("--period, --periods, --tol, --max-iter, --method, --floquet and --vary "
                           "are only valid with",
                           "periodic");
    if (!is_run && !is_modes && !is_compare && strcmp(a->command, "check") != 0)
        return usage_error("unknown command", a->command);
    if (!a->case_path)
        return usage_error(is_compare ? "missing results files" : "missing case file", NULL);
    if (a->force && !is_run && !is_compare && !(is_modes && a->output))
        return usage_error("--force is only valid with", "run, compare or modes CASE -o");
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
        return usage_error("--by, --wrap, --only, --quantity, --stations and --noise are only "
                           "valid with",
                           "compare");
    return -1;
}

fmb_case_t *cli_load_case(const cli_args_t *a)
{
    char err[1024] = "";
    fmb_case_t *c = fmb_case_load(a->case_path, a->sets, a->nsets, err, sizeof err);
    if (!c) fprintf(stderr, "%s\n", err[0] ? err : "cannot load case");
    return c;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "sweep") == 0) return fmb_cli_sweep(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "keys") == 0) return cli_cmd_keys(argc - 1, argv + 1);
    cli_args_t a;
    int code = parse_args(argc, argv, &a);
    if (code >= 0) return code;
    if (a.periodic) return cli_cmd_periodic(&a);
    if (strcmp(a.command, "run") == 0) return cli_cmd_run(&a);
    if (strcmp(a.command, "modes") == 0) return cli_cmd_modes(&a);
    if (strcmp(a.command, "compare") == 0) return cli_cmd_compare(&a);
    return cli_cmd_check(&a);
}

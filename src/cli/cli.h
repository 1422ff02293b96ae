/* Private declarations shared by the files of the command-line program (src/cli). */
#ifndef FMB_CLI_CLI_H
#define FMB_CLI_CLI_H

#include <stdio.h>

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
int cli_cmd_keys(int argc, char **argv);  /* keys.c */

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
    /* periodic (run.c with the shooting solve first; periodic.c) */
    int periodic;            /* 1: `flexmb periodic` */
    double period;           /* --period T (0: from the drivers) */
    int periods;             /* --periods N written (default 1) */
    double ptol;             /* --tol (0: default) */
    int pmaxit;              /* --max-iter (0: default) */
    const char *vary;        /* --vary NAME=A:B:K (continuation) */
    int pmethod;             /* --method: 0 auto, 1 dense, 2 subspace */
    int pfloquet;            /* --floquet: 0 none, 1 dominant (default), 2 all */
    int pgiven;              /* --method or --floquet given */
    int no_warnings;         /* continuation points: warnings into the summary, not stderr */
    struct cli_periodic *pc; /* continuation state (guess in, orbit and metrics out) */
} cli_args_t;

/* The continuation's link between points (periodic.c): the previous orbit as the next
 * point's first guess, and what one point reports. */
typedef struct cli_periodic {
    double *guess;                  /* 4 n values of the previous orbit, NULL: none */
    int nguess;                     /* its n */
    double *prev;                   /* the orbit before it (secant predictor), NULL: none */
    double v_guess, v_prev, target; /* their parameter values; the point being solved */
    int iterations, converged;
    double residual, max_modulus, bound;
    int unstable;
    double wall_solve;
} cli_periodic_t;

/* main.c */
fmb_case_t *cli_load_case(const cli_args_t *a);
/* run.c: Ctrl-C, SIGTERM and SIGHUP set cli_stop (polled by fmb_sim_run) */
extern volatile int cli_stop;
void cli_install_handlers(void);
int cli_cmd_run(const cli_args_t *a);
/* Monotonic wall clock, s (run.c). */
double cli_wall_seconds(void);
/* periodic.c: `flexmb periodic` (one orbit, or a continuation with --vary); the run's
 * hooks: the shooting before the run (an exit code), /periodic after it, the instability
 * warning (1 with msg), the summary lines */
int cli_cmd_periodic(const cli_args_t *a);
struct fmb_periodic;
int cli_periodic_solve(const cli_args_t *a, fmb_sim_t *sim, struct fmb_periodic **out);
int cli_periodic_write(const cli_args_t *a, fmb_writer_t *w, struct fmb_periodic *p, fmb_sim_t *sim,
                       const char *out);
int cli_periodic_warning(const struct fmb_periodic *p, char *msg, size_t len);
void cli_periodic_report(const struct fmb_periodic *p);
/* Output safety (docs/output.md): may path be written as an output of this kind? 1 with a
 * message when it is an input of the case (never written), a directory, or an existing
 * file flexmb did not write as such an output (written only with force); else 0. */
enum { CLI_OUT_RESULTS, CLI_OUT_XDMF, CLI_OUT_SUMMARY_CSV, CLI_OUT_SUMMARY_H5, CLI_OUT_LOG };
#define CLI_SWEEP_LOG_HEAD "flexmb sweep: run "
/* The XDMF sidecar of a results file (the writer's rule; malloc'ed, NULL: out of memory). */
char *cli_xmf_path(const char *h5);
int cli_output_refused(const fmb_case_t *c, const char *path, int kind, int force, char *msg,
                       size_t len);
/* Per body, the given velocities the consistent start had to change (0 if none). */
int cli_report_start_velocities(FILE *f, const fmb_model_t *m, const fmb_sim_t *sim);
/* check.c */
int cli_cmd_check(const cli_args_t *a);
int cli_cmd_modes(const cli_args_t *a);
/* compare.c */
int cli_cmd_compare(const cli_args_t *a);

#endif

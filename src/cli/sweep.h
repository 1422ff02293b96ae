/* `flexmb sweep`: parameter studies (docs/sweep.md). Private to the command line.
 *   sweep_spec.c  the study: --vary arguments and the `sweep:` YAML section
 *   sweep.c       the command: runs, local processes (-j N)
 *   sweep_summary.c  summary.csv, summary.h5, progress lines
 *   sweep_mpi.c   the same runs over MPI ranks (built only when MPI is found) */
#ifndef FLEXMB_CLI_SWEEP_H
#define FLEXMB_CLI_SWEEP_H

#include <stddef.h>
#include <sys/types.h>

#include "flexmb/study.h"

#define SWEEP_MSG 512

/* One varied parameter: its values as passed to --set (numbers in their shortest exact
 * decimal form) and, for numbers, as doubles (NaN for a text value such as an integrator). */
typedef struct sweep_param {
    char *name;
    char *where; /* "FILE:LINE:COL" or "argument N" for messages */
    int n;
    char **text;
    double *num;
    int numeric; /* every value is a number */
} sweep_param_t;

typedef struct sweep_spec {
    char *case_path;
    char *outdir;
    char *crank;
    int zip; /* 1: zip the lists (equal lengths), 0: full grid */
    int jobs;
    int resume, quiet;
    int force; /* replace files in DIR that flexmb did not write (never an input) */
    int nparams;
    sweep_param_t *params;
    int nsets;
    char **sets; /* fixed NAME=VALUE overrides of every run */
} sweep_spec_t;

/* Add or replace the varied parameter of "NAME=ITEMS" (ITEMS: comma-separated numbers,
 * ranges start:stop:count, or names). where: position for messages. 0 or -1 (err). */
int sweep_parse_vary(sweep_spec_t *s, const char *arg, const char *where, char *err, size_t len);
/* Read the `sweep:` section of a YAML file into s (values the command line gives later
 * replace them). Returns 1 when the file is a study, 0 when it has no `sweep:` section
 * (a case file), -1 with a message in err. */
int sweep_load_yaml(sweep_spec_t *s, const char *path, char *err, size_t len);
void sweep_spec_free(sweep_spec_t *s);

/* A run: its state and what it produced. */
enum { RUN_PENDING, RUN_RUNNING, RUN_COMPLETE, RUN_FAILED, RUN_INTERRUPTED };

typedef struct sweep_run {
    int state;
    int executed; /* run by this sweep (0: pending, or complete already with --resume) */
    char message[SWEEP_MSG];
    double wall; /* measured by the sweep, s */
    fmb_run_summary_t sum;
} sweep_run_t;

typedef struct sweep {
    sweep_spec_t spec;
    int nruns;
    int *vi;      /* [nruns x nparams] value index of each parameter */
    char **stem;  /* file name of each run without .h5 */
    sweep_run_t *run;
    int ndone, nfailed, ninterrupted, nrunning, nexecuted;
    double t_start, exec_wall; /* sweep start; sum of executed runs' wall times */
    char exe[4096];
    volatile int *stop;
} sweep_t;

/* Start run k: returns its process id, or 0 when --resume found it complete (r filled), or
 * -1 (r filled with the error). */
pid_t sweep_spawn(const sweep_t *s, int k, sweep_run_t *r);
/* Fill r for run k from its process's wait status, its results file and its log. */
void sweep_collect(const sweep_t *s, int k, int wstatus, double wall, sweep_run_t *r);
/* Parameter p's value (as passed to --set) in run k. */
const char *sweep_value(const sweep_t *s, int k, int p);
/* Write DIR/summary.csv and DIR/summary.h5 (warnings on stderr when they cannot be). */
void sweep_write_summary(const sweep_t *s);
/* Record a finished run (rank 0): summary files, progress line. */
void sweep_record(sweep_t *s, int k, sweep_run_t *r);
void sweep_mark_running(sweep_t *s, int k);
double sweep_now(void);

/* Serialize a result for MPI (malloc'ed text) and back; 0 or -1. */
char *sweep_result_pack(const sweep_run_t *r);
int sweep_result_unpack(const char *text, sweep_run_t *r);

/* MPI: is this process started by mpirun? Run the sweep over the ranks (exit code). */
int sweep_mpi_launched(void);
int sweep_mpi_main(sweep_t *s, int *argc, char ***argv);

#endif

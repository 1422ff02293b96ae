/*
 * Parameter studies (src/io/sweep_io.c), used by `flexmb sweep`: the summary of one results
 * file (statistics and study metrics), and a summary table written as an HDF5 file.
 * Layout and metrics: docs/sweep.md. No HDF5 header here.
 */
#ifndef FLEXMB_STUDY_H
#define FLEXMB_STUDY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#ifdef __cplusplus
}
#endif
#endif

/* What a results file says about its run. */
typedef struct fmb_run_summary {
    int exists;        /* the file opened as a flexmb results file */
    int complete;      /* root attribute complete = 1 */
    char status[32];   /* /solver/statistics@status ("" when absent) */
    long steps;        /* /solver/statistics@steps (-1 when absent) */
    long newton;       /* @newton_iterations (-1 when absent) */
    double wall_time;  /* @wall_time, s (NaN when absent) */
    double t_final;    /* last /time, s (NaN when no record) */
    long records;      /* rows of /time */
    /* metrics, in a fixed order (beams, joints, contacts by model index; energy last) */
    int nmetrics;
    char **names;      /* e.g. "deflection_max.rocker" */
    double *values;
    /* metrics whose peak lies only on the first or last record of the window, as
     * "NAME@first" / "NAME@last", comma-separated ("" when none; NULL before reading) */
    char *edge_peaks;
    /* the run's warnings (/solver/statistics@warnings), joined by " | " ("" when none) */
    char *warnings;
} fmb_run_summary_t;

/* Read path (docs/sweep.md, "Metrics"): crank is the body whose angle locates the peaks
 * (NULL: body1 of the angle driver with the lowest joint index; none: angles are NaN).
 * Returns 0, or a negative status with a message in err; a missing file gives exists = 0
 * and returns 0. Free with fmb_run_summary_free. */
int fmb_run_summary_read(const char *path, const char *crank, fmb_run_summary_t *s, char *err,
                         size_t errlen);
void fmb_run_summary_free(fmb_run_summary_t *s);
/* The validity of a run just written (docs/output.md, "Validity"): after fmb_writer_flush
 * and fmb_writer_statistics, compute the run's summary from the writer's file into *s (as
 * fmb_run_summary_read; crank as there) and write it to /solver/statistics: every metric as
 * an attribute, and the string attributes warnings (the given text, one warning per line)
 * and edge_peaks. Returns 0 or a negative status (message in fmb_writer_last_error). */
typedef struct fmb_writer fmb_writer_t;
int fmb_writer_validity(fmb_writer_t *w, const char *crank, const char *warnings,
                        fmb_run_summary_t *s);
/* Append one metric (copies the name); 0 or FMB_ERR_NOMEM. */
int fmb_run_summary_add(fmb_run_summary_t *s, const char *name, double value);

/* One column of a summary table: nrows values of one kind. */
typedef enum { FMB_COL_REAL, FMB_COL_INT, FMB_COL_TEXT } fmb_col_kind;
typedef struct fmb_table_col {
    const char *name;  /* dataset name */
    const char *group; /* "" or a group ("parameters", "metrics") */
    const char *units; /* attribute `units` ("" for none) */
    fmb_col_kind kind;
    const double *real;
    const long *ints;
    const char *const *text;
} fmb_table_col_t;

/* Write the columns as datasets of an HDF5 file, atomically (PATH.tmp, then renamed), with
 * string root attributes attr_names[k] = attr_values[k] and the integer root attributes
 * runs = nrows and complete. Returns 0 or a negative status with a message in err. */
int fmb_table_write_h5(const char *path, const fmb_table_col_t *cols, int ncols, long nrows,
                       const char *const *attr_names, const char *const *attr_values, int nattr,
                       int complete, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif

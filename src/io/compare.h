/* Comparison of two flexmb result files (src/io/compare.c), used by `flexmb compare`.
 * No HDF5 header here: the CLI includes this file. */
#ifndef FMB_IO_COMPARE_H
#define FMB_IO_COMPARE_H

#include <stddef.h>
#include <stdio.h>

typedef struct fmb_compare_summary {
    int nquantities; /* rows written */
    long ntimes;     /* records of A inside the common interval */
    double t0, t1;   /* the common interval */
    double max_diff; /* largest max|A - B| over the quantities (NaN if any is NaN) */
    char worst[600]; /* that quantity's label ("" if every difference is 0) */
} fmb_compare_summary_t;

/* Compare the runs in HDF5 files a and b: every common quantity (slider axial positions
 * /sliders/J/s, body poses and q/qd/qdd, joint reactions, beam deflections of identical
 * meshes, energy) of a against b interpolated linearly in time onto a's records inside
 * the common time interval. Prints a table on `table` (NULL: none) and writes one CSV
 * row per quantity to csv_path. Returns 0, or
 *   FMB_ERR_HDF5:     an input cannot be read (not a flexmb results file, no records);
 *   FMB_ERR_NOTFOUND: no common time interval or no common quantity;
 *   FMB_ERR_IO:       the CSV cannot be written (FMB_ERR_NOMEM: out of memory),
 * with a message in err. */
int fmb_compare_files(const char *a, const char *b, const char *csv_path, FILE *table,
                      fmb_compare_summary_t *summary, char *err, size_t errlen);

#endif

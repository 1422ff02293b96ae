/* Comparison of two flexmb result files (src/io/compare.c), used by `flexmb compare`:
 * public API beside flexmb.h (no HDF5 header here). */
#ifndef FMB_IO_COMPARE_H
#define FMB_IO_COMPARE_H

#include <stddef.h>
#include <stdio.h>

/* Kinds of quantities (bit set). */
enum {
    FMB_CMP_POSES = 1,      /* /bodies/B/pose: x, y (m), angle (rad) */
    FMB_CMP_COORDS = 2,     /* /bodies/B/q, qd, qdd: the solver's coordinates */
    FMB_CMP_REACTIONS = 4,  /* /joints/J/reaction: Fx1, Fy1 (N), Mz1, Mz2 (N m) */
    FMB_CMP_DEFLECTION = 8, /* beam deflection at fixed stations along the beam (m) */
    FMB_CMP_SLIDERS = 16,   /* /sliders/J/s (m) */
    FMB_CMP_ENERGY = 32,    /* /energy (J) */
    FMB_CMP_DEFAULT = 1 | 4 | 8 | 16 | 32, /* computed in every comparison (the scales) */
    FMB_CMP_ALL = 63
};
#define FMB_CMP_NKINDS 6

typedef struct fmb_compare_options {
    const char *by; /* abscissa: NULL or "time", or a body whose angle (pose column 2,
                       continuous) is the abscissa, e.g. the crank */
    int wrap;       /* report the abscissa of a maximum as an angle in [0, 360) deg */
    unsigned kinds; /* FMB_CMP_* bits: every quantity of these kinds; 0 (default): the
                       engineer's set (beam deflection, slider positions, positions of
                       bodies on ground guides, joint forces, drive torques and forces) */
    const char *quantity; /* NULL, or comma-separated patterns: only the quantities that
                       match one (`*` any characters; a pattern also matches a quantity
                       whose label continues it with '/' or '[': `joints/B` is every
                       quantity of joint B); every pattern must match */
    double noise;   /* relative noise floor: max|A - B| <= noise * max(|A|, |B|) is reported
                       as 0; < 0: default 1e-9 */
    int stations;   /* deflection stations along each beam (>= 2; 0: 11) */
} fmb_compare_options_t;

void fmb_compare_options_default(fmb_compare_options_t *o);
/* Parse a comma-separated list of kinds (poses, coords, reactions, deflection, sliders,
 * energy, all); 0 or -1 on an unknown name. */
int fmb_compare_parse_kinds(const char *list, unsigned *kinds);

typedef struct fmb_compare_summary {
    int nquantities; /* rows written */
    long ntimes;     /* records of A inside the common interval */
    double t0, t1;   /* the common interval of the abscissa (s, or rad for an angle) */
    /* per kind (index = bit position): rows, largest relative difference and its row */
    int kind_rows[FMB_CMP_NKINDS];
    double kind_rel[FMB_CMP_NKINDS];
    char kind_worst[FMB_CMP_NKINDS][200];
    double kind_mrel[FMB_CMP_NKINDS]; /* that row's difference / its mechanism scale */
    int nzero; /* quantities left out: zero (below the noise floor) in both runs */
    /* the headline: the selected quantities whose max|A - B| is largest against the
     * mechanism scale (the largest max(|A|, |B|) of every quantity of the same kind and
     * unit), largest first */
    int nhead;
    struct fmb_compare_head {
        char label[200], unit[8];
        double maxd, rel, mrel, scale;
    } head[5];
} fmb_compare_summary_t;

/* Name ("poses", ...) and unit description of kind index k. */
const char *fmb_compare_kind_name(int k);

/* Compare the runs in HDF5 files a and b: every common quantity of the selected kinds of a
 * against b interpolated linearly in the abscissa (time or a body's angle) onto a's
 * records inside the common interval; beam deflections at fixed stations (cubic Hermite
 * interpolation of each file's own mesh, so different meshes compare). Prints a table on
 * `table` (NULL: none) and writes one CSV row per quantity to csv_path. Returns 0, or
 *   FMB_ERR_HDF5:     an input cannot be read (not a flexmb results file, no records);
 *   FMB_ERR_NOTFOUND: no common interval, no such body for the abscissa, or no common
 *                     quantity;
 *   FMB_ERR_IO:       the CSV cannot be written (FMB_ERR_NOMEM: out of memory),
 * with a message in err. */
int fmb_compare_files(const char *a, const char *b, const fmb_compare_options_t *opts,
                      const char *csv_path, FILE *table, fmb_compare_summary_t *summary, char *err,
                      size_t errlen);

#endif

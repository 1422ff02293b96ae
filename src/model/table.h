/* Tabulated functions y(x) from two-column CSV files, for table() (piecewise linear) and
 * spline() (cubic, not-a-knot, C2) in expressions; constant beyond the ends. */
#ifndef FMB_MODEL_TABLE_H
#define FMB_MODEL_TABLE_H

#include <stddef.h>

#include "model/expr.h"

/* Read path (a header line, then rows "x, y" with x strictly increasing, at least two).
 * name is the file as the expression wrote it (for messages). NULL with a message naming
 * the file and the row on failure. */
fmb_table_t *fmb_table_read(const char *path, const char *name, int spline, char *msg,
                            size_t len);
void fmb_table_destroy(fmb_table_t **tb);
/* y(x) as a jet: x carries its time derivatives, the result those of y(x(t)). */
fmb_jet_t fmb_table_eval(const fmb_table_t *tb, fmb_jet_t x);
const char *fmb_table_path(const fmb_table_t *tb);
int fmb_table_is_spline(const fmb_table_t *tb);
const char *fmb_table_sha256(const fmb_table_t *tb); /* hex digest of the file's bytes */

/* The tables of a model: loaded once (file names resolved against dir), shared by every
 * expression that names them. */
fmb_tableset_t *fmb_tableset_create(const char *dir);
void fmb_tableset_destroy(fmb_tableset_t **set);
/* The table file (as written) of the given kind, read on first use. */
const fmb_table_t *fmb_tableset_get(fmb_tableset_t *set, const char *file, int spline, char *msg,
                                    size_t len);
int fmb_tableset_count(const fmb_tableset_t *set);
const fmb_table_t *fmb_tableset_item(const fmb_tableset_t *set, int k);

#endif

/* Small HDF5 helpers of the results writer (private). All return 0 (or an id) on
 * success and a negative value on failure. */
#ifndef FMB_IO_H5UTIL_H
#define FMB_IO_H5UTIL_H

#include <hdf5.h>
#include <stddef.h>

/* HDF5 link name for a body or joint name ('/' -> '_', "." reserved). */
void fmb_h5_link_name(const char *name, char *out, size_t len);
/* Scalar attributes (strings: variable-length UTF-8). */
int fmb_h5_attr_string(hid_t loc, const char *name, const char *value);
int fmb_h5_attr_scalar(hid_t loc, const char *name, hid_t file_type, hid_t mem_type,
                       const void *value);
int fmb_h5_attr_double(hid_t loc, const char *name, double value);
int fmb_h5_attr_int(hid_t loc, const char *name, int value);
/* Scalar 64-bit integer attribute, created or overwritten in place. */
int fmb_h5_attr_put_long(hid_t loc, const char *name, long value);
/* 1-D arrays of variable-length UTF-8 strings (n may be 0): a static dataset, or with
 * as_attr an attribute of loc. */
int fmb_h5_strings_put(hid_t loc, const char *name, const char *const *values, hsize_t n,
                       int as_attr);
int fmb_h5_string_list(hid_t loc, const char *name, const char *const *values, hsize_t n);
/* Scalar attributes (strings: variable-length UTF-8). */
int fmb_h5_attr_strings(hid_t loc, const char *name, const char *const *values, hsize_t n);
/* Static 1-D dataset of doubles. */
int fmb_h5_double_list(hid_t loc, const char *name, const double *values, hsize_t n);
/* Group loc/name, created if needed; a/b/c with its parents. The caller closes it. */
hid_t fmb_h5_group(hid_t loc, const char *name);
hid_t fmb_h5_path_group(hid_t loc, const char *path);

/* ---- reading (results files: flexmb compare, sweep summaries) ---- */
#define FMB_H5_PATH_MAX 600
/* Does the object at the absolute path exist (every intermediate link checked)? */
int fmb_h5_exists(hid_t file, const char *path);
/* Shape of a numeric dataset: rows and values per row (rank 1: 1; rank 2: dims[1]; rank 3:
 * dims[1] * dims[2]); 0 or -1 (absent, a string dataset, rank > 3). */
int fmb_h5_shape(hid_t file, const char *path, long *rows, long *cols);
/* Whole numeric dataset as doubles, row-major [rows x cols]; NULL on failure. */
double *fmb_h5_read(hid_t file, const char *path, long *rows, long *cols);
/* The same, at most the first maxrows rows (maxrows < 0: all): a results file's time
 * series up to its committed records (fmb_h5_records), whatever follows them. */
double *fmb_h5_read_rows(hid_t file, const char *path, long maxrows, long *rows, long *cols);
/* String attribute `name` of the object at path into out ("" if absent). */
void fmb_h5_attr_text(hid_t file, const char *path, const char *name, char *out, size_t len);
int fmb_h5_attr_number(hid_t file, const char *path, const char *name, double *out);
/* Records of a results file a reader may use (docs/output.md, "Records and crash safety"):
 * the root attribute committed_records, bounded by the rows of every time series (the
 * datasets with an unlimited first dimension outside /viz); without the attribute (files
 * of older versions) the fewest rows of these. -1 if the file has no /time. */
long fmb_h5_records(hid_t file);
int fmb_h5_members(hid_t file, const char *path, const char *idx_attr, char ***names);
void fmb_h5_free_names(char **names, int n);

#endif

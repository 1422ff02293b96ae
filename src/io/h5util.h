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

#endif

/* Small HDF5 helpers shared by the results writer and its layout (attributes, string
 * and number lists, groups created on demand). */
#include "io/h5util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* HDF5 link name for a body or joint name: '/' is not allowed, "." is reserved. */
void fmb_h5_link_name(const char *name, char *out, size_t len)
{
    snprintf(out, len, "%s", (name && *name) ? name : "unnamed");
    for (char *p = out; *p; p++)
        if (*p == '/') *p = '_';
    if (strcmp(out, ".") == 0) out[0] = '_';
}

/* ---------------------------------------------------------------- attributes */

int fmb_h5_attr_string(hid_t loc, const char *name, const char *value)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t attr = -1;
    herr_t st = -1;
    if (type >= 0 && space >= 0 && H5Tset_size(type, H5T_VARIABLE) >= 0 &&
        H5Tset_cset(type, H5T_CSET_UTF8) >= 0) {
        attr = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
        if (attr >= 0) st = H5Awrite(attr, type, &value);
    }
    if (attr >= 0) H5Aclose(attr);
    if (space >= 0) H5Sclose(space);
    if (type >= 0) H5Tclose(type);
    return st < 0 ? -1 : 0;
}

/* Scalar attribute stored as file_type from a value in memory of mem_type. */
int fmb_h5_attr_scalar(hid_t loc, const char *name, hid_t file_type, hid_t mem_type,
                       const void *value)
{
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t attr = -1;
    herr_t st = -1;
    if (space >= 0) {
        attr = H5Acreate2(loc, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT);
        if (attr >= 0) st = H5Awrite(attr, mem_type, value);
    }
    if (attr >= 0) H5Aclose(attr);
    if (space >= 0) H5Sclose(space);
    return st < 0 ? -1 : 0;
}

int fmb_h5_attr_double(hid_t loc, const char *name, double value)
{
    return fmb_h5_attr_scalar(loc, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
}

int fmb_h5_attr_int(hid_t loc, const char *name, int value)
{
    return fmb_h5_attr_scalar(loc, name, H5T_STD_I32LE, H5T_NATIVE_INT, &value);
}

int fmb_h5_attr_put_long(hid_t loc, const char *name, long value)
{
    const long long v = value;
    const htri_t ex = H5Aexists(loc, name);
    if (ex < 0) return -1;
    if (!ex) return fmb_h5_attr_scalar(loc, name, H5T_STD_I64LE, H5T_NATIVE_LLONG, &v);
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    const herr_t st = a >= 0 ? H5Awrite(a, H5T_NATIVE_LLONG, &v) : -1;
    if (a >= 0) H5Aclose(a);
    return st < 0 ? -1 : 0;
}

/* A 1-D array of variable-length UTF-8 strings (n may be 0): a static dataset, or with
 * as_attr an attribute of loc. */
int fmb_h5_strings_put(hid_t loc, const char *name, const char *const *values, hsize_t n,
                       int as_attr)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    hid_t space = H5Screate_simple(1, &n, NULL);
    hid_t obj = -1;
    herr_t st = -1;
    if (type >= 0 && space >= 0 && H5Tset_size(type, H5T_VARIABLE) >= 0 &&
        H5Tset_cset(type, H5T_CSET_UTF8) >= 0) {
        obj = as_attr ? H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT)
                      : H5Dcreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (obj >= 0 && n)
            st = as_attr ? H5Awrite(obj, type, values)
                         : H5Dwrite(obj, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values);
        else if (obj >= 0)
            st = 0;
    }
    if (obj >= 0) as_attr ? H5Aclose(obj) : H5Dclose(obj);
    if (space >= 0) H5Sclose(space);
    if (type >= 0) H5Tclose(type);
    return st < 0 ? -1 : 0;
}

int fmb_h5_string_list(hid_t loc, const char *name, const char *const *values, hsize_t n)
{
    return fmb_h5_strings_put(loc, name, values, n, 0);
}

int fmb_h5_attr_strings(hid_t loc, const char *name, const char *const *values, hsize_t n)
{
    return fmb_h5_strings_put(loc, name, values, n, 1);
}

/* Static 1-D dataset of doubles. */
int fmb_h5_double_list(hid_t loc, const char *name, const double *values, hsize_t n)
{
    hid_t space = H5Screate_simple(1, &n, NULL);
    hid_t ds = -1;
    herr_t st = -1;
    if (space >= 0) {
        ds = H5Dcreate2(loc, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (ds >= 0)
            st = n ? H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) : 0;
    }
    if (ds >= 0) H5Dclose(ds);
    if (space >= 0) H5Sclose(space);
    return st < 0 ? -1 : 0;
}

/* Open the group loc/name, creating it if needed (negative on failure). */
hid_t fmb_h5_group(hid_t loc, const char *name)
{
    htri_t ex = H5Lexists(loc, name, H5P_DEFAULT);
    if (ex > 0) return H5Gopen2(loc, name, H5P_DEFAULT);
    if (ex < 0) return -1;
    return H5Gcreate2(loc, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
}

/* Group at a relative path a/b/c below loc, created with its parents as needed. */
hid_t fmb_h5_path_group(hid_t loc, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    hid_t g = H5Gopen2(loc, ".", H5P_DEFAULT);
    for (char *p = strtok(buf, "/"); p && g >= 0; p = strtok(NULL, "/")) {
        hid_t c = fmb_h5_group(g, p);
        H5Gclose(g);
        g = c;
    }
    return g;
}

/* ---------------------------------------------------------------- reading */

int fmb_h5_exists(hid_t file, const char *path)
{
    /* H5Lexists needs every intermediate link to exist: check component by component. */
    char buf[FMB_H5_PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char save = *p;
            *p = '\0';
            if (H5Lexists(file, buf, H5P_DEFAULT) <= 0) return 0;
            *p = save;
            if (save == '\0') break;
        }
    }
    return H5Oexists_by_name(file, path, H5P_DEFAULT) > 0;
}

/* Shape of a dataset: rows and values per row (rank 1: 1; rank 2: dims[1]; rank 3:
 * dims[1] * dims[2]). Returns 0 or -1. */
int fmb_h5_shape(hid_t file, const char *path, long *rows, long *cols)
{
    if (!fmb_h5_exists(file, path)) return -1;
    hid_t ds = H5Dopen2(file, path, H5P_DEFAULT);
    if (ds < 0) return -1;
    hid_t sp = H5Dget_space(ds);
    int rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
    hsize_t dims[3] = {0, 1, 1};
    int ok = rank >= 1 && rank <= 3 && H5Sget_simple_extent_dims(sp, dims, NULL) == rank;
    if (sp >= 0) H5Sclose(sp);
    hid_t type = H5Dget_type(ds);
    if (type < 0 || H5Tget_class(type) == H5T_STRING) ok = 0;
    if (type >= 0) H5Tclose(type);
    H5Dclose(ds);
    if (!ok) return -1;
    *rows = (long)dims[0];
    *cols = rank == 1 ? 1 : rank == 2 ? (long)dims[1] : (long)(dims[1] * dims[2]);
    return 0;
}

/* The first min(rows, maxrows) rows (all for maxrows < 0) of a numeric dataset as doubles,
 * row-major [rows x cols]; NULL on failure. */
double *fmb_h5_read_rows(hid_t file, const char *path, long maxrows, long *rows, long *cols)
{
    if (fmb_h5_shape(file, path, rows, cols) < 0) return NULL;
    if (maxrows >= 0 && maxrows < *rows) *rows = maxrows;
    size_t n = (size_t)(*rows) * (size_t)(*cols);
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) return NULL;
    hid_t ds = H5Dopen2(file, path, H5P_DEFAULT);
    hid_t fs = ds >= 0 ? H5Dget_space(ds) : -1;
    herr_t st = fs >= 0 ? 0 : -1;
    if (st == 0 && n) {
        hsize_t start[3] = {0, 0, 0}, count[3];
        const int rank = H5Sget_simple_extent_ndims(fs);
        st = rank >= 1 && rank <= 3 && H5Sget_simple_extent_dims(fs, count, NULL) == rank ? 0 : -1;
        count[0] = (hsize_t)*rows;
        hid_t ms = st == 0 ? H5Screate_simple(rank, count, NULL) : -1;
        if (ms < 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
            H5Dread(ds, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, v) < 0)
            st = -1;
        if (ms >= 0) H5Sclose(ms);
    }
    if (fs >= 0) H5Sclose(fs);
    if (ds >= 0) H5Dclose(ds);
    if (st < 0) {
        free(v);
        return NULL;
    }
    return v;
}

double *fmb_h5_read(hid_t file, const char *path, long *rows, long *cols)
{
    return fmb_h5_read_rows(file, path, -1, rows, cols);
}

/* String attribute `name` of the object at path into out ("" if absent). */
void fmb_h5_attr_text(hid_t file, const char *path, const char *name, char *out, size_t len)
{
    out[0] = '\0';
    if (H5Aexists_by_name(file, path, name, H5P_DEFAULT) <= 0) return;
    hid_t at = H5Aopen_by_name(file, path, name, H5P_DEFAULT, H5P_DEFAULT);
    if (at < 0) return;
    hid_t type = H5Aget_type(at);
    if (type >= 0 && H5Tget_class(type) == H5T_STRING) {
        hid_t mt = H5Tcopy(H5T_C_S1);
        H5Tset_cset(mt, H5Tget_cset(type)); /* HDF5 does not convert ASCII <-> UTF-8 */
        if (H5Tis_variable_str(type) > 0) {
            char *s = NULL;
            H5Tset_size(mt, H5T_VARIABLE);
            if (H5Aread(at, mt, &s) >= 0 && s) {
                snprintf(out, len, "%s", s);
                H5free_memory(s);
            }
        } else {
            size_t sz = H5Tget_size(type);
            char *s = calloc(sz + 1, 1);
            H5Tset_size(mt, sz + 1);
            if (s && H5Aread(at, mt, s) >= 0) snprintf(out, len, "%s", s);
            free(s);
        }
        H5Tclose(mt);
    }
    if (type >= 0) H5Tclose(type);
    H5Aclose(at);
}

/* Numeric scalar attribute `name` of the object at path; 0 or -1 (absent, unreadable). */
int fmb_h5_attr_number(hid_t file, const char *path, const char *name, double *out)
{
    if (strcmp(path, "/") != 0 && !fmb_h5_exists(file, path)) return -1;
    if (H5Aexists_by_name(file, path, name, H5P_DEFAULT) <= 0) return -1;
    hid_t a = H5Aopen_by_name(file, path, name, H5P_DEFAULT, H5P_DEFAULT);
    herr_t st = a >= 0 ? H5Aread(a, H5T_NATIVE_DOUBLE, out) : -1;
    if (a >= 0) H5Aclose(a);
    return st < 0 ? -1 : 0;
}

/* Fewest rows over the time series (unlimited first dimension) outside /viz. */
static herr_t min_rows_cb(hid_t root, const char *name, const H5L_info_t *info, void *data)
{
    if (strncmp(name, "viz", 3) == 0 && (name[3] == '/' || name[3] == '\0')) return 0;
    if (info->type != H5L_TYPE_HARD) return 0;
    hid_t ds = H5Oopen(root, name, H5P_DEFAULT);
    if (ds >= 0 && H5Iget_type(ds) != H5I_DATASET) {
        H5Oclose(ds);
        return 0;
    }
    hid_t sp = ds >= 0 ? H5Dget_space(ds) : -1;
    hsize_t dims[8], maxdims[8];
    const int rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
    if (rank >= 1 && rank <= 8 && H5Sget_simple_extent_dims(sp, dims, maxdims) == rank &&
        maxdims[0] == H5S_UNLIMITED) {
        long *min = data;
        if (*min < 0 || (long)dims[0] < *min) *min = (long)dims[0];
    }
    if (sp >= 0) H5Sclose(sp);
    if (ds >= 0) H5Oclose(ds);
    return 0;
}

long fmb_h5_records(hid_t file)
{
    long rows, cols;
    if (fmb_h5_shape(file, "/time", &rows, &cols) < 0) return -1;
    long min = -1;
    H5Lvisit(file, H5_INDEX_NAME, H5_ITER_NATIVE, min_rows_cb, &min);
    if (min < 0 || min > rows) min = rows;
    double committed;
    if (fmb_h5_attr_number(file, "/", "committed_records", &committed) == 0 && committed >= 0 &&
        committed < (double)min)
        min = (long)committed;
    return min;
}

/* Names of the members of group path, sorted by name or, with idx_attr, by that numeric
 * attribute of each member (model order); count (0 if none or absent). The caller frees
 * names[i] and names. */
int fmb_h5_members(hid_t file, const char *path, const char *idx_attr, char ***names)
{
    *names = NULL;
    if (!fmb_h5_exists(file, path)) return 0;
    hid_t g = H5Gopen2(file, path, H5P_DEFAULT);
    if (g < 0) return 0;
    H5G_info_t info;
    int n = 0;
    if (H5Gget_info(g, &info) >= 0 && info.nlinks > 0) {
        *names = calloc((size_t)info.nlinks, sizeof **names);
        for (hsize_t i = 0; *names && i < info.nlinks; i++) {
            ssize_t len =
                H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, NULL, 0, H5P_DEFAULT);
            if (len < 0) continue;
            char *s = malloc((size_t)len + 1);
            if (!s) break;
            H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, s, (size_t)len + 1,
                               H5P_DEFAULT);
            (*names)[n++] = s;
        }
    }
    H5Gclose(g);
    if (idx_attr && *names) { /* stable insertion sort by the attribute (model order) */
        double *idx = malloc(((size_t)n + 1) * sizeof *idx);
        for (int i = 0; idx && i < n; i++) {
            char p[FMB_H5_PATH_MAX];
            snprintf(p, sizeof p, "%s/%s", path, (*names)[i]);
            double k = (double)i;
            fmb_h5_attr_number(file, p, idx_attr, &k);
            char *s = (*names)[i];
            int j = i;
            for (; j > 0 && idx[j - 1] > k; j--) {
                (*names)[j] = (*names)[j - 1];
                idx[j] = idx[j - 1];
            }
            (*names)[j] = s;
            idx[j] = k;
        }
        free(idx);
    }
    return n;
}

void fmb_h5_free_names(char **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

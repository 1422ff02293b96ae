/* Small HDF5 helpers shared by the results writer and its layout (attributes, string
 * and number lists, groups created on demand). */
#include "io/h5util.h"

#include <stdio.h>
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

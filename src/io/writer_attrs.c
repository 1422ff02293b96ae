/* Run-level additions to a results file: provenance (/parameters, case path), run
 * statistics and the complete flag, one-off matrices; and the check that a file is a
 * flexmb results file. */
#include <hdf5.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/h5util.h"
#include "io/writer_impl.h"

int fmb_writer_provenance(fmb_writer_t *w, const fmb_case_t *c, const char *const *overrides,
                          int noverrides)
{
    if (!w || w->file < 0 || !c) return FMB_ERR_ARG;
    const int np = fmb_case_num_params(c);
    const char **names = calloc((size_t)np + 1, sizeof *names);
    double *values = calloc((size_t)np + 1, sizeof *values);
    hid_t g = -1;
    int st = 0;
    if (!names || !values) {
        st = fmb_writer_err(w, FMB_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int k = 0; k < np; k++) {
        names[k] = fmb_case_param_name(c, k);
        fmb_case_param(c, names[k], &values[k]);
    }
    g = fmb_h5_group(w->file, "parameters");
    if (g < 0 || fmb_h5_attr_strings(g, "_names", names, (hsize_t)np) < 0 ||
        fmb_h5_attr_strings(g, "_overrides", overrides,
                            (hsize_t)(noverrides > 0 ? noverrides : 0)) < 0) {
        st = fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot write /parameters", w->h5path);
        goto done;
    }
    for (int k = 0; k < np; k++)
        if (fmb_h5_attr_double(g, names[k], values[k]) < 0) {
            st = fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot write parameter %s", w->h5path,
                                names[k]);
            goto done;
        }
    hid_t root = H5Gopen2(w->file, "/", H5P_DEFAULT);
    if (root < 0 ||
        fmb_h5_attr_string(root, "case_path", fmb_case_path(c) ? fmb_case_path(c) : "") < 0)
        st = fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot write the case path", w->h5path);
    if (root >= 0) H5Gclose(root);
done:
    if (g >= 0) H5Gclose(g);
    free(names), free(values);
    return st;
}

int fmb_writer_statistics(fmb_writer_t *w, const fmb_sim_t *sim, double wall_time,
                          const char *status)
{
    if (!w || w->file < 0 || !sim) return FMB_ERR_ARG;
    fmb_sim_stats_t s;
    fmb_sim_get_stats(sim, &s);
    hid_t g = fmb_h5_group(w->file, "solver/statistics");
    int st = 0;
    char max_err_where[160];
    fmb_sim_coord_name(sim, s.max_error_coord, max_err_where, sizeof max_err_where);
    char jump_where[160];
    fmb_sim_coord_name(sim, s.jump_coord, jump_where, sizeof jump_where);
    if (g < 0 || fmb_h5_attr_int(g, "steps", (int)s.steps) < 0 ||
        fmb_h5_attr_double(g, "newton_iterations", (double)s.newton_iterations) < 0 ||
        fmb_h5_attr_double(g, "factorizations", (double)s.factorizations) < 0 ||
        fmb_h5_attr_double(g, "symbolic", (double)s.symbolic) < 0 ||
        fmb_h5_attr_double(g, "halvings", (double)s.halvings) < 0 ||
        fmb_h5_attr_double(g, "max_violation", s.max_violation) < 0 ||
        fmb_h5_attr_double(g, "rejected_error", (double)s.rejected_error) < 0 ||
        fmb_h5_attr_double(g, "rejected_event", (double)s.rejected_event) < 0 ||
        fmb_h5_attr_double(g, "restarts", (double)s.restarts) < 0 ||
        fmb_h5_attr_double(g, "h_min", s.h_min_used) < 0 ||
        fmb_h5_attr_double(g, "h_max", s.h_max_used) < 0 ||
        fmb_h5_attr_double(g, "max_error", s.max_error) < 0 ||
        fmb_h5_attr_double(g, "error_sum", s.error_sum) < 0 ||
        fmb_h5_attr_double(g, "max_error_time", s.max_error_time) < 0 ||
        fmb_h5_attr_string(g, "max_error_coordinate", max_err_where) < 0 ||
        fmb_h5_attr_double(g, "jump_steps", (double)s.jump_steps) < 0 ||
        fmb_h5_attr_double(g, "jump_error", s.jump_error) < 0 ||
        fmb_h5_attr_double(g, "jump_ratio", s.jump_ratio) < 0 ||
        fmb_h5_attr_double(g, "jump_time", s.jump_time) < 0 ||
        fmb_h5_attr_string(g, "jump_coordinate", jump_where) < 0 ||
        fmb_h5_attr_double(g, "wall_time", wall_time) < 0 ||
        fmb_h5_attr_double(g, "records", (double)fmb_writer_records(w)) < 0 ||
        fmb_h5_attr_double(g, "t_final", fmb_sim_time(sim)) < 0 ||
        fmb_h5_attr_string(g, "status", status ? status : "") < 0)
        st = fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot write /solver/statistics", w->h5path);
    const int complete = status && strcmp(status, "complete") == 0;
    if (st == 0 &&
        (H5Adelete(w->file, "complete") < 0 || fmb_h5_attr_int(w->file, "complete", complete) < 0))
        st = fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot write the complete flag", w->h5path);
    if (g >= 0) H5Gclose(g);
    return st;
}

int fmb_writer_matrix(fmb_writer_t *w, const char *group, const char *name, const double *v,
                      long rows, long cols)
{
    if (!w || w->file < 0 || !group || !name || rows < 0 || cols < 1) return FMB_ERR_ARG;
    hid_t g = fmb_h5_group(w->file, group);
    hsize_t dims[2] = {(hsize_t)rows, (hsize_t)cols};
    hid_t sp = g >= 0 ? H5Screate_simple(2, dims, NULL) : -1;
    hid_t ds = sp >= 0
                   ? H5Dcreate2(g, name, H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)
                   : -1;
    herr_t st = ds >= 0
                    ? (rows ? H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) : 0)
                    : -1;
    if (ds >= 0) H5Dclose(ds);
    if (sp >= 0) H5Sclose(sp);
    if (g >= 0) H5Gclose(g);
    return st < 0
               ? fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot write /%s/%s", w->h5path, group, name)
               : 0;
}

int fmb_results_file_kind(const char *path)
{
    struct stat st;
    fmb_hdf5_init();
    if (!path || stat(path, &st) != 0) return -1;
    if (!S_ISREG(st.st_mode)) return 0;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (H5Fis_hdf5(path) <= 0) return 0;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return 0;
    int kind = 0;
    if (H5Aexists(f, "creator") > 0) {
        hid_t a = H5Aopen(f, "creator", H5P_DEFAULT), t = a >= 0 ? H5Aget_type(a) : -1;
        if (t >= 0 && H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) > 0) {
            char *s = NULL;
            hid_t mt = H5Tcopy(t);
            if (H5Aread(a, mt, &s) >= 0 && s) {
                kind = strcmp(s, "flexmb") == 0;
                H5free_memory(s);
            }
            H5Tclose(mt);
        }
        if (t >= 0) H5Tclose(t);
        if (a >= 0) H5Aclose(a);
    }
    H5Fclose(f);
    return kind;
}

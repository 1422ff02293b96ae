/* `flexmb sweep`: what one results file says about its run (statistics and the study
 * metrics), and the sweep's summary table as an HDF5 file (docs/sweep.md).
 *
 * Metrics of a run, over all its records (layout of the results file: docs/output.md):
 *   deflection_max.<beam>        max over records and nodes of |v| (m), /beams/<b>/deflection
 *   deflection_max_time.<beam>   time of that record (s)
 *   deflection_max_angle.<beam>  crank angle at that record, degrees in [0, 360)
 *   stress_max.<beam>            max over records and nodes of the combined stress (Pa),
 *                                /beams/<b>/stress (sections with a known c)
 *   stress_max_time.<beam>       time of that record (s)
 *   stress_yield_ratio.<beam>    stress_max / the beam's yield stress (beams with `yield`)
 *   reaction_max.<joint>         max over records of |(Fx, Fy)| (N), force_magnitude
 *   drive_torque_max.<joint>     drivers: max |drive_torque| (N m), or
 *   drive_force_max.<joint>      max |drive_force| (N), instead of reaction_max
 *   contact_max.<joint>          max over records and corners of the normal force (N),
 *                                /contacts/<j>/normal
 *   impact_force_max.<joint>     clearance joints: max normal contact force (N),
 *                                /joints/<j>/clearance/normal_force
 *   contact_fraction.<joint>     fraction of the records in contact (contact = 1)
 *   impacts.<joint>              records where contact starts (0 -> 1; the first record
 *                                in contact counts when the run starts in contact)
 *   mode_changes.<element>       switching elements: records whose mode differs from the
 *                                previous record's, /switches/<e>/mode
 *   energy_drift                 max over records of |E(t) - E(0)|, E = T + V - W (J)
 *   energy_drift_ratio           energy_drift over the largest energy of the run, the
 *                                largest of |T|, |V|, |W| over the records
 *   deflection_ratio.<beam>      deflection_max / the beam's length
 *   deflection_range.<beam>      linear beams: the model's range of deflection_ratio, 0.05
 *   error_ratio                  /solver/statistics@error_sum: the local error estimates
 *                                accumulated over the run (1 = the step tolerance)
 * The first record that reaches a maximum gives its time and angle. A peak (deflection,
 * stress, reaction, drive, contact, impact force) reached only on the first or the last
 * record of the window is listed in edge_peaks: the true peak may lie outside the window
 * (or the window starts at it). warnings: /solver/statistics@warnings, the run's warnings. */
#include "flexmb/study.h"

#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flexmb/flexmb.h"
#include "io/h5util.h"
#include "io/writer_impl.h"

#define SW_PATH 600

static int sw_error(char *err, size_t len, int status, const char *fmt, ...)
{
    if (err && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, len, fmt, ap);
        va_end(ap);
    }
    return status;
}

int fmb_run_summary_add(fmb_run_summary_t *s, const char *name, double value)
{
    char **nn = realloc(s->names, (size_t)(s->nmetrics + 1) * sizeof *nn);
    if (!nn) return FMB_ERR_NOMEM;
    s->names = nn;
    double *vv = realloc(s->values, (size_t)(s->nmetrics + 1) * sizeof *vv);
    if (!vv) return FMB_ERR_NOMEM;
    s->values = vv;
    size_t n = strlen(name) + 1;
    char *copy = malloc(n);
    if (!copy) return FMB_ERR_NOMEM;
    memcpy(copy, name, n);
    s->names[s->nmetrics] = copy;
    s->values[s->nmetrics++] = value;
    return 0;
}

void fmb_run_summary_free(fmb_run_summary_t *s)
{
    if (!s) return;
    free(s->edge_peaks);
    free(s->warnings);
    s->edge_peaks = s->warnings = NULL;
    for (int k = 0; k < s->nmetrics; k++)
        free(s->names[k]);
    free(s->names);
    free(s->values);
    s->names = NULL;
    s->values = NULL;
    s->nmetrics = 0;
}

/* ---------------------------------------------------------------- reading */

/* Crank angle per record (degrees, not wrapped), or NULL. */
static double *crank_angles(hid_t file, const char *crank, long nt)
{
    char body[256] = "";
    if (crank) {
        snprintf(body, sizeof body, "%s", crank);
    } else {
        char **j = NULL;
        int nj = fmb_h5_members(file, "/joints", "index", &j);
        for (int k = 0; k < nj && !body[0]; k++) {
            char p[SW_PATH];
            snprintf(p, sizeof p, "/joints/%s/drive_torque", j[k]);
            if (!fmb_h5_exists(file, p)) continue;
            snprintf(p, sizeof p, "/joints/%s", j[k]);
            fmb_h5_attr_text(file, p, "body1", body, sizeof body);
            if (strcmp(body, "ground") == 0) fmb_h5_attr_text(file, p, "body2", body, sizeof body);
        }
        fmb_h5_free_names(j, nj);
    }
    if (!body[0]) return NULL;
    char p[SW_PATH];
    snprintf(p, sizeof p, "/bodies/%s/pose", body);
    long rows = 0, cols = 0;
    double *pose = fmb_h5_read_rows(file, p, nt, &rows, &cols);
    if (!pose || cols != 3 || rows < nt) {
        free(pose);
        return NULL;
    }
    for (long i = 0; i < nt; i++)
        pose[i] = pose[3 * i + 2] * (180.0 / 3.14159265358979323846);
    return pose;
}

/* Largest |value| over [rows x cols] (columns c0, c0 + cstep, ...) and the first row
 * reaching it; *edge (may be NULL): 1 or 2 when only the first or the last row reaches it
 * (of at least three rows, the peak exceeds every interior row's by more than 1e-6 of it:
 * a constant value, e.g. a static load, is no edge peak), else 0. */
static double peak_of(const double *v, long rows, long cols, long c0, long cstep, long *at,
                      int *edge)
{
    double m = 0.0, inner = 0.0;
    *at = 0;
    for (long i = 0; i < rows; i++)
        for (long k = c0; k < cols; k += cstep) {
            const double a = fabs(v[i * cols + k]);
            if (a > m) m = a, *at = i;
            if (i > 0 && i + 1 < rows && a > inner) inner = a;
        }
    if (edge) *edge = rows >= 3 && m > 0 && m - inner > 1e-6 * m ? (*at == 0 ? 1 : 2) : 0;
    return m;
}

/* Append "name@first" / "name@last" to s->edge_peaks for edge 1 / 2: 0 or FMB_ERR_NOMEM. */
static int add_edge(fmb_run_summary_t *s, const char *name, int edge)
{
    if (!edge) return 0;
    const size_t old = s->edge_peaks ? strlen(s->edge_peaks) : 0, n = old + strlen(name) + 8;
    char *e = realloc(s->edge_peaks, n);
    if (!e) return FMB_ERR_NOMEM;
    if (!old) e[0] = '\0';
    snprintf(e + old, n - old, "%s%s@%s", old ? "," : "", name, edge == 1 ? "first" : "last");
    s->edge_peaks = e;
    return 0;
}

static double wrap360(double deg)
{
    double w = fmod(deg, 360.0);
    return w < 0 ? w + 360.0 : w;
}

/* Clearance-joint metrics of /joints/<name>/clearance, if the joint has one (0 or a status). */
static int clearance_metrics(hid_t file, const char *name, fmb_run_summary_t *s, long nt)
{
    char p[SW_PATH], m[SW_PATH];
    long rows, cols, rc, cc, at;
    int st = 0;
    snprintf(p, sizeof p, "/joints/%s/clearance/normal_force", name);
    double *v = fmb_h5_read_rows(file, p, nt, &rows, &cols);
    snprintf(p, sizeof p, "/joints/%s/clearance/contact", name);
    double *c = v ? fmb_h5_read_rows(file, p, nt, &rc, &cc) : NULL;
    if (v && c && rc == rows && cc == 1) {
        rows = rows < nt ? rows : nt;
        long in = 0, starts = 0;
        for (long i = 0; i < rows; i++) {
            in += c[i] != 0.0;
            starts += c[i] != 0.0 && (i == 0 || c[i - 1] == 0.0);
        }
        int edge;
        const double fmax = peak_of(v, rows, cols, 0, 1, &at, &edge);
        snprintf(m, sizeof m, "impact_force_max.%s", name);
        st = fmb_run_summary_add(s, m, rows > 0 ? fmax : NAN);
        if (!st) st = add_edge(s, m, edge);
        snprintf(m, sizeof m, "contact_fraction.%s", name);
        if (!st) st = fmb_run_summary_add(s, m, rows > 0 ? (double)in / (double)rows : NAN);
        snprintf(m, sizeof m, "impacts.%s", name);
        if (!st) st = fmb_run_summary_add(s, m, (double)starts);
    }
    free(v);
    free(c);
    return st;
}

/* Peak combined stress of beam `name` (column 2 of every node in /beams/<b>/stress), its
 * time and its ratio to the yield stress: 0 or a status (nothing for a beam without c). */
static int stress_metrics(hid_t file, const char *name, fmb_run_summary_t *s, const double *t,
                          long nt)
{
    char p[SW_PATH], m[SW_PATH];
    long rows, cols, at = 0;
    snprintf(p, sizeof p, "/beams/%s/stress", name);
    double *v = fmb_h5_read_rows(file, p, nt, &rows, &cols);
    if (!v) return 0;
    rows = rows < nt ? rows : nt;
    int edge;
    const double smax = peak_of(v, rows, cols, 2, 3, &at, &edge);
    free(v);
    snprintf(m, sizeof m, "stress_max.%s", name);
    int st = fmb_run_summary_add(s, m, rows > 0 ? smax : NAN);
    if (!st) st = add_edge(s, m, edge);
    snprintf(m, sizeof m, "stress_max_time.%s", name);
    if (!st) st = fmb_run_summary_add(s, m, rows > 0 ? t[at] : NAN);
    double y = 0.0;
    snprintf(p, sizeof p, "/beams/%s", name);
    if (!st && fmb_h5_attr_number(file, p, "yield", &y) == 0 && y > 0) {
        snprintf(m, sizeof m, "stress_yield_ratio.%s", name);
        st = fmb_run_summary_add(s, m, rows > 0 ? smax / y : NAN);
    }
    return st;
}

static int metrics(hid_t file, const char *crank, fmb_run_summary_t *s, const double *t,
                   long nt)
{
    int st = 0;
    double *ang = crank_angles(file, crank, nt);
    char **names = NULL, p[SW_PATH], m[SW_PATH];
    int n = fmb_h5_members(file, "/beams", "index", &names);
    for (int k = 0; k < n && st == 0; k++) {
        long rows, cols, at;
        snprintf(p, sizeof p, "/beams/%s/deflection", names[k]);
        double *v = fmb_h5_read_rows(file, p, nt, &rows, &cols);
        if (!v) continue;
        rows = rows < nt ? rows : nt;
        int edge;
        double vmax = peak_of(v, rows, cols, 0, 1, &at, &edge);
        free(v);
        snprintf(m, sizeof m, "deflection_max.%s", names[k]);
        st = fmb_run_summary_add(s, m, rows > 0 ? vmax : NAN);
        if (!st) st = add_edge(s, m, edge);
        long xr, xc;
        snprintf(p, sizeof p, "/beams/%s/x0", names[k]);
        double *x0 = st ? NULL : fmb_h5_read_rows(file, p, -1, &xr, &xc);
        snprintf(m, sizeof m, "deflection_ratio.%s", names[k]);
        if (x0 && xr * xc >= 2)
            st = fmb_run_summary_add(s, m, rows > 0 ? vmax / (x0[xr * xc - 1] - x0[0]) : NAN);
        free(x0);
        /* the linear beam model's range (nonlinear beams: large deflections, no entry) */
        char geo[32];
        snprintf(p, sizeof p, "/beams/%s", names[k]);
        fmb_h5_attr_text(file, p, "geometry", geo, sizeof geo);
        snprintf(m, sizeof m, "deflection_range.%s", names[k]);
        if (!st && !strcmp(geo, "linear")) st = fmb_run_summary_add(s, m, FMB_BEAM_LINEAR_RANGE);
        snprintf(m, sizeof m, "deflection_max_time.%s", names[k]);
        if (!st) st = fmb_run_summary_add(s, m, rows > 0 ? t[at] : NAN);
        snprintf(m, sizeof m, "deflection_max_angle.%s", names[k]);
        if (!st) st = fmb_run_summary_add(s, m, rows > 0 && ang ? wrap360(ang[at]) : NAN);
        if (!st) st = stress_metrics(file, names[k], s, t, nt);
    }
    fmb_h5_free_names(names, n);
    n = fmb_h5_members(file, "/joints", "index", &names);
    static const char *const joint_ds[][2] = {{"drive_torque", "drive_torque_max"},
                                              {"drive_force", "drive_force_max"},
                                              {"force_magnitude", "reaction_max"}};
    for (int k = 0; k < n && st == 0; k++) {
        long rows, cols, at;
        double *v = NULL;
        int d = 0;
        for (; d < 3 && !v; d++) { /* a driver's drive, else the reaction force */
            snprintf(p, sizeof p, "/joints/%s/%s", names[k], joint_ds[d][0]);
            v = fmb_h5_read_rows(file, p, nt, &rows, &cols);
        }
        if (!v) { /* a clearance joint (a force pair) has its own metrics */
            st = clearance_metrics(file, names[k], s, nt);
            continue;
        }
        int edge;
        double fmax = peak_of(v, rows < nt ? rows : nt, cols, 0, 1, &at, &edge);
        free(v);
        snprintf(m, sizeof m, "%s.%s", joint_ds[d - 1][1], names[k]);
        st = fmb_run_summary_add(s, m, rows > 0 ? fmax : NAN);
        if (!st) st = add_edge(s, m, edge);
    }
    fmb_h5_free_names(names, n);
    n = fmb_h5_members(file, "/contacts", "joint_index", &names);
    for (int k = 0; k < n && st == 0; k++) {
        long rows, cols, at;
        snprintf(p, sizeof p, "/contacts/%s/normal", names[k]);
        double *v = fmb_h5_read_rows(file, p, nt, &rows, &cols);
        if (!v) continue;
        int edge;
        double fmax = peak_of(v, rows < nt ? rows : nt, cols, 0, 1, &at, &edge);
        free(v);
        snprintf(m, sizeof m, "contact_max.%s", names[k]);
        st = fmb_run_summary_add(s, m, rows > 0 ? fmax : NAN);
        if (!st) st = add_edge(s, m, edge);
    }
    fmb_h5_free_names(names, n);
    n = fmb_h5_members(file, "/switches", "force_index", &names);
    for (int k = 0; k < n && st == 0; k++) {
        long rows, cols;
        snprintf(p, sizeof p, "/switches/%s/mode", names[k]);
        double *v = fmb_h5_read_rows(file, p, nt, &rows, &cols);
        if (!v || cols != 1) {
            free(v);
            continue;
        }
        rows = rows < nt ? rows : nt;
        long changes = 0;
        for (long i = 1; i < rows; i++)
            changes += v[i] != v[i - 1];
        free(v);
        snprintf(m, sizeof m, "mode_changes.%s", names[k]);
        st = fmb_run_summary_add(s, m, (double)changes);
    }
    fmb_h5_free_names(names, n);
    long rows = 0, cols = 0;
    double *e = st == 0 ? fmb_h5_read_rows(file, "/energy", nt, &rows, &cols) : NULL;
    if (e && cols >= 4 && rows > 0) {
        double drift = 0.0, scale = 0.0;
        for (long i = 0; i < rows && i < nt; i++) {
            drift = fmax(drift, fabs(e[i * cols + 3] - e[3]));
            for (int c = 0; c < 3; c++)
                scale = fmax(scale, fabs(e[i * cols + c]));
        }
        st = fmb_run_summary_add(s, "energy_drift", drift);
        if (!st) st = fmb_run_summary_add(s, "energy_drift_ratio", scale > 0 ? drift / scale : NAN);
    }
    double er;
    if (!st && fmb_h5_exists(file, "/solver/statistics") &&
        (fmb_h5_attr_number(file, "/solver/statistics", "error_sum", &er) == 0 ||
         fmb_h5_attr_number(file, "/solver/statistics", "max_error", &er) == 0))
        st = fmb_run_summary_add(s, "error_ratio", er);
    free(e);
    free(ang);
    return st;
}

/* Everything a results file says about its run, from the open file. 0 or a status. */
static int file_summary(hid_t file, const char *crank, fmb_run_summary_t *s)
{
    s->exists = 1;
    double x;
    if (fmb_h5_attr_number(file, "/", "complete", &x) == 0) s->complete = x == 1.0;
    const char *stat = "/solver/statistics";
    if (fmb_h5_exists(file, stat)) {
        fmb_h5_attr_text(file, stat, "status", s->status, sizeof s->status);
        if (fmb_h5_attr_number(file, stat, "steps", &x) == 0) s->steps = (long)x;
        if (fmb_h5_attr_number(file, stat, "newton_iterations", &x) == 0) s->newton = (long)x;
        if (fmb_h5_attr_number(file, stat, "wall_time", &x) == 0) s->wall_time = x;
    }
    s->edge_peaks = calloc(1, 1);
    s->warnings = malloc(8192);
    if (!s->edge_peaks || !s->warnings) return FMB_ERR_NOMEM;
    s->warnings[0] = '\0';
    if (fmb_h5_exists(file, "/solver/statistics")) { /* one line: " | " between warnings */
        char text[4096];
        fmb_h5_attr_text(file, "/solver/statistics", "warnings", text, sizeof text);
        size_t o = 0;
        for (const char *c = text; *c && o + 4 < 8192; c++) {
            if (*c != '\n') {
                s->warnings[o++] = *c;
            } else if (c[1]) {
                memcpy(s->warnings + o, " | ", 3);
                o += 3;
            }
        }
        s->warnings[o] = '\0';
    }
    long nt = 0, cols = 0;
    /* the committed records (docs/output.md, "Records and crash safety") */
    double *t = fmb_h5_read_rows(file, "/time", fmb_h5_records(file), &nt, &cols);
    int st = 0;
    if (t && cols == 1) {
        s->records = nt;
        if (nt > 0) s->t_final = t[nt - 1];
        st = metrics(file, crank, s, t, nt);
    }
    free(t);
    return st;
}

static void summary_init(fmb_run_summary_t *s)
{
    memset(s, 0, sizeof *s);
    s->steps = s->newton = -1;
    s->wall_time = s->t_final = NAN;
}

int fmb_run_summary_read(const char *path, const char *crank, fmb_run_summary_t *s, char *err,
                         size_t errlen)
{
    summary_init(s);
    struct stat sb; /* a regular file only: a FIFO would block the open */
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) return 0;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) return 0;
    char creator[64];
    fmb_h5_attr_text(file, "/", "creator", creator, sizeof creator);
    if (strcmp(creator, "flexmb") != 0) {
        H5Fclose(file);
        return 0;
    }
    int st = file_summary(file, crank, s);
    H5Fclose(file);
    if (st < 0) return sw_error(err, errlen, st, "%s: out of memory reading the metrics", path);
    return 0;
}

int fmb_writer_validity(fmb_writer_t *w, const char *crank, const char *warnings,
                        fmb_run_summary_t *s)
{
    summary_init(s);
    if (!w || w->file < 0) return FMB_ERR_ARG;
    hid_t g = fmb_h5_group(w->file, "solver/statistics");
    int st = g < 0 || fmb_h5_attr_string(g, "warnings", warnings ? warnings : "") < 0 ? -1 : 0;
    if (st == 0 && (st = file_summary(w->file, crank, s)) < 0)
        return fmb_writer_err(w, st, "%s: out of memory reading the metrics", w->h5path);
    for (int k = 0; k < s->nmetrics && st == 0; k++)
        if (fmb_h5_attr_double(g, s->names[k], s->values[k]) < 0) st = -1;
    if (st == 0 && fmb_h5_attr_string(g, "edge_peaks", s->edge_peaks) < 0) st = -1;
    if (g >= 0) H5Gclose(g);
    if (st < 0)
        return fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot write /solver/statistics", w->h5path);
    return 0;
}

/* ---------------------------------------------------------------- summary table */

static hid_t text_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    return t;
}

static int put_text_attr(hid_t loc, const char *name, const char *value)
{
    hid_t t = text_type(), sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(loc, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    herr_t st = a >= 0 ? H5Awrite(a, t, &value) : -1;
    if (a >= 0) H5Aclose(a);
    H5Sclose(sp);
    H5Tclose(t);
    return st < 0 ? -1 : 0;
}

static int put_long_attr(hid_t loc, const char *name, long value)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(loc, name, H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
    herr_t st = a >= 0 ? H5Awrite(a, H5T_NATIVE_LONG, &value) : -1;
    if (a >= 0) H5Aclose(a);
    H5Sclose(sp);
    return st < 0 ? -1 : 0;
}

static int put_column(hid_t file, const fmb_table_col_t *c, long nrows)
{
    hid_t loc = file;
    if (c->group && c->group[0]) {
        loc = H5Lexists(file, c->group, H5P_DEFAULT) > 0
                  ? H5Gopen2(file, c->group, H5P_DEFAULT)
                  : H5Gcreate2(file, c->group, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (loc < 0) return -1;
    }
    hsize_t n = (hsize_t)nrows;
    hid_t sp = H5Screate_simple(1, &n, NULL);
    hid_t ft = c->kind == FMB_COL_TEXT  ? text_type()
               : c->kind == FMB_COL_INT ? H5Tcopy(H5T_STD_I64LE)
                                        : H5Tcopy(H5T_IEEE_F64LE);
    hid_t mt = c->kind == FMB_COL_TEXT  ? H5Tcopy(ft)
               : c->kind == FMB_COL_INT ? H5Tcopy(H5T_NATIVE_LONG)
                                        : H5Tcopy(H5T_NATIVE_DOUBLE);
    const void *buf = c->kind == FMB_COL_TEXT  ? (const void *)c->text
                      : c->kind == FMB_COL_INT ? (const void *)c->ints
                                               : (const void *)c->real;
    hid_t ds = H5Dcreate2(loc, c->name, ft, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    herr_t st = ds >= 0 && (nrows == 0 || H5Dwrite(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0)
                    ? 0
                    : -1;
    if (st == 0 && c->units && c->units[0]) st = put_text_attr(ds, "units", c->units);
    if (ds >= 0) H5Dclose(ds);
    H5Tclose(mt);
    H5Tclose(ft);
    H5Sclose(sp);
    if (loc != file) H5Gclose(loc);
    return st;
}

int fmb_table_write_h5(const char *path, const fmb_table_col_t *cols, int ncols, long nrows,
                       const char *const *attr_names, const char *const *attr_values, int nattr,
                       int complete, char *err, size_t errlen)
{
    char tmp[SW_PATH + 8];
    if (snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp)
        return sw_error(err, errlen, FMB_ERR_IO, "%s: path too long", path);
    int fd = mkstemp(tmp); /* a new file of ours: never one of the user's */
    if (fd < 0) return sw_error(err, errlen, FMB_ERR_IO, "%s: cannot create", tmp);
    fchmod(fd, 0644);
    close(fd);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t file = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (file < 0) {
        remove(tmp);
        return sw_error(err, errlen, FMB_ERR_HDF5, "%s: cannot create", tmp);
    }
    int bad = put_text_attr(file, "creator", "flexmb") |
              put_text_attr(file, "version", fmb_version()) | put_long_attr(file, "runs", nrows) |
              put_long_attr(file, "complete", complete);
    for (int k = 0; k < nattr; k++)
        bad |= put_text_attr(file, attr_names[k], attr_values[k]);
    for (int k = 0; k < ncols && !bad; k++)
        bad |= put_column(file, &cols[k], nrows);
    if (H5Fclose(file) < 0) bad = -1;
    if (bad || rename(tmp, path) != 0) {
        remove(tmp);
        return sw_error(err, errlen, FMB_ERR_HDF5, "%s: cannot write the summary", path);
    }
    return 0;
}

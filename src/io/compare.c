/* `flexmb compare A.h5 B.h5`: differences between two runs (layout: docs/output.md).
 *
 * B is interpolated linearly in time onto A's records that lie inside the common time
 * interval [max(tA0, tB0), min(tA1, tB1)] (to within 1e-9 relative), so the differences
 * are A - B(tA). A record of A at exactly a time of B takes B's value as is: two identical
 * files compare to exactly zero. For each quantity present in both files with the same
 * shape: max |A - B|, RMS of A - B over those records, max |A| (for scale) and the time of
 * the max difference. Angles are compared as stored (continuous, not wrapped). */
#include "io/compare.h"

#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "flexmb/flexmb.h"

#define CMP_LABEL_MAX 600
#define CMP_PATH_MAX 512

typedef struct cmp_run {
    const char *path;
    hid_t file;
    double *t;
    long n;
} cmp_run_t;

typedef struct cmp_ctx {
    cmp_run_t a, b;
    long i0, i1; /* A's records [i0, i1) inside the common interval */
    long *k;     /* for each of them: B's interval [k, k + 1] */
    double *w;   /* and the weight of B[k + 1] (0: B[k] exactly) */
    FILE *csv, *table;
    int width; /* label column width in the table */
    int nq;
    fmb_compare_summary_t *sum;
    char *err;
    size_t errlen;
} cmp_ctx_t;

static int cmp_error(cmp_ctx_t *c, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int cmp_error(cmp_ctx_t *c, int status, const char *fmt, ...)
{
    if (c->err && c->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->err, c->errlen, fmt, ap);
        va_end(ap);
    }
    return status;
}

/* ---------------------------------------------------------------- HDF5 reading */

static int has_path(hid_t file, const char *path)
{
    /* H5Lexists needs every intermediate link to exist: check component by component. */
    char buf[CMP_PATH_MAX];
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
static int ds_shape(hid_t file, const char *path, long *rows, long *cols)
{
    if (!has_path(file, path)) return -1;
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

/* Whole numeric dataset as doubles, row-major [rows x cols]; NULL on failure. */
static double *ds_read(hid_t file, const char *path, long *rows, long *cols)
{
    if (ds_shape(file, path, rows, cols) < 0) return NULL;
    size_t n = (size_t)(*rows) * (size_t)(*cols);
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) return NULL;
    hid_t ds = H5Dopen2(file, path, H5P_DEFAULT);
    herr_t st = ds >= 0 && n ? H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v)
                             : (ds >= 0 ? 0 : -1);
    if (ds >= 0) H5Dclose(ds);
    if (st < 0) {
        free(v);
        return NULL;
    }
    return v;
}

/* String attribute `name` of the object at path into out ("" if absent). */
static void attr_text(hid_t file, const char *path, const char *name, char *out, size_t len)
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

/* k-th comma-separated field of list into out, else the fallback "c<k>". */
static void column_name(const char *list, long k, char *out, size_t len)
{
    const char *p = list;
    for (long i = 0; i < k && p && *p; i++) {
        p = strchr(p, ',');
        if (p) p++;
    }
    if (!p || !*p) {
        snprintf(out, len, "c%ld", k);
        return;
    }
    size_t n = strcspn(p, ",");
    if (n >= len) n = len - 1;
    memcpy(out, p, n);
    out[n] = '\0';
}

/* Names of the members of group path (sorted by name); count or -1. The caller frees
 * names[i] and names. */
static int group_members(hid_t file, const char *path, char ***names)
{
    *names = NULL;
    if (!has_path(file, path)) return 0;
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
    return n;
}

static void free_names(char **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static int open_run(cmp_ctx_t *c, cmp_run_t *r, const char *path)
{
    r->path = path;
    r->file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (r->file < 0) return cmp_error(c, FMB_ERR_HDF5, "%s: cannot open as an HDF5 file", path);
    long cols;
    r->t = ds_read(r->file, "/time", &r->n, &cols);
    if (!r->t || cols != 1)
        return cmp_error(c, FMB_ERR_HDF5, "%s: no /time dataset (not a flexmb results file?)",
                         path);
    if (r->n < 1) return cmp_error(c, FMB_ERR_HDF5, "%s: no records", path);
    for (long i = 1; i < r->n; i++)
        if (!(r->t[i] > r->t[i - 1]))
            return cmp_error(c, FMB_ERR_HDF5, "%s: /time is not increasing at record %ld", path, i);
    return 0;
}

/* ---------------------------------------------------------------- alignment */

static int align(cmp_ctx_t *c)
{
    const cmp_run_t *a = &c->a, *b = &c->b;
    double lo = fmax(a->t[0], b->t[0]), hi = fmin(a->t[a->n - 1], b->t[b->n - 1]);
    double tol = 1e-9 * fmax(fmax(fabs(lo), fabs(hi)), 1e-3);
    if (hi < lo - tol)
        return cmp_error(c, FMB_ERR_NOTFOUND,
                         "no common time interval: %s covers [%g, %g] s, %s [%g, %g] s", a->path,
                         a->t[0], a->t[a->n - 1], b->path, b->t[0], b->t[b->n - 1]);
    long i0 = 0, i1 = a->n;
    while (i0 < a->n && a->t[i0] < lo - tol)
        i0++;
    while (i1 > i0 && a->t[i1 - 1] > hi + tol)
        i1--;
    if (i1 <= i0)
        return cmp_error(c, FMB_ERR_NOTFOUND, "no record of %s in the common interval [%g, %g] s",
                         a->path, lo, hi);
    c->i0 = i0;
    c->i1 = i1;
    c->k = malloc((size_t)(i1 - i0) * sizeof *c->k);
    c->w = malloc((size_t)(i1 - i0) * sizeof *c->w);
    if (!c->k || !c->w) return cmp_error(c, FMB_ERR_NOMEM, "out of memory");
    long k = 0;
    for (long i = i0; i < i1; i++) {
        double t = a->t[i];
        while (k + 1 < b->n && b->t[k + 1] <= t)
            k++;
        long kk = k;
        double w;
        if (t == b->t[k] || b->n == 1 || t <= b->t[0]) {
            w = 0.0; /* exactly B's record (or clamped within the tolerance) */
        } else if (k + 1 >= b->n) {
            kk = b->n - 2; /* past B's last record, within the tolerance */
            w = 1.0;
        } else {
            w = (t - b->t[k]) / (b->t[k + 1] - b->t[k]);
        }
        c->k[i - i0] = kk;
        c->w[i - i0] = w;
    }
    c->sum->ntimes = i1 - i0;
    c->sum->t0 = a->t[i0];
    c->sum->t1 = a->t[i1 - 1];
    return 0;
}

/* ---------------------------------------------------------------- quantities */

static void csv_field(FILE *f, const char *s)
{
    if (strpbrk(s, ",\"\n")) {
        fputc('"', f);
        for (; *s; s++) {
            if (*s == '"') fputc('"', f);
            fputc(*s, f);
        }
        fputc('"', f);
    } else {
        fputs(s, f);
    }
}

/* One quantity: column col (of cols) of A's and B's data. */
static void compare_column(cmp_ctx_t *c, const char *label, const char *path, const char *cname,
                           const double *va, const double *vb, long cols, long col)
{
    double maxd = 0.0, sum2 = 0.0, maxa = 0.0, tmax = c->a.t[c->i0];
    int nan = 0;
    for (long i = c->i0; i < c->i1; i++) {
        const long k = c->k[i - c->i0];
        const double w = c->w[i - c->i0];
        const double ya = va[i * cols + col];
        const double y0 = vb[k * cols + col];
        const double yb = w == 0.0 ? y0 : (1.0 - w) * y0 + w * vb[(k + 1) * cols + col];
        const double d = fabs(ya - yb);
        if (isnan(d)) {
            nan = 1;
            continue;
        }
        if (d > maxd) {
            maxd = d;
            tmax = c->a.t[i];
        }
        sum2 += d * d;
        if (fabs(ya) > maxa) maxa = fabs(ya);
    }
    const double n = (double)(c->i1 - c->i0);
    double rms = sqrt(sum2 / n);
    if (nan) maxd = rms = NAN;
    const double rel = maxa > 0 ? maxd / maxa : (maxd > 0 ? INFINITY : 0.0);
    if (c->table)
        fprintf(c->table, "  %-*s %12.4e %12.4e %12.4e %10.3e %10.5g\n", c->width, label, maxd, rms,
                maxa, rel, tmax);
    csv_field(c->csv, label);
    fputc(',', c->csv);
    csv_field(c->csv, path);
    fprintf(c->csv, ",%ld,", col);
    csv_field(c->csv, cname);
    fprintf(c->csv, ",%.17g,%.17g,%.17g,%.17g,%.17g\n", maxd, rms, maxa, rel, tmax);
    c->nq++;
    if (nan || maxd > c->sum->max_diff) {
        c->sum->max_diff = maxd;
        snprintf(c->sum->worst, sizeof c->sum->worst, "%s", label);
    }
}

/* Compare dataset path in both files: every column, or the first ncmp (> 0) only. The
 * label is the path without its leading '/', then [column name] unless the dataset is
 * 1-D and per_column is 0. */
static int compare_dataset(cmp_ctx_t *c, const char *path, long ncmp, int per_column)
{
    long ra, ca, rb, cb;
    if (ds_shape(c->a.file, path, &ra, &ca) < 0 || ds_shape(c->b.file, path, &rb, &cb) < 0)
        return 0;
    long cols = ncmp > 0 ? ncmp : ca;
    if (ncmp <= 0 && ca != cb) return 0;
    if (cols > ca || cols > cb || ra < c->i1 || rb < c->b.n)
        return 0; /* fewer rows than records (a file still being written) */
    double *va = ds_read(c->a.file, path, &ra, &ca);
    double *vb = ds_read(c->b.file, path, &rb, &cb);
    if (!va || !vb) {
        free(va);
        free(vb);
        return cmp_error(c, FMB_ERR_HDF5, "cannot read %s", path);
    }
    char names[512], cname[64], label[CMP_LABEL_MAX];
    attr_text(c->a.file, path, "columns", names, sizeof names);
    for (long col = 0; col < cols; col++) {
        if (ca == 1 && !per_column) {
            snprintf(label, sizeof label, "%s", path + 1);
            cname[0] = '\0';
        } else {
            column_name(names, col, cname, sizeof cname);
            snprintf(label, sizeof label, "%s[%s]", path + 1, cname);
        }
        /* Sizes ca/cb may differ when only the first ncmp columns are compared. */
        if (ca == cb) {
            compare_column(c, label, path, cname, va, vb, ca, col);
        } else {
            /* repack to a common stride */
            double *pa = malloc((size_t)ra * sizeof *pa), *pb = malloc((size_t)rb * sizeof *pb);
            if (!pa || !pb) {
                free(pa), free(pb), free(va), free(vb);
                return cmp_error(c, FMB_ERR_NOMEM, "out of memory");
            }
            for (long i = 0; i < ra; i++)
                pa[i] = va[i * ca + col];
            for (long i = 0; i < rb; i++)
                pb[i] = vb[i * cb + col];
            compare_column(c, label, path, cname, pa, pb, 1, 0);
            free(pa), free(pb);
        }
    }
    free(va);
    free(vb);
    return 0;
}

/* Same node positions in both files (x0 of a beam). */
static int same_mesh(cmp_ctx_t *c, const char *path)
{
    long ra, ca, rb, cb;
    double *xa = ds_read(c->a.file, path, &ra, &ca), *xb = ds_read(c->b.file, path, &rb, &cb);
    int same = xa && xb && ra == rb && ca == cb;
    for (long i = 0; same && i < ra * ca; i++)
        if (fabs(xa[i] - xb[i]) > 1e-12 * (1 + fabs(xa[i]))) same = 0;
    free(xa);
    free(xb);
    return same;
}

/* Every common quantity, in a fixed order: sliders, bodies, joints, beams, energy. */
static int compare_all(cmp_ctx_t *c)
{
    char path[CMP_PATH_MAX];
    char **names = NULL;
    int n, st = 0;

    n = group_members(c->a.file, "/sliders", &names);
    for (int i = 0; i < n && st >= 0; i++) {
        snprintf(path, sizeof path, "/sliders/%s/s", names[i]);
        st = compare_dataset(c, path, 0, 0);
    }
    free_names(names, n);

    n = group_members(c->a.file, "/bodies", &names);
    for (int i = 0; i < n && st >= 0; i++) {
        static const char *const sets[] = {"pose", "q", "qd", "qdd"};
        for (int s = 0; s < 4 && st >= 0; s++) {
            snprintf(path, sizeof path, "/bodies/%s/%s", names[i], sets[s]);
            long ra, ca, rb, cb;
            if (ds_shape(c->a.file, path, &ra, &ca) < 0 || ds_shape(c->b.file, path, &rb, &cb) < 0)
                continue;
            /* Elastic bodies with different meshes: the carrier coordinates only. */
            st = compare_dataset(c, path, ca == cb ? 0 : 3, 1);
        }
    }
    free_names(names, n);

    n = group_members(c->a.file, "/joints", &names);
    for (int i = 0; i < n && st >= 0; i++) {
        snprintf(path, sizeof path, "/joints/%s/reaction", names[i]);
        st = compare_dataset(c, path, 0, 1);
    }
    free_names(names, n);

    n = group_members(c->a.file, "/beams", &names);
    for (int i = 0; i < n && st >= 0; i++) {
        snprintf(path, sizeof path, "/beams/%s/x0", names[i]);
        if (!same_mesh(c, path)) continue;
        snprintf(path, sizeof path, "/beams/%s/deflection", names[i]);
        long ra, ca;
        if (ds_shape(c->a.file, path, &ra, &ca) < 0) continue;
        /* columns n0, n1, ...: no attribute, column_name gives "c<k>"; label by node */
        long rb, cb;
        double *va = ds_read(c->a.file, path, &ra, &ca);
        double *vb = ds_read(c->b.file, path, &rb, &cb);
        if (va && vb && ca == cb && ra >= c->i1 && rb >= c->b.n) {
            for (long col = 0; col < ca; col++) {
                char label[CMP_LABEL_MAX], cname[32];
                snprintf(cname, sizeof cname, "n%ld", col);
                snprintf(label, sizeof label, "%s[%s]", path + 1, cname);
                compare_column(c, label, path, cname, va, vb, ca, col);
            }
        }
        free(va);
        free(vb);
    }
    free_names(names, n);

    if (st >= 0) st = compare_dataset(c, "/energy", 0, 1);
    return st;
}

/* Longest label, for the table layout (approximate: path lengths). */
static int label_width(cmp_ctx_t *c)
{
    int wmax = 24;
    static const char *const groups[] = {"/sliders", "/bodies", "/joints", "/beams"};
    static const int extra[] = {2, 16, 15, 18};
    for (int g = 0; g < 4; g++) {
        char **names = NULL;
        int n = group_members(c->a.file, groups[g], &names);
        for (int i = 0; i < n; i++) {
            int w = (int)(strlen(groups[g]) + strlen(names[i]) + (size_t)extra[g]);
            if (w > wmax) wmax = w;
        }
        free_names(names, n);
    }
    return wmax > 60 ? 60 : wmax;
}

int fmb_compare_files(const char *a, const char *b, const char *csv_path, FILE *table,
                      fmb_compare_summary_t *summary, char *err, size_t errlen)
{
    fmb_compare_summary_t local;
    cmp_ctx_t c;
    memset(&c, 0, sizeof c);
    memset(&local, 0, sizeof local);
    c.sum = summary ? summary : &local;
    memset(c.sum, 0, sizeof *c.sum);
    c.err = err;
    c.errlen = errlen;
    c.a.file = c.b.file = -1;
    c.table = table;
    if (err && errlen) err[0] = '\0';
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    int st = open_run(&c, &c.a, a);
    if (st >= 0) st = open_run(&c, &c.b, b);
    if (st >= 0) st = align(&c);
    if (st >= 0) {
        c.csv = fopen(csv_path, "w");
        if (!c.csv) st = cmp_error(&c, FMB_ERR_IO, "%s: cannot create the CSV file", csv_path);
    }
    if (st >= 0) {
        fputs("quantity,dataset,column,column_name,max_abs_diff,rms_diff,max_abs_a,"
              "rel_diff,t_max_diff\n",
              c.csv);
        c.width = label_width(&c);
        if (table) {
            fprintf(table, "A: %s (%ld records)\nB: %s (%ld records), interpolated onto A\n", a,
                    c.a.n, b, c.b.n);
            fprintf(table, "common interval: [%g, %g] s, %ld records of A\n\n", c.sum->t0,
                    c.sum->t1, c.sum->ntimes);
            fprintf(table, "  %-*s %12s %12s %12s %10s %10s\n", c.width, "quantity", "max|A-B|",
                    "rms(A-B)", "max|A|", "max/max|A|", "t at max");
        }
        st = compare_all(&c);
        int bad = ferror(c.csv);
        if (fclose(c.csv) != 0 || bad)
            st = st < 0 ? st : cmp_error(&c, FMB_ERR_IO, "%s: cannot write", csv_path);
        c.csv = NULL;
        if (st >= 0 && c.nq == 0)
            st = cmp_error(&c, FMB_ERR_NOTFOUND, "%s and %s have no common quantity", a, b);
    }
    c.sum->nquantities = c.nq;
    free(c.k);
    free(c.w);
    free(c.a.t);
    free(c.b.t);
    if (c.a.file >= 0) H5Fclose(c.a.file);
    if (c.b.file >= 0) H5Fclose(c.b.file);
    return st < 0 ? st : 0;
}

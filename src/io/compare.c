/* `flexmb compare A.h5 B.h5`: differences between two runs (layout: docs/output.md).
 *
 * The abscissa is the time, or the (continuous) angle of a body such as a crank: runs at
 * different crank speeds then compare at equal crank angles. B is interpolated linearly in
 * the abscissa onto A's records that lie inside the common interval (to within 1e-9
 * relative), so the differences are A - B(xA). A record of A at exactly an abscissa of B
 * takes B's value as is: two identical files compare to exactly zero. For each selected
 * quantity present in both files: max |A - B|, RMS of A - B over those records, max |A|,
 * max |B|, max |A - B| / max(max |A|, max |B|), the abscissa of the max difference and its
 * unit. Differences at or below the noise floor (1e-9 of the scale by default) are
 * reported as 0. Beam deflections are compared at fixed stations along the beam, each
 * file's nodal deflections and slopes interpolated with the beam's cubic Hermite
 * functions, so runs on different meshes compare. Reactions: Fx1, Fy1, Mz1 and Mz2 (the
 * forces on body 2 are those on body 1 with the opposite sign). Angles are compared as
 * stored (continuous, not wrapped). */
#include "flexmb/compare.h"
#include "io/writer.h"

#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "flexmb/flexmb.h"
#include "io/h5util.h"

#define CMP_LABEL_MAX 600
#define CMP_PATH_MAX 512

typedef struct cmp_run {
    const char *path;
    hid_t file;
    double *t; /* time */
    double *x; /* abscissa: the time or a body's angle (sign flipped if it decreases) */
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
    fmb_compare_options_t o;
    struct cmp_row *rows; /* every quantity, written once all are known */
    int nrows, caprows;
    int failed;   /* status of a failure inside compare_column */
    int angle;    /* abscissa is an angle */
    double xsign; /* +1, or -1 when the angle decreases */
    int kind;     /* kind index of the rows being written */
    const char *unit;
    char *err;
    size_t errlen;
} cmp_ctx_t;

/* One compared quantity. */
typedef struct cmp_row {
    char label[CMP_LABEL_MAX], path[CMP_PATH_MAX], cname[64];
    const char *unit;
    int kind;
    long col;
    double maxd, rms, maxa, maxb, at, at_t;
} cmp_row_t;

static const char *const kind_names[FMB_CMP_NKINDS] = {"poses",      "coords",  "reactions",
                                                       "deflection", "sliders", "energy"};

const char *fmb_compare_kind_name(int k)
{
    return k >= 0 && k < FMB_CMP_NKINDS ? kind_names[k] : "?";
}

void fmb_compare_options_default(fmb_compare_options_t *o)
{
    memset(o, 0, sizeof *o);
    o->kinds = FMB_CMP_DEFAULT;
    o->noise = 1e-9;
    o->stations = 11;
}

int fmb_compare_parse_kinds(const char *list, unsigned *kinds)
{
    *kinds = 0;
    const char *p = list;
    while (p && *p) {
        size_t n = strcspn(p, ",");
        int found = 0;
        if (n == 3 && strncmp(p, "all", 3) == 0) *kinds |= FMB_CMP_ALL, found = 1;
        for (int k = 0; k < FMB_CMP_NKINDS && !found; k++)
            if (strlen(kind_names[k]) == n && strncmp(p, kind_names[k], n) == 0)
                *kinds |= 1u << k, found = 1;
        if (!found) return -1;
        p += n;
        if (*p == ',') p++;
    }
    return *kinds ? 0 : -1;
}

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

static int open_run(cmp_ctx_t *c, cmp_run_t *r, const char *path)
{
    r->path = path;
    r->file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (r->file < 0) return cmp_error(c, FMB_ERR_HDF5, "%s: cannot open as an HDF5 file", path);
    long cols;
    /* the committed records only: a killed run's file may hold more rows in some
     * datasets (docs/output.md, "Records and crash safety") */
    r->t = fmb_h5_read_rows(r->file, "/time", fmb_h5_records(r->file), &r->n, &cols);
    if (!r->t || cols != 1)
        return cmp_error(c, FMB_ERR_HDF5, "%s: no /time dataset (not a flexmb results file?)",
                         path);
    if (r->n < 1) return cmp_error(c, FMB_ERR_HDF5, "%s: no records", path);
    for (long i = 1; i < r->n; i++)
        if (!(r->t[i] > r->t[i - 1]))
            return cmp_error(c, FMB_ERR_HDF5, "%s: /time is not increasing at record %ld", path, i);
    if (!c->angle) {
        r->x = r->t;
        return 0;
    }
    char dpath[CMP_PATH_MAX];
    snprintf(dpath, sizeof dpath, "/bodies/%s/pose", c->o.by);
    long rows, pcols;
    double *pose = fmb_h5_read_rows(r->file, dpath, r->n, &rows, &pcols);
    if (!pose || pcols != 3 || rows < r->n) {
        free(pose);
        return cmp_error(c, FMB_ERR_NOTFOUND, "%s: no body '%s' (needed for --by)", path, c->o.by);
    }
    r->x = malloc((size_t)r->n * sizeof *r->x);
    if (!r->x) {
        free(pose);
        return cmp_error(c, FMB_ERR_NOMEM, "out of memory");
    }
    /* the first file fixes the direction; both must turn the same way, strictly */
    if (c->xsign == 0) c->xsign = r->n > 1 && pose[3 * (r->n - 1) + 2] < pose[2] ? -1.0 : 1.0;
    for (long i = 0; i < r->n; i++)
        r->x[i] = c->xsign * pose[3 * i + 2];
    free(pose);
    for (long i = 1; i < r->n; i++)
        if (!(r->x[i] > r->x[i - 1]))
            return cmp_error(c, FMB_ERR_NOTFOUND,
                             "%s: the angle of body '%s' is not monotonic (record %ld, t = %g "
                             "s): it cannot serve as the abscissa; compare against time",
                             path, c->o.by, i, r->t[i]);
    return 0;
}

/* ---------------------------------------------------------------- alignment */

static int align(cmp_ctx_t *c)
{
    const cmp_run_t *a = &c->a, *b = &c->b;
    double lo = fmax(a->x[0], b->x[0]), hi = fmin(a->x[a->n - 1], b->x[b->n - 1]);
    double tol = 1e-9 * fmax(fmax(fabs(lo), fabs(hi)), 1e-3);
    if (hi < lo - tol)
        return cmp_error(c, FMB_ERR_NOTFOUND,
                         "no common %s interval: %s covers [%g, %g], %s [%g, %g]",
                         c->angle ? "angle" : "time", a->path, a->x[0], a->x[a->n - 1], b->path,
                         b->x[0], b->x[b->n - 1]);
    long i0 = 0, i1 = a->n;
    while (i0 < a->n && a->x[i0] < lo - tol)
        i0++;
    while (i1 > i0 && a->x[i1 - 1] > hi + tol)
        i1--;
    if (i1 <= i0)
        return cmp_error(c, FMB_ERR_NOTFOUND, "no record of %s in the common interval [%g, %g]",
                         a->path, lo, hi);
    c->i0 = i0;
    c->i1 = i1;
    c->k = malloc((size_t)(i1 - i0) * sizeof *c->k);
    c->w = malloc((size_t)(i1 - i0) * sizeof *c->w);
    if (!c->k || !c->w) return cmp_error(c, FMB_ERR_NOMEM, "out of memory");
    long k = 0;
    for (long i = i0; i < i1; i++) {
        double t = a->x[i];
        while (k + 1 < b->n && b->x[k + 1] <= t)
            k++;
        long kk = k;
        double w;
        if (t == b->x[k] || b->n == 1 || t <= b->x[0]) {
            w = 0.0; /* exactly B's record (or clamped within the tolerance) */
        } else if (k + 1 >= b->n) {
            kk = b->n - 2; /* past B's last record, within the tolerance */
            w = 1.0;
        } else {
            w = (t - b->x[k]) / (b->x[k + 1] - b->x[k]);
        }
        c->k[i - i0] = kk;
        c->w[i - i0] = w;
    }
    c->sum->ntimes = i1 - i0;
    c->sum->t0 = a->x[i0];
    c->sum->t1 = a->x[i1 - 1];
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

/* Abscissa of A's record i as reported: time (s), or the angle in degrees (in [0, 360)
 * with --wrap). */
static double report_x(const cmp_ctx_t *c, long i)
{
    if (!c->angle) return c->a.x[i];
    double deg = c->xsign * c->a.x[i] * (180.0 / 3.14159265358979323846);
    if (c->o.wrap) {
        deg = fmod(deg, 360.0);
        if (deg < 0) deg += 360.0;
    }
    return deg;
}

/* One quantity: column col (of cols) of A's and B's data (recorded; written by write_rows). */
static int compare_column(cmp_ctx_t *c, const char *label, const char *path, const char *cname,
                          const double *va, const double *vb, long cols, long col)
{
    double maxd = 0.0, sum2 = 0.0, maxa = 0.0, maxb = 0.0;
    long imax = c->i0;
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
            imax = i;
        }
        sum2 += d * d;
        if (fabs(ya) > maxa) maxa = fabs(ya);
        if (fabs(yb) > maxb) maxb = fabs(yb);
    }
    double rms = sqrt(sum2 / (double)(c->i1 - c->i0));
    if (nan) maxd = rms = NAN;
    if (c->nrows == c->caprows) {
        int cap = c->caprows ? 2 * c->caprows : 64;
        cmp_row_t *r = realloc(c->rows, (size_t)cap * sizeof *r);
        if (!r) return c->failed = cmp_error(c, FMB_ERR_NOMEM, "out of memory");
        c->rows = r, c->caprows = cap;
    }
    cmp_row_t *r = &c->rows[c->nrows++];
    snprintf(r->label, sizeof r->label, "%s", label);
    snprintf(r->path, sizeof r->path, "%s", path);
    snprintf(r->cname, sizeof r->cname, "%s", cname);
    r->unit = c->unit, r->kind = c->kind, r->col = col;
    r->maxd = maxd, r->rms = rms, r->maxa = maxa, r->maxb = maxb;
    r->at = report_x(c, imax), r->at_t = c->a.t[imax];
    return 0;
}

/* Write the rows: the noise floor of a row is noise times the largest scale of its kind
 * and unit (so a coordinate that stays at zero in both runs, e.g. a pivot's x, gets the
 * floor of the mechanism's other positions, not its own round-off). */
static void write_rows(cmp_ctx_t *c)
{
    fmb_compare_summary_t *sm = c->sum;
    for (int i = 0; i < c->nrows; i++) {
        cmp_row_t *r = &c->rows[i];
        double scale = fmax(r->maxa, r->maxb), kscale = scale;
        for (int j = 0; j < c->nrows; j++)
            if (c->rows[j].kind == r->kind && strcmp(c->rows[j].unit, r->unit) == 0)
                kscale = fmax(kscale, fmax(c->rows[j].maxa, c->rows[j].maxb));
        const int nan = isnan(r->maxd);
        if (!nan && r->maxd <= c->o.noise * kscale) r->maxd = r->rms = 0.0;
        const double rel = nan ? NAN : r->maxd > 0 ? r->maxd / scale : 0.0;
        if (c->table && r->maxd != 0)
            fprintf(c->table, "  %-*s %-5s %12.4e %12.4e %12.4e %10.3e %10.5g\n", c->width,
                    r->label, r->unit, r->maxd, r->rms, scale, rel, r->at);
        else if (c->table)
            fprintf(c->table, "  %-*s %-5s %12s %12s %12.4e %10s %10s\n", c->width, r->label,
                    r->unit, "0", "0", scale, "0", "-");
        csv_field(c->csv, r->label);
        fprintf(c->csv, ",%s,", kind_names[r->kind]);
        csv_field(c->csv, r->unit);
        fputc(',', c->csv);
        csv_field(c->csv, r->path);
        fprintf(c->csv, ",%ld,", r->col);
        csv_field(c->csv, r->cname);
        fprintf(c->csv, ",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", r->maxd, r->rms, r->maxa,
                r->maxb, rel, r->at, r->at_t);
        c->nq++;
        sm->kind_rows[r->kind]++;
        if (nan || rel > sm->kind_rel[r->kind]) {
            sm->kind_rel[r->kind] = rel;
            snprintf(sm->kind_worst[r->kind], sizeof sm->kind_worst[r->kind], "%.199s", r->label);
        }
    }
}

/* Unit of column cname of dataset path (kind c->kind). */
static const char *unit_of(const cmp_ctx_t *c, const char *path, const char *cname, long col)
{
    const char *leaf = strrchr(path, '/');
    leaf = leaf ? leaf + 1 : path;
    switch (1u << c->kind) {
    case FMB_CMP_POSES:
        return col < 2 ? "m" : "rad";
    case FMB_CMP_COORDS: {
        const int d = strcmp(leaf, "qd") == 0 ? 1 : strcmp(leaf, "qdd") == 0 ? 2 : 0;
        static const char *const lin[] = {"m", "m/s", "m/s^2"}, *const ang[] = {"rad", "rad/s",
                                                                                "rad/s^2"};
        return col < 2 ? lin[d] : col == 2 ? ang[d] : "SI"; /* elastic: m or rad per column */
    }
    case FMB_CMP_REACTIONS:
        return cname[0] == 'M' ? "N m" : "N";
    case FMB_CMP_ENERGY:
        return "J";
    default:
        return "m";
    }
}

/* Compare dataset path in both files: the columns listed in sel (nsel > 0), else every
 * column (the first ncmp when ncmp > 0). The label is the path without its leading '/',
 * then [column name] unless the dataset is 1-D and per_column is 0. */
static int compare_dataset(cmp_ctx_t *c, const char *path, long ncmp, int per_column,
                           const long *sel, int nsel)
{
    long ra, ca, rb, cb;
    if (fmb_h5_shape(c->a.file, path, &ra, &ca) < 0 || fmb_h5_shape(c->b.file, path, &rb, &cb) < 0)
        return 0;
    long cols = ncmp > 0 ? ncmp : ca;
    if (ncmp <= 0 && ca != cb) return 0;
    if (cols > ca || cols > cb || ra < c->i1 || rb < c->b.n)
        return 0; /* fewer rows than records (a file still being written) */
    double *va = fmb_h5_read_rows(c->a.file, path, c->a.n, &ra, &ca);
    double *vb = fmb_h5_read_rows(c->b.file, path, c->b.n, &rb, &cb);
    if (!va || !vb) {
        free(va);
        free(vb);
        return cmp_error(c, FMB_ERR_HDF5, "cannot read %s", path);
    }
    char names[512], cname[64], label[CMP_LABEL_MAX];
    fmb_h5_attr_text(c->a.file, path, "columns", names, sizeof names);
    const long nc = nsel > 0 ? nsel : cols;
    for (long ic = 0; ic < nc; ic++) {
        const long col = nsel > 0 ? sel[ic] : ic;
        if (col >= cols) continue;
        if (ca == 1 && !per_column) {
            snprintf(label, sizeof label, "%s", path + 1);
            cname[0] = '\0';
        } else {
            column_name(names, col, cname, sizeof cname);
            snprintf(label, sizeof label, "%s[%s]", path + 1, cname);
        }
        c->unit = unit_of(c, path, cname, col);
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

/* Deflection of a beam at ns stations x_k = x0 + L k / (ns - 1), record by record, from the
 * nodal deflections v and slopes phi with the cubic Hermite functions of the element that
 * holds x_k (linear in v when the file has no slopes): [rows x ns], NULL on failure. */
static double *stations(hid_t file, long nrec, const char *beam, int ns, double xlo, double len,
                        long *rows)
{
    char path[CMP_PATH_MAX];
    long nn, one, r2, c2, r3 = 0, c3 = 0;
    snprintf(path, sizeof path, "/beams/%s/x0", beam);
    double *x = fmb_h5_read(file, path, &nn, &one);
    snprintf(path, sizeof path, "/beams/%s/deflection", beam);
    double *v = fmb_h5_read_rows(file, path, nrec, &r2, &c2);
    snprintf(path, sizeof path, "/beams/%s/slope", beam);
    double *ph = fmb_h5_read_rows(file, path, nrec, &r3, &c3);
    double *out = x && v && c2 == nn && nn >= 2 ? malloc((size_t)r2 * ns * sizeof *out) : NULL;
    if (out) {
        if (!ph || c3 != nn || r3 != r2) free(ph), ph = NULL;
        for (int k = 0; k < ns; k++) {
            const double xs = xlo + len * k / (ns - 1);
            long e = 0;
            while (e + 2 < nn && x[e + 1] <= xs)
                e++;
            const double l = x[e + 1] - x[e], xi = (xs - x[e]) / l, x2 = xi * xi, x3 = x2 * xi;
            const double H1 = 1 - 3 * x2 + 2 * x3, H2 = l * (xi - 2 * x2 + x3),
                         H3 = 3 * x2 - 2 * x3, H4 = l * (x3 - x2);
            for (long i = 0; i < r2; i++) {
                const double *vi = v + i * nn;
                out[i * ns + k] =
                    ph ? H1 * vi[e] + H2 * ph[i * nn + e] + H3 * vi[e + 1] + H4 * ph[i * nn + e + 1]
                       : (1 - xi) * vi[e] + xi * vi[e + 1];
            }
        }
        *rows = r2;
    }
    free(x), free(v), free(ph);
    return out;
}

/* Beam deflection of beam `name` at fixed stations, whatever the two meshes. */
static int compare_beam(cmp_ctx_t *c, const char *name)
{
    char path[CMP_PATH_MAX];
    long na, nb, one;
    snprintf(path, sizeof path, "/beams/%s/x0", name);
    double *xa = fmb_h5_read(c->a.file, path, &na, &one),
           *xb = fmb_h5_read(c->b.file, path, &nb, &one);
    int ok = xa && xb && na >= 2 && nb >= 2;
    double lo = ok ? xa[0] : 0, len = ok ? xa[na - 1] - xa[0] : 0;
    if (ok && (fabs(xb[0] - lo) > 1e-9 * len || fabs(xb[nb - 1] - xb[0] - len) > 1e-9 * len))
        ok = 0; /* not the same bar */
    free(xa), free(xb);
    if (!ok) return 0;
    const int ns = c->o.stations;
    long ra = 0, rb = 0;
    double *sa = stations(c->a.file, c->a.n, name, ns, lo, len, &ra);
    double *sb = stations(c->b.file, c->b.n, name, ns, lo, len, &rb);
    if (sa && sb && ra >= c->i1 && rb >= c->b.n) {
        snprintf(path, sizeof path, "/beams/%s/deflection", name);
        c->unit = "m";
        for (int k = 0; k < ns; k++) {
            char label[CMP_LABEL_MAX], cname[64];
            snprintf(cname, sizeof cname, "x=%.4g", lo + len * k / (ns - 1));
            snprintf(label, sizeof label, "%s[%s]", path + 1, cname);
            compare_column(c, label, path, cname, sa, sb, ns, k);
        }
    }
    free(sa), free(sb);
    return 0;
}

/* Every common quantity of the selected kinds, in a fixed order: sliders, bodies, joints,
 * beams, energy. */
static int compare_all(cmp_ctx_t *c)
{
    char path[CMP_PATH_MAX];
    char **names = NULL;
    int n, st = 0;
    const unsigned kinds = c->o.kinds;

    c->kind = 4; /* sliders */
    n = kinds & FMB_CMP_SLIDERS ? fmb_h5_members(c->a.file, "/sliders", NULL, &names) : 0;
    for (int i = 0; i < n && st >= 0; i++) {
        snprintf(path, sizeof path, "/sliders/%s/s", names[i]);
        st = compare_dataset(c, path, 0, 0, NULL, 0);
    }
    fmb_h5_free_names(names, n);
    names = NULL;

    n = kinds & (FMB_CMP_POSES | FMB_CMP_COORDS)
            ? fmb_h5_members(c->a.file, "/bodies", NULL, &names)
            : 0;
    for (int i = 0; i < n && st >= 0; i++) {
        static const char *const sets[] = {"pose", "q", "qd", "qdd"};
        for (int s = 0; s < 4 && st >= 0; s++) {
            c->kind = s == 0 ? 0 : 1;
            if (!(kinds & (1u << c->kind))) continue;
            snprintf(path, sizeof path, "/bodies/%s/%s", names[i], sets[s]);
            long ra, ca, rb, cb;
            if (fmb_h5_shape(c->a.file, path, &ra, &ca) < 0 ||
                fmb_h5_shape(c->b.file, path, &rb, &cb) < 0)
                continue;
            /* Elastic bodies with different meshes: the carrier coordinates only. */
            st = compare_dataset(c, path, ca == cb ? 0 : 3, 1, NULL, 0);
        }
    }
    fmb_h5_free_names(names, n);
    names = NULL;

    c->kind = 2; /* reactions: the forces on body 2 are minus those on body 1 */
    static const long rsel[] = {0, 1, 2, 5};
    n = kinds & FMB_CMP_REACTIONS ? fmb_h5_members(c->a.file, "/joints", NULL, &names) : 0;
    for (int i = 0; i < n && st >= 0; i++) {
        snprintf(path, sizeof path, "/joints/%s/reaction", names[i]);
        st = compare_dataset(c, path, 0, 1, rsel, 4);
    }
    fmb_h5_free_names(names, n);
    names = NULL;

    c->kind = 3; /* beam deflection at stations */
    n = kinds & FMB_CMP_DEFLECTION ? fmb_h5_members(c->a.file, "/beams", NULL, &names) : 0;
    for (int i = 0; i < n && st >= 0; i++)
        st = compare_beam(c, names[i]);
    fmb_h5_free_names(names, n);
    names = NULL;

    c->kind = 5;
    if (st >= 0 && (kinds & FMB_CMP_ENERGY)) st = compare_dataset(c, "/energy", 0, 1, NULL, 0);
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
        int n = fmb_h5_members(c->a.file, groups[g], NULL, &names);
        for (int i = 0; i < n; i++) {
            int w = (int)(strlen(groups[g]) + strlen(names[i]) + (size_t)extra[g]);
            if (w > wmax) wmax = w;
        }
        fmb_h5_free_names(names, n);
    }
    return wmax > 60 ? 60 : wmax;
}

int fmb_compare_files(const char *a, const char *b, const fmb_compare_options_t *opts,
                      const char *csv_path, FILE *table, fmb_compare_summary_t *summary, char *err,
                      size_t errlen)
{
    fmb_compare_summary_t local;
    cmp_ctx_t c;
    memset(&c, 0, sizeof c);
    memset(&local, 0, sizeof local);
    fmb_compare_options_default(&c.o);
    if (opts) {
        c.o = *opts;
        if (!c.o.kinds) c.o.kinds = FMB_CMP_DEFAULT;
        if (c.o.noise < 0) c.o.noise = 1e-9;
        if (c.o.stations < 2) c.o.stations = 11;
    }
    c.angle = c.o.by && *c.o.by && strcmp(c.o.by, "time") != 0;
    c.sum = summary ? summary : &local;
    memset(c.sum, 0, sizeof *c.sum);
    c.err = err;
    c.errlen = errlen;
    c.a.file = c.b.file = -1;
    c.table = table;
    fmb_hdf5_init();
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
        fputs("quantity,kind,unit,dataset,column,column_name,max_abs_diff,rms_diff,max_abs_a,"
              "max_abs_b,rel_diff,at_max_diff,t_max_diff\n",
              c.csv);
        c.width = label_width(&c);
        if (table) {
            fprintf(table, "A: %s (%ld records)\nB: %s (%ld records), interpolated onto A\n", a,
                    c.a.n, b, c.b.n);
            if (c.angle)
                fprintf(table,
                        "abscissa: angle of body '%s'; common interval: [%g, %g] deg, %ld "
                        "records of A\n",
                        c.o.by, c.xsign * c.a.x[c.i0] * 57.29577951308232,
                        c.xsign * c.a.x[c.i1 - 1] * 57.29577951308232, c.sum->ntimes);
            else
                fprintf(table, "common interval: [%g, %g] s, %ld records of A\n", c.sum->t0,
                        c.sum->t1, c.sum->ntimes);
            fprintf(table, "differences below %g of a quantity's scale are reported as 0\n\n",
                    c.o.noise);
            char at[32];
            snprintf(at, sizeof at, "at [%s]", c.angle ? "deg" : "s");
            fprintf(table, "  %-*s %-5s %12s %12s %12s %10s %10s\n", c.width, "quantity", "unit",
                    "max|A-B|", "rms(A-B)", "max|A|,|B|", "rel", at);
        }
        st = compare_all(&c);
        if (st >= 0 && c.failed) st = c.failed;
        if (st >= 0) write_rows(&c);
        int bad = ferror(c.csv);
        if (fclose(c.csv) != 0 || bad)
            st = st < 0 ? st : cmp_error(&c, FMB_ERR_IO, "%s: cannot write", csv_path);
        c.csv = NULL;
        if (st >= 0 && c.nq == 0)
            st = cmp_error(&c, FMB_ERR_NOTFOUND, "%s and %s have no common quantity", a, b);
    }
    c.sum->nquantities = c.nq;
    free(c.rows);
    free(c.k);
    free(c.w);
    if (c.a.x != c.a.t) free(c.a.x);
    if (c.b.x != c.b.t) free(c.b.x);
    free(c.a.t);
    free(c.b.t);
    if (c.a.file >= 0) H5Fclose(c.a.file);
    if (c.b.file >= 0) H5Fclose(c.b.file);
    return st < 0 ? st : 0;
}

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
 * stored (continuous, not wrapped). Which quantities, and their units: compare_quantities.c
 * (private interface: compare_impl.h). */
#include "io/compare_impl.h"
#include "io/writer.h"

#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "flexmb/flexmb.h"
#include "io/h5util.h"

static const char *const kind_names[FMB_CMP_NKINDS] = {"poses",      "coords",  "reactions",
                                                       "deflection", "sliders", "energy"};

const char *fmb_compare_kind_name(int k)
{
    return k >= 0 && k < FMB_CMP_NKINDS ? kind_names[k] : "?";
}

void fmb_compare_options_default(fmb_compare_options_t *o)
{
    memset(o, 0, sizeof *o);
    o->kinds = 0; /* the engineer's set */
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

int fmb_cmp_error(cmp_ctx_t *c, int status, const char *fmt, ...)
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

static int open_run(cmp_ctx_t *c, cmp_run_t *r, const char *path)
{
    r->path = path;
    struct stat st; /* a FIFO would block the open, a device be read without end */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return fmb_cmp_error(c, FMB_ERR_HDF5, "%s: not a regular file", path);
    r->file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (r->file < 0) return fmb_cmp_error(c, FMB_ERR_HDF5, "%s: cannot open as an HDF5 file", path);
    long cols;
    /* the committed records only: a killed run's file may hold more rows in some
     * datasets (docs/output.md, "Records and crash safety") */
    r->t = fmb_h5_read_rows(r->file, "/time", fmb_h5_records(r->file), &r->n, &cols);
    if (!r->t || cols != 1)
        return fmb_cmp_error(c, FMB_ERR_HDF5, "%s: no /time dataset (not a flexmb results file?)",
                             path);
    if (r->n < 1) return fmb_cmp_error(c, FMB_ERR_HDF5, "%s: no records", path);
    for (long i = 1; i < r->n; i++)
        if (!(r->t[i] > r->t[i - 1]))
            return fmb_cmp_error(c, FMB_ERR_HDF5, "%s: /time is not increasing at record %ld", path,
                                 i);
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
        return fmb_cmp_error(c, FMB_ERR_NOTFOUND, "%s: no body '%s' (needed for --by)", path,
                             c->o.by);
    }
    r->x = malloc((size_t)r->n * sizeof *r->x);
    if (!r->x) {
        free(pose);
        return fmb_cmp_error(c, FMB_ERR_NOMEM, "out of memory");
    }
    /* the first file fixes the direction; both must turn the same way, strictly */
    if (c->xsign == 0) c->xsign = r->n > 1 && pose[3 * (r->n - 1) + 2] < pose[2] ? -1.0 : 1.0;
    for (long i = 0; i < r->n; i++)
        r->x[i] = c->xsign * pose[3 * i + 2];
    free(pose);
    for (long i = 1; i < r->n; i++)
        if (!(r->x[i] > r->x[i - 1]))
            return fmb_cmp_error(c, FMB_ERR_NOTFOUND,
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
        return fmb_cmp_error(c, FMB_ERR_NOTFOUND,
                             "no common %s interval: %s covers [%g, %g], %s [%g, %g]",
                             c->angle ? "angle" : "time", a->path, a->x[0], a->x[a->n - 1], b->path,
                             b->x[0], b->x[b->n - 1]);
    long i0 = 0, i1 = a->n;
    while (i0 < a->n && a->x[i0] < lo - tol)
        i0++;
    while (i1 > i0 && a->x[i1 - 1] > hi + tol)
        i1--;
    if (i1 <= i0)
        return fmb_cmp_error(c, FMB_ERR_NOTFOUND, "no record of %s in the common interval [%g, %g]",
                             a->path, lo, hi);
    c->i0 = i0;
    c->i1 = i1;
    c->k = malloc((size_t)(i1 - i0) * sizeof *c->k);
    c->w = malloc((size_t)(i1 - i0) * sizeof *c->w);
    if (!c->k || !c->w) return fmb_cmp_error(c, FMB_ERR_NOMEM, "out of memory");
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

/* ---------------------------------------------------------------- statistics, output */

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
int fmb_cmp_column(cmp_ctx_t *c, const char *label, const char *path, const char *cname,
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
        if (!r) return c->failed = fmb_cmp_error(c, FMB_ERR_NOMEM, "out of memory");
        c->rows = r, c->caprows = cap;
    }
    cmp_row_t *r = &c->rows[c->nrows++];
    snprintf(r->label, sizeof r->label, "%s", label);
    snprintf(r->path, sizeof r->path, "%s", path);
    snprintf(r->cname, sizeof r->cname, "%s", cname);
    r->unit = c->unit, r->kind = c->kind, r->col = col;
    r->eng = c->eng_all || (col < 64 && ((c->eng_cols >> col) & 1u));
    r->maxd = maxd, r->rms = rms, r->maxa = maxa, r->maxb = maxb;
    r->at = report_x(c, imax), r->at_t = c->a.t[imax];
    return 0;
}

/* Does the star pattern p (only `*` is special) match all of s[0, n)? */
static int star_match(const char *p, const char *s, size_t n)
{
    if (!*p) return n == 0;
    if (*p == '*') {
        for (size_t k = 0; k <= n; k++)
            if (star_match(p + 1, s + k, n - k)) return 1;
        return 0;
    }
    return n > 0 && *p == *s && star_match(p + 1, s + 1, n - 1);
}

/* Does pattern p (len plen, copied; a leading '/' ignored) match label, or a part of it
 * that ends before a '/' or '[' (`joints/B` matches `joints/B/reaction[Fx1]`)? */
static int pattern_matches(const char *p, size_t plen, const char *label)
{
    char pat[CMP_LABEL_MAX];
    if (plen && *p == '/') p++, plen--;
    if (plen >= sizeof pat) plen = sizeof pat - 1;
    memcpy(pat, p, plen);
    pat[plen] = '\0';
    const size_t n = strlen(label);
    for (size_t k = 1; k <= n; k++)
        if ((k == n || label[k] == '/' || label[k] == '[') && star_match(pat, label, k)) return 1;
    return 0;
}

/* Is row r selected: by --quantity, else by --only, else the engineer's set? */
static int selected(const cmp_ctx_t *c, const cmp_row_t *r)
{
    if (c->o.quantity && *c->o.quantity) {
        if (c->o.kinds && !(c->o.kinds & (1u << r->kind))) return 0;
        for (const char *p = c->o.quantity; *p;) {
            size_t n = strcspn(p, ",");
            if (n && pattern_matches(p, n, r->label)) return 1;
            p += n;
            if (*p == ',') p++;
        }
        return 0;
    }
    if (c->o.kinds) return (c->o.kinds & (1u << r->kind)) != 0;
    return r->eng;
}

/* Every --quantity pattern must match a computed quantity: else an error naming it. */
static int check_patterns(cmp_ctx_t *c)
{
    for (const char *p = c->o.quantity; p && *p;) {
        size_t n = strcspn(p, ",");
        int hit = 0;
        for (int i = 0; i < c->nrows && !hit && n; i++)
            hit = pattern_matches(p, n, c->rows[i].label);
        if (!hit)
            return fmb_cmp_error(c, FMB_ERR_NOTFOUND,
                                 "--quantity '%.*s' matches no quantity of both files (labels "
                                 "as in the CSV, e.g. bodies/BODY/pose[x], joints/JOINT, "
                                 "beams/BEAM/deflection; `--only all` lists them all)",
                                 (int)(n > 200 ? 200 : n), p);
        p += n;
        if (*p == ',') p++;
    }
    return 0;
}

/* Ranking: difference against the mechanism scale, largest first (NaN first: a run that
 * went wrong), then by label for a fixed order. */
static int rank_cmp(const void *x, const void *y)
{
    const cmp_row_t *a = *(const cmp_row_t *const *)x, *b = *(const cmp_row_t *const *)y;
    const int na = isnan(a->mrel), nb = isnan(b->mrel);
    if (na != nb) return nb - na;
    if (!na && a->mrel != b->mrel) return a->mrel > b->mrel ? -1 : 1;
    return strcmp(a->label, b->label);
}

/* The table's header (A, B, the common interval, the columns). */
static void table_header(const cmp_ctx_t *c)
{
    fprintf(c->table, "A: %s (%ld records)\nB: %s (%ld records), interpolated onto A\n", c->a.path,
            c->a.n, c->b.path, c->b.n);
    if (c->angle)
        fprintf(c->table,
                "abscissa: angle of body '%s'; common interval: [%g, %g] deg, %ld "
                "records of A\n",
                c->o.by, c->xsign * c->a.x[c->i0] * 57.29577951308232,
                c->xsign * c->a.x[c->i1 - 1] * 57.29577951308232, c->sum->ntimes);
    else
        fprintf(c->table, "common interval: [%g, %g] s, %ld records of A\n", c->sum->t0, c->sum->t1,
                c->sum->ntimes);
    fprintf(c->table, "differences below %g of a quantity's scale are reported as 0\n\n",
            c->o.noise);
    char at[32];
    snprintf(at, sizeof at, "at [%s]", c->angle ? "deg" : "s");
    fprintf(c->table, "ranked by max|A-B| / scale, the scale being the largest max(|A|, |B|) of "
                      "the quantities of the same kind and unit (the mechanism's)\n");
    fprintf(c->table, "  %-*s %-5s %12s %12s %12s %10s %12s %10s %10s\n", c->width, "quantity",
            "unit", "max|A-B|", "rms(A-B)", "max|A|,|B|", "rel", "scale", "rel.scale", at);
}

/* Write the selected rows, ranked. The noise floor of a row is noise times its mechanism
 * scale, the largest max(|A|, |B|) of its kind and unit over every computed quantity (so a
 * coordinate that stays at zero in both runs, e.g. a pivot's x, gets the floor of the
 * mechanism's other positions, not its own round-off); a row zero in both runs is left
 * out. The ranking is the difference against the mechanism scale: a moment that never
 * exceeds 4 mN m in a mechanism whose drive torque reaches 20 N m ranks by 4e-3 / 20, not
 * by its own 100 %. */
static int write_rows(cmp_ctx_t *c)
{
    fmb_compare_summary_t *sm = c->sum;
    for (int i = 0; i < c->nrows; i++) {
        cmp_row_t *r = &c->rows[i];
        double k = fmax(r->maxa, r->maxb);
        for (int j = 0; j < c->nrows; j++)
            if (c->rows[j].kind == r->kind && strcmp(c->rows[j].unit, r->unit) == 0)
                k = fmax(k, fmax(c->rows[j].maxa, c->rows[j].maxb));
        r->kscale = k;
        const int nan = isnan(r->maxd);
        if (!nan && r->maxd <= c->o.noise * k) r->maxd = r->rms = 0.0;
        r->mrel = nan ? NAN : r->maxd > 0 ? r->maxd / k : 0.0;
    }
    int st = check_patterns(c);
    if (st < 0) return st;
    if (c->table) table_header(c);
    cmp_row_t **order = malloc((size_t)(c->nrows ? c->nrows : 1) * sizeof *order);
    if (!order) return fmb_cmp_error(c, FMB_ERR_NOMEM, "out of memory");
    int n = 0;
    for (int i = 0; i < c->nrows; i++) {
        cmp_row_t *r = &c->rows[i];
        if (!selected(c, r)) continue;
        const double floor = c->o.noise * r->kscale;
        if (!isnan(r->maxd) && r->maxa <= floor && r->maxb <= floor) {
            sm->nzero++; /* zero in both runs: nothing to compare */
            continue;
        }
        order[n++] = r;
    }
    qsort(order, (size_t)n, sizeof *order, rank_cmp);
    for (int i = 0; i < n; i++) {
        cmp_row_t *r = order[i];
        const double scale = fmax(r->maxa, r->maxb);
        const int nan = isnan(r->maxd);
        const double rel = nan ? NAN : r->maxd > 0 ? r->maxd / scale : 0.0;
        if (c->table && r->maxd != 0)
            fprintf(c->table, "  %-*s %-5s %12.4e %12.4e %12.4e %10.3e %12.4e %10.3e %10.5g\n",
                    c->width, r->label, r->unit, r->maxd, r->rms, scale, rel, r->kscale, r->mrel,
                    r->at);
        else if (c->table)
            fprintf(c->table, "  %-*s %-5s %12s %12s %12.4e %10s %12.4e %10s %10s\n", c->width,
                    r->label, r->unit, "0", "0", scale, "0", r->kscale, "0", "-");
        csv_field(c->csv, r->label);
        fprintf(c->csv, ",%s,", kind_names[r->kind]);
        csv_field(c->csv, r->unit);
        fputc(',', c->csv);
        csv_field(c->csv, r->path);
        fprintf(c->csv, ",%ld,", r->col);
        csv_field(c->csv, r->cname);
        fprintf(c->csv, ",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%d\n", r->maxd,
                r->rms, r->maxa, r->maxb, rel, r->at, r->at_t, r->kscale, r->mrel, i + 1);
        c->nq++;
        sm->kind_rows[r->kind]++;
        if (sm->kind_rows[r->kind] == 1 && r->maxd != 0) { /* ranked: the kind's first */
            sm->kind_rel[r->kind] = rel;
            sm->kind_mrel[r->kind] = r->mrel;
            snprintf(sm->kind_worst[r->kind], sizeof sm->kind_worst[r->kind], "%.199s", r->label);
        }
        if (sm->nhead < 5 && r->maxd != 0) {
            struct fmb_compare_head *h = &sm->head[sm->nhead++];
            snprintf(h->label, sizeof h->label, "%.199s", r->label);
            snprintf(h->unit, sizeof h->unit, "%.7s", r->unit);
            h->maxd = r->maxd, h->rel = rel, h->mrel = r->mrel, h->scale = r->kscale;
        }
    }
    free(order);
    return 0;
}

/* Longest label, for the table layout (approximate: path lengths). */
static int label_width(cmp_ctx_t *c)
{
    int wmax = 24;
    static const char *const groups[] = {"/sliders", "/bodies", "/joints", "/beams"};
    static const int extra[] = {2, 16, 16, 18};
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
        if (c.o.noise < 0) c.o.noise = 1e-9;
        if (c.o.stations < 2) c.o.stations = 11;
    }
    /* every kind a selection may need, so that the mechanism scales do not depend on it */
    c.compute = FMB_CMP_DEFAULT | c.o.kinds;
    if (c.o.quantity && *c.o.quantity) c.compute = FMB_CMP_ALL;
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
        if (!c.csv) st = fmb_cmp_error(&c, FMB_ERR_IO, "%s: cannot create the CSV file", csv_path);
    }
    if (st >= 0) {
        fputs("quantity,kind,unit,dataset,column,column_name,max_abs_diff,rms_diff,max_abs_a,"
              "max_abs_b,rel_diff,at_max_diff,t_max_diff,scale,mech_rel_diff,rank\n",
              c.csv);
        c.width = label_width(&c);
        st = fmb_cmp_all(&c);
        if (st >= 0 && c.failed) st = c.failed;
        if (st >= 0) st = write_rows(&c);
        int bad = ferror(c.csv);
        if (fclose(c.csv) != 0 || bad)
            st = st < 0 ? st : fmb_cmp_error(&c, FMB_ERR_IO, "%s: cannot write", csv_path);
        c.csv = NULL;
        if (st >= 0 && c.nq + c.sum->nzero == 0)
            st = fmb_cmp_error(&c, FMB_ERR_NOTFOUND, "%s and %s have no common quantity", a, b);
    }
    c.sum->nquantities = c.nq;
    for (int i = 0; i < c.nguided; i++)
        free(c.guided[i]);
    free(c.guided);
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

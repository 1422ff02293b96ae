/* Tabulated functions from CSV files.
 *
 * File: a header line, then one row "x, y" per line (blank lines ignored), x strictly
 * increasing, at least two rows. Rows are numbered as lines of the file (the header is
 * row 1), so a message's row is the line an editor shows.
 *
 * table(): on [x_i, x_{i+1}] y = y_i + m_i (x - x_i), m_i = (y_{i+1} - y_i) / h_i.
 * spline(): cubic Hermite on each segment with slopes s_i from the C2 conditions
 *   h_i s_{i-1} + 2 (h_{i-1} + h_i) s_i + h_{i-1} s_{i+1} = 3 (h_i d_{i-1} + h_{i-1} d_i)
 * (d_i the secant slopes) closed by not-a-knot ends (the third derivative is continuous
 * at x_1 and x_{n-2}; the rows as in de Boor, "A Practical Guide to Splines", ch. IV),
 * solved by LAPACK dgtsv (pivoting: the end rows are not diagonally dominant). Three
 * rows give the parabola through them, two the straight line.
 * Beyond the ends y is constant (y_0, y_{n-1}) with zero derivatives. At a knot the
 * derivatives are those of the segment x(t) moves into (right-hand in t). */
#include "model/table.h"

#include "core/file.h"

#include <errno.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void dgtsv_(const int *n, const int *nrhs, double *dl, double *d, double *du, double *b,
            const int *ldb, int *info);

struct fmb_table {
    char *path;
    char *name;
    int spline;
    int n;
    double *x, *y, *s; /* s: spline slopes */
    char sha[65];
};

struct fmb_tableset {
    char *dir;
    fmb_table_t **t;
    int n, cap;
};

/* Tables are regular files of at most this size (not devices, FIFOs or directories). */
#define FMB_TABLE_MAX_BYTES ((size_t)256 << 20)

static void sha256_hex(const char *data, size_t len, char out[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    out[0] = '\0';
    if (!EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL)) return;
    for (unsigned int k = 0; k < mdlen && k < 32; k++)
        snprintf(out + 2 * k, 3, "%02x", md[k]);
}

/* One numeric cell [s, e): 0 and *v, or -1. */
static int cell(const char *s, const char *e, double *v)
{
    while (s < e && (*s == ' ' || *s == '\t'))
        s++;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        e--;
    if (s == e || e - s > 60) return -1;
    char buf[64];
    memcpy(buf, s, (size_t)(e - s));
    buf[e - s] = '\0';
    char *end;
    *v = strtod(buf, &end);
    return *end || !isfinite(*v) ? -1 : 0;
}

static int parse_rows(fmb_table_t *tb, const char *text, char *msg, size_t len)
{
    const char *p = strchr(text, '\n');
    if (!p) {
        snprintf(msg, len, "table '%s': fewer than two data rows (a header line, then x, y rows)",
                 tb->name);
        return -1;
    }
    p++;
    int cap = 0, line = 1;
    while (*p) {
        line++;
        const char *eol = strchr(p, '\n');
        if (!eol) eol = p + strlen(p);
        const char *q = p;
        while (q < eol && (*q == ' ' || *q == '\t' || *q == '\r'))
            q++;
        if (q < eol) {
            const char *comma = memchr(p, ',', (size_t)(eol - p));
            const char *comma2 = comma ? memchr(comma + 1, ',', (size_t)(eol - comma - 1)) : NULL;
            if (!comma || comma2) {
                snprintf(msg, len, "table '%s': row %d: expected two columns 'x, y', found %s",
                         tb->name, line, comma ? "more" : "one");
                return -1;
            }
            /* the row and column only: never the file's text (any readable file can be
             * named as a table) */
            double x, y;
            int bad = cell(p, comma, &x) ? 1 : cell(comma + 1, eol, &y) ? 2 : 0;
            if (bad) {
                snprintf(msg, len, "table '%s': row %d, column %d (%s): not a finite number",
                         tb->name, line, bad, bad == 1 ? "x" : "y");
                return -1;
            }
            if (tb->n > 0 && !(x > tb->x[tb->n - 1])) {
                snprintf(msg, len,
                         "table '%s': row %d, column 1 (x): not greater than the x of the row "
                         "before (x must increase strictly)",
                         tb->name, line);
                return -1;
            }
            if (tb->n == cap) {
                cap = cap ? 2 * cap : 64;
                double *nx = realloc(tb->x, (size_t)cap * sizeof *nx);
                if (nx) tb->x = nx;
                double *ny = nx ? realloc(tb->y, (size_t)cap * sizeof *ny) : NULL;
                if (ny) tb->y = ny;
                if (!nx || !ny) {
                    snprintf(msg, len, "table '%s': out of memory", tb->name);
                    return -1;
                }
            }
            tb->x[tb->n] = x;
            tb->y[tb->n++] = y;
        }
        p = *eol ? eol + 1 : eol;
    }
    if (tb->n < 2) {
        snprintf(msg, len, "table '%s': fewer than two data rows (found %d)", tb->name, tb->n);
        return -1;
    }
    return 0;
}

/* Not-a-knot slopes (see the head of the file). */
static int spline_slopes(fmb_table_t *tb)
{
    const int n = tb->n;
    const double *x = tb->x, *y = tb->y;
    double *s = tb->s;
    if (n == 2) {
        s[0] = s[1] = (y[1] - y[0]) / (x[1] - x[0]);
        return 0;
    }
    if (n == 3) { /* the parabola through the three points */
        double h0 = x[1] - x[0], h1 = x[2] - x[1];
        double d0 = (y[1] - y[0]) / h0, d1 = (y[2] - y[1]) / h1;
        double c = (d1 - d0) / (h0 + h1); /* y = y0 + d0 (x - x0) + c (x - x0)(x - x1) */
        s[0] = d0 - c * h0;
        s[1] = d0 + c * h0;
        s[2] = d0 + c * (h0 + 2 * h1);
        return 0;
    }
    double *dl = malloc((size_t)(4 * n) * sizeof *dl);
    if (!dl) return -1;
    double *d = dl + n, *du = d + n, *h = du + n;
    for (int i = 0; i + 1 < n; i++)
        h[i] = x[i + 1] - x[i];
#define SEC(i) ((y[(i) + 1] - y[(i)]) / h[(i)])
    for (int i = 1; i + 1 < n; i++) {
        dl[i - 1] = h[i];
        d[i] = 2 * (h[i - 1] + h[i]);
        du[i] = h[i - 1];
        s[i] = 3 * (h[i] * SEC(i - 1) + h[i - 1] * SEC(i));
    }
    double w = h[0] + h[1];
    d[0] = h[1];
    du[0] = w;
    s[0] = ((h[0] + 2 * w) * h[1] * SEC(0) + h[0] * h[0] * SEC(1)) / w;
    w = h[n - 3] + h[n - 2];
    dl[n - 2] = w;
    d[n - 1] = h[n - 3];
    s[n - 1] = (h[n - 2] * h[n - 2] * SEC(n - 3) + (2 * w + h[n - 2]) * h[n - 3] * SEC(n - 2)) / w;
#undef SEC
    int nrhs = 1, info = 0;
    dgtsv_(&n, &nrhs, dl, d, du, s, &n, &info);
    free(dl);
    return info ? -1 : 0;
}

fmb_table_t *fmb_table_read(const char *path, const char *name, int spline, char *msg,
                            size_t len)
{
    char *text = NULL;
    size_t tlen = 0;
    const char *why = NULL;
    int e = fmb_read_file(path, FMB_TABLE_MAX_BYTES, &text, &tlen, &why);
    if (e) {
        snprintf(msg, len, "cannot read table '%s' (%s): %s%s", name, path,
                 why ? why : strerror(e), why && e == EINVAL && strstr(why, "limit") ? " (256 MB)" : "");
        return NULL;
    }
    fmb_table_t *tb = calloc(1, sizeof *tb);
    if (!tb || !(tb->path = strdup(path)) || !(tb->name = strdup(name))) {
        snprintf(msg, len, "out of memory reading table '%s'", name);
        free(text);
        fmb_table_destroy(&tb);
        return NULL;
    }
    tb->spline = spline;
    if (memchr(text, '\0', tlen)) {
        snprintf(msg, len, "table '%s' is not a text file (it contains NUL bytes)", name);
        free(text);
        fmb_table_destroy(&tb);
        return NULL;
    }
    sha256_hex(text, tlen, tb->sha);
    int rc = parse_rows(tb, text, msg, len);
    free(text);
    if (rc == 0 && spline) {
        tb->s = malloc((size_t)tb->n * sizeof *tb->s);
        if (!tb->s || spline_slopes(tb)) {
            snprintf(msg, len, "table '%s': cannot compute the spline", name);
            rc = -1;
        }
    }
    if (rc) fmb_table_destroy(&tb);
    return tb;
}

void fmb_table_destroy(fmb_table_t **ptb)
{
    if (!ptb || !*ptb) return;
    fmb_table_t *tb = *ptb;
    free(tb->path);
    free(tb->name);
    free(tb->x);
    free(tb->y);
    free(tb->s);
    free(tb);
    *ptb = NULL;
}

fmb_jet_t fmb_table_eval(const fmb_table_t *tb, fmb_jet_t x)
{
    const int n = tb->n;
    const double *xs = tb->x;
    /* direction of motion: the segment x(t) enters when it sits on a knot */
    const int dir = x.d1 > 0 ? 1 : x.d1 < 0 ? -1 : x.d2 > 0 ? 1 : x.d2 < 0 ? -1 : 1;
    fmb_jet_t r = {0, 0, 0};
    if (isnan(x.v)) {
        r.v = r.d1 = r.d2 = NAN;
        return r;
    }
    if (x.v < xs[0] || (x.v == xs[0] && dir < 0)) {
        r.v = tb->y[0];
        return r;
    }
    if (x.v > xs[n - 1] || (x.v == xs[n - 1] && dir > 0)) {
        r.v = tb->y[n - 1];
        return r;
    }
    /* segment i with xs[i] <= x < xs[i+1] (moving up) or xs[i] < x <= xs[i+1] (down) */
    int lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (xs[mid] < x.v || (xs[mid] == x.v && dir > 0)) lo = mid;
        else hi = mid;
    }
    const int i = lo;
    const double h = xs[i + 1] - xs[i], u = x.v - xs[i];
    const double dy = (tb->y[i + 1] - tb->y[i]) / h;
    double g0, g1, g2;
    if (!tb->spline) {
        g0 = tb->y[i] + dy * u;
        g1 = dy;
        g2 = 0.0;
    } else {
        const double s0 = tb->s[i], s1 = tb->s[i + 1];
        const double c = (3 * dy - 2 * s0 - s1) / h, d = (s0 + s1 - 2 * dy) / (h * h);
        g0 = tb->y[i] + u * (s0 + u * (c + u * d));
        g1 = s0 + u * (2 * c + 3 * d * u);
        g2 = 2 * c + 6 * d * u;
    }
    r.v = g0;
    r.d1 = g1 * x.d1;
    r.d2 = g2 * x.d1 * x.d1 + g1 * x.d2;
    return r;
}

const char *fmb_table_path(const fmb_table_t *tb)
{
    return tb->path;
}

int fmb_table_is_spline(const fmb_table_t *tb)
{
    return tb->spline;
}

const char *fmb_table_sha256(const fmb_table_t *tb)
{
    return tb->sha;
}

fmb_tableset_t *fmb_tableset_create(const char *dir)
{
    fmb_tableset_t *set = calloc(1, sizeof *set);
    if (set && dir && !(set->dir = strdup(dir))) {
        free(set);
        return NULL;
    }
    return set;
}

void fmb_tableset_destroy(fmb_tableset_t **pset)
{
    if (!pset || !*pset) return;
    fmb_tableset_t *set = *pset;
    for (int k = 0; k < set->n; k++)
        fmb_table_destroy(&set->t[k]);
    free(set->t);
    free(set->dir);
    free(set);
    *pset = NULL;
}

const fmb_table_t *fmb_tableset_get(fmb_tableset_t *set, const char *file, int spline, char *msg,
                                    size_t len)
{
    for (int k = 0; k < set->n; k++)
        if (set->t[k]->spline == spline && !strcmp(set->t[k]->name, file)) return set->t[k];
    if (set->n == set->cap) {
        int cap = set->cap ? 2 * set->cap : 4;
        fmb_table_t **nt = realloc(set->t, (size_t)cap * sizeof *nt);
        if (!nt) {
            snprintf(msg, len, "out of memory");
            return NULL;
        }
        set->t = nt;
        set->cap = cap;
    }
    char *path = NULL;
    if (file[0] != '/' && set->dir && *set->dir) {
        size_t n = strlen(set->dir) + strlen(file) + 2;
        path = malloc(n);
        if (path) snprintf(path, n, "%s/%s", set->dir, file);
    } else {
        path = strdup(file);
    }
    if (!path) {
        snprintf(msg, len, "out of memory");
        return NULL;
    }
    fmb_table_t *tb = fmb_table_read(path, file, spline, msg, len);
    free(path);
    if (!tb) return NULL;
    set->t[set->n++] = tb;
    return tb;
}

int fmb_tableset_count(const fmb_tableset_t *set)
{
    return set ? set->n : 0;
}

const fmb_table_t *fmb_tableset_item(const fmb_tableset_t *set, int k)
{
    return set && k >= 0 && k < set->n ? set->t[k] : NULL;
}

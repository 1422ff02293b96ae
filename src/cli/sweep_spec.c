/* The study of `flexmb sweep` (docs/sweep.md): varied parameters from --vary NAME=ITEMS and
 * from the `sweep:` section of a YAML file. ITEMS: comma-separated numbers, ranges
 * start:stop:count (count values from start to stop inclusive, evenly spaced), or names
 * (integrator=hht,newmark). Numbers become their shortest decimal form that reads back to
 * the same double: that text goes to --set and into the file names. */
#include "sweep.h"
#include "../core/file.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static int fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return -1;
}

static char *dup_n(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

static char *dup_s(const char *s)
{
    return dup_n(s, strlen(s));
}

/* Shortest %g text that strtod reads back as v; whole numbers below 1e15 without an
 * exponent (20, not 2e+01). */
static void exact_text(double v, char *out, size_t len)
{
    if (v == floor(v) && fabs(v) < 1e15) {
        snprintf(out, len, "%.0f", v == 0 ? 0.0 : v);
        return;
    }
    for (int p = 1; p <= 17; p++) {
        snprintf(out, len, "%.*g", p, v);
        if (strtod(out, NULL) == v) return;
    }
}

static int parse_number(const char *s, size_t n, double *v)
{
    char buf[128];
    if (n == 0 || n >= sizeof buf) return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *end = NULL;
    errno = 0;
    *v = strtod(buf, &end);
    return end == buf + n && errno == 0 && isfinite(*v) ? 0 : -1;
}

static int is_name(const char *s, size_t n)
{
    if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_')) return 0;
    for (size_t i = 1; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_')) return 0;
    return 1;
}

static int add_value(sweep_param_t *p, const char *text, double num)
{
    char **t = realloc(p->text, (size_t)(p->n + 1) * sizeof *t);
    if (!t) return -1;
    p->text = t;
    double *d = realloc(p->num, (size_t)(p->n + 1) * sizeof *d);
    if (!d) return -1;
    p->num = d;
    if (!(p->text[p->n] = dup_s(text))) return -1;
    p->num[p->n++] = num;
    return 0;
}

/* One item (s, n) of a list: a number, a range or a name. pos: 1-based character of the
 * item in its argument, for messages. */
static int parse_item(sweep_param_t *p, const char *s, size_t n, const char *where, int pos,
                      char *err, size_t len)
{
    while (n && isspace((unsigned char)*s))
        s++, n--, pos++;
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    if (n == 0) return fail(err, len, "%s: %s: empty value at character %d", where, p->name, pos);
    char txt[64];
    double v;
    const char *c1 = memchr(s, ':', n);
    if (c1) {
        const char *c2 = memchr(c1 + 1, ':', (size_t)(s + n - c1 - 1));
        double a, b, cnt;
        if (!c2 || memchr(c2 + 1, ':', (size_t)(s + n - c2 - 1)) ||
            parse_number(s, (size_t)(c1 - s), &a) < 0 ||
            parse_number(c1 + 1, (size_t)(c2 - c1 - 1), &b) < 0 ||
            parse_number(c2 + 1, (size_t)(s + n - c2 - 1), &cnt) < 0 || cnt != floor(cnt) ||
            cnt < 1 || cnt > 100000 || (cnt == 1 && a != b))
            return fail(err, len,
                        "%s: %s: malformed range '%.*s' at character %d (expected "
                        "start:stop:count with count >= 2 values, e.g. 5:30:6)",
                        where, p->name, (int)n, s, pos);
        const int k = (int)cnt;
        for (int i = 0; i < k; i++) {
            v = i == k - 1 ? b : a + (b - a) * (double)i / (double)(k - 1);
            exact_text(v, txt, sizeof txt);
            if (add_value(p, txt, v) < 0) return fail(err, len, "out of memory");
        }
        return 0;
    }
    if (parse_number(s, n, &v) == 0) {
        exact_text(v, txt, sizeof txt);
        return add_value(p, txt, v) < 0 ? fail(err, len, "out of memory") : 0;
    }
    if (!is_name(s, n) || n >= sizeof txt)
        return fail(err, len, "%s: %s: '%.*s' at character %d is not a number, a range "
                    "start:stop:count or a name", where, p->name, (int)n, s, pos);
    memcpy(txt, s, n);
    txt[n] = '\0';
    p->numeric = 0;
    return add_value(p, txt, NAN) < 0 ? fail(err, len, "out of memory") : 0;
}

static void param_free(sweep_param_t *p)
{
    for (int i = 0; i < p->n; i++)
        free(p->text[i]);
    free(p->text);
    free(p->num);
    free(p->name);
    free(p->where);
    memset(p, 0, sizeof *p);
}

/* A new (or the replaced) parameter slot named name. */
static sweep_param_t *param_slot(sweep_spec_t *s, const char *name, size_t n, const char *where)
{
    sweep_param_t *p = NULL;
    for (int k = 0; k < s->nparams; k++)
        if (strlen(s->params[k].name) == n && !strncmp(s->params[k].name, name, n)) {
            p = &s->params[k];
            param_free(p);
        }
    if (!p) {
        sweep_param_t *np = realloc(s->params, (size_t)(s->nparams + 1) * sizeof *np);
        if (!np) return NULL;
        s->params = np;
        p = &s->params[s->nparams++];
        memset(p, 0, sizeof *p);
    }
    p->name = dup_n(name, n);
    p->where = dup_s(where);
    p->numeric = 1;
    return p->name && p->where ? p : NULL;
}

static int check_values(const sweep_param_t *p, char *err, size_t len)
{
    if (p->n == 0) return fail(err, len, "%s: %s: empty list of values", p->where, p->name);
    for (int i = 0; i < p->n; i++)
        for (int j = 0; j < i; j++)
            if (!strcmp(p->text[i], p->text[j]))
                return fail(err, len, "%s: %s: value %s is listed twice", p->where, p->name,
                            p->text[i]);
    return 0;
}

/* Items of a comma-separated list (offset: character position of list in its argument). */
static int parse_list(sweep_param_t *p, const char *list, int offset, char *err, size_t len)
{
    const char *s = list;
    for (;;) {
        size_t n = strcspn(s, ",");
        if (parse_item(p, s, n, p->where, offset + (int)(s - list) + 1, err, len) < 0) return -1;
        if (!s[n]) break;
        s += n + 1;
    }
    return 0;
}

int sweep_parse_vary(sweep_spec_t *s, const char *arg, const char *where, char *err, size_t len)
{
    const char *eq = strchr(arg, '=');
    size_t n = eq ? (size_t)(eq - arg) : 0;
    if (!eq || !is_name(arg, n))
        return fail(err, len, "%s: expected NAME=VALUES (e.g. omega=5,10,20 or omega=5:30:6), "
                    "got '%s'", where, arg);
    sweep_param_t *p = param_slot(s, arg, n, where);
    if (!p) return fail(err, len, "out of memory");
    if (!eq[1]) return fail(err, len, "%s: %s: empty list of values", where, p->name);
    if (parse_list(p, eq + 1, (int)n + 1, err, len) < 0) return -1;
    return check_values(p, err, len);
}

void sweep_spec_free(sweep_spec_t *s)
{
    for (int k = 0; k < s->nparams; k++)
        param_free(&s->params[k]);
    free(s->params);
    for (int k = 0; k < s->nsets; k++)
        free(s->sets[k]);
    free(s->sets);
    free(s->case_path);
    free(s->outdir);
    free(s->crank);
    memset(s, 0, sizeof *s);
}

/* ---------------------------------------------------------------- YAML */

typedef struct yctx {
    yaml_document_t *doc;
    const char *path;
    char *err;
    size_t len;
} yctx_t;

static int yfail(const yctx_t *y, const yaml_node_t *at, const char *fmt, ...)
{
    int n = snprintf(y->err, y->len, "%s:%d:%d: ", y->path, (int)at->start_mark.line + 1,
                     (int)at->start_mark.column + 1);
    if (n >= 0 && (size_t)n < y->len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(y->err + n, y->len - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static const char *scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static void where_of(const yctx_t *y, const yaml_node_t *n, char *out, size_t len)
{
    snprintf(out, len, "%s:%d:%d", y->path, (int)n->start_mark.line + 1,
             (int)n->start_mark.column + 1);
}

static int y_vary(sweep_spec_t *s, const yctx_t *y, const yaml_node_t *map)
{
    if (map->type != YAML_MAPPING_NODE)
        return yfail(y, map, "'vary' must be a mapping of NAME: values");
    for (yaml_node_pair_t *pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top;
         pr++) {
        yaml_node_t *k = yaml_document_get_node(y->doc, pr->key);
        yaml_node_t *v = yaml_document_get_node(y->doc, pr->value);
        const char *name = scalar(k);
        char where[600];
        where_of(y, k, where, sizeof where);
        if (!name || !is_name(name, strlen(name)))
            return yfail(y, k, "a parameter name is expected here");
        for (int q = 0; q < s->nparams; q++)
            if (!strcmp(s->params[q].name, name))
                return yfail(y, k, "parameter '%s' is varied twice", name);
        sweep_param_t *p = param_slot(s, name, strlen(name), where);
        if (!p) return yfail(y, k, "out of memory");
        if (v->type == YAML_SEQUENCE_NODE) {
            for (yaml_node_item_t *it = v->data.sequence.items.start;
                 it < v->data.sequence.items.top; it++) {
                yaml_node_t *e = yaml_document_get_node(y->doc, *it);
                const char *t = scalar(e);
                if (!t) return yfail(y, e, "%s: a value or a range start:stop:count is expected",
                                     name);
                char w[600];
                where_of(y, e, w, sizeof w);
                if (parse_item(p, t, strlen(t), w, 1, y->err, y->len) < 0) return -1;
            }
        } else if (scalar(v) && *scalar(v)) {
            if (parse_list(p, scalar(v), 0, y->err, y->len) < 0) return -1;
        } else if (!scalar(v)) {
            return yfail(y, v, "%s: a list of values or a range start:stop:count is expected",
                         name);
        }
        if (check_values(p, y->err, y->len) < 0) return -1;
    }
    return 0;
}

static int y_set(sweep_spec_t *s, const yctx_t *y, const yaml_node_t *map)
{
    if (map->type != YAML_MAPPING_NODE)
        return yfail(y, map, "'set' must be a mapping of NAME: value");
    for (yaml_node_pair_t *pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top;
         pr++) {
        const char *k = scalar(yaml_document_get_node(y->doc, pr->key));
        const char *v = scalar(yaml_document_get_node(y->doc, pr->value));
        if (!k || !v || !*v) return yfail(y, yaml_document_get_node(y->doc, pr->key),
                                          "'set' entries are NAME: value");
        char **ns = realloc(s->sets, (size_t)(s->nsets + 1) * sizeof *ns);
        char *e = malloc(strlen(k) + strlen(v) + 2);
        if (!ns || !e) {
            free(e);
            return yfail(y, map, "out of memory");
        }
        s->sets = ns;
        sprintf(e, "%s=%s", k, v);
        s->sets[s->nsets++] = e;
    }
    return 0;
}

static int y_section(sweep_spec_t *s, const yctx_t *y, const yaml_node_t *sec)
{
    if (sec->type != YAML_MAPPING_NODE) return yfail(y, sec, "'sweep' must be a mapping");
    int have_vary = 0;
    for (yaml_node_pair_t *pr = sec->data.mapping.pairs.start; pr < sec->data.mapping.pairs.top;
         pr++) {
        yaml_node_t *kn = yaml_document_get_node(y->doc, pr->key);
        yaml_node_t *vn = yaml_document_get_node(y->doc, pr->value);
        const char *k = scalar(kn), *v = scalar(vn);
        if (!k) return yfail(y, kn, "a key is expected here");
        if (!strcmp(k, "vary")) {
            have_vary = 1;
            if (y_vary(s, y, vn) < 0) return -1;
        } else if (!strcmp(k, "set")) {
            if (y_set(s, y, vn) < 0) return -1;
        } else if (!strcmp(k, "mode")) {
            if (!v || (strcmp(v, "grid") && strcmp(v, "zip")))
                return yfail(y, vn, "'mode' is grid or zip");
            s->zip = !strcmp(v, "zip");
        } else if (!strcmp(k, "jobs")) {
            char *end = NULL;
            long j = v ? strtol(v, &end, 10) : 0;
            if (!v || *end || j < 1 || j > 4096)
                return yfail(y, vn, "'jobs' is a positive number of processes");
            s->jobs = (int)j;
        } else if (!strcmp(k, "case") || !strcmp(k, "output") || !strcmp(k, "crank")) {
            if (!v || !*v) return yfail(y, vn, "'%s' is a path or a name", k);
            char **dst = k[0] == 'c' && k[1] == 'a' ? &s->case_path
                         : k[0] == 'o'              ? &s->outdir
                                                    : &s->crank;
            free(*dst);
            /* the case is relative to the study file's directory */
            const char *slash = strrchr(y->path, '/');
            if (dst == &s->case_path && v[0] != '/' && slash) {
                size_t d = (size_t)(slash - y->path) + 1;
                *dst = malloc(d + strlen(v) + 1);
                if (*dst) {
                    memcpy(*dst, y->path, d);
                    strcpy(*dst + d, v);
                }
            } else {
                *dst = dup_s(v);
            }
            if (!*dst) return yfail(y, vn, "out of memory");
        } else {
            return yfail(y, kn, "unknown key '%s' in 'sweep' (known: case, vary, mode, set, "
                         "output, jobs, crank)", k);
        }
    }
    if (!have_vary) return yfail(y, sec, "'sweep' needs a 'vary' mapping of NAME: values");
    if (!s->case_path) return yfail(y, sec, "'sweep' needs 'case': the case file to run");
    return 0;
}

int sweep_load_yaml(sweep_spec_t *s, const char *path, char *err, size_t len)
{
    int e = 0;
    const char *why = NULL;
    FILE *f = fmb_open_regular(path, (size_t)16 << 20, &e, &why); /* a case's limit */
    if (!f)
        return fail(err, len, "%s: cannot open: %s%s", path, why ? why : strerror(e),
                    why && strstr(why, "limit") ? " (16 MB)" : "");
    yaml_parser_t parser;
    yaml_document_t doc;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_file(&parser, f);
    int rc = 0;
    if (!yaml_parser_load(&parser, &doc)) {
        rc = fail(err, len, "%s:%d:%d: YAML error: %s", path, (int)parser.problem_mark.line + 1,
                  (int)parser.problem_mark.column + 1,
                  parser.problem ? parser.problem : "cannot parse");
        yaml_parser_delete(&parser);
        fclose(f);
        return rc;
    }
    yctx_t y = {&doc, path, err, len};
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    yaml_node_t *sec = NULL;
    if (root && root->type == YAML_MAPPING_NODE)
        for (yaml_node_pair_t *pr = root->data.mapping.pairs.start;
             pr < root->data.mapping.pairs.top; pr++) {
            const char *k = scalar(yaml_document_get_node(&doc, pr->key));
            if (k && !strcmp(k, "sweep")) sec = yaml_document_get_node(&doc, pr->value);
        }
    if (sec) rc = y_section(s, &y, sec) < 0 ? -1 : 1;
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    fclose(f);
    return rc;
}

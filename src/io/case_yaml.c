/* YAML helpers of the case loader: node access, error messages with FILE:LINE:COL,
 * string pool, key checks and typed getters. */
#include "io/case_loader.h"
#include "core/text.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put_elided(char *out, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fmb_vformat(out, cap, fmt, ap);
    va_end(ap);
}

int case_fail(loader_t *L, const yaml_node_t *at, const char *fmt, ...)
{
    if (L->failed) return FMB_ERR_PARSE;
    L->failed = 1;
    if (!L->err || L->errlen == 0) return FMB_ERR_PARSE;
    int line = at ? (int)at->start_mark.line + 1 : 1;
    int col = at ? (int)at->start_mark.column + 1 : 1;
    /* the message whole, then its long words (names, paths, values) shortened, so that
     * the cause after them is not cut off */
    va_list ap;
    va_start(ap, fmt);
    char msg[4096];
    fmb_vformat(msg, sizeof msg, fmt, ap);
    va_end(ap);
    put_elided(L->err, L->errlen, "%s:%d:%d: %s", L->c->path, line, col, msg);
    return FMB_ERR_PARSE;
}

int case_nomem(loader_t *L, const yaml_node_t *at)
{
    return case_fail(L, at, "out of memory");
}

char *case_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

/* Copy s into the case's string pool; NULL on allocation failure. */
const char *case_pool_str(fmb_case_t *c, const char *s)
{
    if (c->npool == c->cappool) {
        int cap = c->cappool ? 2 * c->cappool : 32;
        char **p = realloc(c->pool, (size_t)cap * sizeof *p);
        if (!p) return NULL;
        c->pool = p;
        c->cappool = cap;
    }
    char *d = case_xstrdup(s);
    if (!d) return NULL;
    c->pool[c->npool++] = d;
    return d;
}

yaml_node_t *case_node_at(loader_t *L, int idx)
{
    return yaml_document_get_node(&L->doc, idx);
}

const char *case_sval(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

int case_is_null(const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) return 0;
    const char *s = case_sval(n);
    return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

const char *case_kind(const yaml_node_t *n)
{
    switch (n->type) {
    case YAML_SCALAR_NODE:
        return "a scalar";
    case YAML_SEQUENCE_NODE:
        return "a sequence";
    case YAML_MAPPING_NODE:
        return "a mapping";
    default:
        return "nothing";
    }
}

int case_seq_len(const yaml_node_t *n)
{
    return (int)(n->data.sequence.items.top - n->data.sequence.items.start);
}

yaml_node_t *case_seq_item(loader_t *L, const yaml_node_t *n, int k)
{
    return case_node_at(L, n->data.sequence.items.start[k]);
}

int case_is_ident(const char *s)
{
    if (!(isalpha((unsigned char)*s) || *s == '_')) return 0;
    for (s++; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_')) return 0;
    return 1;
}

/* Append ", name" entries to buf (bounded). */
void case_list_add(char *buf, size_t len, const char *name)
{
    size_t used = strlen(buf);
    if (used + 1 >= len) return;
    snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name);
}

/* A library error from fmb_model_add_*: prefixed with the item unless the model's
 * message already names it. */
int case_lib_fail(loader_t *L, const yaml_node_t *at, const char *ctx, const char *name)
{
    const char *msg = fmb_model_last_error(L->c->model);
    if (!msg || !*msg) msg = "rejected by the model";
    if (strstr(msg, name)) return case_fail(L, at, "%s", msg);
    return case_fail(L, at, "%s: %s", ctx, msg);
}

/* ------------------------------------------------------------------ mappings */

/* Edit distance (insertions, deletions, substitutions, adjacent swaps) of short strings;
 * 99 when either is longer than 40 characters. */
static int edit_distance(const char *a, const char *b)
{
    const size_t na = strlen(a), nb = strlen(b);
    if (na > 40 || nb > 40) return 99;
    int d[41][41];
    for (size_t i = 0; i <= na; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= nb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= na; i++)
        for (size_t j = 1; j <= nb; j++) {
            int v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < v) v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[na][nb];
}

const char *case_nearest(const char *s, const char *const *cands)
{
    const char *best = NULL;
    int bd = 99;
    for (int i = 0; cands && cands[i]; i++) {
        const int dd = edit_distance(s, cands[i]);
        if (dd < bd) bd = dd, best = cands[i];
    }
    /* close enough to be a typo: up to 1 edit for short keys, a third of the length */
    const int lim = strlen(s) <= 4 ? 1 : (int)(strlen(s) + 2) / 3;
    return best && bd <= lim ? best : NULL;
}

int case_comma_cut(loader_t *L, const yaml_node_t *map, const yaml_node_t *key, char *msg,
                   size_t len)
{
    if (map->type != YAML_MAPPING_NODE || map->data.mapping.style != YAML_FLOW_MAPPING_STYLE)
        return 0;
    const yaml_node_t *cut = NULL, *cutk = NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        const yaml_node_t *k = case_node_at(L, p->key), *v = case_node_at(L, p->value);
        if (k == key) break;
        if (v->type != YAML_SCALAR_NODE || v->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
            continue;
        int depth = 0;
        for (const char *c = case_sval(v); *c; c++)
            depth += (*c == '(' || *c == '[') - (*c == ')' || *c == ']');
        if (depth > 0) cut = v, cutk = k;
    }
    if (!cut) return 0;
    int depth = 0;
    for (const char *c = case_sval(cut); *c; c++)
        depth += (*c == '(' || *c == '[') - (*c == ')' || *c == ']');
    snprintf(msg, len,
             "the value of '%s' was cut at a comma ('%s': inside a {...} map a comma ends the "
             "value unless it is quoted): quote it, %s: \"%s, ...%.*s\"",
             case_sval(cutk), case_sval(cut), case_sval(cutk), case_sval(cut), depth < 8 ? depth : 8,
             "))))))))");
    return 1;
}

/* Check that map is a mapping whose keys are scalars from allowed (NULL-terminated)
 * and appear once. */
int case_check_keys(loader_t *L, const yaml_node_t *map, const char *ctx,
                    const char *const allowed[])
{
    if (map->type != YAML_MAPPING_NODE)
        return case_fail(L, map, "%s must be a mapping, not %s", ctx, case_kind(map));
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = case_node_at(L, p->key);
        if (k->type != YAML_SCALAR_NODE)
            return case_fail(L, k, "%s: keys must be scalars, not %s", ctx, case_kind(k));
        int ok = !allowed;
        for (int i = 0; allowed && allowed[i]; i++)
            if (!strcmp(case_sval(k), allowed[i])) ok = 1;
        if (!ok) {
            char buf[600] = "", hint[120] = "", cut[400];
            if (case_comma_cut(L, map, k, cut, sizeof cut))
                return case_fail(L, k, "unknown key '%s' in %s: %s", case_sval(k), ctx, cut);
            for (int i = 0; allowed[i]; i++)
                case_list_add(buf, sizeof buf, allowed[i]);
            const char *near = case_nearest(case_sval(k), allowed);
            if (near) snprintf(hint, sizeof hint, "; did you mean '%s'?", near);
            return case_fail(L, k, "unknown key '%s' in %s (allowed: %s)%s", case_sval(k), ctx, buf,
                             hint);
        }
        for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++)
            if (!strcmp(case_sval(case_node_at(L, q->key)), case_sval(k)))
                return case_fail(L, k, "duplicate key '%s' in %s", case_sval(k), ctx);
    }
    return 0;
}

/* Value of key in a checked mapping; NULL if absent or null. */
yaml_node_t *case_get(loader_t *L, const yaml_node_t *map, const char *key)
{
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = case_node_at(L, p->key);
        if (k->type == YAML_SCALAR_NODE && !strcmp(case_sval(k), key)) {
            yaml_node_t *v = case_node_at(L, p->value);
            return case_is_null(v) ? NULL : v;
        }
    }
    return NULL;
}

int case_get_string(loader_t *L, const yaml_node_t *map, const char *key, const char *ctx,
                    int required, const char **out)
{
    yaml_node_t *v = case_get(L, map, key);
    *out = NULL;
    if (!v) {
        if (required) return case_fail(L, map, "%s: missing required key '%s'", ctx, key);
        return 0;
    }
    if (v->type != YAML_SCALAR_NODE)
        return case_fail(L, v, "%s: '%s' must be a scalar, not %s", ctx, key, case_kind(v));
    *out = case_sval(v);
    return 0;
}

int case_get_int(loader_t *L, const yaml_node_t *map, const char *key, const char *ctx, int min,
                 int *out)
{
    double v;
    int given;
    int rc = case_get_num(L, map, key, ctx, &v, &given);
    if (rc || !given) return rc;
    if (v != floor(v) || v < min || v > 1e9)
        return case_fail(L, case_get(L, map, key), "%s: '%s' must be an integer >= %d, got %g", ctx,
                         key, min, v);
    *out = (int)v;
    return 0;
}

/* A positive number (required when `required`). */
int case_get_positive(loader_t *L, const yaml_node_t *map, const char *key, const char *ctx,
                      int required, double *out, int *given)
{
    int has;
    int rc = case_get_num(L, map, key, ctx, out, &has);
    if (given) *given = has;
    if (rc) return rc;
    if (!has) return required ? case_fail(L, map, "%s: missing required key '%s'", ctx, key) : 0;
    if (!(*out > 0))
        return case_fail(L, case_get(L, map, key), "%s: '%s' must be positive, got %g", ctx, key,
                         *out);
    return case_check_magnitude(L, case_get(L, map, key), ctx, key, *out);
}

int case_check_magnitude(loader_t *L, const yaml_node_t *v, const char *ctx, const char *key,
                         double x)
{
    const double a = fabs(x);
    if (a == 0 || (a >= FMB_CASE_MAG_MIN && a <= FMB_CASE_MAG_MAX)) return 0;
    return case_fail(L, v,
                     "%s: '%s' = %g is out of range: a nonzero value must lie between %g and %g "
                     "in magnitude (SI units)",
                     ctx, key, x, FMB_CASE_MAG_MIN, FMB_CASE_MAG_MAX);
}

/* true/false (also yes/no, on/off, 1/0). */
int case_get_bool(loader_t *L, const yaml_node_t *map, const char *key, const char *ctx, int *out)
{
    yaml_node_t *v = case_get(L, map, key);
    if (!v) return 0;
    static const char *const t[] = {"true", "True", "TRUE", "yes", "Yes", "on", "1", NULL};
    static const char *const f[] = {"false", "False", "FALSE", "no", "No", "off", "0", NULL};
    if (v->type == YAML_SCALAR_NODE) {
        for (int k = 0; t[k]; k++)
            if (!strcmp(case_sval(v), t[k])) {
                *out = 1;
                return 0;
            }
        for (int k = 0; f[k]; k++)
            if (!strcmp(case_sval(v), f[k])) {
                *out = 0;
                return 0;
            }
    }
    if (v->type == YAML_SCALAR_NODE && !case_is_null(v)) {
        /* any other scalar is an expression of the parameters: non-zero is true */
        double x = 0.0;
        int rc = case_get_num(L, map, key, ctx, &x, NULL);
        if (rc == 0) *out = x != 0.0;
        return rc;
    }
    return case_fail(L, v, "%s: '%s' must be true, false or an expression, not %s", ctx, key,
                     case_kind(v));
}

/* The generic reader of joint and force items (docs/extending.md): an item's class is found
 * by its `type:` (and variant key), and its keys are read from the class's parameter table
 * (model/params.h) into the item's description. No type appears here. */
#include "io/case_loader.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_KEYS 80

/* Is name an entry of the ", "-separated list buf? */
static int listed(const char *buf, const char *name)
{
    const size_t n = strlen(name);
    for (const char *p = buf; (p = strstr(p, name)); p += n)
        if ((p == buf || p[-1] == ' ') && (p[n] == ',' || p[n] == '\0')) return 1;
    return 0;
}

/* The keys an item of class c accepts, in the order the docs list them. */
static int class_keys(const case_item_class_t *c, const char **keys, int max)
{
    int n = 0;
    keys[n++] = "name";
    keys[n++] = "type";
    if (c->variant_key) keys[n++] = c->variant_key;
    if (c->flags & FMB_ITEM_BODY) keys[n++] = "body";
    if (c->flags & FMB_ITEM_BODIES) keys[n++] = "bodies";
    if (c->flags & FMB_ITEM_POINTS) keys[n++] = "points";
    for (int k = 0; c->params && c->params[k].kind != FMB_PARAM_END && n < max - 1; k++)
        keys[n++] = c->params[k].key;
    keys[n] = NULL;
    return n;
}

static int has_key(const char *const *keys, const char *key)
{
    for (int k = 0; keys[k]; k++)
        if (!strcmp(keys[k], key)) return 1;
    return 0;
}

/* An unknown key of a class: the keys it accepts, the nearest one, and the other types
 * (or models) the key belongs to. */
static int unknown_key(loader_t *L, const yaml_node_t *kn, const char *ctx, const char *tname,
                       const char *family, const case_item_class_t *all, int nall,
                       const char *const *keys)
{
    const char *key = case_sval(kn);
    char allowed[600] = "", owners[300] = "";
    for (int k = 0; keys[k]; k++)
        case_list_add(allowed, sizeof allowed, keys[k]);
    for (int c = 0; c < nall; c++) {
        const char *ck[MAX_KEYS + 1];
        class_keys(&all[c], ck, MAX_KEYS);
        if (has_key(ck, key) && !listed(owners, all[c].case_type))
            case_list_add(owners, sizeof owners, all[c].case_type);
    }
    if (*owners)
        return case_fail(L, kn, "%s: '%s' applies to %s %s only (%s accepts: %s)", ctx, key, family,
                         owners, tname, allowed);
    const char *near = case_nearest(key, keys);
    char hint[200] = "";
    if (near) {
        snprintf(hint, sizeof hint, "; did you mean '%s'?", near);
    } else {
        /* the nearest key of another type */
        const char *other[4 * MAX_KEYS + 1];
        int no = 0;
        for (int c = 0; c < nall; c++) {
            const char *ck[MAX_KEYS + 1];
            class_keys(&all[c], ck, MAX_KEYS);
            for (int k = 0; ck[k] && no < 4 * MAX_KEYS; k++)
                other[no++] = ck[k];
        }
        other[no] = NULL;
        if ((near = case_nearest(key, other))) {
            char types[200] = "";
            for (int c = 0; c < nall; c++) {
                const char *ck[MAX_KEYS + 1];
                class_keys(&all[c], ck, MAX_KEYS);
                if (has_key(ck, near) && !listed(types, all[c].case_type))
                    case_list_add(types, sizeof types, all[c].case_type);
            }
            snprintf(hint, sizeof hint, "; '%s' is a key of %s %s", near, family, types);
        }
    }
    return case_fail(L, kn, "unknown key '%s' in %s %s (allowed: %s)%s", key, tname, ctx, allowed,
                     hint);
}

static int check_class_keys(loader_t *L, const yaml_node_t *m, const char *ctx, const char *tname,
                            const char *family, const case_item_class_t *c,
                            const case_item_class_t *all, int nall)
{
    const char *keys[MAX_KEYS + 1];
    class_keys(c, keys, MAX_KEYS);
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
        yaml_node_t *kn = case_node_at(L, p->key);
        char cut[400];
        if (!has_key(keys, case_sval(kn)) && case_comma_cut(L, m, kn, cut, sizeof cut))
            return case_fail(L, kn, "unknown key '%s' in %s %s: %s", case_sval(kn), tname, ctx,
                             cut);
        if (!has_key(keys, case_sval(kn)))
            return unknown_key(L, kn, ctx, tname, family, all, nall, keys);
    }
    return 0;
}

static const char *bound_text(unsigned flags, int upper)
{
    if (upper) return flags & FMB_PARAM_MAX_OPEN ? "<" : "<=";
    return flags & FMB_PARAM_MIN_OPEN ? ">" : ">=";
}

/* Bounds of one value of key (node v). */
static int check_bounds(loader_t *L, const yaml_node_t *v, const char *ctx, const fmb_param_t *p,
                        double x)
{
    const unsigned f = p->flags;
    if (((f & FMB_PARAM_MIN) && !(x >= p->lo)) || ((f & FMB_PARAM_MIN_OPEN) && !(x > p->lo)))
        return case_fail(L, v, "%s: '%s' must be %s %g, got %g", ctx, p->key, bound_text(f, 0),
                         p->lo, x);
    if (((f & FMB_PARAM_MAX) && !(x <= p->hi)) || ((f & FMB_PARAM_MAX_OPEN) && !(x < p->hi)))
        return case_fail(L, v, "%s: '%s' must be %s %g, got %g", ctx, p->key, bound_text(f, 1),
                         p->hi, x);
    /* a quantity that cannot be negative (stiffness, damping, coefficients, ...): within the
     * physical magnitudes */
    if (p->kind == FMB_PARAM_NUMBER && (f & (FMB_PARAM_MIN | FMB_PARAM_MIN_OPEN)) && p->lo >= 0)
        return case_check_magnitude(L, v, ctx, p->key, x);
    return 0;
}

static int read_friction(loader_t *L, const yaml_node_t *fn, const char *ctx,
                         fmb_friction_desc_t *f, const fmb_item_env_t *item);

/* Read the table's keys of mapping m into desc; bit k of *given set when params[k] was in
 * the case. bi0: loader index of the item's first body (POINT keys). */
int case_read_params(loader_t *L, const yaml_node_t *m, const char *ctx, const fmb_param_t *params,
                     void *desc, int bi0, const fmb_item_env_t *env, unsigned long long *given)
{
    *given = 0;
    for (int k = 0; params && params[k].kind != FMB_PARAM_END; k++) {
        const fmb_param_t *p = &params[k];
        char *dst = (char *)desc + p->offset;
        yaml_node_t *v = case_get(L, m, p->key);
        int rc = 0;
        if (v && k < 64) *given |= 1ull << k;
        if (!v && (p->flags & FMB_PARAM_REQUIRED))
            return case_fail(
                L, m, "%s: missing required key '%s'%s%s%s%s%s", ctx, p->key, p->doc ? " (" : "",
                p->doc ? p->doc : "", p->doc && p->unit && strcmp(p->unit, "-") ? ", " : "",
                p->doc && p->unit && strcmp(p->unit, "-") ? p->unit : "", p->doc ? ")" : "");
        switch (p->kind) {
        case FMB_PARAM_NUMBER: {
            double x = p->dflt[0];
            if (v && ((rc = case_get_num(L, m, p->key, ctx, &x, NULL)) ||
                      (rc = check_bounds(L, v, ctx, p, x))))
                return rc;
            memcpy(dst, &x, sizeof x);
            break;
        }
        case FMB_PARAM_VECTOR:
        case FMB_PARAM_POINT: {
            double x[8] = {p->dflt[0], p->dflt[1]};
            const int n = p->kind == FMB_PARAM_POINT ? 2 : p->n;
            if (n < 1 || n > 8) return case_fail(L, m, "%s: bad table entry '%s'", ctx, p->key);
            if (v && p->kind == FMB_PARAM_POINT && (rc = case_point_ref(L, v, ctx, bi0, x)))
                return rc;
            if (v && p->kind == FMB_PARAM_VECTOR &&
                (rc = case_get_vec(L, m, p->key, ctx, n, x, NULL)))
                return rc;
            double len = 0;
            for (int i = 0; i < n; i++) {
                len = hypot(len, x[i]);
                if (v && (rc = check_bounds(L, v, ctx, p, x[i]))) return rc;
            }
            if (v && (p->flags & FMB_PARAM_NONZERO) && !(len > 1e-12))
                return case_fail(L, v, "%s: '%s' must be non-zero", ctx, p->key);
            if ((p->flags & FMB_PARAM_UNIT) && len > 0)
                for (int i = 0; i < n; i++)
                    x[i] /= len;
            memcpy(dst, x, (size_t)n * sizeof(double));
            break;
        }
        case FMB_PARAM_EXPR: {
            const char *text = NULL;
            if ((rc = case_time_expr(L, m, p->key, ctx, 0, p->dflt_text, &text))) return rc;
            memcpy(dst, &text, sizeof text);
            break;
        }
        case FMB_PARAM_ENUM: {
            if (!v && !p->dflt_text) break; /* absent without a default: the field stays 0 */
            const char *s = p->dflt_text;
            if (v && (rc = case_get_string(L, m, p->key, ctx, 0, &s))) return rc;
            int idx = -1;
            for (int i = 0; s && p->choices[i]; i++)
                if (!strcmp(p->choices[i], s)) idx = i;
            if (idx < 0) {
                char buf[300] = "", hint[100] = "";
                for (int i = 0; p->choices[i]; i++)
                    case_list_add(buf, sizeof buf, p->choices[i]);
                const char *near = s ? case_nearest(s, p->choices) : NULL;
                if (near) snprintf(hint, sizeof hint, "; did you mean '%s'?", near);
                return case_fail(L, v ? v : m, "%s: unknown %s '%s' (allowed: %s)%s", ctx, p->key,
                                 s ? s : "", buf, hint);
            }
            if (p->flags & FMB_PARAM_NAME) {
                const char *name = p->choices[idx];
                memcpy(dst, &name, sizeof name);
                break;
            }
            if (p->values) idx = p->values[idx];
            if (p->flags & FMB_PARAM_IN_DOUBLE) {
                const double x = idx;
                memcpy(dst, &x, sizeof x);
            } else {
                memcpy(dst, &idx, sizeof idx);
            }
            break;
        }
        case FMB_PARAM_FRICTION: {
            fmb_friction_desc_t f;
            memset(&f, 0, sizeof f);
            if (v) {
                char fctx[200];
                snprintf(fctx, sizeof fctx, "%s: %s", ctx, p->key);
                if ((rc = read_friction(L, v, fctx, &f, env))) return rc;
            }
            memcpy(dst, &f, sizeof f);
            break;
        }
        case FMB_PARAM_END:
            break;
        }
    }
    return 0;
}

/* The node prepare() blamed (a key, an entry of a sequence key, or the item). */
int case_item_fail(loader_t *L, const yaml_node_t *m, const char *ctx, const fmb_item_env_t *env)
{
    yaml_node_t *at = env->fail_key ? case_get(L, m, env->fail_key) : NULL;
    if (at && env->fail_index >= 0 && at->type == YAML_SEQUENCE_NODE &&
        env->fail_index < case_seq_len(at))
        at = case_seq_item(L, at, env->fail_index);
    return case_fail(L, at ? at : m, "%s: %s", ctx, env->msg);
}

/* A friction section: `model` names a friction-model class whose table gives the keys. */
static int read_friction(loader_t *L, const yaml_node_t *fn, const char *ctx,
                         fmb_friction_desc_t *f, const fmb_item_env_t *item)
{
    int rc = case_check_keys(L, fn, ctx, NULL);
    if (rc) return rc;
    const char *model;
    if ((rc = case_get_string(L, fn, "model", ctx, 1, &model))) return rc;
    case_item_class_t all[16];
    const char *names[16 + 1];
    int n = 0, chosen = -1;
    for (const fmb_friction_class_t *k; n < 16 && (k = fmb_friction_class_at(n)); n++) {
        memset(&all[n], 0, sizeof all[n]);
        all[n].case_type = names[n] = k->name;
        all[n].params = k->params;
        all[n].klass = k;
        if (!strcmp(k->name, model)) chosen = n;
    }
    names[n] = NULL;
    if (chosen < 0) {
        char buf[200] = "";
        for (int k = 0; k < n; k++)
            case_list_add(buf, sizeof buf, names[k]);
        return case_fail(L, case_get(L, fn, "model"),
                         "%s: unknown friction model '%s' (allowed: %s)", ctx, model, buf);
    }
    const fmb_friction_class_t *fk = all[chosen].klass;
    if (!fk->params) {
        /* "none": the section is switched off, the other models' keys are ignored */
        memset(f, 0, sizeof *f); /* model NULL: frictionless */
        return 0;
    }
    const char *keys[MAX_KEYS + 1];
    int nk = 0;
    keys[nk++] = "model";
    for (int k = 0; fk->params[k].kind != FMB_PARAM_END && nk < MAX_KEYS; k++)
        keys[nk++] = fk->params[k].key;
    keys[nk] = NULL;
    for (yaml_node_pair_t *p = fn->data.mapping.pairs.start; p < fn->data.mapping.pairs.top; p++) {
        yaml_node_t *kn = case_node_at(L, p->key);
        if (has_key(keys, case_sval(kn))) continue;
        /* a key of another model, or unknown */
        char owners[200] = "", allowed[400] = "";
        for (int c = 0; c < n; c++)
            if (all[c].params && fmb_param_find(all[c].params, case_sval(kn)) >= 0)
                case_list_add(owners, sizeof owners, all[c].case_type);
        for (int k = 0; keys[k]; k++)
            case_list_add(allowed, sizeof allowed, keys[k]);
        if (*owners)
            return case_fail(L, kn, "%s: '%s' applies to model %s only (%s accepts: %s)", ctx,
                             case_sval(kn), owners, fk->name, allowed);
        const char *near = case_nearest(case_sval(kn), keys);
        char hint[120] = "";
        if (near) snprintf(hint, sizeof hint, "; did you mean '%s'?", near);
        return case_fail(L, kn, "unknown key '%s' in %s (allowed: %s)%s", case_sval(kn), ctx,
                         allowed, hint);
    }
    memset(f, 0, sizeof *f);
    f->model = fk->name;
    fmb_item_env_t env = *item;
    env.params = fk->params;
    env.fail_key = NULL;
    env.msg[0] = '\0';
    if ((rc = case_read_params(L, fn, ctx, fk->params, f, 0, &env, &env.given))) return rc;
    if (fk->prepare && fk->prepare(&env, f)) return case_item_fail(L, fn, ctx, &env);
    return 0;
}

/* Same body at both ends: a zero-length link if the points coincide, else an error. */
static int same_body(loader_t *L, const yaml_node_t *m, const char *ctx, const int bi[2],
                     double pt[2][2])
{
    if (bi[0] != bi[1]) return 0;
    if (hypot(pt[0][0] - pt[1][0], pt[0][1] - pt[1][1]) <= 1e-12)
        return case_fail(L, m, "%s: zero-length link: both points are the same point of body '%s'",
                         ctx, L->binfo[bi[0]].name);
    return case_fail(L, m, "%s: connects body '%s' to itself", ctx, L->binfo[bi[0]].name);
}

int case_item_read(loader_t *L, const yaml_node_t *m, const char *what,
                   const case_item_class_t *all, int nall,
                   int (*exists)(const fmb_case_t *, const char *), const char **name, char *ctx,
                   size_t ctxlen, const case_item_class_t **chosen, int body[2], double point[2][2],
                   void *desc, fmb_item_env_t *env)
{
    int rc = case_check_keys(L, m, what, NULL);
    if (rc) return rc;
    if ((rc = case_get_string(L, m, "name", what, 1, name))) return rc;
    snprintf(ctx, ctxlen, "%s '%s'", what, *name);
    if (exists(L->c, *name))
        return case_fail(L, case_get(L, m, "name"), "duplicate %s name '%s'", what, *name);
    const char *tname;
    if ((rc = case_get_string(L, m, "type", ctx, 1, &tname))) return rc;
    /* the classes of this type name (several: told apart by a variant key) */
    const case_item_class_t *c = NULL;
    int ncand = 0;
    const char *variants[32];
    for (int k = 0; k < nall; k++)
        if (!strcmp(all[k].case_type, tname)) {
            if (!c) c = &all[k];
            if (ncand < 31) variants[ncand++] = all[k].variant;
        }
    variants[ncand] = NULL;
    if (!c) {
        char allowed[400] = "", hint[100] = "";
        const char *types[64];
        int nt = 0;
        for (int k = 0; k < nall && nt < 63; k++)
            if (!listed(allowed, all[k].case_type)) {
                case_list_add(allowed, sizeof allowed, all[k].case_type);
                types[nt++] = all[k].case_type;
            }
        types[nt] = NULL;
        const char *near = case_nearest(tname, types);
        if (near) snprintf(hint, sizeof hint, "; did you mean '%s'?", near);
        return case_fail(L, case_get(L, m, "type"), "%s: unknown %s type '%s' (allowed: %s)%s", ctx,
                         what, tname, allowed, hint);
    }
    if (c->variant_key) {
        const char *val;
        if ((rc = case_get_string(L, m, c->variant_key, ctx, 1, &val))) return rc;
        const case_item_class_t *v = NULL;
        for (int k = 0; k < nall; k++)
            if (!strcmp(all[k].case_type, tname) && all[k].variant && !strcmp(all[k].variant, val))
                v = &all[k];
        if (!v) {
            char buf[300] = "";
            for (int k = 0; variants[k]; k++)
                case_list_add(buf, sizeof buf, variants[k]);
            return case_fail(L, case_get(L, m, c->variant_key),
                             "%s: unknown %s %s '%s' (allowed: %s)", ctx, tname, c->variant_key,
                             val, buf);
        }
        c = v;
    }
    *chosen = c;
    if ((rc = check_class_keys(L, m, ctx, tname, "type", c, all, nall))) return rc;
    /* bodies and points */
    int bi[2] = {0, 0};
    memset(point, 0, 4 * sizeof(double));
    if (c->flags & FMB_ITEM_BODY) {
        yaml_node_t *bn = case_get(L, m, "body");
        if (!bn) return case_fail(L, m, "%s: missing required key 'body'", ctx);
        if ((rc = case_body_ref(L, bn, ctx, &bi[0]))) return rc;
        if (bi[0] == 0) return case_fail(L, bn, "%s: acts on the ground", ctx);
        bi[1] = bi[0];
    } else if (c->flags & FMB_ITEM_BODIES) {
        if ((rc = case_body_pair(L, m, ctx, c->flags & FMB_ITEM_ONE_OR_TWO ? 1 : 2, bi, point)))
            return rc;
        if ((c->flags & FMB_ITEM_NOT_GROUND0) && bi[0] == 0)
            return case_fail(L, case_get(L, m, "bodies"),
                             "%s: the first body must not be the ground", ctx);
        if ((c->flags & FMB_ITEM_DISTINCT) && (rc = same_body(L, m, ctx, bi, point))) return rc;
    }
    memset(env, 0, sizeof *env);
    env->model = L->c->model;
    env->name = *name;
    env->ctx = ctx;
    for (int b = 0; b < 2; b++) {
        const body_info_t *bb = &L->binfo[bi[b]];
        body[b] = env->body[b] = bb->index;
        env->body_name[b] = bb->name;
        memcpy(env->pose[b], bb->pose, sizeof env->pose[b]);
        env->beam[b] = bb->beam;
    }
    env->params = c->params;
    env->fail_index = -1;
    return case_read_params(L, m, ctx, c->params, desc, bi[0], env, &env->given);
}

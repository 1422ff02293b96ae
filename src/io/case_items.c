/* The joints and forces sections: body and point references, friction, items. */
#include "io/case_loader.h"
#include "model/model.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Body named by scalar node n; sets *bi (loader index). */
int case_body_ref(loader_t *L, const yaml_node_t *n, const char *ctx, int *bi)
{
    if (n->type != YAML_SCALAR_NODE)
        return case_fail(L, n, "%s: a body name is expected, not %s", ctx, case_kind(n));
    int k = case_find_body(L, case_sval(n));
    if (k < 0) {
        char buf[300] = "";
        for (int j = 0; j < L->nb; j++)
            case_list_add(buf, sizeof buf, L->binfo[j].name);
        return case_fail(L, n, "%s: unknown body '%s' (bodies: %s)", ctx, case_sval(n), buf);
    }
    *bi = k;
    return 0;
}

/* Point on body bi: a point name of that body or [x, y]. */
int case_point_ref(loader_t *L, const yaml_node_t *n, const char *ctx, int bi, double xy[2])
{
    const body_info_t *b = &L->binfo[bi];
    if (n->type == YAML_SEQUENCE_NODE) return case_vec_node(L, n, ctx, "point", 2, xy);
    if (n->type != YAML_SCALAR_NODE)
        return case_fail(L, n, "%s: a point name or [x, y] is expected, not %s", ctx, case_kind(n));
    for (int k = 0; k < b->npts; k++)
        if (!strcmp(b->pts[k].name, case_sval(n))) {
            xy[0] = b->pts[k].xy[0];
            xy[1] = b->pts[k].xy[1];
            return 0;
        }
    char buf[300] = "";
    for (int k = 0; k < b->npts; k++)
        case_list_add(buf, sizeof buf, b->pts[k].name);
    if (bi == 0)
        return case_fail(L, n,
                         "%s: unknown point '%s' on body 'ground' (ground points are given as "
                         "[x, y])",
                         ctx, case_sval(n));
    return case_fail(L, n, "%s: unknown point '%s' on body '%s' (points: %s)", ctx, case_sval(n),
                     b->name, *buf ? buf : "none");
}

/* bodies: [b1, b2] and points: [p1, p2]; min_n..2 entries, missing body is ground and
 * missing point [0, 0]. */
int case_body_pair(loader_t *L, const yaml_node_t *m, const char *ctx, int min_n, int bi[2],
                   double pt[2][2])
{
    yaml_node_t *bs = case_get(L, m, "bodies"), *ps = case_get(L, m, "points");
    bi[0] = bi[1] = 0;
    memset(pt, 0, 4 * sizeof(double));
    if (!bs) return case_fail(L, m, "%s: missing required key 'bodies'", ctx);
    if (bs->type != YAML_SEQUENCE_NODE || case_seq_len(bs) < min_n || case_seq_len(bs) > 2)
        return case_fail(L, bs, "%s: 'bodies' must be a sequence of %s body names, not %s", ctx,
                         min_n == 2 ? "2" : "1 or 2",
                         bs->type == YAML_SEQUENCE_NODE ? "a sequence of another length"
                                                        : case_kind(bs));
    int n = case_seq_len(bs);
    for (int k = 0; k < n; k++) {
        int rc = case_body_ref(L, case_seq_item(L, bs, k), ctx, &bi[k]);
        if (rc) return rc;
    }
    if (ps) {
        if (ps->type != YAML_SEQUENCE_NODE || case_seq_len(ps) != n)
            return case_fail(L, ps,
                             "%s: 'points' must be a sequence of %d entries (one per body), "
                             "not %s",
                             ctx, n,
                             ps->type == YAML_SEQUENCE_NODE ? "a sequence of another length"
                                                            : case_kind(ps));
        for (int k = 0; k < n; k++) {
            int rc = case_point_ref(L, case_seq_item(L, ps, k), ctx, bi[k], pt[k]);
            if (rc) return rc;
        }
    }
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

/* An item of the joints or forces sequence: its type names the enumerator and the keys
 * that type accepts. */
typedef struct item_type {
    const char *name;
    int type;
    const char *const *keys;
} item_type_t;

/* Common head of a joint or force item: keys known to some type, a unique name, a known
 * type whose own keys are the only ones present. Writes the name, the context "what
 * 'name'" and the type entry. */
static int item_head(loader_t *L, const yaml_node_t *m, const char *what,
                     const item_type_t *types, int ntypes, const char *const *existing,
                     size_t stride, int nexisting, const char **name, char *ctx, size_t ctxlen,
                     const item_type_t **type)
{
    /* first pass, before the type is known: every key of some type (the union of the type
     * tables, in their order) */
    const char *any[128];
    int nany = 0;
    for (int k = 0; k < ntypes; k++)
        for (const char *const *key = types[k].keys; *key; key++) {
            int seen = 0;
            for (int i = 0; i < nany && !seen; i++)
                seen = !strcmp(any[i], *key);
            if (!seen && nany < 127) any[nany++] = *key;
        }
    any[nany] = NULL;
    int rc = case_check_keys(L, m, what, any);
    if (rc) return rc;
    if ((rc = case_get_string(L, m, "name", what, 1, name))) return rc;
    snprintf(ctx, ctxlen, "%s '%s'", what, *name);
    for (int k = 0; k < nexisting; k++) {
        const char *other = *(const char *const *)((const char *)existing + stride * (size_t)k);
        if (!strcmp(other, *name))
            return case_fail(L, case_get(L, m, "name"), "duplicate %s name '%s'", what, *name);
    }
    const char *tname;
    if ((rc = case_get_string(L, m, "type", ctx, 1, &tname))) return rc;
    *type = NULL;
    for (int k = 0; k < ntypes; k++)
        if (!strcmp(types[k].name, tname)) *type = &types[k];
    if (!*type) {
        char allowed[256] = "";
        for (int k = 0; k < ntypes; k++) {
            size_t len = strlen(allowed);
            snprintf(allowed + len, sizeof allowed - len, "%s%s", k ? ", " : "", types[k].name);
        }
        return case_fail(L, case_get(L, m, "type"), "%s: unknown %s type '%s' (allowed: %s)", ctx,
                         what, tname, allowed);
    }
    char kctx[200];
    snprintf(kctx, sizeof kctx, "%s %s '%s'", tname, what, *name);
    return case_check_keys(L, m, kctx, (*type)->keys);
}

static int joint_exists(const fmb_case_t *c, const char *name)
{
    for (int k = 0; k < c->njoints; k++)
        if (!strcmp(c->joints[k].name, name)) return 1;
    return 0;
}

/* A joint: its class (by type and variant) reads its own keys (model/params.h). */
int case_load_joint(loader_t *L, const yaml_node_t *m)
{
    case_item_class_t all[64];
    int n = 0;
    fmb_joint_type type;
    for (const fmb_joint_class_t *k; n < 64 && (k = fmb_joint_class_at(n, &type)); n++)
        all[n] = (case_item_class_t){k->case_type ? k->case_type : "", k->variant_key, k->variant,
                                     k->item_flags, k->params, (int)type, k};
    fmb_case_t *c = L->c;
    fmb_joint_desc_t d;
    memset(&d, 0, sizeof d);
    d.line = (int)m->start_mark.line + 1;
    d.axis[0] = 1; /* the description's x axis where no key sets it */
    const char *name;
    char ctx[160];
    const case_item_class_t *cl = NULL;
    fmb_item_env_t env;
    int rc = case_item_read(L, m, "joint", all, n, joint_exists, &name, ctx, sizeof ctx, &cl,
                            d.body, d.point, &d, &env);
    if (rc) return rc;
    d.type = (fmb_joint_type)cl->type;
    const fmb_joint_class_t *k = cl->klass;
    if (k->prepare && k->prepare(&env, &d)) return case_item_fail(L, m, ctx, &env);
    d.name = case_pool_str(c, name);
    if (!d.name) return case_nomem(L, m);
    int idx = fmb_model_add_joint(c->model, &d);
    if (idx < 0) {
        /* the model's friction checks: at 'friction' */
        yaml_node_t *fr = case_get(L, m, "friction");
        const char *msg = fmb_model_last_error(c->model);
        if (fr && msg && (strstr(msg, "friction") || strstr(msg, "LuGre") || strstr(msg, "half-length")))
            return case_lib_fail(L, fr, ctx, name);
        return case_lib_fail(L, m, ctx, name);
    }
    c->joints[c->njoints++] = d;
    return 0;
}

static void inertial_point(const body_info_t *b, const double u[2], double r[2])
{
    double cs = cos(b->pose[2]), sn = sin(b->pose[2]);
    r[0] = b->pose[0] + cs * u[0] - sn * u[1];
    r[1] = b->pose[1] + sn * u[0] + cs * u[1];
}

int case_load_force(loader_t *L, const yaml_node_t *m)
{
    static const char *const k_gap[] = {"name",       "type",    "bodies",   "points",
                                        "coordinate", "axis",    "limits",   "law",
                                        "stiffness",  "damping", "exponent", NULL};
    static const char *const k_fr[] = {
        "name",    "type",  "bodies", "points", "coordinate", "axis",  "static", "kinetic",
        "v_stick", "model", "sigma0", "sigma1", "sigma2",     "vs",    "gamma",  "vd",
        NULL};
    static const char *const k_ra[] = {"name",       "type", "bodies", "points",
                                       "coordinate", "axis", "sense",  NULL};
    static const char *const k_sc[] = {"name",   "type", "bodies",    "points",  "axis",    "lead",
                                       "radius", "mu",   "stiffness", "damping", "v_stick", NULL};
    static const char *const k_pt[] = {"name", "type", "body", "point", "fx", "fy", NULL};
    static const char *const k_tq[] = {"name", "type", "body", "tz", NULL};
    static const char *const k_sp[] = {"name",      "type",    "bodies",      "points",
                                       "stiffness", "damping", "rest_length", NULL};
    static const char *const k_ts[] = {"name",    "type",  "bodies", "stiffness",
                                       "damping", "angle", NULL};
    static const item_type_t types[] = {
        {"point", FMB_FORCE_POINT, k_pt},
        {"torque", FMB_FORCE_TORQUE, k_tq},
        {"spring", FMB_FORCE_SPRING, k_sp},
        {"torsion", FMB_FORCE_TORSION, k_ts},
        {"clearance", FMB_FORCE_CLEARANCE, case_clearance_keys},
        {"gap", FMB_FORCE_GAP, k_gap},
        {"dry_friction", FMB_FORCE_FRICTION, k_fr},
        {"ratchet", FMB_FORCE_RATCHET, k_ra},
        {"screw", FMB_FORCE_SCREW, k_sc},
    };
    fmb_case_t *c = L->c;
    const char *name;
    char ctx[160];
    const item_type_t *t = NULL;
    int rc = item_head(L, m, "force", types, (int)(sizeof types / sizeof types[0]),
                       c->nforces ? &c->forces[0].name : NULL, sizeof c->forces[0], c->nforces,
                       &name, ctx, sizeof ctx, &t);
    if (rc) return rc;
    fmb_force_desc_t d;
    memset(&d, 0, sizeof d);
    d.line = (int)m->start_mark.line + 1;
    d.type = (fmb_force_type)t->type;
    int bi[2] = {0, 0};
    if (d.type == FMB_FORCE_GAP || d.type == FMB_FORCE_FRICTION || d.type == FMB_FORCE_RATCHET ||
        d.type == FMB_FORCE_SCREW) { /* switching elements (case_switch.c) */
        if ((rc = case_body_pair(L, m, ctx, 2, bi, d.point)) ||
            (rc = case_switch_params(L, m, ctx, bi, &d)))
            return rc;
    } else if (d.type == FMB_FORCE_TORSION) {
        /* torsional spring-damper: M = -k (theta1 - theta2 - angle) - c (w1 - w2) */
        if ((rc = case_body_pair(L, m, ctx, 1, bi, d.point))) return rc;
        if (bi[0] == 0)
            return case_fail(L, case_get(L, m, "bodies"),
                             "%s: the first body must not be the ground", ctx);
        int has_angle;
        if ((rc = case_get_num(L, m, "stiffness", ctx, &d.stiffness, NULL)) ||
            (rc = case_get_num(L, m, "damping", ctx, &d.damping, NULL)) ||
            (rc = case_get_num(L, m, "angle", ctx, &d.rest_length, &has_angle)))
            return rc;
        if (d.stiffness < 0 || d.damping < 0)
            return case_fail(L, case_get(L, m, d.stiffness < 0 ? "stiffness" : "damping"),
                             "%s: stiffness and damping must be >= 0", ctx);
        if (!has_angle) /* rest angle: the relative angle of the initial poses */
            d.rest_length = L->binfo[bi[0]].pose[2] - L->binfo[bi[1]].pose[2];
    } else if (d.type == FMB_FORCE_CLEARANCE) {
        /* journal on the first body, bearing on the second (seed 002) */
        if ((rc = case_body_pair(L, m, ctx, 2, bi, d.point)) ||
            (rc = same_body(L, m, ctx, bi, d.point)) ||
            (rc = case_load_clearance(L, m, ctx, &d.clearance)))
            return rc;
    } else if (d.type == FMB_FORCE_SPRING) {
        if ((rc = case_body_pair(L, m, ctx, 2, bi, d.point)) ||
            (rc = same_body(L, m, ctx, bi, d.point)))
            return rc;
        int has_k, has_rest;
        if ((rc = case_get_num(L, m, "stiffness", ctx, &d.stiffness, &has_k)) ||
            (rc = case_get_num(L, m, "damping", ctx, &d.damping, NULL)) ||
            (rc = case_get_num(L, m, "rest_length", ctx, &d.rest_length, &has_rest)))
            return rc;
        if (!has_k) return case_fail(L, m, "%s: missing required key 'stiffness'", ctx);
        static const char *const nonneg[] = {"stiffness", "damping", "rest_length"};
        double vals[] = {d.stiffness, d.damping, d.rest_length};
        for (int k = 0; k < 3; k++)
            if (vals[k] < 0)
                return case_fail(L, case_get(L, m, nonneg[k]), "%s: '%s' must be >= 0, got %g", ctx,
                                 nonneg[k], vals[k]);
        if (!has_rest) {
            double r0[2], r1[2];
            inertial_point(&L->binfo[bi[0]], d.point[0], r0);
            inertial_point(&L->binfo[bi[1]], d.point[1], r1);
            d.rest_length = hypot(r1[0] - r0[0], r1[1] - r0[1]);
        }
    } else {
        yaml_node_t *bn = case_get(L, m, "body");
        if (!bn) return case_fail(L, m, "%s: missing required key 'body'", ctx);
        if ((rc = case_body_ref(L, bn, ctx, &bi[0]))) return rc;
        if (bi[0] == 0) return case_fail(L, bn, "%s: acts on the ground", ctx);
        if (d.type == FMB_FORCE_POINT) {
            yaml_node_t *pn = case_get(L, m, "point");
            if (pn && (rc = case_point_ref(L, pn, ctx, bi[0], d.point[0]))) return rc;
            if ((rc = case_time_expr(L, m, "fx", ctx, 0, "0", &d.expr[0])) ||
                (rc = case_time_expr(L, m, "fy", ctx, 0, "0", &d.expr[1])))
                return rc;
        } else {
            if ((rc = case_time_expr(L, m, "tz", ctx, 1, NULL, &d.expr[0]))) return rc;
        }
        bi[1] = bi[0];
    }
    d.body[0] = L->binfo[bi[0]].index;
    d.body[1] = L->binfo[bi[1]].index;
    d.name = case_pool_str(c, name);
    if (!d.name) return case_nomem(L, m);
    int idx = fmb_model_add_force(c->model, &d);
    if (idx < 0) return case_lib_fail(L, m, ctx, name);
    c->forces[c->nforces++] = d;
    return 0;
}

/* A list section: sequence of mappings (absent or null: empty). */
int case_load_list(loader_t *L, const yaml_node_t *sec, const char *key,
                   int (*item)(loader_t *, const yaml_node_t *))
{
    if (!sec) return 0;
    if (sec->type != YAML_SEQUENCE_NODE)
        return case_fail(L, sec, "'%s' must be a sequence, not %s", key, case_kind(sec));
    for (int k = 0; k < case_seq_len(sec); k++) {
        int rc = item(L, case_seq_item(L, sec, k));
        if (rc) return rc;
    }
    return 0;
}

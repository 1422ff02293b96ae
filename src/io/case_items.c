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

static int joint_exists(const fmb_case_t *c, const char *name)
{
    for (int k = 0; k < c->njoints; k++)
        if (!strcmp(c->joints[k].name, name)) return 1;
    return 0;
}

/* A joint: its class (by type and variant) reads its own keys (model/params.h). */
static int load_force(loader_t *L, const yaml_node_t *m, const char *what);

/* A type that is no joint class but a force class flagged FMB_ITEM_IN_JOINTS. */
static int joint_section_force(loader_t *L, const yaml_node_t *m)
{
    yaml_node_t *tn = m->type == YAML_MAPPING_NODE ? case_get(L, m, "type") : NULL;
    if (!tn || tn->type != YAML_SCALAR_NODE) return 0;
    const char *t = case_sval(tn);
    const fmb_joint_class_t *jk;
    for (int k = 0; (jk = fmb_joint_class_at(k)); k++)
        if (jk->case_type && !strcmp(jk->case_type, t)) return 0;
    const fmb_force_class_t *fk;
    for (int k = 0; (fk = fmb_force_class_at(k)); k++)
        if ((fk->item_flags & FMB_ITEM_IN_JOINTS) && fk->case_type && !strcmp(fk->case_type, t))
            return 1;
    return 0;
}

int case_load_joint(loader_t *L, const yaml_node_t *m)
{
    if (joint_section_force(L, m)) return load_force(L, m, "joint");
    case_item_class_t all[64];
    int n = 0;
    for (const fmb_joint_class_t *k; n < 64 && (k = fmb_joint_class_at(n)); n++)
        all[n] = (case_item_class_t){k->case_type ? k->case_type : "",
                                     k->variant_key,
                                     k->variant,
                                     k->item_flags,
                                     k->params,
                                     k};
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
    const fmb_joint_class_t *k = cl->klass;
    d.type = k->name;
    if (k->prepare && k->prepare(&env, &d)) return case_item_fail(L, m, ctx, &env);
    d.name = case_pool_str(c, name);
    if (!d.name) return case_nomem(L, m);
    int idx = fmb_model_add_joint(c->model, &d);
    if (idx < 0) {
        /* the model's friction checks: at 'friction' */
        yaml_node_t *fr = case_get(L, m, "friction");
        const char *msg = fmb_model_last_error(c->model);
        if (fr && msg &&
            (strstr(msg, "friction") || strstr(msg, "LuGre") || strstr(msg, "half-length")))
            return case_lib_fail(L, fr, ctx, name);
        return case_lib_fail(L, m, ctx, name);
    }
    c->joints[c->njoints++] = d;
    return 0;
}

static int force_exists(const fmb_case_t *c, const char *name)
{
    for (int k = 0; k < c->nforces; k++)
        if (!strcmp(c->forces[k].name, name)) return 1;
    return 0;
}

/* A force item (`what`: "force", or "joint" for a force class accepted under joints:, which
 * then only offers those classes): its class (by type) reads its own keys. */
static int load_force(loader_t *L, const yaml_node_t *m, const char *what)
{
    const int in_joints = !strcmp(what, "joint");
    case_item_class_t all[64];
    int n = 0, nk = 0;
    for (const fmb_force_class_t *k; nk < 64 && (k = fmb_force_class_at(nk)); nk++)
        if (!in_joints || (k->item_flags & FMB_ITEM_IN_JOINTS))
            all[n++] = (case_item_class_t){k->case_type ? k->case_type : "", k->variant_key,
                                           k->variant, k->item_flags, k->params, k};
    fmb_case_t *c = L->c;
    fmb_force_desc_t d;
    memset(&d, 0, sizeof d);
    d.line = (int)m->start_mark.line + 1;
    const char *name;
    char ctx[160];
    const case_item_class_t *cl = NULL;
    fmb_item_env_t env;
    int rc = case_item_read(L, m, what, all, n, force_exists, &name, ctx, sizeof ctx, &cl,
                            d.body, d.point, &d, &env);
    if (rc) return rc;
    const fmb_force_class_t *k = cl->klass;
    d.type = k->name;
    if (k->prepare && k->prepare(&env, &d)) return case_item_fail(L, m, ctx, &env);
    d.name = case_pool_str(c, name);
    if (!d.name) return case_nomem(L, m);
    if (fmb_model_add_force(c->model, &d) < 0) return case_lib_fail(L, m, ctx, name);
    c->forces[c->nforces++] = d;
    return 0;
}

int case_load_force(loader_t *L, const yaml_node_t *m)
{
    return load_force(L, m, "force");
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

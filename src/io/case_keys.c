/* fmb_case_keys: the case keys of every joint, force and friction-model type as text, from
 * the class tables (model/params.h; `flexmb keys`, docs/extending.md). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "flexmb/flexmb.h"
#include "model/model.h"

typedef struct out {
    char *buf;
    size_t len, used; /* used: length of the whole text, also past len */
} out_t;

static void put(out_t *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void put(out_t *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *at = o->buf && o->used < o->len ? o->buf + o->used : NULL;
    const size_t room = at ? o->len - o->used : 0;
    const int n = vsnprintf(at, room, fmt, ap);
    va_end(ap);
    if (n > 0) o->used += (size_t)n;
}

static const char *kind_name(fmb_param_kind k)
{
    switch (k) {
    case FMB_PARAM_NUMBER:
        return "number";
    case FMB_PARAM_VECTOR:
        return "vector";
    case FMB_PARAM_EXPR:
        return "expression of t";
    case FMB_PARAM_ENUM:
        return "choice";
    case FMB_PARAM_FRICTION:
        return "friction mapping";
    case FMB_PARAM_POINT:
        return "point";
    default:
        return "?";
    }
}

static void param_line(out_t *o, const fmb_param_t *p)
{
    put(o, "%s\t%s\t%s\t", p->key, kind_name(p->kind), p->unit ? p->unit : "-");
    if (p->flags & FMB_PARAM_REQUIRED)
        put(o, "required");
    else if (p->flags & FMB_PARAM_DERIVED)
        put(o, "default derived");
    else if (p->kind == FMB_PARAM_NUMBER)
        put(o, "default %g", p->dflt[0]);
    else if ((p->kind == FMB_PARAM_VECTOR && p->n == 2) || p->kind == FMB_PARAM_POINT)
        put(o, "default [%g, %g]", p->dflt[0], p->dflt[1]);
    else if (p->dflt_text)
        put(o, "default %s", p->dflt_text);
    else
        put(o, "optional");
    put(o, "\t");
    int any = 0;
    if (p->flags & (FMB_PARAM_MIN | FMB_PARAM_MIN_OPEN))
        put(o, "%s %g", p->flags & FMB_PARAM_MIN_OPEN ? ">" : ">=", p->lo), any = 1;
    if (p->flags & (FMB_PARAM_MAX | FMB_PARAM_MAX_OPEN))
        put(o, "%s%s %g", any ? ", " : "", p->flags & FMB_PARAM_MAX_OPEN ? "<" : "<=", p->hi),
            any = 1;
    if (p->flags & FMB_PARAM_NONZERO) put(o, "%snon-zero", any ? ", " : ""), any = 1;
    if (p->kind == FMB_PARAM_ENUM && p->choices) {
        put(o, "%s", any ? ", one of " : "one of ");
        for (int k = 0; p->choices[k]; k++)
            put(o, "%s%s", k ? " | " : "", p->choices[k]);
        any = 1;
    }
    if (!any) put(o, "-");
    put(o, "\t%s\n", p->doc ? p->doc : "");
}

static void item_lines(out_t *o, unsigned flags, const char *vkey, const char *variants,
                       const fmb_param_t *params)
{
    put(o, "name\tname\t-\trequired\tunique\tthe item's name\n");
    put(o, "type\tchoice\t-\trequired\t-\tthe type\n");
    if (vkey) put(o, "%s\tchoice\t-\trequired\tone of %s\tthe variant\n", vkey, variants);
    if (flags & FMB_ITEM_BODY) put(o, "body\tbody\t-\trequired\tnot ground\tthe body\n");
    if (flags & FMB_ITEM_BODIES)
        put(o, "bodies\tbody list\t-\trequired\t%s%s\t[b1, b2]%s\n",
            flags & FMB_ITEM_ONE_OR_TWO ? "1 or 2 names" : "2 names",
            flags & FMB_ITEM_DISTINCT ? ", distinct" : "",
            flags & FMB_ITEM_ONE_OR_TWO ? " (b2 left out: ground)" : "");
    if (flags & FMB_ITEM_POINTS)
        put(o, "points\tpoint list\tm\tdefault [[0, 0], [0, 0]]\t-\tone point per body "
               "(a point name or [x, y] in its frame)\n");
    for (const fmb_param_t *p = params; p && p->kind != FMB_PARAM_END; p++)
        param_line(o, p);
}

int fmb_case_keys(const char *section, const char *type, char *buf, size_t len)
{
    out_t o = {buf, len, 0};
    if (buf && len) buf[0] = '\0';
    if (!section) return FMB_ERR_ARG;
    const int joints = !strcmp(section, "joints"), forces = !strcmp(section, "forces"),
              friction = !strcmp(section, "friction");
    if (!joints && !forces && !friction) return FMB_ERR_NOTFOUND;
    int found = 0;
    if (friction) {
        const fmb_friction_class_t *fk;
        for (int k = 0; (fk = fmb_friction_class_at(k)); k++) {
            if (!type) {
                put(&o, "%s\n", fk->name), found = 1;
            } else if (!strcmp(type, fk->name)) {
                found = 1;
                put(&o, "model\tchoice\t-\trequired\t-\tthe friction model\n");
                for (const fmb_param_t *p = fk->params; p && p->kind != FMB_PARAM_END; p++)
                    param_line(&o, p);
            }
        }
    } else {
        /* joint classes, then force classes flagged for joints:, or force classes */
        for (int pass = 0; pass < 2; pass++) {
            if (pass == 0 && !joints) continue;
            for (int k = 0;; k++) {
                const char *ct, *vkey, *variant;
                unsigned flags;
                const fmb_param_t *params;
                if (pass == 0) {
                    const fmb_joint_class_t *jk = fmb_joint_class_at(k);
                    if (!jk) break;
                    ct = jk->case_type, vkey = jk->variant_key, variant = jk->variant;
                    flags = jk->item_flags, params = jk->params;
                } else {
                    const fmb_force_class_t *fk = fmb_force_class_at(k);
                    if (!fk) break;
                    if (joints && !(fk->item_flags & FMB_ITEM_IN_JOINTS)) continue;
                    ct = fk->case_type, vkey = fk->variant_key, variant = fk->variant;
                    flags = fk->item_flags, params = fk->params;
                }
                if (!ct) continue;
                /* the first class of a type stands for it (variants share their keys) */
                if (vkey && variant && k > 0) {
                    const fmb_joint_class_t *prev =
                        pass == 0 ? fmb_joint_class_at(k - 1) : NULL;
                    if (prev && prev->case_type && !strcmp(prev->case_type, ct)) continue;
                }
                if (!type) {
                    put(&o, "%s\n", ct), found = 1;
                    continue;
                }
                if (strcmp(type, ct)) continue;
                found = 1;
                char variants[200] = "";
                for (int i = 0; pass == 0 && vkey; i++) {
                    const fmb_joint_class_t *jk = fmb_joint_class_at(i);
                    if (!jk) break;
                    if (jk->case_type && !strcmp(jk->case_type, ct) && jk->variant) {
                        const size_t u = strlen(variants);
                        snprintf(variants + u, sizeof variants - u, "%s%s", u ? " | " : "",
                                 jk->variant);
                    }
                }
                item_lines(&o, flags, vkey, variants, params);
                break;
            }
            if (found && type) break;
        }
    }
    if (!found) return FMB_ERR_NOTFOUND;
    return o.used > (size_t)2147483647 ? FMB_ERR_NOMEM : (int)o.used;
}

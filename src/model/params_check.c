/*
 * The class parameter tables' rules for descriptions that library users pass to
 * fmb_model_add_joint / fmb_model_add_force (model/params.h): the bounds the case loader
 * checks at the key (src/io/case_class.c), here on the stored values, so that a program
 * gets the same rules as a case file (docs/extending.md, "Library users").
 *
 * Library descriptions have no "absent" key: a field left 0 stands for the key's default
 * (the class's check or prepare-like code decides what that is, e.g. v_stick 0: the law's
 * default, a prismatic axis (0, 0): the x axis). So 0 (a zero vector, enum value 0) is
 * accepted for a key that is not required and has a default; every other value must be a
 * finite number within the key's bounds, and an enum value must be one of its choices'.
 */
#include "model/params_check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *bound_text(unsigned flags, int upper)
{
    if (upper) return flags & FMB_PARAM_MAX_OPEN ? "<" : "<=";
    return flags & FMB_PARAM_MIN_OPEN ? ">" : ">=";
}

/* the key's description for messages: " (doc, unit)" */
static void about(const fmb_param_t *p, char *buf, size_t len)
{
    const int unit = p->unit && strcmp(p->unit, "-") != 0;
    snprintf(buf, len, "%s%s%s%s%s", p->doc ? " (" : "", p->doc ? p->doc : "",
             p->doc && unit ? ", " : "", p->doc && unit ? p->unit : "", p->doc ? ")" : "");
}

static int number_ok(const fmb_param_t *p, const char *pre, double x, const char *comp, char *msg,
                     size_t len)
{
    const unsigned f = p->flags;
    char ab[300];
    about(p, ab, sizeof ab);
    if (!isfinite(x)) {
        snprintf(msg, len, "%s'%s'%s must be a finite number, got %g%s", pre, p->key, comp, x, ab);
        return FMB_ERR_MODEL;
    }
    if (((f & FMB_PARAM_MIN) && !(x >= p->lo)) || ((f & FMB_PARAM_MIN_OPEN) && !(x > p->lo))) {
        snprintf(msg, len, "%s'%s'%s must be %s %g, got %g%s", pre, p->key, comp, bound_text(f, 0),
                 p->lo, x, ab);
        return FMB_ERR_MODEL;
    }
    if (((f & FMB_PARAM_MAX) && !(x <= p->hi)) || ((f & FMB_PARAM_MAX_OPEN) && !(x < p->hi))) {
        snprintf(msg, len, "%s'%s'%s must be %s %g, got %g%s", pre, p->key, comp, bound_text(f, 1),
                 p->hi, x, ab);
        return FMB_ERR_MODEL;
    }
    return 0;
}

/* 0 stands for the default: a key that is not required and has one */
static int zero_is_default(const fmb_param_t *p)
{
    return !(p->flags & FMB_PARAM_REQUIRED);
}

int fmb_params_check(const fmb_param_t *t, const void *desc, const char *pre, char *msg, size_t len)
{
    for (const fmb_param_t *p = t; p && p->kind != FMB_PARAM_END; p++) {
        const char *src = (const char *)desc + p->offset;
        int rc = 0;
        switch (p->kind) {
        case FMB_PARAM_NUMBER: {
            double x;
            memcpy(&x, src, sizeof x);
            if (x == 0 && zero_is_default(p)) break;
            rc = number_ok(p, pre, x, "", msg, len);
            break;
        }
        case FMB_PARAM_VECTOR:
        case FMB_PARAM_POINT: {
            const int n = p->kind == FMB_PARAM_POINT ? 2 : p->n;
            double x[8] = {0};
            if (n < 1 || n > 8) break;
            memcpy(x, src, (size_t)n * sizeof(double));
            double norm = 0;
            for (int i = 0; i < n; i++)
                norm = hypot(norm, x[i]);
            if (norm == 0 && zero_is_default(p)) break;
            for (int i = 0; i < n && !rc; i++) {
                char comp[16];
                snprintf(comp, sizeof comp, "[%d]", i);
                rc = number_ok(p, pre, x[i], n > 1 ? comp : "", msg, len);
            }
            if (!rc && (p->flags & FMB_PARAM_NONZERO) && !(norm > 1e-12)) {
                snprintf(msg, len, "%s'%s' must be non-zero", pre, p->key);
                rc = FMB_ERR_MODEL;
            }
            break;
        }
        case FMB_PARAM_ENUM: {
            if (p->flags & FMB_PARAM_NAME) {
                const char *name;
                memcpy(&name, src, sizeof name);
                if (!name) break; /* the default */
                int ok = 0;
                char allowed[300] = "";
                for (int i = 0; p->choices && p->choices[i]; i++) {
                    ok |= !strcmp(p->choices[i], name);
                    const size_t l = strlen(allowed);
                    snprintf(allowed + l, sizeof allowed - l, "%s%s", i ? ", " : "", p->choices[i]);
                }
                if (!ok) {
                    snprintf(msg, len, "%s'%s' = '%s' is not one of its choices (%s)", pre, p->key,
                             name, allowed);
                    rc = FMB_ERR_MODEL;
                }
                break;
            }
            int v;
            if (p->flags & FMB_PARAM_IN_DOUBLE) {
                double x;
                memcpy(&x, src, sizeof x);
                v = isfinite(x) && x == (int)x ? (int)x : -1000000;
            } else {
                memcpy(&v, src, sizeof v);
            }
            if (v == 0 && zero_is_default(p)) break;
            int ok = 0;
            char allowed[300] = "";
            for (int i = 0; p->choices && p->choices[i]; i++) {
                const int vi = p->values ? p->values[i] : i;
                ok |= vi == v;
                const size_t l = strlen(allowed);
                snprintf(allowed + l, sizeof allowed - l, "%s%d %s", i ? ", " : "", vi,
                         p->choices[i]);
            }
            if (!ok) {
                snprintf(msg, len, "%s'%s' = %d is not one of its choices (%s)", pre, p->key, v,
                         allowed);
                rc = FMB_ERR_MODEL;
            }
            break;
        }
        case FMB_PARAM_FRICTION: {
            const fmb_friction_desc_t *fd = (const fmb_friction_desc_t *)(const void *)src;
            const fmb_friction_class_t *fk = fmb_friction_class_for(fd->model);
            if (fk && fmb_friction_on(fd)) {
                char sub[64];
                snprintf(sub, sizeof sub, "%s%s ", pre, p->key);
                rc = fmb_params_check(fk->params, fd, sub, msg, len);
            }
            break;
        }
        case FMB_PARAM_EXPR: /* checked when the model compiles it */
        case FMB_PARAM_END:
            break;
        }
        if (rc) return rc;
    }
    return 0;
}

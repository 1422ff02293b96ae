/* The parameters and solver sections of a case file. */
#include "io/case_loader.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int case_load_parameters(loader_t *L, const yaml_node_t *sec, const char *const *ov, int nov)
{
    fmb_case_t *c = L->c;
    int n = 0;
    L->params = sec;
    if (sec) {
        if (sec->type != YAML_MAPPING_NODE)
            return case_fail(L, sec, "'parameters' must be a mapping of name: value, not %s",
                             case_kind(sec));
        n = (int)(sec->data.mapping.pairs.top - sec->data.mapping.pairs.start);
    }
    if (n > FMB_CASE_MAX_PARAMS) /* name lookups are linear: bound the quadratic load time */
        return case_fail(L, case_node_at(L, sec->data.mapping.pairs.start[FMB_CASE_MAX_PARAMS].key),
                         "more than %d parameters (%d given): the limit of a case",
                         FMB_CASE_MAX_PARAMS, n);
    for (int j = 0; j < n; j++) {
        yaml_node_t *k = case_node_at(L, sec->data.mapping.pairs.start[j].key);
        if (k->type != YAML_SCALAR_NODE)
            return case_fail(L, k, "parameter names must be scalars, not %s", case_kind(k));
    }
    /* overrides: name=value, the name must be a parameter */
    const char **ov_val = NULL;
    if (n > 0) {
        ov_val = calloc((size_t)n, sizeof *ov_val);
        c->pname = calloc((size_t)n, sizeof *c->pname);
        c->pval = calloc((size_t)n, sizeof *c->pval);
        if (!ov_val || !c->pname || !c->pval) {
            free(ov_val);
            return case_nomem(L, sec);
        }
    }
    int rc = 0;
    for (int k = 0; k < nov && !rc; k++) {
        const char *eq = ov[k] ? strchr(ov[k], '=') : NULL;
        if (!eq) {
            rc = case_fail(L, sec, "override '%s' is not of the form name=value",
                           ov[k] ? ov[k] : "(null)");
            break;
        }
        const char *b = ov[k], *e = eq;
        while (b < e && isspace((unsigned char)*b))
            b++;
        while (e > b && isspace((unsigned char)e[-1]))
            e--;
        /* solver choices by name: --set integrator=newmark, --set ordering=metis */
        if ((size_t)(e - b) == 10 && !strncmp(b, "integrator", 10)) {
            L->set_integrator = eq + 1;
            continue;
        }
        if ((size_t)(e - b) == 8 && !strncmp(b, "ordering", 8)) {
            L->set_ordering = eq + 1;
            continue;
        }
        if ((size_t)(e - b) == 4 && !strncmp(b, "step", 4)) { /* --set step=adaptive */
            L->set_step = eq + 1;
            continue;
        }
        if ((size_t)(e - b) == 5 && !strncmp(b, "start", 5)) { /* --set start=static */
            L->set_start = eq + 1;
            continue;
        }
        int found = -1;
        for (int j = 0; j < n; j++) {
            const char *name = case_sval(case_node_at(L, sec->data.mapping.pairs.start[j].key));
            if (strlen(name) == (size_t)(e - b) && !strncmp(name, b, (size_t)(e - b))) found = j;
        }
        if (found < 0) {
            char buf[300] = "";
            for (int j = 0; j < n; j++)
                case_list_add(buf, sizeof buf,
                              case_sval(case_node_at(L, sec->data.mapping.pairs.start[j].key)));
            char groups[300] = "";
            if (L->variants)
                for (yaml_node_pair_t *g = L->variants->data.mapping.pairs.start;
                     g < L->variants->data.mapping.pairs.top; g++)
                    case_list_add(groups, sizeof groups, case_sval(case_node_at(L, g->key)));
            rc = case_fail(L, sec, "override '%s': unknown parameter '%.*s' (parameters: %s%s%s)",
                           ov[k], (int)(e - b), b, *buf ? buf : "none",
                           *groups ? "; variant groups: " : "", groups);
            break;
        }
        ov_val[found] = eq + 1; /* the last override of a name wins */
    }
    for (int j = 0; j < n && !rc; j++) {
        yaml_node_pair_t *p = &sec->data.mapping.pairs.start[j];
        yaml_node_t *k = case_node_at(L, p->key), *v = case_node_at(L, p->value);
        const char *name = case_sval(k);
        if (!case_is_ident(name)) {
            rc = case_fail(
                L, k, "parameter name '%s' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)", name);
            break;
        }
        if (!strcmp(name, "t") || case_reserved_name(name)) {
            rc = case_fail(L, k,
                           "parameter name '%s' is reserved (t, or a constant or function of "
                           "the expression language)",
                           name);
            break;
        }
        if (case_find_param(c, name) >= 0) {
            rc = case_fail(L, k, "duplicate parameter '%s'", name);
            break;
        }
        char ctx[160];
        double val = 0;
        if (ov_val[j]) {
            snprintf(ctx, sizeof ctx, "parameter '%s' (override '%s=%s')", name, name, ov_val[j]);
            rc = case_eval_text(L, v, ctx, ov_val[j], j, &val);
        } else {
            snprintf(ctx, sizeof ctx, "parameter '%s'", name);
            if (v->type != YAML_SCALAR_NODE)
                rc =
                    case_fail(L, v, "%s must be a number or expression, not %s", ctx, case_kind(v));
            else if (case_is_null(v))
                rc = case_fail(L, v, "%s has no value", ctx);
            else
                rc = case_eval_text(L, v, ctx, case_sval(v), j, &val);
        }
        if (rc) break;
        c->pname[j] = (char *)case_pool_str(c, name);
        if (!c->pname[j]) {
            rc = case_nomem(L, k);
            break;
        }
        c->pval[j] = val;
        c->nparam = j + 1;
    }
    free(ov_val);
    if (rc) return rc;
    for (int j = 0; j < c->nparam; j++) {
        int r = fmb_model_set_param(c->model, c->pname[j], c->pval[j]);
        if (r < 0)
            return case_fail(L, case_node_at(L, sec->data.mapping.pairs.start[j].key),
                             "parameter '%s': %s", c->pname[j], fmb_model_last_error(c->model));
    }
    return 0;
}

int case_load_solver(loader_t *L, const yaml_node_t *sec)
{
    static const char *const keys[] = {"integrator", "alpha",        "beta",
                                       "gamma",      "rho_inf",      "h",
                                       "t_end",      "output_every", "max_newton",
                                       "halving",    "rtol",         "atol",
                                       "phi_tol",    "ordering",     "reuse_jacobian",
                                       "step",       "rtol_step",    "atol_step",
                                       "h_min",      "h_max",        "linear_solver",
                                       "viz_every",  "viz_frames",   "start",
                                       "output_dt",  "compress",     NULL};
    fmb_sim_options_t *o = &L->c->opts;
    const char *ctx = "solver";
    int rc = sec ? case_check_keys(L, sec, ctx, keys) : 0;
    if (rc) return rc;
    const char *integ = NULL;
    if (sec && (rc = case_get_string(L, sec, "integrator", ctx, 0, &integ))) return rc;
    const yaml_node_t *integ_at = sec ? case_get(L, sec, "integrator") : NULL;
    if (L->set_integrator) integ = L->set_integrator, integ_at = sec;
    if (integ) {
        if (!strcmp(integ, "hht"))
            o->integrator = FMB_HHT;
        else if (!strcmp(integ, "newmark"))
            o->integrator = FMB_NEWMARK;
        else if (!strcmp(integ, "generalized_alpha"))
            o->integrator = FMB_GENERALIZED_ALPHA;
        else
            return case_fail(L, integ_at,
                             "%s: unknown integrator '%s' (allowed: hht, newmark, "
                             "generalized_alpha)",
                             L->set_integrator ? "override integrator" : "solver", integ);
    }
    /* each integrator's own parameters */
    static const char *const params[][3] = {
        {"alpha", NULL, NULL}, {"beta", "gamma", NULL}, {"rho_inf", NULL, NULL}};
    static const char *const owner[] = {"hht", "newmark", "generalized_alpha"};
    for (int g = 0; g < 3 && sec && !L->set_integrator; g++) {
        /* an integrator chosen by --set ignores the other integrators' parameters */
        if (g == (int)o->integrator) continue;
        for (int k = 0; params[g][k]; k++)
            if (case_get(L, sec, params[g][k]))
                return case_fail(L, case_get(L, sec, params[g][k]),
                                 "solver: '%s' applies to integrator %s only", params[g][k],
                                 owner[g]);
    }
    const char *ord = NULL;
    if (sec && (rc = case_get_string(L, sec, "ordering", ctx, 0, &ord))) return rc;
    const yaml_node_t *ord_at = sec ? case_get(L, sec, "ordering") : NULL;
    if (L->set_ordering) ord = L->set_ordering, ord_at = sec;
    if (!sec) { /* no solver section: only the --set choices */
        if (ord && strcmp(ord, "amd") && strcmp(ord, "metis") && strcmp(ord, "best"))
            return case_fail(
                L, NULL, "override ordering=%s: unknown ordering (allowed: amd, metis, best)", ord);
        o->ordering = !ord                    ? o->ordering
                      : !strcmp(ord, "amd")   ? FMB_ORDERING_AMD
                      : !strcmp(ord, "metis") ? FMB_ORDERING_METIS
                                              : FMB_ORDERING_BEST;
        if (L->set_step && strcmp(L->set_step, "adaptive") && strcmp(L->set_step, "fixed"))
            return case_fail(L, NULL, "override step=%s: unknown step (allowed: fixed, adaptive)",
                             L->set_step);
        if (L->set_step) o->adaptive = !strcmp(L->set_step, "adaptive");
        if (L->set_start && strcmp(L->set_start, "rigid") && strcmp(L->set_start, "static"))
            return case_fail(L, NULL, "override start=%s: unknown start (allowed: rigid, static)",
                             L->set_start);
        if (L->set_start)
            o->start = !strcmp(L->set_start, "static") ? FMB_START_STATIC : FMB_START_RIGID;
        return 0;
    }
    const char *lin = NULL;
    if ((rc = case_get_string(L, sec, "linear_solver", ctx, 0, &lin))) return rc;
    if (lin) {
        if (!strcmp(lin, "klu"))
            o->linear_solver = FMB_LINEAR_KLU;
        else if (!strcmp(lin, "umfpack"))
            o->linear_solver = FMB_LINEAR_UMFPACK;
        else
            return case_fail(L, case_get(L, sec, "linear_solver"),
                             "solver: unknown linear_solver '%s' (allowed: klu, umfpack)", lin);
    }
    if (ord) {
        if (!strcmp(ord, "amd"))
            o->ordering = FMB_ORDERING_AMD;
        else if (!strcmp(ord, "metis"))
            o->ordering = FMB_ORDERING_METIS;
        else if (!strcmp(ord, "best"))
            o->ordering = FMB_ORDERING_BEST;
        else
            return case_fail(L, ord_at, "%s: unknown ordering '%s' (allowed: amd, metis, best)",
                             L->set_ordering ? "override ordering" : "solver", ord);
    }
    struct {
        const char *key;
        double *dst;
        double lo;
        int lo_open;
        double hi;
    } reals[] = {
        {"alpha", &o->alpha, -1.0 / 3.0, 0, 0.0},
        {"beta", &o->beta, 0.0, 1, 1.0},
        {"gamma", &o->gamma, 0.5, 0, 1.0},
        {"h", &o->h, 0.0, 1, INFINITY},
        {"t_end", &o->t_end, 0.0, 1, INFINITY},
        {"rtol", &o->rtol, 0.0, 1, INFINITY},
        {"atol", &o->atol, 0.0, 1, INFINITY},
        {"phi_tol", &o->phi_tol, 0.0, 1, INFINITY},
        {"rho_inf", &o->rho_inf, 0.0, 0, 1.0},
        {"rtol_step", &o->rtol_step, 0.0, 1, INFINITY},
        {"atol_step", &o->atol_step, 0.0, 1, INFINITY},
        {"h_min", &o->h_min, 0.0, 1, INFINITY},
        {"h_max", &o->h_max, 0.0, 1, INFINITY},
        {"output_dt", &o->output_dt, 0.0, 1, INFINITY},
    };
    for (size_t k = 0; k < sizeof reals / sizeof reals[0]; k++) {
        double v;
        int given;
        if ((rc = case_get_num(L, sec, reals[k].key, ctx, &v, &given))) return rc;
        if (!given) continue;
        if ((reals[k].lo_open ? v <= reals[k].lo : v < reals[k].lo) || v > reals[k].hi) {
            char range[80];
            if (isinf(reals[k].hi))
                snprintf(range, sizeof range, "> %g", reals[k].lo);
            else
                snprintf(range, sizeof range, "in %s%g, %g]", reals[k].lo_open ? "(" : "[",
                         reals[k].lo, reals[k].hi);
            return case_fail(L, case_get(L, sec, reals[k].key), "solver: '%s' must be %s, got %g",
                             reals[k].key, range, v);
        }
        *reals[k].dst = v;
    }
    if ((rc = case_get_int(L, sec, "output_every", ctx, 1, &o->output_every)) ||
        (rc = case_get_int(L, sec, "max_newton", ctx, 1, &o->max_newton)) ||
        (rc = case_get_int(L, sec, "halving", ctx, 0, &o->halving)) ||
        (rc = case_get_int(L, sec, "reuse_jacobian", ctx, 0, &o->reuse_jacobian)) ||
        (rc = case_get_int(L, sec, "viz_every", ctx, 0, &o->viz_every)) ||
        (rc = case_get_int(L, sec, "viz_frames", ctx, 0, &o->viz_frames)))
        return rc;
    int compress = -1;
    if ((rc = case_get_int(L, sec, "compress", ctx, -1, &compress))) return rc;
    if (compress > 1)
        return case_fail(L, case_get(L, sec, "compress"),
                         "solver: 'compress' is 0, 1 or -1 (automatic)");
    o->compress = compress;
    if (o->output_dt > 0 && sec && case_get(L, sec, "output_every"))
        return case_fail(L, case_get(L, sec, "output_dt"),
                         "solver: give either 'output_dt' (a record interval in time) or "
                         "'output_every' (every k-th step), not both");
    if (o->viz_frames == 1)
        return case_fail(L, case_get(L, sec, "viz_frames"),
                         "solver: 'viz_frames' is 0 (no visualization output) or >= 2");
    if (o->reuse_jacobian > 1)
        return case_fail(L, case_get(L, sec, "reuse_jacobian"),
                         "solver: 'reuse_jacobian' is 0 or 1");
    /* step control: adaptive when asked, or when a step tolerance is given without
     * 'step: fixed' (the tolerances then only drive the end-of-run warning) */
    const char *step = NULL;
    if ((rc = case_get_string(L, sec, "step", ctx, 0, &step))) return rc;
    if (L->set_step) step = L->set_step;
    if (step) {
        if (!strcmp(step, "adaptive"))
            o->adaptive = 1;
        else if (!strcmp(step, "fixed"))
            o->adaptive = 0;
        else
            return case_fail(L, L->set_step ? sec : case_get(L, sec, "step"),
                             "%s: unknown step '%s' (allowed: fixed, adaptive)",
                             L->set_step ? "override step" : "solver", step);
    } else if (case_get(L, sec, "rtol_step") || case_get(L, sec, "atol_step"))
        o->adaptive = 1;
    /* start: rigid | static, or an expression of the parameters giving 0 or 1 */
    const char *start = NULL;
    if ((rc = case_get_string(L, sec, "start", ctx, 0, &start))) return rc;
    if (L->set_start) {
        if (strcmp(L->set_start, "rigid") && strcmp(L->set_start, "static"))
            return case_fail(L, sec, "override start=%s: unknown start (allowed: rigid, static)",
                             L->set_start);
        start = L->set_start;
    }
    if (start && !strcmp(start, "rigid"))
        o->start = FMB_START_RIGID;
    else if (start && !strcmp(start, "static"))
        o->start = FMB_START_STATIC;
    else if (start) {
        double sv = 0.0;
        if ((rc = case_get_num(L, sec, "start", ctx, &sv, NULL))) {
            const size_t n = L->err ? strlen(L->err) : 0;
            if (L->err && n + 1 < L->errlen)
                snprintf(L->err + n, L->errlen - n,
                         "; start must be rigid, static or an expression giving 0 (rigid) or "
                         "1 (static)");
            return rc;
        }
        if (sv != 0.0 && sv != 1.0)
            return case_fail(L, case_get(L, sec, "start"),
                             "solver: start '%s' = %g; an expression must give 0 (rigid) or 1 "
                             "(static)",
                             start, sv);
        o->start = sv == 1.0 ? FMB_START_STATIC : FMB_START_RIGID;
    }
    if (o->h_min > 0 && o->h_max > 0 && o->h_min > o->h_max)
        return case_fail(L, case_get(L, sec, "h_min"),
                         "solver: 'h_min' (%g) is larger than 'h_max' (%g)", o->h_min, o->h_max);
    return 0;
}

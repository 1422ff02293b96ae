/* The variants section of a case file: named sets of parameter values, chosen like a
 * parameter (`--set model=rigid`, `flexmb sweep --vary model=rigid,linear`):
 *
 *   variants:
 *     model:                                  # a variant group
 *       rigid:     {rigid_rocker: 1}          # a variant: parameter: value, ...
 *       nonlinear: {rigid_rocker: 0, nonlinear: 1}
 *
 * An override GROUP=NAME stands for the variant's overrides, in its order and at its
 * place among the others (a later --set of one of its parameters wins). */
#include "io/case_loader.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Is name (len n) a key of the mapping map (NULL: none)? Its value, else NULL. */
static yaml_node_t *map_find(loader_t *L, const yaml_node_t *map, const char *name, size_t n)
{
    if (!map || map->type != YAML_MAPPING_NODE) return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        const char *k = case_sval(case_node_at(L, p->key));
        if (k && strlen(k) == n && !strncmp(k, name, n)) return case_node_at(L, p->value);
    }
    return NULL;
}

/* Keys of map, comma-separated, into buf. */
static void map_keys(loader_t *L, const yaml_node_t *map, char *buf, size_t len)
{
    buf[0] = '\0';
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++)
        case_list_add(buf, len, case_sval(case_node_at(L, p->key)));
}

/* Settings a variant may hold besides the parameters: the --set solver choices. */
static int is_choice(const char *name)
{
    static const char *const choices[] = {"integrator", "ordering", "step", "start", NULL};
    for (int i = 0; choices[i]; i++)
        if (!strcmp(name, choices[i])) return 1;
    return 0;
}

/* Check the section's shape: group -> variant -> {parameter: scalar}, every name an
 * identifier, every parameter one of the case's (or a solver choice), no group named as
 * a parameter. */
static int check_section(loader_t *L, const yaml_node_t *sec, const yaml_node_t *params)
{
    if (sec->type != YAML_MAPPING_NODE)
        return case_fail(L, sec,
                         "'variants' must be a mapping of group: {variant: {parameter: value}}, "
                         "not %s",
                         case_kind(sec));
    int rc = case_check_keys(L, sec, "variants", NULL);
    for (yaml_node_pair_t *g = sec->data.mapping.pairs.start;
         !rc && g < sec->data.mapping.pairs.top; g++) {
        yaml_node_t *gk = case_node_at(L, g->key), *gv = case_node_at(L, g->value);
        const char *gname = case_sval(gk);
        if (!case_is_ident(gname))
            return case_fail(L, gk, "variant group '%s' is not an identifier", gname);
        if (map_find(L, params, gname, strlen(gname)) || is_choice(gname))
            return case_fail(L, gk,
                             "variant group '%s' has the name of a parameter: --set %s=... "
                             "would be ambiguous",
                             gname, gname);
        if (gv->type != YAML_MAPPING_NODE ||
            gv->data.mapping.pairs.top == gv->data.mapping.pairs.start)
            return case_fail(L, gv,
                             "variant group '%s' must be a mapping of variant: {parameter: "
                             "value}, not %s",
                             gname, case_is_null(gv) ? "empty" : case_kind(gv));
        if ((rc = case_check_keys(L, gv, gname, NULL))) return rc;
        for (yaml_node_pair_t *v = gv->data.mapping.pairs.start; v < gv->data.mapping.pairs.top;
             v++) {
            yaml_node_t *vk = case_node_at(L, v->key), *vv = case_node_at(L, v->value);
            const char *vname = case_sval(vk);
            if (!vname || !*vname || strpbrk(vname, ",= \t"))
                return case_fail(L, vk,
                                 "variant name '%s' of group '%s' is empty or holds ',', '=' "
                                 "or a blank",
                                 vname ? vname : "", gname);
            if (vv->type != YAML_MAPPING_NODE)
                return case_fail(L, vv,
                                 "variant '%s' of group '%s' must be a mapping of parameter: "
                                 "value, not %s",
                                 vname, gname, case_kind(vv));
            if ((rc = case_check_keys(L, vv, vname, NULL))) return rc;
            for (yaml_node_pair_t *p = vv->data.mapping.pairs.start; p < vv->data.mapping.pairs.top;
                 p++) {
                yaml_node_t *pk = case_node_at(L, p->key), *pv = case_node_at(L, p->value);
                const char *pname = case_sval(pk);
                if (!map_find(L, params, pname, strlen(pname)) && !is_choice(pname)) {
                    char buf[300];
                    if (params && params->type == YAML_MAPPING_NODE)
                        map_keys(L, params, buf, sizeof buf);
                    else
                        snprintf(buf, sizeof buf, "none");
                    return case_fail(L, pk,
                                     "variant '%s' of group '%s': unknown parameter '%s' "
                                     "(parameters: %s)",
                                     vname, gname, pname, buf);
                }
                if (pv->type != YAML_SCALAR_NODE || case_is_null(pv))
                    return case_fail(L, pv,
                                     "variant '%s' of group '%s': parameter '%s' must be a "
                                     "number or expression, not %s",
                                     vname, gname, pname,
                                     case_is_null(pv) ? "empty" : case_kind(pv));
            }
        }
    }
    return rc;
}

int case_expand_variants(loader_t *L, const yaml_node_t *sec, const yaml_node_t *params,
                         const char *const *ov, int nov, const char ***out, int *nout)
{
    *out = NULL;
    *nout = 0;
    if (!sec) return 0;
    int rc = check_section(L, sec, params);
    if (rc) return rc;
    /* the groups and their variants, for fmb_case_variants */
    fmb_case_t *c = L->c;
    const int ng = (int)(sec->data.mapping.pairs.top - sec->data.mapping.pairs.start);
    c->vgroup = calloc((size_t)ng, sizeof *c->vgroup);
    c->vlist = calloc((size_t)ng, sizeof *c->vlist);
    if (!c->vgroup || !c->vlist) return case_nomem(L, sec);
    for (int g = 0; g < ng; g++) {
        yaml_node_pair_t *p = &sec->data.mapping.pairs.start[g];
        const yaml_node_t *gv = case_node_at(L, p->value);
        size_t len = 1;
        for (yaml_node_pair_t *v = gv->data.mapping.pairs.start; v < gv->data.mapping.pairs.top;
             v++)
            len += strlen(case_sval(case_node_at(L, v->key))) + 1;
        char *list = malloc(len);
        if (!list) return case_nomem(L, sec);
        list[0] = '\0';
        for (yaml_node_pair_t *v = gv->data.mapping.pairs.start; v < gv->data.mapping.pairs.top;
             v++) {
            if (list[0]) strcat(list, ",");
            strcat(list, case_sval(case_node_at(L, v->key)));
        }
        c->vgroup[g] = (char *)case_pool_str(c, case_sval(case_node_at(L, p->key)));
        c->vlist[g] = (char *)case_pool_str(c, list);
        free(list);
        if (!c->vgroup[g] || !c->vlist[g]) return case_nomem(L, sec);
        c->nvgroup = g + 1;
    }
    /* room: every override may expand to its variant's parameters */
    size_t cap = (size_t)nov + 1;
    for (yaml_node_pair_t *g = sec->data.mapping.pairs.start; g < sec->data.mapping.pairs.top;
         g++) {
        const yaml_node_t *gv = case_node_at(L, g->value);
        for (yaml_node_pair_t *v = gv->data.mapping.pairs.start; v < gv->data.mapping.pairs.top;
             v++) {
            const yaml_node_t *vv = case_node_at(L, v->value);
            cap +=
                (size_t)nov * (size_t)(vv->data.mapping.pairs.top - vv->data.mapping.pairs.start);
        }
    }
    const char **res = calloc(cap, sizeof *res);
    if (!res) return case_nomem(L, sec);
    int n = 0;
    for (int k = 0; k < nov && !rc; k++) {
        const char *eq = ov[k] ? strchr(ov[k], '=') : NULL;
        const char *b = ov[k], *e = eq;
        while (eq && b < e && isspace((unsigned char)*b)) /* " model = rigid " */
            b++;
        while (eq && e > b && isspace((unsigned char)e[-1]))
            e--;
        yaml_node_t *group = eq ? map_find(L, sec, b, (size_t)(e - b)) : NULL;
        if (!group) {
            res[n++] = ov[k]; /* a parameter (checked by the parameters section) */
            continue;
        }
        const char *name = eq + 1, *end = name + strlen(name);
        while (isspace((unsigned char)*name))
            name++;
        while (end > name && isspace((unsigned char)end[-1]))
            end--;
        yaml_node_t *var = map_find(L, group, name, (size_t)(end - name));
        if (!var) {
            char buf[300];
            map_keys(L, group, buf, sizeof buf);
            rc = case_fail(L, group,
                           "override '%s': '%.*s' is not a variant of '%.*s' (variants: %s)", ov[k],
                           (int)(end - name), name, (int)(e - b), b, buf);
            break;
        }
        for (yaml_node_pair_t *p = var->data.mapping.pairs.start;
             p < var->data.mapping.pairs.top && !rc; p++) {
            const char *pn = case_sval(case_node_at(L, p->key)),
                       *pv = case_sval(case_node_at(L, p->value));
            size_t len = strlen(pn) + strlen(pv) + 2;
            char *s = malloc(len);
            if (!s) {
                rc = case_nomem(L, var);
                break;
            }
            snprintf(s, len, "%s=%s", pn, pv);
            res[n] = case_pool_str(L->c, s);
            free(s);
            if (!res[n]) rc = case_nomem(L, var);
            n++;
        }
    }
    if (rc) {
        free(res);
        return rc;
    }
    *out = res;
    *nout = n;
    return 0;
}

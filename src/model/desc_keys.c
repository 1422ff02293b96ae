/*
 * Class keys of a library description by name: fmb_joint_desc_set / _choose and
 * fmb_force_desc_set / _choose (flexmb.h) find the key in the class table of the
 * description's type (model/params.h) and store the value where the case loader would,
 * so that a program sets a class's parameters by the names of docs/case-format.md and
 * never by the layout of the description's parameter storage.
 */
#include <string.h>

#include "model/model.h"

static const fmb_param_t *find_key(const fmb_param_t *t, const char *key)
{
    for (const fmb_param_t *p = t; key && p && p->kind != FMB_PARAM_END; p++)
        if (!strcmp(p->key, key)) return p;
    return NULL;
}

static int set_numbers(const fmb_param_t *t, void *desc, const char *key, const double *values,
                       int n)
{
    const fmb_param_t *p = find_key(t, key);
    if (!p) return FMB_ERR_NOTFOUND;
    const int want = p->kind == FMB_PARAM_NUMBER ? 1 : p->kind == FMB_PARAM_VECTOR ? p->n : -1;
    if (want < 0 || n != want || !values) return FMB_ERR_ARG;
    memcpy((char *)desc + p->offset, values, (size_t)n * sizeof *values);
    return 0;
}

static int set_choice(const fmb_param_t *t, void *desc, const char *key, const char *choice)
{
    const fmb_param_t *p = find_key(t, key);
    if (!p) return FMB_ERR_NOTFOUND;
    if (p->kind != FMB_PARAM_ENUM || !choice) return FMB_ERR_ARG;
    for (int c = 0; p->choices[c]; c++)
        if (!strcmp(p->choices[c], choice)) {
            const int v = p->values ? p->values[c] : c;
            void *at = (char *)desc + p->offset;
            if (p->flags & FMB_PARAM_NAME) {
                const char *name = p->choices[c];
                memcpy(at, &name, sizeof name);
            } else if (p->flags & FMB_PARAM_IN_DOUBLE) {
                const double x = v;
                memcpy(at, &x, sizeof x);
            } else {
                memcpy(at, &v, sizeof v);
            }
            return 0;
        }
    return FMB_ERR_ARG;
}

static const fmb_param_t *joint_table(const fmb_joint_desc_t *d)
{
    const fmb_joint_class_t *k = d ? fmb_joint_class_named(d->type) : NULL;
    return k ? k->params : NULL;
}

static const fmb_param_t *force_table(const fmb_force_desc_t *d)
{
    const fmb_force_class_t *k = d ? fmb_force_class_named(d->type) : NULL;
    return k ? k->params : NULL;
}

int fmb_joint_desc_set(fmb_joint_desc_t *d, const char *key, const double *values, int n)
{
    return set_numbers(joint_table(d), d, key, values, n);
}

int fmb_joint_desc_choose(fmb_joint_desc_t *d, const char *key, const char *choice)
{
    return set_choice(joint_table(d), d, key, choice);
}

int fmb_force_desc_set(fmb_force_desc_t *d, const char *key, const double *values, int n)
{
    return set_numbers(force_table(d), d, key, values, n);
}

int fmb_force_desc_choose(fmb_force_desc_t *d, const char *key, const char *choice)
{
    return set_choice(force_table(d), d, key, choice);
}

/* Helpers of the parameter descriptors (model/params.h): lookups and failures of prepare(). */
#include "model/params.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int fmb_param_find(const fmb_param_t *params, const char *key)
{
    for (int k = 0; params && params[k].kind != FMB_PARAM_END; k++)
        if (!strcmp(params[k].key, key)) return k;
    return -1;
}

int fmb_item_given(const fmb_item_env_t *env, const char *key)
{
    const int k = fmb_param_find(env->params, key);
    return k >= 0 && k < 64 && (env->given >> k & 1u);
}

int fmb_item_fail(fmb_item_env_t *env, const char *key, int index, const char *fmt, ...)
{
    env->fail_key = key;
    env->fail_index = index;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(env->msg, sizeof env->msg, fmt, ap);
    va_end(ap);
    return FMB_ERR_MODEL;
}

void fmb_item_point0(const fmb_item_env_t *env, int b, const double u[2], double r[2])
{
    const double *p = env->pose[b], cs = cos(p[2]), sn = sin(p[2]);
    r[0] = p[0] + cs * u[0] - sn * u[1];
    r[1] = p[1] + sn * u[0] + cs * u[1];
}

/* Joint registry: one line per joint type. The solver only sees the class table. */
#include "joints/joints.h"

static const fmb_joint_class_t *const registry[FMB_JOINT_TYPE_COUNT] = {
    [FMB_JOINT_REVOLUTE] = &fmb_revolute_class,
    [FMB_JOINT_PRISMATIC] = &fmb_prismatic_class,
    [FMB_JOINT_WELD] = &fmb_weld_class,
    [FMB_JOINT_DRIVER_ANGLE] = &fmb_driver_angle_class,
    [FMB_JOINT_DRIVER_X] = &fmb_driver_x_class,
    [FMB_JOINT_DRIVER_Y] = &fmb_driver_y_class,
    [FMB_JOINT_SLIDER_BEAM] = &fmb_slider_beam_class,
};

/* Extra classes registered at run time (tests; fmb_joint_class_register in joints.h). */
#define FMB_JOINT_EXTRA_MAX 8
static const fmb_joint_class_t *extra[FMB_JOINT_EXTRA_MAX];
static int nextra;

const fmb_joint_class_t *fmb_joint_class_for(fmb_joint_type type)
{
    const int t = (int)type;
    if (t >= 0 && t < FMB_JOINT_TYPE_COUNT) return registry[t];
    if (t >= FMB_JOINT_TYPE_COUNT && t < FMB_JOINT_TYPE_COUNT + nextra)
        return extra[t - FMB_JOINT_TYPE_COUNT];
    return NULL;
}

const fmb_joint_class_t *fmb_joint_class_at(int k, fmb_joint_type *type)
{
    if (k < 0 || k >= FMB_JOINT_TYPE_COUNT + nextra) return NULL;
    if (type) *type = (fmb_joint_type)k;
    return fmb_joint_class_for((fmb_joint_type)k);
}

int fmb_joint_class_register(const fmb_joint_class_t *k)
{
    if (!k || nextra >= FMB_JOINT_EXTRA_MAX) return FMB_ERR_ARG;
    for (int i = 0; i < FMB_JOINT_TYPE_COUNT + nextra; i++)
        if (fmb_joint_class_for((fmb_joint_type)i) == k) return i;
    extra[nextra++] = k;
    return FMB_JOINT_TYPE_COUNT + nextra - 1;
}

int fmb_joint_check_distinct(const fmb_model_t *m, const fmb_joint_t *j, char *msg, size_t len)
{
    (void)m;
    if (j->body[0] == j->body[1]) {
        snprintf(msg, len, "joint '%s' connects a body to itself", j->name);
        return FMB_ERR_MODEL;
    }
    return 0;
}

int fmb_joint_check_rigid(const fmb_model_t *m, const fmb_joint_t *j, char *msg, size_t len)
{
    int rc = fmb_joint_check_distinct(m, j, msg, len);
    if (rc) return rc;
    for (int b = 0; b < 2; b++)
        if (m->bodies[j->body[b]].klass && m->bodies[j->body[b]].klass->shape) {
            snprintf(msg, len,
                     "joint '%s' (%s) needs rigid bodies but '%s' is a beam; use a "
                     "slider_beam joint to slide along a beam",
                     j->name, j->klass->name, m->bodies[j->body[b]].name);
            return FMB_ERR_MODEL;
        }
    return 0;
}

int fmb_joint_prepare_angle(fmb_item_env_t *env, fmb_joint_desc_t *d)
{
    if (!fmb_item_given(env, "angle")) d->angle = env->pose[0][2] - env->pose[1][2];
    return 0;
}

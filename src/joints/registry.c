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

const fmb_joint_class_t *fmb_joint_class_for(fmb_joint_type type)
{
    if ((int)type < 0 || type >= FMB_JOINT_TYPE_COUNT) return NULL;
    return registry[type];
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

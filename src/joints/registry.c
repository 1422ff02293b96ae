/* Joint registry: one line per joint type. The solver only sees the class table. */
#include "joints/joints.h"

static const fmb_joint_class_t *const registry[FMB_JOINT_TYPE_COUNT] = {
    [FMB_JOINT_REVOLUTE] = &fmb_revolute_class,
    [FMB_JOINT_PRISMATIC] = &fmb_prismatic_class,
    [FMB_JOINT_WELD] = &fmb_weld_class,
    [FMB_JOINT_DRIVER_ANGLE] = &fmb_driver_angle_class,
    [FMB_JOINT_DRIVER_X] = &fmb_driver_x_class,
    [FMB_JOINT_DRIVER_Y] = &fmb_driver_y_class,
};

const fmb_joint_class_t *fmb_joint_class_for(fmb_joint_type type)
{
    if ((int)type < 0 || type >= FMB_JOINT_TYPE_COUNT) return NULL;
    return registry[type];
}

int fmb_joint_check_distinct(const fmb_joint_t *j, char *msg, size_t len)
{
    if (j->body[0] == j->body[1]) {
        snprintf(msg, len, "joint '%s' connects a body to itself", j->name);
        return FMB_ERR_MODEL;
    }
    return 0;
}

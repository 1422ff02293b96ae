/* Private declarations of the joint classes (one file each) and the registry. */
#ifndef FMB_JOINTS_JOINTS_H
#define FMB_JOINTS_JOINTS_H
#include <stdio.h>
#include <string.h>

#include "model/model.h"

/* ---- case keys shared by joint classes (model/params.h) */
/* angle: locked relative angle theta_0 - theta_1; default from the initial poses
 * (fmb_joint_prepare_angle). */
#define FMB_JOINT_ANGLE_PARAM                                                                      \
    {                                                                                              \
        .key = "angle", .kind = FMB_PARAM_NUMBER, .flags = FMB_PARAM_DERIVED,                      \
        .offset = offsetof(fmb_joint_desc_t, angle), .unit = "rad",                                \
        .doc = "locked relative angle theta_1 - theta_2 (default: initial poses)"                  \
    }
/* friction: a slider block with a friction model (contact/friction_*.c) */
#define FMB_JOINT_FRICTION_PARAM                                                                   \
    {                                                                                              \
        .key = "friction", .kind = FMB_PARAM_FRICTION,                                             \
        .offset = offsetof(fmb_joint_desc_t, friction),                                            \
        .doc = "slider block and friction model (docs/case-format.md, 'friction')"                 \
    }
/* prepare(): the angle from the initial poses unless given. */
int fmb_joint_prepare_angle(fmb_item_env_t *env, fmb_joint_desc_t *d);

/* Test hook: register an extra joint class under its name (not thread-safe; call before
 * loading cases). Returns 0 (also when this class is registered already), or FMB_ERR_ARG
 * when another class has its name or the table of extras (8) is full. Built-in classes
 * are one line in joints/registry.c instead (docs/extending.md). */
int fmb_joint_class_register(const fmb_joint_class_t *k);

#endif

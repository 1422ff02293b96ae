/* Private declarations of the friction-model classes (model/params.h) and helpers they share. */
#ifndef FMB_CONTACT_FRICTION_MODELS_H
#define FMB_CONTACT_FRICTION_MODELS_H
#include <stdio.h>

#include "model/params.h"


/* Shared rules of a slider block (a > 0, b >= 0, 0 <= mu <= mu0): model level and case
 * level (blames mu0 or mu). */
int fmb_friction_check_block(const fmb_friction_desc_t *f, char *msg, size_t len);
int fmb_friction_prepare_block(fmb_item_env_t *env, fmb_friction_desc_t *f);

/* Table entries shared by the block models (slider geometry, coefficients). */
#define FMB_FRICTION_BLOCK_PARAMS                                                                  \
    {.key = "a",                                                                                   \
     .kind = FMB_PARAM_NUMBER,                                                                     \
     .flags = FMB_PARAM_REQUIRED | FMB_PARAM_MIN_OPEN,                                             \
     .offset = offsetof(fmb_friction_desc_t, a),                                                   \
     .unit = "m",                                                                                  \
     .doc = "slider half-length along the guide"},                                                 \
        {.key = "b",                                                                               \
         .kind = FMB_PARAM_NUMBER,                                                                 \
         .flags = FMB_PARAM_MIN,                                                                   \
         .offset = offsetof(fmb_friction_desc_t, b),                                               \
         .unit = "m",                                                                              \
         .doc = "slider half-width"},                                                              \
        {.key = "mu",                                                                              \
         .kind = FMB_PARAM_NUMBER,                                                                 \
         .flags = FMB_PARAM_MIN,                                                                   \
         .offset = offsetof(fmb_friction_desc_t, mu),                                              \
         .dflt = {0.56},                                                                           \
         .unit = "-",                                                                              \
         .doc = "kinetic friction coefficient"},                                                   \
    {                                                                                              \
        .key = "mu0", .kind = FMB_PARAM_NUMBER, .flags = FMB_PARAM_MIN,                            \
        .offset = offsetof(fmb_friction_desc_t, mu0), .dflt = {0.75}, .unit = "-",                 \
        .doc = "static friction coefficient (>= mu)"                                               \
    }

/* The stick velocity, with the model's default (flexmb.h FMB_V_STICK_*). */
#define FMB_FRICTION_VSTICK_PARAM(d)                                                               \
    {                                                                                              \
        .key = "v_stick", .kind = FMB_PARAM_NUMBER, .flags = FMB_PARAM_MIN_OPEN,                   \
        .offset = offsetof(fmb_friction_desc_t, v_stick), .dflt = {d}, .unit = "m/s",              \
        .doc = "|v| below which the slider counts as sticking (static coefficient next step, "     \
               "start, output flag)"                                                               \
    }

#endif

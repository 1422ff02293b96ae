/* Class parameter tables applied to library descriptions (params_check.c). */
#ifndef FMB_MODEL_PARAMS_CHECK_H
#define FMB_MODEL_PARAMS_CHECK_H

#include "model/params.h"

/* Check the description desc (fmb_joint_desc_t, fmb_force_desc_t or fmb_friction_desc_t
 * as the table's offsets say) against table t: 0, or FMB_ERR_MODEL with a message
 * "<pre>'key' must be >= 0, got -1 (doc, unit)" in msg. A field left 0 (zero vector, enum
 * value 0) stands for the default of a key that is not required. */
int fmb_params_check(const fmb_param_t *t, const void *desc, const char *pre, char *msg,
                     size_t len);

#endif

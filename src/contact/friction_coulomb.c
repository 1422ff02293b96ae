/* Coulomb friction with static friction in a sliding joint (seed 000's corner model with
 * stick through complementarity; docs/theory.md section 9): the case keys of the model. */
#include "contact/friction_models.h"

static const fmb_param_t coulomb_params[] = {FMB_FRICTION_BLOCK_PARAMS, {0}};

const fmb_friction_class_t fmb_friction_coulomb_class = {
    .name = "coulomb",
    .model = FMB_FRICTION_COULOMB,
    .params = coulomb_params,
    .prepare = fmb_friction_prepare_block,
    .check = fmb_friction_check_block,
};

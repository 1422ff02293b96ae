/* Force registry: one line per force type. */
#include "forces/forces.h"

static const fmb_force_class_t *const registry[FMB_FORCE_TYPE_COUNT] = {
    [FMB_FORCE_POINT] = &fmb_point_force_class,
    [FMB_FORCE_TORQUE] = &fmb_torque_class,
    [FMB_FORCE_SPRING] = &fmb_spring_class,
    [FMB_FORCE_TORSION] = &fmb_torsion_class,
    [FMB_FORCE_CLEARANCE] = &fmb_clearance_class,
};

const fmb_force_class_t *fmb_force_class_for(fmb_force_type type)
{
    if ((int)type < 0 || type >= FMB_FORCE_TYPE_COUNT) return NULL;
    return registry[type];
}

/* Force registry: one line per force type. */
#include "forces/forces.h"

static const fmb_force_class_t *const registry[FMB_FORCE_TYPE_COUNT] = {
    [FMB_FORCE_POINT] = &fmb_point_force_class,
    [FMB_FORCE_TORQUE] = &fmb_torque_class,
    [FMB_FORCE_SPRING] = &fmb_spring_class,
    [FMB_FORCE_TORSION] = &fmb_torsion_class,
    [FMB_FORCE_CLEARANCE] = &fmb_clearance_class,
    [FMB_FORCE_GAP] = &fmb_gap_class,
    [FMB_FORCE_FRICTION] = &fmb_friction_class,
    [FMB_FORCE_RATCHET] = &fmb_ratchet_class,
    [FMB_FORCE_SCREW] = &fmb_screw_class,
};

const fmb_force_class_t *fmb_force_class_for(fmb_force_type type)
{
    if ((int)type < 0 || type >= FMB_FORCE_TYPE_COUNT) return NULL;
    return registry[type];
}

const fmb_force_class_t *fmb_force_class_at(int k, fmb_force_type *type)
{
    if (k < 0 || k >= FMB_FORCE_TYPE_COUNT) return NULL;
    if (type) *type = (fmb_force_type)k;
    return registry[k];
}

int fmb_model_force_is_switching(const fmb_model_t *m, int force)
{
    if (!m || force < 0 || force >= m->nforces) return 0;
    return m->forces[force].klass->mode != NULL;
}

const char *fmb_model_force_mode_name(const fmb_model_t *m, int force, int mode)
{
    if (!fmb_model_force_is_switching(m, force)) return NULL;
    const fmb_force_class_t *k = m->forces[force].klass;
    return mode >= 0 && mode < k->nmodes ? k->mode_names[mode] : NULL;
}

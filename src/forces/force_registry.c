/* Force registry: one line per force type. The solver only sees the class table; a
 * description names its class by fmb_force_class_t.name. */
#include "forces/forces.h"

/* X(n): the class fmb_n_class (its name, the description's type, in the class table). */
#define FMB_FORCE_CLASSES(X)                                                                       \
    X(point_force)                                                                                 \
    X(torque)                                                                                      \
    X(spring)                                                                                      \
    X(torsion)                                                                                     \
    X(clearance)                                                                                   \
    X(gap)                                                                                         \
    X(friction)                                                                                    \
    X(ratchet)                                                                                     \
    X(screw)

#define FMB_FORCE_DECLARE_(n) extern const fmb_force_class_t fmb_##n##_class;
FMB_FORCE_CLASSES(FMB_FORCE_DECLARE_)
#undef FMB_FORCE_DECLARE_
#define FMB_FORCE_ENTRY_(n) &fmb_##n##_class,
static const fmb_force_class_t *const registry[] = {FMB_FORCE_CLASSES(FMB_FORCE_ENTRY_)};
#undef FMB_FORCE_ENTRY_
enum { NBUILTIN = (int)(sizeof registry / sizeof registry[0]) };

const fmb_force_class_t *fmb_force_class_at(int k)
{
    return k >= 0 && k < NBUILTIN ? registry[k] : NULL;
}

const fmb_force_class_t *fmb_force_class_named(const char *name)
{
    if (!name) return NULL;
    for (int i = 0; i < NBUILTIN; i++)
        if (!strcmp(registry[i]->name, name)) return registry[i];
    return NULL;
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

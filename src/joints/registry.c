/* Joint registry: one line per joint type. The solver only sees the class table; a
 * description names its class by fmb_joint_class_t.name. */
#include "joints/joints.h"

/* X(n): the class fmb_n_class, defined in joints/n.c or the file that holds it. */
#define FMB_JOINT_CLASSES(X)                                                                       \
    X(revolute)                                                                                    \
    X(prismatic)                                                                                   \
    X(weld)                                                                                        \
    X(driver_angle)                                                                                \
    X(driver_x)                                                                                    \
    X(driver_y)                                                                                    \
    X(slider_beam)                                                                                 \
    X(gear)

#define FMB_JOINT_DECLARE_(n) extern const fmb_joint_class_t fmb_##n##_class;
FMB_JOINT_CLASSES(FMB_JOINT_DECLARE_)
#undef FMB_JOINT_DECLARE_
#define FMB_JOINT_ENTRY_(n) &fmb_##n##_class,
static const fmb_joint_class_t *const registry[] = {FMB_JOINT_CLASSES(FMB_JOINT_ENTRY_)};
#undef FMB_JOINT_ENTRY_
enum { NBUILTIN = (int)(sizeof registry / sizeof registry[0]) };

/* Extra classes registered at run time (tests; fmb_joint_class_register in joints.h). */
#define FMB_JOINT_EXTRA_MAX 8
static const fmb_joint_class_t *extra[FMB_JOINT_EXTRA_MAX];
static int nextra;

const fmb_joint_class_t *fmb_joint_class_at(int k)
{
    if (k >= 0 && k < NBUILTIN) return registry[k];
    if (k >= NBUILTIN && k < NBUILTIN + nextra) return extra[k - NBUILTIN];
    return NULL;
}

const fmb_joint_class_t *fmb_joint_class_named(const char *name)
{
    const fmb_joint_class_t *k;
    if (!name) return NULL;
    for (int i = 0; (k = fmb_joint_class_at(i)); i++)
        if (!strcmp(k->name, name)) return k;
    return NULL;
}

int fmb_joint_class_register(const fmb_joint_class_t *k)
{
    if (!k || !k->name) return FMB_ERR_ARG;
    const fmb_joint_class_t *same = fmb_joint_class_named(k->name);
    if (same) return same == k ? 0 : FMB_ERR_ARG;
    if (nextra >= FMB_JOINT_EXTRA_MAX) return FMB_ERR_ARG;
    extra[nextra++] = k;
    return 0;
}
int fmb_joint_prepare_angle(fmb_item_env_t *env, fmb_joint_desc_t *d)
{
    if (!fmb_item_given(env, "angle")) d->angle = env->pose[0][2] - env->pose[1][2];
    return 0;
}

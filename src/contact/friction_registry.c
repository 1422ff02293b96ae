/* Friction-model registry (the 'friction' section of a sliding joint; model/params.h):
 * one line per model. "none" switches friction off: its section accepts the other models'
 * keys and ignores them (docs/case-format.md). */
#include "contact/friction_models.h"

#include <math.h>

static const fmb_friction_class_t none_class = {.name = "none"};

/* X(n): the class fmb_friction_n_class (contact/friction_n.c), in the order of the case-file
 * list; "none" last */
#define FMB_FRICTION_CLASSES(X)                                                                    \
    X(lugre)                                                                                       \
    X(coulomb)

#define FMB_FRICTION_DECLARE_(n) extern const fmb_friction_class_t fmb_friction_##n##_class;
FMB_FRICTION_CLASSES(FMB_FRICTION_DECLARE_)
#undef FMB_FRICTION_DECLARE_
#define FMB_FRICTION_ENTRY_(n) &fmb_friction_##n##_class,
static const fmb_friction_class_t *const registry[] = {
    FMB_FRICTION_CLASSES(FMB_FRICTION_ENTRY_) /* then */ &none_class};
#undef FMB_FRICTION_ENTRY_
enum { NCLASSES = (int)(sizeof registry / sizeof registry[0]) };

const fmb_friction_class_t *fmb_friction_class_for(const char *model)
{
    if (!model || !*model) return &none_class;
    for (int k = 0; k < NCLASSES; k++)
        if (!strcmp(registry[k]->name, model)) return registry[k];
    return NULL;
}

double fmb_friction_stick_velocity(const fmb_friction_desc_t *d)
{
    if (d->v_stick > 0) return d->v_stick;
    const fmb_friction_class_t *fk = fmb_friction_class_for(d->model);
    return fk && fk->v_stick > 0 ? fk->v_stick : FMB_V_STICK_COULOMB;
}

const fmb_friction_class_t *fmb_friction_class_at(int k)
{
    return k >= 0 && k < NCLASSES ? registry[k] : NULL;
}

/* Checks shared by the models with a slider block: geometry and coefficients. */
int fmb_friction_check_block(const fmb_friction_desc_t *f, char *msg, size_t len)
{
    if (!(f->a > 0) || !(f->b >= 0)) {
        snprintf(msg, len, "slider half-length a must be > 0 and half-width b >= 0 (got %g, %g)",
                 f->a, f->b);
        return FMB_ERR_MODEL;
    }
    if (!(f->mu >= 0) || !(f->mu0 >= f->mu)) {
        snprintf(msg, len, "friction needs 0 <= mu <= mu0 (got mu = %g, mu0 = %g)", f->mu, f->mu0);
        return FMB_ERR_MODEL;
    }
    if (!(f->v_stick >= 0) || !isfinite(f->v_stick)) {
        snprintf(msg, len, "friction needs v_stick >= 0 (0: the model's default; got %g)",
                 f->v_stick);
        return FMB_ERR_MODEL;
    }
    return 0;
}

int fmb_friction_prepare_block(fmb_item_env_t *env, fmb_friction_desc_t *f)
{
    if (f->mu0 < f->mu)
        return fmb_item_fail(env, fmb_item_given(env, "mu0") ? "mu0" : "mu", -1,
                             "the static coefficient mu0 (%g) must be >= the kinetic mu (%g)",
                             f->mu0, f->mu);
    return 0;
}

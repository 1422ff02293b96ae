/* LuGre friction in a sliding joint (seed 000, eqs 2-4; docs/theory.md section 9): the case
 * keys of the model. Defaults: seed 000's parameters. */
#include "contact/friction.h"
#include "contact/friction_models.h"

#define LUGRE_NUM(k, field, fl, d, u, text)                                                        \
    {                                                                                              \
        .key = k, .kind = FMB_PARAM_NUMBER, .flags = fl,                                           \
        .offset = offsetof(fmb_friction_desc_t, field), .dflt = {d}, .unit = u, .doc = text        \
    }

static const fmb_param_t lugre_params[] = {
    FMB_FRICTION_BLOCK_PARAMS,
    FMB_FRICTION_VSTICK_PARAM(FMB_V_STICK_LUGRE),
    LUGRE_NUM("sigma0", sigma0, FMB_PARAM_MIN_OPEN, 1.3e6, "1/m",
              "bristle stiffness per unit normal force"),
    LUGRE_NUM("sigma1", sigma1, FMB_PARAM_MIN, 350, "s/m", "bristle damping"),
    LUGRE_NUM("sigma2", sigma2, FMB_PARAM_MIN, 0, "s/m", "viscous coefficient"),
    LUGRE_NUM("vs", vs, FMB_PARAM_MIN_OPEN, 0.0009, "m/s", "Stribeck velocity"),
    LUGRE_NUM("gamma", gamma, FMB_PARAM_MIN_OPEN, 2, "-", "Stribeck exponent"),
    LUGRE_NUM("vd", vd, FMB_PARAM_MIN, 0, "m/s",
              "sigma1 decays as exp(-(v/vd)^2); 0: constant sigma1"),
    {0}};

static int lugre_check(const fmb_friction_desc_t *f, char *msg, size_t len)
{
    int rc = fmb_friction_check_block(f, msg, len);
    if (rc) return rc;
    if (!(f->mu0 > 0)) {
        snprintf(msg, len, "LuGre needs mu0 > 0 (g(v) divides the bristle rate); for no "
                           "friction use model none");
        return FMB_ERR_MODEL;
    }
    if (!(f->mu > 0)) {
        snprintf(msg, len,
                 "LuGre needs mu > 0 (g(v) tends to mu while sliding and divides the "
                 "bristle rate)");
        return FMB_ERR_MODEL;
    }
    if (!(f->sigma0 > 0) || !(f->vd >= 0) || !(f->sigma1 >= 0) || !(f->sigma2 >= 0) ||
        !(f->vs > 0) || !(f->gamma > 0)) {
        snprintf(msg, len,
                 "LuGre needs sigma0 > 0, sigma1 >= 0, sigma2 >= 0, vs > 0, gamma > 0, "
                 "vd >= 0");
        return FMB_ERR_MODEL;
    }
    return 0;
}

/* The shared block checks, and mu0 > 0, mu > 0: g(v) = mu + (mu0 - mu) exp(-(|v|/vs)^gamma)
 * divides the bristle rate sigma0 |v| z / g (mu = mu0 = 0 gave a NaN contact solve: "linear
 * solve failed for the contact forces"); with mu = 0 the exponential underflows once |v|
 * exceeds about 27 vs (gamma 2) and g is 0 there. */
static int lugre_prepare(fmb_item_env_t *env, fmb_friction_desc_t *f)
{
    int rc = fmb_friction_prepare_block(env, f);
    if (rc) return rc;
    if (!(f->mu0 > 0))
        return fmb_item_fail(env, fmb_item_given(env, "mu0") ? "mu0" : "mu", -1,
                             "LuGre needs mu0 > 0 (got %g): g(v) = mu + (mu0 - mu) "
                             "exp(-(|v|/vs)^gamma) divides the bristle rate; for no friction "
                             "use model: none",
                             f->mu0);
    if (!(f->mu > 0))
        return fmb_item_fail(env, "mu", -1,
                             "LuGre needs mu > 0 (got %g): g(v) = mu + (mu0 - mu) "
                             "exp(-(|v|/vs)^gamma) tends to mu while sliding and divides the "
                             "bristle rate (0 once the exponential underflows)",
                             f->mu);
    return 0;
}

/* Bristles at rest, or in their steady state z = g(v) sgn(v) / sigma0 when the slider
 * starts sliding (no start-up spike of the sigma1 zdot term). */
static void lugre_start(fmb_contact_t *c, double v)
{
    if (v != 0.0) c->z = c->z_n = fmb_lugre_steady(&c->d, v);
}

/* the shared law (contact/lugre.c) over the step: z, mu, dmu/dv */
static void lugre_update(fmb_contact_t *c, double v, double h)
{
    fmb_lugre_update(c, v, h);
}

static double lugre_face_force(const fmb_contact_t *c, int face, double Nf)
{
    (void)face;
    return -c->mu * Nf;
}

const fmb_friction_class_t fmb_friction_lugre_class = {
    .name = "lugre",
    .v_stick = FMB_V_STICK_LUGRE,
    .params = lugre_params,
    .prepare = lugre_prepare,
    .check = lugre_check,
    .start = lugre_start,
    .update = lugre_update,
    .face_force = lugre_face_force,
    .smooth = 1,
};

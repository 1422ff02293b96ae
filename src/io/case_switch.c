/* Switching elements in the forces section (docs/switching.md, docs/case-format.md):
 * gap, dry_friction, ratchet and screw; their keys, values checked at their keys. */
#include "io/case_loader.h"

#include <math.h>
#include <string.h>

static void inertial_pt(const body_info_t *b, const double u[2], double r[2])
{
    const double cs = cos(b->pose[2]), sn = sin(b->pose[2]);
    r[0] = b->pose[0] + cs * u[0] - sn * u[1];
    r[1] = b->pose[1] + sn * u[0] + cs * u[1];
}

/* A number that must satisfy lo <= x (strict: lo < x). */
static int num_min(loader_t *L, const yaml_node_t *m, const char *key, const char *ctx, double *out,
                   int required, double lo, int strict)
{
    int given = 0;
    int rc = case_get_num(L, m, key, ctx, out, &given);
    if (rc) return rc;
    if (!given && required) return case_fail(L, m, "%s: missing required key '%s'", ctx, key);
    if (given && (strict ? !(*out > lo) : !(*out >= lo)))
        return case_fail(L, case_get(L, m, key), "%s: '%s' must be %s %g, got %g", ctx, key,
                         strict ? ">" : ">=", lo, *out);
    return 0;
}

/* dry_friction's law: model coulomb (default) or lugre with its parameters in the
 * element's units (sigma0 and vs required; sigma1, sigma2, vd default 0, gamma 2). */
static int friction_law(loader_t *L, const yaml_node_t *m, const char *ctx,
                        fmb_friction_desc_t *f)
{
    static const char *const lugre_keys[] = {"sigma0", "sigma1", "sigma2", "vs", "gamma", "vd"};
    const char *model = NULL;
    int rc = case_get_string(L, m, "model", ctx, 0, &model);
    if (rc) return rc;
    memset(f, 0, sizeof *f);
    f->model = FMB_FRICTION_COULOMB;
    if (model && !strcmp(model, "lugre"))
        f->model = FMB_FRICTION_LUGRE;
    else if (model && strcmp(model, "coulomb"))
        return case_fail(L, case_get(L, m, "model"),
                         "%s: unknown friction model '%s' (allowed: coulomb, lugre)", ctx, model);
    if (f->model == FMB_FRICTION_COULOMB) {
        for (size_t k = 0; k < sizeof lugre_keys / sizeof lugre_keys[0]; k++)
            if (case_get(L, m, lugre_keys[k]))
                return case_fail(L, case_get(L, m, lugre_keys[k]),
                                 "%s: '%s' applies to model: lugre only", ctx, lugre_keys[k]);
        return 0;
    }
    f->gamma = 2;
    if ((rc = num_min(L, m, "sigma0", ctx, &f->sigma0, 1, 0, 1)) ||
        (rc = num_min(L, m, "vs", ctx, &f->vs, 1, 0, 1)) ||
        (rc = num_min(L, m, "sigma1", ctx, &f->sigma1, 0, 0, 0)) ||
        (rc = num_min(L, m, "sigma2", ctx, &f->sigma2, 0, 0, 0)) ||
        (rc = num_min(L, m, "gamma", ctx, &f->gamma, 0, 0, 1)) ||
        (rc = num_min(L, m, "vd", ctx, &f->vd, 0, 0, 0)))
        return rc;
    return 0;
}

int case_switch_params(loader_t *L, const yaml_node_t *m, const char *ctx, const int bi[2],
                       fmb_force_desc_t *d)
{
    int rc;
    const body_info_t *b0 = &L->binfo[bi[0]], *b1 = &L->binfo[bi[1]];
    if (bi[0] == bi[1])
        return case_fail(L, case_get(L, m, "bodies"), "%s: connects body '%s' to itself", ctx,
                         b0->name);
    /* relative coordinate */
    d->coordinate = d->type == FMB_FORCE_SCREW ? FMB_REL_DIRECTION : FMB_REL_ROTATION;
    const char *coord = NULL;
    if (d->type != FMB_FORCE_SCREW) {
        if ((rc = case_get_string(L, m, "coordinate", ctx, 0, &coord))) return rc;
        if (coord && !strcmp(coord, "direction"))
            d->coordinate = FMB_REL_DIRECTION;
        else if (coord && strcmp(coord, "rotation"))
            return case_fail(L, case_get(L, m, "coordinate"),
                             "%s: unknown coordinate '%s' (allowed: rotation, direction)", ctx,
                             coord);
    }
    if (d->coordinate == FMB_REL_DIRECTION) {
        int given = 0;
        if ((rc = case_get_vec(L, m, "axis", ctx, 2, d->axis, &given))) return rc;
        if (!given) return case_fail(L, m, "%s: missing required key 'axis'", ctx);
        const double l = hypot(d->axis[0], d->axis[1]);
        if (!(l > 1e-12))
            return case_fail(L, case_get(L, m, "axis"), "%s: axis must be non-zero", ctx);
        d->axis[0] /= l, d->axis[1] /= l;
    } else if (case_get(L, m, "axis")) {
        return case_fail(L, case_get(L, m, "axis"),
                         "%s: 'axis' needs coordinate: direction (the rotation has no axis)", ctx);
    }
    double r0[2], r1[2];
    inertial_pt(b0, d->point[0], r0);
    inertial_pt(b1, d->point[1], r1);
    const double x0 = d->coordinate == FMB_REL_ROTATION
                          ? b0->pose[2] - b1->pose[2]
                          : d->axis[0] * (r0[0] - r1[0]) + d->axis[1] * (r0[1] - r1[1]);
    double *p = d->param;
    switch (d->type) {
    case FMB_FORCE_GAP: {
        double lim[2] = {0, 0};
        int given = 0;
        if ((rc = case_get_vec(L, m, "limits", ctx, 2, lim, &given))) return rc;
        if (!given) return case_fail(L, m, "%s: missing required key 'limits'", ctx);
        if (!(lim[0] <= 0 && lim[1] >= 0))
            return case_fail(L, case_get(L, m, "limits"),
                             "%s: limits [%g, %g] must bracket the initial position (lower <= 0 "
                             "<= upper, relative to it)",
                             ctx, lim[0], lim[1]);
        p[FMB_SW_GAP_LO] = x0 + lim[0], p[FMB_SW_GAP_HI] = x0 + lim[1];
        const char *law = NULL;
        if ((rc = case_get_string(L, m, "law", ctx, 0, &law))) return rc;
        if (law && !strcmp(law, "hunt_crossley"))
            p[FMB_SW_GAP_LAW] = 1;
        else if (law && strcmp(law, "linear"))
            return case_fail(L, case_get(L, m, "law"),
                             "%s: unknown contact law '%s' (allowed: linear, hunt_crossley)", ctx,
                             law);
        p[FMB_SW_GAP_EXP] = p[FMB_SW_GAP_LAW] == 1 ? 1.5 : 1.0;
        if ((rc = num_min(L, m, "stiffness", ctx, &d->stiffness, 1, 0, 1)) ||
            (rc = num_min(L, m, "damping", ctx, &d->damping, 0, 0, 0)) ||
            (rc = num_min(L, m, "exponent", ctx, &p[FMB_SW_GAP_EXP], 0, 1, 0)))
            return rc;
        if (case_get(L, m, "exponent") && p[FMB_SW_GAP_LAW] != 1)
            return case_fail(L, case_get(L, m, "exponent"),
                             "%s: 'exponent' belongs to law: hunt_crossley", ctx);
        break;
    }
    case FMB_FORCE_FRICTION: {
        if ((rc = num_min(L, m, "kinetic", ctx, &p[FMB_SW_FR_KINETIC], 1, 0, 0))) return rc;
        p[FMB_SW_FR_STATIC] = p[FMB_SW_FR_KINETIC];
        if ((rc = num_min(L, m, "static", ctx, &p[FMB_SW_FR_STATIC], 0, 0, 0))) return rc;
        if (p[FMB_SW_FR_STATIC] < p[FMB_SW_FR_KINETIC])
            return case_fail(L, case_get(L, m, "static"),
                             "%s: static level %g is below the kinetic level %g", ctx,
                             p[FMB_SW_FR_STATIC], p[FMB_SW_FR_KINETIC]);
        p[FMB_SW_FR_VSTICK] = 1e-6;
        if ((rc = num_min(L, m, "v_stick", ctx, &p[FMB_SW_FR_VSTICK], 0, 0, 1))) return rc;
        return friction_law(L, m, ctx, &d->friction);
    }
    case FMB_FORCE_RATCHET: {
        p[FMB_SW_RATCHET_SENSE] = 1;
        if ((rc = case_get_num(L, m, "sense", ctx, &p[FMB_SW_RATCHET_SENSE], NULL))) return rc;
        if (p[FMB_SW_RATCHET_SENSE] != 1 && p[FMB_SW_RATCHET_SENSE] != -1)
            return case_fail(L, case_get(L, m, "sense"), "%s: sense must be 1 or -1, got %g", ctx,
                             p[FMB_SW_RATCHET_SENSE]);
        break;
    }
    case FMB_FORCE_SCREW: {
        if ((rc = num_min(L, m, "lead", ctx, &p[FMB_SW_SCREW_LEAD], 1, 0, 1)) ||
            (rc = num_min(L, m, "radius", ctx, &p[FMB_SW_SCREW_RADIUS], 1, 0, 1)) ||
            (rc = num_min(L, m, "mu", ctx, &p[FMB_SW_SCREW_MU], 1, 0, 0)) ||
            (rc = num_min(L, m, "stiffness", ctx, &d->stiffness, 1, 0, 1)) ||
            (rc = num_min(L, m, "damping", ctx, &d->damping, 0, 0, 0)))
            return rc;
        p[FMB_SW_SCREW_VSTICK] = 1e-6;
        if ((rc = num_min(L, m, "v_stick", ctx, &p[FMB_SW_SCREW_VSTICK], 0, 0, 1))) return rc;
        /* thread at rest in the initial poses: delta0 = L theta0 + x0 (x0 = -s0) */
        d->rest_length =
            p[FMB_SW_SCREW_LEAD] / (2.0 * 3.14159265358979323846) * (b0->pose[2] - b1->pose[2]) +
            x0;
        break;
    }
    default:
        break;
    }
    return 0;
}

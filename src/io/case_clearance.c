/* Keys of a clearance joint (forces section, type clearance; docs/case-format.md): geometry,
 * contact law, material and friction of seed 002. Every value is checked at its key. */
#include "io/case_loader.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const case_clearance_keys[] = {"name",
                                           "type",
                                           "bodies",
                                           "points",
                                           "law",
                                           "damping",
                                           "clearance",
                                           "bearing_radius",
                                           "journal_radius",
                                           "length",
                                           "modulus",
                                           "E",
                                           "poisson",
                                           "eta",
                                           "d_max",
                                           "stiffness",
                                           "exponent",
                                           "restitution",
                                           "v_min",
                                           "mu_s",
                                           "mu_d",
                                           "v_s",
                                           "v_d",
                                           NULL};

/* Defaults: seed 002 (damping by the law: step for wang2016; d_max 0.1 mm, eta 1e-3 s: the
 * seed's 0.1 % .. 1 % of K_N as D_max),
 * steel on steel (E 207 GPa, nu 0.3), Lankarani-Nikravesh n = 1.5, e = 0.9, v_min 1 mm/s,
 * frictionless with ADAMS-like thresholds v_s = 0.1 mm/s, v_d = 1 mm/s. */
int case_load_clearance(loader_t *L, const yaml_node_t *m, const char *ctx, fmb_clearance_desc_t *p)
{
    memset(p, 0, sizeof *p);
    p->law = FMB_CLEARANCE_WANG2016;
    p->eta = 1e-3, p->d_max = 1e-4;
    p->exponent = 1.5, p->restitution = 0.9, p->v_min = 1e-3;
    p->v_s = 1e-4, p->v_d = 1e-3;
    int rc;
    const char *law = NULL;
    if ((rc = case_get_string(L, m, "law", ctx, 0, &law))) return rc;
    if (law) {
        if (!strcmp(law, "lankarani_nikravesh"))
            p->law = FMB_CLEARANCE_LANKARANI;
        else if (strcmp(law, "wang2016"))
            return case_fail(L, case_get(L, m, "law"),
                             "%s: unknown contact law '%s' (allowed: wang2016, "
                             "lankarani_nikravesh)",
                             ctx, law);
    }
    const char *damp = NULL;
    if ((rc = case_get_string(L, m, "damping", ctx, 0, &damp))) return rc;
    if (damp) {
        static const char *const names[] = {"step", "lankarani_nikravesh", "flores"};
        for (int k = 0; k < 3; k++)
            if (!strcmp(damp, names[k])) p->damping = (fmb_clearance_damping)(k + 1);
        if (p->damping == FMB_CLEARANCE_DAMPING_DEFAULT)
            return case_fail(L, case_get(L, m, "damping"),
                             "%s: unknown damping '%s' (allowed: step, lankarani_nikravesh, "
                             "flores)",
                             ctx, damp);
    }
    int has_c, has_rb, has_rj, has_len, has_mod, has_E, has_nu;
    double rj = 0, E[2] = {207e9, 207e9}, nu[2] = {0.3, 0.3};
    if ((rc = case_get_positive(L, m, "clearance", ctx, 1, &p->clearance, &has_c)) ||
        (rc = case_get_positive(L, m, "bearing_radius", ctx, 0, &p->bearing_radius, &has_rb)) ||
        (rc = case_get_positive(L, m, "journal_radius", ctx, 0, &rj, &has_rj)) ||
        (rc = case_get_positive(L, m, "length", ctx, 0, &p->length, &has_len)) ||
        (rc = case_get_positive(L, m, "modulus", ctx, 0, &p->modulus, &has_mod)) ||
        (rc = case_get_vec(L, m, "E", ctx, 2, E, &has_E)) ||
        (rc = case_get_vec(L, m, "poisson", ctx, 2, nu, &has_nu)) ||
        (rc = case_get_positive(L, m, "d_max", ctx, 0, &p->d_max, NULL)) ||
        (rc = case_get_positive(L, m, "exponent", ctx, 0, &p->exponent, NULL)) ||
        (rc = case_get_positive(L, m, "restitution", ctx, 0, &p->restitution, NULL)) ||
        (rc = case_get_positive(L, m, "v_min", ctx, 0, &p->v_min, NULL)) ||
        (rc = case_get_positive(L, m, "v_s", ctx, 0, &p->v_s, NULL)) ||
        (rc = case_get_positive(L, m, "v_d", ctx, 0, &p->v_d, NULL)) ||
        (rc = case_get_num(L, m, "eta", ctx, &p->eta, NULL)) ||
        (rc = case_get_num(L, m, "stiffness", ctx, &p->stiffness, NULL)) ||
        (rc = case_get_num(L, m, "mu_s", ctx, &p->mu_s, NULL)) ||
        (rc = case_get_num(L, m, "mu_d", ctx, &p->mu_d, NULL)))
        return rc;
    if (has_rb == has_rj)
        return case_fail(L, m, "%s: give exactly one of 'bearing_radius' and 'journal_radius'",
                         ctx);
    if (has_rj) p->bearing_radius = rj + p->clearance;
    if (has_mod && (has_E || has_nu))
        return case_fail(L, case_get(L, m, has_E ? "E" : "poisson"),
                         "%s: give either 'modulus' (equivalent E*) or 'E' and 'poisson'", ctx);
    if (!has_mod) {
        for (int k = 0; k < 2; k++) {
            if (!(E[k] > 0))
                return case_fail(L, case_get(L, m, "E"), "%s: 'E' must be > 0, got %g", ctx, E[k]);
            if (!(nu[k] >= 0 && nu[k] < 0.5))
                return case_fail(L, case_get(L, m, "poisson"),
                                 "%s: 'poisson' must be in [0, 0.5), got %g", ctx, nu[k]);
        }
        p->modulus = 1.0 / ((1 - nu[0] * nu[0]) / E[0] + (1 - nu[1] * nu[1]) / E[1]);
    }
    if (p->law == FMB_CLEARANCE_WANG2016 && !has_len)
        return case_fail(L, m, "%s: missing required key 'length' (axial length of the bearing, m)",
                         ctx);
    static const char *const nonneg[] = {"eta", "stiffness", "mu_s", "mu_d"};
    const double vals[] = {p->eta, p->stiffness, p->mu_s, p->mu_d};
    for (int k = 0; k < 4; k++)
        if (!(vals[k] >= 0))
            return case_fail(L, case_get(L, m, nonneg[k]), "%s: '%s' must be >= 0, got %g", ctx,
                             nonneg[k], vals[k]);
    if (p->restitution > 1)
        return case_fail(L, case_get(L, m, "restitution"),
                         "%s: 'restitution' must be in (0, 1], got %g", ctx, p->restitution);
    if (!(p->v_d > p->v_s))
        return case_fail(L, case_get(L, m, case_get(L, m, "v_d") ? "v_d" : "v_s"),
                         "%s: the threshold velocities need v_s (%g) < v_d (%g)", ctx, p->v_s,
                         p->v_d);
    return 0;
}

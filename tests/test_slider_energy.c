/*
 * Energy of a slider running freely along a spinning, bending guide.
 *
 * A nonlinear beam (6 elements, L = 1 m, EI = 2 N m^2, EA = 1e5 N, 1 kg/m; its frame the
 * clamped tangent at its first node) turns freely about a hub at that node, starting at
 * 1 rad/s; a 0.1 kg slider (1e-3 kg m^2) on it starts at 0.3 m, thrown outwards along it
 * and bending it by its Coriolis force. No gravity, no damping, no driver: T + V is
 * conserved by the motion as long as the slider's constraint does no work (Phi does not
 * depend on t, so Phi_q qd = 0 along the motion and the reaction -Phi_q^T lambda has zero
 * power). What remains is the integrator's error: the largest |E(t) - E(0)| over 1 s
 * relative to the largest kinetic energy at h = 1e-3, 5e-4, 2.5e-4, 1.25e-4 s must fall
 * with an observed order above 1.8 (measured 2.4 to 2.5: 2.0e-6, 3.8e-7, 6.6e-8, 1.2e-8)
 * and stay below 5e-8 at the finest step; the slider crosses three element ends.
 * (A guide that also vibrates under the moving slider loses energy into its highest mesh
 * modes, which HHT damps: docs/theory.md section 8.)
 * Usage: test_slider_energy
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "flexmb/flexmb.h"

static int failures = 0;
#include "check.h"

/* One run at step h: the largest energy error relative to the largest kinetic energy, the
 * slider's material coordinate at the end and the element crossings. */
static double run(double h, double *s_end, int *crossings)
{
    fmb_model_t *m = fmb_model_create();
    fmb_model_set_gravity(m, 0.0, 0.0);
    enum { NEL = 6 };
    double x[NEL + 1];
    for (int k = 0; k <= NEL; k++)
        x[k] = (double)k / NEL;
    fmb_beam_desc_t bd = {.name = "guide",
                          .E = 1e8,
                          .rho = 1000,
                          .area = 1e-3,
                          .inertia = 2e-8,
                          .nnodes = NEL + 1,
                          .x = x,
                          .reference = FMB_BEAM_CANTILEVER,
                          .geometry = FMB_BEAM_NONLINEAR,
                          .vel = {0, 0, 1.0},
                          .vel_given = 1};
    const int g = fmb_model_add_beam(m, &bd);
    CHECK(g > 0, "guide: %s", fmb_model_last_error(m));
    fmb_joint_desc_t pin = {.name = "hub", .type = "revolute", .body = {FMB_GROUND, g}};
    CHECK(fmb_model_add_joint(m, &pin) >= 0, "hub: %s", fmb_model_last_error(m));
    fmb_body_desc_t sd = {
        .name = "slider", .mass = 0.1, .inertia = 1e-3, .pose = {0.3, 0, 0}, .vel = {0.3, 0.3, 1}};
    const int sb = fmb_model_add_body(m, &sd);
    fmb_joint_desc_t jd = {.name = "ride", .type = "slider_beam", .body = {sb, g}};
    const int j = fmb_model_add_joint(m, &jd);
    CHECK(sb > 0 && j >= 0, "slider: %s", fmb_model_last_error(m));
    fmb_sim_options_t o;
    fmb_sim_options_default(&o);
    o.h = h;
    fmb_sim_t *s = fmb_sim_create(m, &o);
    CHECK(s && !fmb_sim_initialize(s), "start: %s", s ? fmb_sim_last_error(s) : "");
    double e[FMB_ENERGY_COLUMNS], out[8];
    fmb_sim_energy(s, e);
    const double E0 = e[3];
    double Tmax = e[0], dmax = 0.0;
    fmb_sim_joint_outputs(s, j, out);
    int last = (int)out[1];
    *crossings = 0;
    const long n = lround(1.0 / h);
    for (long k = 0; k < n; k++) {
        if (fmb_sim_step(s)) {
            CHECK(0, "step at h = %g: %s", h, fmb_sim_last_error(s));
            break;
        }
        fmb_sim_energy(s, e);
        Tmax = fmax(Tmax, e[0]);
        dmax = fmax(dmax, fabs(e[3] - E0));
        fmb_sim_joint_outputs(s, j, out);
        *crossings += (int)out[1] != last;
        last = (int)out[1];
    }
    *s_end = out[0];
    fmb_sim_destroy(&s);
    fmb_model_destroy(&m);
    return dmax / Tmax;
}

int main(void)
{
    const double hs[4] = {1e-3, 5e-4, 2.5e-4, 1.25e-4};
    double err[4];
    for (int k = 0; k < 4; k++) {
        double s_end;
        int cr;
        err[k] = run(hs[k], &s_end, &cr);
        printf("h = %.2e s: max |T + V - E0| / T_max = %.3e (slider at s = %.4f m after 1 s, "
               "%d element crossings)",
               hs[k], err[k], s_end, cr);
        if (k) printf(", order %.2f", log(err[k - 1] / err[k]) / log(2.0));
        printf("\n");
        CHECK(cr >= 3, "the slider crossed %d element ends", cr);
    }
    const double order = log(err[0] / err[3]) / log(8.0);
    printf("observed order from h = 1e-3 to 1.25e-4: %.2f\n", order);
    CHECK(order > 1.8, "energy error order %.2f", order);
    CHECK(err[3] < 5e-8, "energy error %.3e of the largest kinetic energy at h = 1.25e-4", err[3]);
    printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}

/*
 * Restarts of adaptive runs with frictional slider contacts (docs/theory.md, "Element
 * crossings and restarts"; src/solve/restart.c).
 *
 *   test_restart friction CASE   CASE = cases/quick_return_friction.yaml with the rocker
 *       damped (zeta = 1e-3, as docs/validation.md recommends) over the first 0.45 crank
 *       revolutions (0.1414 s: slider D crosses five element ends of the elastic rocker
 *       while sliding one way, LuGre friction, 0.4-1.7 kN corner forces).
 *
 * Reference: fixed h = 1e-6 s steps (141,372 steps; against h = 5e-7 s its coordinates
 * differ by 2.6e-6 of the tolerance units below at the records, measured).
 *
 * (1) Restart from an unknown state: at the reference's end (t = 0.1414 s, sliding at
 *     -1.7 m/s) the accelerations, multipliers and corner forces are overwritten with
 *     zeros and fmb_sim_restart is called: it must re-solve them consistently with the
 *     friction (the contact LCP on the accelerations at h = 0 with the LuGre bristles'
 *     z kept). Checked against the reference step's own values at that time, which the
 *     integrator computed by another path (Newton on the step equations with the LuGre
 *     law over the step): the corner forces within 1e-4 of the largest and the slider's
 *     accelerations (x, y, rotation) within 1e-4 of their scale along the motions the
 *     constraints allow (the difference projected in the mass metric onto Phi_q v = 0,
 *     slider_accel_diff), z unchanged. Not the raw difference: the index-3 step meets
 *     the constraints only at position level, and its accelerations carry rounding of q
 *     amplified by 1/(beta h^2) in the scheme's period-2 mode (docs/theory.md "Element
 *     crossings and restarts"). Hand witness, checked: the crank's angle is the driver
 *     theta0 + omega t, exact angular acceleration 0; the step has -0.075 rad/s^2 (+0.065,
 *     -0.055 at the next steps; h = 5e-7: 0.25, 2e-6: 0.014, 4e-6: 1e-4), the restart 0.
 *     The raw slider difference (printed) is 6.8e-5 of the scale, 1.4e-4 with h = 5e-7
 *     (would fail 1e-4; it moves with rounding-level changes of the beam matrix);
 *     projected: 1.6e-7 (the restart LCP's own tolerance: 2.5e-8 when it starts from the
 *     step's values), 9e-8 with h = 5e-7. The forces' 2.1e-7 are Newton noise: 1.4e-8
 *     with Newton 100 x tighter. Must fail, measured: LuGre z reset to 0 at the restart,
 *     0.13 (forces) and 0.136 (accelerations); forces not re-solved (fmb_sim_start_lcps
 *     skipped), 1 and 3.67 (steps down to 1.5e-7 s, a 0.1 J energy drift); returning at
 *     once for models with contacts leaves zeros.
 * (2) The adaptive run (rtol_step 1e-3, atol_step 1e-6) restarts at every crossing and
 *     no step falls below 1e-6 s (without restarts steps fall to 8.4e-9 s after the
 *     crossings: the index-3 period-2 transient), and stays within one tolerance unit of
 *     the reference at every record (1 ms) and coordinate; its energy balance T + V - W
 *     stays within rtol_step of the largest kinetic energy. Measured: 1,351 steps, 103
 *     restarts, smallest step 3.25e-6 s, 0.050 tolerance units, 8.3e-4 J of T_max 28 J.
 *     Without the restarts: 2,426 steps, smallest 8.4e-9 s (fails); with the crossing
 *     restarts alone (not the restart on a stagnant estimate) 6.1e-8 s (fails).
 *
 *   test_restart coulomb CASE   (3) the restart of (1) with Coulomb friction at D (the case's
 *       text with `model: coulomb`, the same mu and mu0): D sliding, the rows of a sliding
 *       contact (f = -mu N sign(v) at each face, whatever the acceleration); measured
 *       3.9e-8 (forces) and 2.0e-7 (accelerations, projected
 *       as in (1); raw 2.4e-5), limits 1e-4 as in (1).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "flexmb/flexmb.h"
#include "solve/test_hooks.h"

static int failures;

#define MAXREC 512
typedef struct rec {
    int n, nc, jD, last_el, ncross;
    double t[MAXREC];
    double *q;
    double T_max, E0, E_drift;
} rec_t;

static int observe(fmb_sim_t *s, void *user)
{
    rec_t *r = user;
    double v[8]; /* the slider's outputs: s, element, x */
    fmb_sim_joint_outputs(s, r->jD, v);
    if (r->last_el >= 0 && (int)v[1] != r->last_el) r->ncross++;
    r->last_el = (int)v[1];
    double e[FMB_ENERGY_COLUMNS];
    fmb_sim_energy(s, e);
    if (r->n == 0) r->E0 = e[3];
    r->T_max = fmax(r->T_max, e[0]);
    r->E_drift = fmax(r->E_drift, fabs(e[3] - r->E0));
    if (r->n >= MAXREC) return 0;
    r->t[r->n] = fmb_sim_time(s);
    memcpy(r->q + (size_t)r->n * r->nc, fmb_sim_q(s), (size_t)r->nc * sizeof(double));
    r->n++;
    return 0;
}

static fmb_case_t *cur_case;

/* The case at 0.45 revolutions, zeta = 1e-3; adaptive or fixed h; records every 1 ms. */
/* text: the case's text (NULL: load path), revolutions: its parameter. */
static fmb_sim_t *run_case(const char *path, const char *text, const char *revolutions,
                           int adaptive, double h, rec_t *r, int *status)
{
    const char *ov[] = {"zeta=1e-3", revolutions};
    char err[512];
    fmb_case_t *c = text ? fmb_case_load_text(path, text, strlen(text), ov, 2, err, sizeof err)
                         : fmb_case_load(path, ov, 2, err, sizeof err);
    if (!c) {
        printf("load %s: %s\n", path, err);
        *status = -1;
        return NULL;
    }
    fmb_sim_options_t o = *fmb_case_options(c);
    o.adaptive = adaptive, o.h = h, o.output_every = (int)lround(1e-3 / h);
    o.rtol_step = 1e-3, o.atol_step = 1e-6;
    fmb_model_t *m = fmb_case_model(c);
    fmb_sim_t *s = fmb_sim_create(m, &o);
    memset(r, 0, sizeof *r);
    r->nc = fmb_model_num_coords(m);
    r->q = calloc((size_t)MAXREC * r->nc, sizeof(double));
    r->jD = -1, r->last_el = -1;
    for (int j = 0; j < fmb_model_num_joints(m) && r->jD < 0; j++) {
        const char *g = fmb_model_joint_output_group(m, j);
        if (g && !strcmp(g, "sliders")) r->jD = j;
    }
    *status = fmb_sim_run(s, observe, r, NULL);
    if (*status) printf("run: %s\n", fmb_sim_last_error(s));
    cur_case = c;
    return s;
}

static fmb_sim_t *run(const char *path, int adaptive, double h, rec_t *r, int *status)
{
    return run_case(path, NULL, "revolutions=0.45", adaptive, h, r, status);
}

static void done(fmb_sim_t **s)
{
    fmb_sim_destroy(s);
    fmb_case_destroy(&cur_case);
}

/* The slider's state at the end of a run: its accelerations (x, y, rotation), the
 * contact's corner forces and bristle state. */
#define CORNERS 4
typedef struct dstate {
    double a[3], F[CORNERS], z;
} dstate_t;

/* The coordinate offset of the slider joint jD's body (its body[0]). */
static int slider_offset(const fmb_sim_t *s, int jD)
{
    const fmb_model_t *md = fmb_sim_model(s);
    int body[2];
    fmb_model_joint_bodies(md, jD, body);
    return fmb_model_body_offset(md, body[0]);
}

static dstate_t slider_state(const fmb_sim_t *s, int jD)
{
    dstate_t d;
    fmb_test_contact_t c = {0};
    fmb_test_contact(s, 0, &c);
    const int o = slider_offset(s, jD);
    for (int k = 0; k < 3; k++)
        d.a[k] = fmb_sim_qdd(s)[o + k];
    memcpy(d.F, c.F, sizeof d.F);
    d.z = c.z;
    return d;
}

/* The restart's accelerations against the step's, both in the slider's coordinates (x, y
 * and the rotation at the block's half-length 0.03 m), as the largest difference: *raw
 * of qdd_r - qdd_step itself, the return value of its part along the motions the
 * constraints allow, P (qdd_r - qdd_step) with P the mass-metric projection onto
 * Phi_q v = 0 ([M Phi_q^T; Phi_q 0] [P d; mu] = [M d; 0] at the restart's state). The
 * rest, (I - P) d = M^-1 Phi_q^T (...), is the index-3 step's multiplier noise: its
 * accelerations meet the constraints only at position level, and rounding of q by
 * eps |q| reaches qdd as eps |q| / (beta h^2) in the scheme's period-2 mode (root
 * -(1 + alpha)/(1 - alpha) = -0.905, double), so that part alternates in sign from step
 * to step and grows as h^-2 (docs/theory.md "Element crossings and restarts"). */
static double slider_accel_diff(fmb_sim_t *s, int jD, const double *qdd_step, double *raw)
{
    const fmb_model_t *md = fmb_sim_model(s);
    const int n = fmb_model_num_coords(md), m = fmb_model_num_constraints(md);
    const int o = slider_offset(s, jD);
    const double *qdd = fmb_sim_qdd(s);
    double *d = calloc(2 * (size_t)n, sizeof *d), *x0 = malloc(2 * (size_t)(n + m) * sizeof *x0);
    double *zero = d + n, *x1 = x0 + n + m;
    for (int i = 0; i < n; i++)
        d[i] = qdd[i] - qdd_step[i];
    /* x(v) = P v + c (c: the drivers' Phi_t); P d = x(d) - x(0) */
    int rc = fmb_test_mass_projection(s, zero, x0);
    rc |= fmb_test_mass_projection(s, d, x1);
    CHECK(rc == 0, "projection failed");
    double dp = 0.0;
    *raw = 0.0;
    for (int k = 0; k < 3; k++) {
        const double sc = k < 2 ? 1.0 : 0.03; /* rotation: m/s^2 at the block's half-length */
        *raw = fmax(*raw, fabs(d[o + k]) * sc);
        dp = fmax(dp, fabs(x1[o + k] - x0[o + k]) * sc);
    }
    free(d), free(x0);
    return dp;
}

static double global_error(const rec_t *a, const rec_t *ref, double rtol, double atol)
{
    return check_global_error(a->t, a->q, a->n, ref->t, ref->q, ref->n, ref->nc, rtol, atol,
                              &failures);
}

static int friction(const char *path)
{
    static rec_t ref, ref2, ad;
    int st;
    /* (1) reference, and the restart at its end from zeroed accelerations and forces */
    fmb_sim_t *s = run(path, 0, 2e-6, &ref2, &st);
    CHECK(st == 0, "reference h = 2e-6 failed");
    const dstate_t d2 = slider_state(s, ref2.jD);
    done(&s);
    s = run(path, 0, 1e-6, &ref, &st);
    CHECK(st == 0, "reference h = 1e-6 failed");
    if (st) return failures;
    CHECK(fmb_test_num_contacts(s) == 1, "%d contacts", fmb_test_num_contacts(s));
    const dstate_t d1 = slider_state(s, ref.jD);
    const fmb_model_t *md = fmb_sim_model(s);
    const int n = fmb_model_num_coords(md);
    double *qdd_step = malloc((size_t)n * sizeof *qdd_step);
    memcpy(qdd_step, fmb_sim_qdd(s), (size_t)n * sizeof *qdd_step);
    int ocrank = -1; /* the crank's angle: theta0 + omega t (driver), exact acceleration 0 */
    for (int b = 0; b < fmb_model_num_bodies(md); b++)
        if (!strcmp(fmb_model_body_name(md, b), "crank")) ocrank = fmb_model_body_offset(md, b) + 2;
    CHECK(ocrank >= 0, "no body named crank");
    if (ocrank < 0) return failures;
    fmb_test_zero_forces(s, 0, 0);
    const int rc = fmb_test_restart(s);
    CHECK(rc == 0, "restart: %s", fmb_sim_last_error(s));
    const dstate_t dr = slider_state(s, ref.jD);
    double Fmax = 0.0, dF = 0.0, dF2 = 0.0, amax = 0.0, da = 0.0, da2 = 0.0;
    for (int k = 0; k < CORNERS; k++) {
        Fmax = fmax(Fmax, fabs(d1.F[k]));
        dF = fmax(dF, fabs(dr.F[k] - d1.F[k]));
        dF2 = fmax(dF2, fabs(d2.F[k] - d1.F[k]));
    }
    for (int k = 0; k < 3; k++) {
        const double sc = k < 2 ? 1.0 : 0.03; /* rotation: m/s^2 at the block's half-length */
        amax = fmax(amax, fabs(d1.a[k]) * sc);
        da2 = fmax(da2, fabs(d2.a[k] - d1.a[k]) * sc);
    }
    double da_raw;
    da = slider_accel_diff(s, ref.jD, qdd_step, &da_raw);
    printf("crank angular acceleration (driver theta0 + omega t: exactly 0): step %.3g rad/s^2 "
           "(index-3 noise), restart %.3g rad/s^2\n",
           qdd_step[ocrank], fmb_sim_qdd(s)[ocrank]);
    CHECK(fabs(fmb_sim_qdd(s)[ocrank]) <= 1e-9 * 400.0,
          "crank acceleration %.3g rad/s^2 after the restart", fmb_sim_qdd(s)[ocrank]);
    free(qdd_step);
    printf("restart at t = %.6g s from zeroed accelerations and forces: corner forces "
           "%.1f %.1f %.1f %.1f N (reference step %.1f %.1f %.1f %.1f), largest difference "
           "%.3g of the largest (h = 2e-6 against 1e-6: %.3g); slider accelerations along the "
           "constrained motion %.3g of their scale %.3g m/s^2 (unprojected, with the step's "
           "index-3 noise: %.3g; h = 2e-6 against 1e-6 unprojected: %.3g); z %.6g -> %.6g\n",
           fmb_sim_time(s), dr.F[0], dr.F[1], dr.F[2], dr.F[3], d1.F[0], d1.F[1], d1.F[2], d1.F[3],
           dF / Fmax, dF2 / Fmax, da / amax, amax, da_raw / amax, da2 / amax, d1.z, dr.z);
    CHECK(Fmax > 100.0, "no load at D (%.3g N)", Fmax);
    CHECK(dF <= 1e-4 * Fmax, "corner forces after the restart %.3g of the largest off", dF / Fmax);
    CHECK(da <= 1e-4 * amax, "slider accelerations after the restart %.3g off", da / amax);
    CHECK(dr.z == d1.z, "the restart changed the bristle state: %.17g -> %.17g", d1.z, dr.z);
    done(&s);
    free(ref2.q);

    /* (2) the adaptive run */
    s = run(path, 1, 1e-4, &ad, &st);
    CHECK(st == 0, "adaptive run failed");
    fmb_sim_stats_t ss;
    fmb_sim_get_stats(s, &ss);
    const double ge = global_error(&ad, &ref, 1e-3, 1e-6);
    printf("adaptive: %ld steps (%ld rejected by the estimate), h %.3g .. %.3g s, %ld restarts, "
           "%d element crossings (reference %d); global error %.3g tolerance units; energy "
           "balance drift %.3g J (largest T %.3g J)\n",
           ss.steps, ss.rejected_error, ss.h_min_used, ss.h_max_used, ss.restarts, ad.ncross,
           ref.ncross, ge, ad.E_drift, ad.T_max);
    CHECK(ref.ncross >= 5, "only %d element crossings in the reference", ref.ncross);
    CHECK(ad.n == ref.n, "records: %d adaptive, %d reference", ad.n, ref.n);
    CHECK(ss.restarts >= ref.ncross, "%ld restarts for %d crossings", ss.restarts, ref.ncross);
    CHECK(ss.h_min_used >= 1e-6, "steps fell to %.3g s", ss.h_min_used);
    CHECK(ge <= 1.0, "adaptive global error %.3g tolerance units", ge);
    CHECK(ad.E_drift <= 1e-3 * ad.T_max, "energy balance drift %.3g J > 1e-3 T_max = %.3g J",
          ad.E_drift, 1e-3 * ad.T_max);
    done(&s);
    free(ad.q), free(ref.q);
    return failures;
}

/* The case's text with Coulomb friction at D instead of LuGre (the same mu, mu0), or
 * NULL when the friction entry is not found. */
static char *coulomb_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    static char buf[1 << 16];
    const size_t len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len] = 0;
    const char *a = strstr(buf, "model: lugre"), *b = a ? strstr(a, "vd: vd_D}") : NULL;
    if (!b) return NULL;
    char *out = malloc(len + 64);
    if (!out) return NULL;
    const size_t pre = (size_t)(a - buf);
    memcpy(out, buf, pre);
    snprintf(out + pre, len + 64 - pre,
             "model: coulomb, a: 0.03, b: 0.006, mu: mu_D, mu0: mu0_D}%s", b + strlen("vd: vd_D}"));
    return out;
}

/* (3) the same restart from zeroed accelerations and forces with Coulomb friction at D
 * (sliding: the rows of a sliding contact, f = -mu N sign(v) at each face) after 0.45
 * revolutions of fixed h = 1e-6 s, as (1). */
static int coulomb(const char *path)
{
    static rec_t ref;
    int st;
    char *text = coulomb_text(path);
    CHECK(text != NULL, "no LuGre friction entry at D in %s", path);
    if (!text) return failures;
    fmb_sim_t *s = run_case(path, text, "revolutions=0.45", 0, 1e-6, &ref, &st);
    CHECK(st == 0, "Coulomb reference failed");
    if (st) return failures;
    const dstate_t d1 = slider_state(s, ref.jD);
    double v = 0.0;
    fmb_sim_contact_state(s, ref.jD, NULL, NULL, NULL, NULL, &v);
    const int n = fmb_model_num_coords(fmb_sim_model(s));
    double *qdd_step = malloc((size_t)n * sizeof *qdd_step);
    memcpy(qdd_step, fmb_sim_qdd(s), (size_t)n * sizeof *qdd_step);
    fmb_test_zero_forces(s, 0, 1);
    const int rc = fmb_test_restart(s);
    CHECK(rc == 0, "restart: %s", fmb_sim_last_error(s));
    const dstate_t dr = slider_state(s, ref.jD);
    double Fmax = 0.0, dF = 0.0, amax = 0.0, da = 0.0;
    for (int k = 0; k < CORNERS; k++)
        Fmax = fmax(Fmax, fabs(d1.F[k])), dF = fmax(dF, fabs(dr.F[k] - d1.F[k]));
    for (int k = 0; k < 3; k++)
        amax = fmax(amax, fabs(d1.a[k]) * (k < 2 ? 1.0 : 0.03));
    double da_raw;
    da = slider_accel_diff(s, ref.jD, qdd_step, &da_raw);
    free(qdd_step);
    printf("Coulomb: restart at t = %.6g s (v = %.4g m/s): corner forces %.1f %.1f %.1f %.1f N "
           "(step %.1f %.1f %.1f %.1f), difference %.3g of the largest; slider accelerations "
           "%.3g of %.3g m/s^2 along the constrained motion (unprojected %.3g)\n",
           fmb_sim_time(s), v, dr.F[0], dr.F[1], dr.F[2], dr.F[3], d1.F[0], d1.F[1], d1.F[2],
           d1.F[3], dF / Fmax, da / amax, amax, da_raw / amax);
    CHECK(fabs(v) > 0.1, "D not sliding at the restart (v = %.3g m/s)", v);
    CHECK(Fmax > 100.0, "no load at D (%.3g N)", Fmax);
    CHECK(dF <= 1e-4 * Fmax, "Coulomb: corner forces after the restart %.3g off", dF / Fmax);
    CHECK(da <= 1e-4 * amax, "Coulomb: slider accelerations after the restart %.3g off", da / amax);
    done(&s);
    free(ref.q), free(text);
    return failures;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "friction")) return friction(argv[2]) ? 1 : 0;
    if (argc == 3 && !strcmp(argv[1], "coulomb")) return coulomb(argv[2]) ? 1 : 0;
    fprintf(stderr, "usage: test_restart friction|coulomb CASE\n");
    return 2;
}

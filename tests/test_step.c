/*
 * Step-size control (docs/theory.md, "Local error estimate and step control").
 *
 *   test_step pendulum DIR   large-amplitude pendulum (DIR/pendulum_large.yaml): adaptive
 *       runs at tol = 1e-4, 1e-5 and 1e-6 stay within 2.2, 3 and 6x the tolerance (1.5x
 *       the measured global error, pendulum()) of a fixed-step reference 1000x finer than
 *       the tolerance needs (h = 1e-5: its own error is ~1e-9, below every tolerance), and
 *       the step count falls as the tolerance loosens. The tolerance is that of the
 *       estimate: atol_step + rtol_step max|q_i| per coordinate, here tol (1 + max|angle|).
 *   test_step four_bar DIR   the driven four-bar with fixed steps: h = 1e-3 (reactions
 *       5-7 % off) draws the end-of-run warning with a time and a coordinate; h = 1e-5
 *       does not.
 *   test_step quick_return DIR   the seed's h = 0.005 s on the quick-return with an elastic
 *       rocker (DIR/quick_return_seed.yaml, rtol_step 1e-2, atol_step 1e-4): the adaptive
 *       run completes and stays within the tolerance (1.5x the measured 0.64x) of fixed
 *       h = 2e-5 steps at the records (every 0.005 s); the fixed-step run fails with a
 *       message that names the time step as the likely cause (not a singular position),
 *       suggests an h and quotes the fastest mode, and a fixed run with that h completes.
 *   test_step lugre DIR   the LuGre stick-slip slider (DIR/slider_lugre.yaml): adaptive
 *       steps (records every 0.1 s) at rtol_step 1e-2 and 1e-3 keep the velocity within
 *       1 % of its peak against fixed h = 1e-4 steps (0.005 % from h = 1e-5), and take at
 *       least 10 times fewer steps than the fixed step that reaches the same error: the
 *       finest of the fixed steps 1e-2 .. 5e-4 whose error is still above the adaptive one
 *       must take >= 10x the adaptive steps (the fixed-step error is checked to fall over
 *       that grid, so any fixed step reaching the adaptive error is smaller still).
 *       Without the Newton rule against stopping on a shortened increment the slip-back
 *       was 23 % off at rtol_step 3e-3.
 *   test_step crossing DIR, test_step fastest_mode DIR: see crossing() and fastest_mode().
 *
 * How each can fail: an estimate that is too small (wrong coefficient, missing h power)
 * lets the adaptive error exceed its bound (an estimate 2x too small fails pendulum,
 * quick_return and crossing: pendulum()); a controller that ignores the tolerance gives
 * equal step counts; a warning that is always or never raised fails four_bar.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "flexmb/flexmb.h"

static int failures;

#define MAXREC 4096
typedef struct rec {
    int n, nc;
    double t[MAXREC];
    double *q;  /* MAXREC x nc */
    double *qd; /* MAXREC x nc */
} rec_t;

/* Element changes of the first slider on a beam between records (crossing test). */
static int cross_count = -1, cross_last = -1;

static int observe(fmb_sim_t *s, void *user)
{
    rec_t *r = user;
    if (cross_count >= 0) {
        const fmb_model_t *m = fmb_sim_model(s);
        for (int j = 0; j < fmb_model_num_joints(m); j++) {
            const char *g = fmb_model_joint_output_group(m, j);
            if (!g || strcmp(g, "sliders")) continue;
            double v[8]; /* the slider's outputs: s, element, x */
            fmb_sim_joint_outputs(s, j, v);
            if (cross_last >= 0 && (int)v[1] != cross_last) cross_count++;
            cross_last = (int)v[1];
            break;
        }
    }
    if (r->n >= MAXREC) return 0;
    r->t[r->n] = fmb_sim_time(s);
    memcpy(r->q + (size_t)r->n * (size_t)r->nc, fmb_sim_q(s), (size_t)r->nc * sizeof(double));
    memcpy(r->qd + (size_t)r->n * (size_t)r->nc, fmb_sim_qd(s), (size_t)r->nc * sizeof(double));
    r->n++;
    return 0;
}

/* Run the case with its options changed by the caller; records into r. */
static fmb_case_t *cur_case; /* the case of the last run: it outlives its simulation */

static void done(fmb_sim_t **s)
{
    fmb_sim_destroy(s);
    fmb_case_destroy(&cur_case);
}

static fmb_sim_t *run(const char *path, const char *const *ov, int nov, fmb_sim_options_t *o,
                      rec_t *r, int *status)
{
    char err[512];
    fmb_case_t *c = fmb_case_load(path, ov, nov, err, sizeof err);
    if (!c) {
        printf("load %s: %s\n", path, err);
        *status = -1;
        return NULL;
    }
    fmb_sim_options_t opts = *fmb_case_options(c);
    if (o) {
        opts.adaptive = o->adaptive;
        opts.h = o->h;
        opts.output_every = o->output_every;
        opts.rtol_step = o->rtol_step;
        opts.atol_step = o->atol_step;
    }
    fmb_model_t *m = fmb_case_model(c);
    fmb_sim_t *s = fmb_sim_create(m, &opts);
    if (r) {
        r->n = 0;
        r->nc = fmb_model_num_coords(m);
        r->q = calloc((size_t)MAXREC * (size_t)r->nc, sizeof(double));
        r->qd = calloc((size_t)MAXREC * (size_t)r->nc, sizeof(double));
    }
    *status = fmb_sim_run(s, r ? observe : NULL, r, NULL);
    if (*status) printf("run: %s\n", fmb_sim_last_error(s));
    cur_case = c;
    return s;
}

static int pendulum(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/pendulum_large.yaml", dir);
    fmb_sim_options_t o;
    fmb_sim_options_default(&o);
    /* reference: fixed h = 1e-5, a record every 0.05 s */
    o.adaptive = 0, o.h = 1e-5, o.output_every = 5000, o.rtol_step = 1e-3, o.atol_step = 1e-6;
    static rec_t ref, ad;
    int st;
    fmb_sim_t *s = run(path, NULL, 0, &o, &ref, &st);
    CHECK(st == 0, "reference run failed");
    done(&s);
    const int nc = ref.nc;
    double *scale = calloc((size_t)nc, sizeof *scale);
    for (int k = 0; k < ref.n; k++)
        for (int i = 0; i < nc; i++)
            scale[i] = fmax(scale[i], fabs(ref.q[(size_t)k * nc + i]));
    const double tols[3] = {1e-4, 1e-5, 1e-6};
    /* global error bounds per tolerance, 1.5x the measured 1.45, 2.00 and 4.05 x tol: an
     * estimate 2x too small lengthens the steps by 2^(1/3) (local error ~ h^3) and raises
     * the global error (~ h^2) by about 1.6x (measured 2.39, 4.73, 7.48 x tol), so a margin
     * of 2x could not catch it */
    const double bound[3] = {2.2, 3.0, 6.0};
    long steps[3];
    for (int a = 0; a < 3; a++) {
        o.adaptive = 1, o.h = 0.05, o.output_every = 1;
        o.rtol_step = o.atol_step = tols[a];
        s = run(path, NULL, 0, &o, &ad, &st);
        CHECK(st == 0, "adaptive run tol %g failed", tols[a]);
        fmb_sim_stats_t ss;
        fmb_sim_get_stats(s, &ss);
        steps[a] = ss.steps;
        CHECK(ad.n == ref.n, "records: %d adaptive, %d reference", ad.n, ref.n);
        double worst = 0.0, tw = 0.0;
        for (int k = 0; k < ad.n && k < ref.n; k++) {
            CHECK(fabs(ad.t[k] - ref.t[k]) < 1e-12, "record %d at t = %.15g, reference %.15g",
                  k, ad.t[k], ref.t[k]);
            for (int i = 0; i < nc; i++) {
                double e = fabs(ad.q[(size_t)k * nc + i] - ref.q[(size_t)k * nc + i]) /
                           (tols[a] * (1.0 + scale[i]));
                if (e > worst) worst = e, tw = ad.t[k];
            }
        }
        printf("tol %g: %ld steps (%ld rejected), h %.3g .. %.3g, max estimate %.3g; global "
               "error %.3g x tol (t = %g)\n",
               tols[a], ss.steps, ss.rejected_error, ss.h_min_used, ss.h_max_used, ss.max_error,
               worst, tw);
        CHECK(worst <= bound[a], "tol %g: global error %.3g x tol > %g", tols[a], worst,
              bound[a]);
        CHECK(ss.max_error <= 1.0 + 1e-12, "accepted a step with estimate %.3g > 1",
              ss.max_error);
        done(&s);
        free(ad.q), free(ad.qd);
    }
    CHECK(steps[0] < steps[1] && steps[1] < steps[2],
          "steps do not fall as the tolerance loosens: %ld, %ld, %ld", steps[0], steps[1],
          steps[2]);
    free(ref.q), free(ref.qd);
    free(scale);
    return failures;
}

static int four_bar(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/four_bar.yaml", dir);
    const char *ov1[] = {"dt=1e-3"}, *ov2[] = {"dt=1e-5"};
    int st;
    char msg[700];
    fmb_sim_t *s = run(path, ov1, 1, NULL, NULL, &st);
    CHECK(st == 0, "h = 1e-3 run failed");
    int w = fmb_sim_step_warning(s, msg, sizeof msg);
    printf("h = 1e-3: %s\n", w ? msg : "(no warning)");
    CHECK(w == 1, "h = 1e-3: no step-error warning");
    CHECK(w && strstr(msg, "at t = ") && strstr(msg, "body '"),
          "the warning names no time or coordinate");
    done(&s);
    s = run(path, ov2, 1, NULL, NULL, &st);
    CHECK(st == 0, "h = 1e-5 run failed");
    w = fmb_sim_step_warning(s, msg, sizeof msg);
    fmb_sim_stats_t ss;
    fmb_sim_get_stats(s, &ss);
    printf("h = 1e-5: %s (largest estimate %.3g of the tolerance)\n", w ? msg : "no warning",
           ss.max_error);
    CHECK(w == 0, "h = 1e-5 warns");
    done(&s);
    return failures;
}

/* max over records and coordinates of |q - q_ref| / (atol + rtol max|q_ref,i|) */
static double global_error(const rec_t *a, const rec_t *ref, double rtol, double atol)
{
    return check_global_error(a->t, a->q, a->n, ref->t, ref->q, ref->n, ref->nc, rtol, atol,
                              &failures);
}

static int quick_return(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/quick_return_seed.yaml", dir);
    const double rt = 1e-2, at = 1e-4;
    fmb_sim_options_t o;
    fmb_sim_options_default(&o);
    o.rtol_step = rt, o.atol_step = at;
    static rec_t ref, ad;
    int st;
    /* reference: fixed h = 2e-5, a record every 0.005 s */
    o.adaptive = 0, o.h = 2e-5, o.output_every = 250;
    fmb_sim_t *s = run(path, NULL, 0, &o, &ref, &st);
    CHECK(st == 0, "reference run failed");
    done(&s);
    /* adaptive from the seed's step, records every 0.005 s */
    o.adaptive = 1, o.h = 0.005, o.output_every = 1;
    s = run(path, NULL, 0, &o, &ad, &st);
    CHECK(st == 0, "adaptive run from h = 0.005 failed");
    fmb_sim_stats_t ss;
    fmb_sim_get_stats(s, &ss);
    CHECK(ad.n == ref.n, "records: %d adaptive, %d reference", ad.n, ref.n);
    const double ge = global_error(&ad, &ref, rt, at);
    printf("adaptive: %ld steps (%ld rejected), h %.3g .. %.3g; global error %.3g x tol\n",
           ss.steps, ss.rejected_error, ss.h_min_used, ss.h_max_used, ge);
    /* 1.5x the measured 0.643 x tol (an estimate 2x too small: 1.23, pendulum above) */
    CHECK(ge <= 1.0, "adaptive global error %.3g x tol > 1", ge);
    done(&s);
    free(ad.q), free(ref.q), free(ref.qd);
    /* fixed h = 0.005: fails, names the step, suggests h */
    o.adaptive = 0, o.h = 0.005, o.output_every = 1;
    s = run(path, NULL, 0, &o, NULL, &st);
    const char *msg = fmb_sim_last_error(s);
    CHECK(st != 0, "fixed h = 0.005 did not fail");
    CHECK(strstr(msg, "likely cause: the time step is too large") != NULL,
          "message does not name the step");
    CHECK(strstr(msg, "singular position") == NULL, "message still blames a singular position");
    CHECK(strstr(msg, "omega_max = ") != NULL, "message without the fastest mode");
    const char *sg = strstr(msg, "suggested: h = ");
    double hs = sg ? atof(sg + strlen("suggested: h = ")) : 0.0;
    CHECK(hs > 0 && hs < 0.005, "no usable suggested step in the message");
    done(&s);
    if (hs > 0 && hs < 0.005) {
        o.h = hs;
        s = run(path, NULL, 0, &o, NULL, &st);
        char w[700];
        int warned = fmb_sim_step_warning(s, w, sizeof w);
        printf("fixed at the suggested h = %g: %s%s\n", hs, st == 0 ? "completes" : "FAILS",
               warned ? " (the estimate still exceeds the tolerance later in the run)" : "");
        CHECK(st == 0, "fixed run at the suggested h = %g failed", hs);
        done(&s);
    }
    return failures;
}

/* The quick-return's slider D crossing the elastic rocker's element ends, adaptive at
 * rtol_step = atol_step = 1e-3 over 0.8 crank revolutions (0.251 s, nine crossings):
 * each crossing is an event (step landed just past the element end, integrator restarted:
 * docs/theory.md "Element crossings"). Before that (and the restart on an alternating
 * estimate) the steps fell to 3e-8 s after the crossing at 0.18 s. Checks: no step below
 * 1e-6 s; at least one restart per crossing (crossings counted from the slider's element
 * index at the reference's records); global error within 0.45x the tolerance against
 * fixed h = 1e-5 steps (records every 1 ms). */
static int crossing(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/quick_return_seed.yaml", dir);
    const double rt = 1e-3, at = 1e-3;
    const char *ov[] = {"revolutions=0.8"};
    fmb_sim_options_t o;
    fmb_sim_options_default(&o);
    o.rtol_step = rt, o.atol_step = at;
    static rec_t ref, ad;
    int st;
    o.adaptive = 0, o.h = 1e-5, o.output_every = 100;
    cross_count = 0, cross_last = -1;
    fmb_sim_t *s = run(path, ov, 1, &o, &ref, &st);
    const int ncross = cross_count;
    cross_count = -1;
    CHECK(st == 0, "reference run failed");
    done(&s);
    o.adaptive = 1, o.h = 1e-3, o.output_every = 1;
    s = run(path, ov, 1, &o, &ad, &st);
    CHECK(st == 0, "adaptive run failed");
    fmb_sim_stats_t ss;
    fmb_sim_get_stats(s, &ss);
    CHECK(ad.n == ref.n, "records: %d adaptive, %d reference", ad.n, ref.n);
    const double ge = global_error(&ad, &ref, rt, at);
    printf("adaptive: %ld steps (%ld rejected by the estimate), h %.3g .. %.3g, %ld restarts, "
           "%d element crossings; global error %.3g x tol\n",
           ss.steps, ss.rejected_error, ss.h_min_used, ss.h_max_used, ss.restarts, ncross, ge);
    CHECK(ncross >= 5, "only %d element crossings in the reference", ncross);
    CHECK(ss.restarts >= ncross, "%ld restarts for %d crossings", ss.restarts, ncross);
    CHECK(ss.h_min_used >= 1e-6, "steps fell to %.3g s", ss.h_min_used);
    /* 1.5x the measured 0.309 x tol (an estimate 2x too small: 0.595, pendulum above) */
    CHECK(ge <= 0.45, "adaptive global error %.3g x tol > 0.45", ge);
    done(&s);
    free(ad.q), free(ad.qd), free(ref.q), free(ref.qd);
    return failures;
}

/* Fastest mode of the linearized constrained system (power iteration, fmb_sim_fastest_mode)
 * against (1) the analytic omega_max = 2 sqrt(k/m) sin(N pi / (2 (N + 1))) of a chain of
 * N = 8 masses on guides (DIR/spring_chain.yaml; a stiff spring across the guide must not
 * count: off the constraint manifold omega would be 500 rad/s), (2) the largest frequency
 * of the dense eigen solve (fmb_sim_modes: LAPACK dsygv on the null-space projection) of a
 * pinned-pinned beam of 10 elements (DIR/beam_pinned.yaml). */
static int fastest(const char *dir, const char *file, double *om, double *om_dense, int *iters)
{
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    fmb_case_t *c = fmb_case_load(path, NULL, 0, err, sizeof err);
    if (!c) {
        printf("load %s: %s\n", path, err);
        return -1;
    }
    fmb_model_t *m = fmb_case_model(c);
    fmb_sim_t *s = fmb_sim_create(m, fmb_case_options(c));
    int coord = -1;
    int rc = fmb_sim_fastest_mode(s, om, &coord, iters);
    if (rc) printf("fastest mode: %s\n", fmb_sim_last_error(s));
    *om_dense = 0.0;
    const int n = fmb_model_num_coords(m);
    double *w = calloc((size_t)n, sizeof *w);
    int nm = w ? fmb_sim_modes(s, n, w, NULL, NULL, NULL) : -1;
    if (nm > 0) *om_dense = w[nm - 1];
    free(w);
    char nm_buf[160];
    printf("%s: omega_max %.9g rad/s (%d iterations, mostly %s), dense %.9g rad/s\n", file, *om,
           *iters, fmb_sim_coord_name(s, coord, nm_buf, sizeof nm_buf), *om_dense);
    fmb_sim_destroy(&s);
    fmb_case_destroy(&c);
    return rc;
}

static int fastest_mode(const char *dir)
{
    double om, od;
    int it;
    const double m = 2.0, k = 5000.0, N = 8;
    const double exact = 2.0 * sqrt(k / m) * sin(N * 3.14159265358979324 / (2.0 * (N + 1)));
    int rc = fastest(dir, "spring_chain.yaml", &om, &od, &it);
    CHECK(rc == 0, "spring chain: status %d", rc);
    printf("spring chain: analytic omega_max %.9g rad/s\n", exact);
    CHECK(fabs(om - exact) <= 1e-5 * exact, "spring chain: %.9g vs analytic %.9g", om, exact);
    CHECK(fabs(od - exact) <= 1e-5 * exact, "spring chain: dense %.9g vs analytic %.9g", od, exact);
    rc = fastest(dir, "beam_pinned.yaml", &om, &od, &it);
    CHECK(rc == 0, "beam: status %d", rc);
    CHECK(od > 0 && fabs(om - od) <= 1e-4 * od, "beam: %.9g vs dense %.9g", om, od);
    return failures;
}

/* max |v - v_ref| / max |v_ref| of the slider's x velocity at the common records */
static double velocity_error(const rec_t *a, const rec_t *ref)
{
    double peak = 0.0, e = 0.0;
    for (int k = 0; k < ref->n; k++)
        peak = fmax(peak, fabs(ref->qd[(size_t)k * ref->nc]));
    for (int k = 0; k < a->n; k++) {
        int m = -1; /* the reference record at the same time */
        for (int i = 0; i < ref->n && m < 0; i++)
            if (fabs(ref->t[i] - a->t[k]) < 1e-9) m = i;
        if (m < 0) continue;
        e = fmax(e, fabs(a->qd[(size_t)k * a->nc] - ref->qd[(size_t)m * ref->nc]));
    }
    return e / peak;
}

static int lugre(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/slider_lugre.yaml", dir);
    fmb_sim_options_t o;
    fmb_sim_options_default(&o);
    static rec_t ref, ad, fx;
    int st;
    o.rtol_step = 1e-3, o.atol_step = 1e-5;
    o.adaptive = 0, o.h = 1e-4, o.output_every = 1000; /* records every 0.1 s */
    fmb_sim_t *s = run(path, NULL, 0, &o, &ref, &st);
    CHECK(st == 0 && ref.n == 101, "reference run (%d records)", ref.n);
    done(&s);
    /* fixed steps: error and step count of each (no breakaway control: the user's step) */
    enum { NF = 5 };
    const double hf[NF] = {1e-2, 5e-3, 2e-3, 1e-3, 5e-4};
    double ef[NF];
    long nf[NF];
    for (int k = 0; k < NF; k++) {
        o.adaptive = 0, o.h = hf[k], o.output_every = (int)(0.1 / hf[k] + 0.5);
        s = run(path, NULL, 0, &o, &fx, &st);
        fmb_sim_stats_t sf;
        fmb_sim_get_stats(s, &sf);
        ef[k] = st == 0 ? velocity_error(&fx, &ref) : INFINITY;
        nf[k] = sf.steps;
        printf("fixed h = %g: %ld steps, velocity error %.3g %%\n", hf[k], nf[k], 100 * ef[k]);
        done(&s);
        free(fx.q), free(fx.qd);
        /* the comparison below needs the error to fall with h over the grid */
        CHECK(k == 0 || ef[k] < ef[k - 1], "fixed-step error not decreasing at h = %g", hf[k]);
    }
    /* adaptive at two tolerances (rtol_step, atol_step) */
    const double tol[2][2] = {{1e-2, 1e-4}, {1e-3, 1e-5}};
    for (int t = 0; t < 2; t++) {
        o.rtol_step = tol[t][0], o.atol_step = tol[t][1];
        o.adaptive = 1, o.h = 0.1, o.output_every = 1;
        s = run(path, NULL, 0, &o, &ad, &st);
        CHECK(st == 0 && ad.n == 101, "adaptive run (%d records)", ad.n);
        fmb_sim_stats_t sa;
        fmb_sim_get_stats(s, &sa);
        done(&s);
        const double ea = velocity_error(&ad, &ref);
        free(ad.q), free(ad.qd);
        printf("adaptive rtol_step %g: %ld steps (%ld rejected by the estimate, %ld by the "
               "breakaway control), h %.3g .. %.3g, velocity error %.3g %% of the peak\n",
               tol[t][0], sa.steps, sa.rejected_error, sa.rejected_event, sa.h_min_used,
               sa.h_max_used, 100 * ea);
        CHECK(ea <= 0.01, "adaptive velocity error %.3g %% > 1 %%", 100 * ea);
        /* the finest grid step that does NOT reach the adaptive error: every fixed step
         * that reaches it is smaller (the error falls with h, checked above), so takes
         * more steps than this one */
        int kc = -1;
        for (int k = 0; k < NF; k++)
            if (ef[k] > ea) kc = k;
        CHECK(kc >= 0 && kc < NF - 1, "the fixed-step grid does not bracket %.3g %%", 100 * ea);
        if (kc < 0) continue;
        printf("fixed h = %g (error %.3g %% > %.3g %%) takes %.1f times the adaptive steps\n",
               hf[kc], 100 * ef[kc], 100 * ea, (double)nf[kc] / (double)sa.steps);
        CHECK(nf[kc] >= 10 * sa.steps, "adaptive %ld steps, fixed h = %g %ld steps: < 10x",
              sa.steps, hf[kc], nf[kc]);
    }
    free(ref.q), free(ref.qd);
    return failures;
}

/* Adaptive advice (fmb_sim_step_warning on an adaptive run) on DIR/stiff_ring.yaml: two
 * uncoupled blocks on springs, a slow one (10 rad/s) and a fast undamped one (1e4 rad/s,
 * amplitude 1e-3 m = 1e4 atol_step). By construction the fast vibration is on b2's x
 * alone, and the controller must follow it in phase: steps near the step the estimate
 * allows for it, h^2 = w / ((beta - 1/6) omega^3 A t_span) with w = atol + rtol A (error per
 * unit step of the trapezoid, beta = 1/4; step.c error_estimate), below 1e-3 of h_max. The advice must name b2 and be absent when
 * the fast block starts at rest or is damped (zeta = 1): then the steps grow to h_max. */
static int ring_advice(const char *dir)
{
    char path[1024], msg[1000];
    snprintf(path, sizeof path, "%s/stiff_ring.yaml", dir);
    const char *ov_rest[] = {"v2=0"}, *ov_damped[] = {"c2=20"};
    int st;
    fmb_sim_stats_t ss;
    fmb_sim_t *s = run(path, NULL, 0, NULL, NULL, &st);
    CHECK(st == 0, "ringing run failed");
    if (!s) return failures;
    int w = fmb_sim_step_warning(s, msg, sizeof msg);
    fmb_sim_get_stats(s, &ss);
    const double A = 10.0 / 1e4, om = 1e4, hq = sqrt((1e-7 + 1e-4 * A) / ((0.25 - 1.0 / 6.0) * om * om * om *
                                                         A * 0.02));
    printf("ringing: %ld steps (mean %.3g s, hand estimate %.3g s): %s\n", ss.steps,
           0.02 / (double)ss.steps, hq, w ? msg : "(no advice)");
    CHECK(w == 1, "no advice on a run that follows a vibration of 1e4 tolerances");
    CHECK(w && strstr(msg, "body 'b2'") && !strstr(msg, "body 'b1'"),
          "the advice does not name the fast block b2");
    CHECK(w && strstr(msg, "100 % were limited"), "b2 did not limit (nearly) every sized step");
    CHECK(0.02 / (double)ss.steps < 3.0 * hq && 0.02 / (double)ss.steps > hq / 3.0,
          "mean step %.3g s is not near the hand estimate %.3g s", 0.02 / (double)ss.steps, hq);
    done(&s);
    for (int k = 0; k < 2; k++) {
        s = run(path, k ? ov_damped : ov_rest, 1, NULL, NULL, &st);
        CHECK(st == 0, "%s run failed", k ? "damped" : "rest");
        if (!s) continue;
        w = fmb_sim_step_warning(s, msg, sizeof msg);
        fmb_sim_get_stats(s, &ss);
        printf("%s: %ld steps: %s\n", k ? "damped" : "at rest", ss.steps, w ? msg : "(no advice)");
        CHECK(w == 0, "advice on a run without a sustained fast vibration (%s)",
              k ? "damped" : "at rest");
        done(&s);
    }
    return failures;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_step pendulum|four_bar|quick_return|lugre|crossing|fastest_mode|ring_advice DIR\n");
        return 2;
    }
    int rc = !strcmp(argv[1], "pendulum") ? pendulum(argv[2])
             : !strcmp(argv[1], "four_bar") ? four_bar(argv[2])
             : !strcmp(argv[1], "quick_return") ? quick_return(argv[2])
             : !strcmp(argv[1], "lugre")        ? lugre(argv[2])
             : !strcmp(argv[1], "crossing")     ? crossing(argv[2])
             : !strcmp(argv[1], "fastest_mode") ? fastest_mode(argv[2])
             : !strcmp(argv[1], "ring_advice")  ? ring_advice(argv[2])
                                            : (fprintf(stderr, "unknown test\n"), 2);
    if (rc == 0) printf("all checks passed\n");
    return rc ? 1 : 0;
}

/*
 * A joint class added in one file plus one registry line (docs/extending.md): a
 * "distance" constraint defined only here, registered with fmb_joint_class_register, loaded
 * from a case file with its own key, run by the solver and written by the writer.
 *
 *   Phi = |d| - L,  d = r_P0 - r_P1,  e = d / |d|
 *   Phi_q = e^T [J_P0, -J_P1]
 *   sum w Phi_qq = w (Jd^T (I - e e^T) Jd / |d| + blockdiag(H_P0(e), -H_P1(e))),
 *   Jd = [J_P0, -J_P1]
 * The multiplier is the rod's tension (a force along -e on body 0).
 *
 * Hand derivation checked against (no gravity): a body of mass m whose centre is tied to a
 * ground point by the rod of length L and launched with speed v perpendicular to the rod
 * moves on the circle at constant speed: angle of the rod omega t (omega = v / L), tension
 * m v^2 / L toward the centre, the body does not turn (no moment about its centre). The
 * phase error of the integrator shrinks as h^2 (observed order checked).
 *
 * How the test can fail: a wrong sign or factor in eval/hess (Newton diverges or the tension
 * is off), a loader that ignores the class's key (the body starts 1.5 m from the centre; with
 * `length: 1.2` the start must pull it onto the 1.2 m circle, whose tension 15 N differs
 * from the default length's 12 N), a writer that skips the class's outputs (dataset
 * missing), and the error messages (asserted as text).
 */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flexmb/flexmb.h"
#include "io/case.h"
#include "joints/joints.h"

static int failures;
#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                            \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* ------------------------------------------------------------ the class (one file) */

static double distance_parts(const fmb_joint_t *j, const fmb_bodyview_t v[2], double e[2])
{
    double r0[2], r1[2];
    fmb_point_pos(&v[0], j->point[0], r0);
    fmb_point_pos(&v[1], j->point[1], r1);
    const double d[2] = {r0[0] - r1[0], r0[1] - r1[1]}, n = hypot(d[0], d[1]);
    e[0] = d[0] / n, e[1] = d[1] / n;
    return n;
}

static void distance_eval(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, double *phi,
                          double *J0, double *J1)
{
    (void)t;
    double e[2];
    phi[0] = distance_parts(j, v, e) - j->par[0];
    double *J[2] = {J0, J1};
    for (int b = 0; b < 2; b++) {
        if (!J[b] || !v[b].ndof) continue;
        double *Jp = calloc(2 * (size_t)v[b].ndof, sizeof *Jp);
        fmb_point_jac(&v[b], j->point[b], Jp);
        for (int c = 0; c < v[b].ndof; c++)
            J[b][c] = (b ? -1.0 : 1.0) * (e[0] * Jp[2 * c] + e[1] * Jp[2 * c + 1]);
        free(Jp);
    }
}

static void distance_hess(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t,
                          const double *w, double *H)
{
    (void)t;
    double e[2];
    const double n = distance_parts(j, v, e);
    const int n0 = v[0].ndof, nn = n0 + v[1].ndof;
    double *Jd = calloc(2 * (size_t)nn, sizeof *Jd);
    fmb_point_jac(&v[0], j->point[0], Jd);
    if (v[1].ndof) {
        fmb_point_jac(&v[1], j->point[1], Jd + 2 * n0);
        for (int k = 2 * n0; k < 2 * nn; k++)
            Jd[k] = -Jd[k];
    }
    const double P[4] = {1 - e[0] * e[0], -e[0] * e[1], -e[0] * e[1], 1 - e[1] * e[1]};
    for (int c = 0; c < nn; c++)
        for (int r = 0; r < nn; r++) {
            const double *a = Jd + 2 * r, *b = Jd + 2 * c;
            H[r + nn * c] +=
                w[0] / n *
                (a[0] * (P[0] * b[0] + P[2] * b[1]) + a[1] * (P[1] * b[0] + P[3] * b[1]));
        }
    const double we[2] = {w[0] * e[0], w[0] * e[1]}, mwe[2] = {-we[0], -we[1]};
    fmb_point_hess(&v[0], j->point[0], we, H, nn);
    if (v[1].ndof) fmb_point_hess(&v[1], j->point[1], mwe, H + n0 + (size_t)nn * n0, nn);
    free(Jd);
}

static const char *const distance_output_names[] = {"distance", "angle"};

static void distance_outputs(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, double *val)
{
    (void)t;
    double e[2];
    val[0] = distance_parts(j, v, e);
    val[1] = atan2(e[1], e[0]);
}

/* Case keys: 'length' in param[0]; default: the distance of the points at the start. */
static const fmb_param_t distance_params[] = {
    {.key = "length",
     .kind = FMB_PARAM_NUMBER,
     .flags = FMB_PARAM_MIN_OPEN | FMB_PARAM_DERIVED,
     .offset = offsetof(fmb_joint_desc_t, param[0]),
     .unit = "m",
     .doc = "rod length (default: the initial distance of the points)"},
    {0}};

static int distance_prepare(fmb_item_env_t *env, fmb_joint_desc_t *d)
{
    if (!fmb_item_given(env, "length")) {
        double r0[2], r1[2];
        fmb_item_point0(env, 0, d->point[0], r0);
        fmb_item_point0(env, 1, d->point[1], r1);
        d->param[0] = hypot(r0[0] - r1[0], r0[1] - r1[1]);
    }
    return 0;
}

static const fmb_joint_class_t distance_class = {
    .name = "distance",
    .nrows = 1,
    .eval = distance_eval,
    .hess = distance_hess,
    .distinct = 1,
    .noutputs = 2,
    .output_group = "distances",
    .output_names = distance_output_names,
    .outputs = distance_outputs,
    .case_type = "distance",
    .item_flags = FMB_ITEM_BODIES | FMB_ITEM_POINTS | FMB_ITEM_DISTINCT,
    .params = distance_params,
    .prepare = distance_prepare,
};

/* ------------------------------------------------------------------ the test */

static const double PI = 3.14159265358979323846, M = 2.0, V = 3.0, T_END = 2.0;

static char *case_text(double h, const char *extra)
{
    static char buf[1200];
    snprintf(buf, sizeof buf,
             "title: distance joint\n"
             "solver: {h: %.17g, t_end: %.17g, viz_frames: 0}\n"
             "bodies:\n"
             "  - {name: bob, mass: %g, inertia: 0.1, pose: [1.5, 0, 0], velocity: [0, %g, 0]}\n"
             "joints:\n"
             "  - {name: rod, type: distance, bodies: [bob, ground]%s}\n",
             h, T_END, M, V, extra);
    return buf;
}

static int observe(fmb_sim_t *sim, void *user)
{
    return fmb_writer_append((fmb_writer_t *)user, sim) < 0;
}

static long read_ds(hid_t f, const char *path, double *out, long max)
{
    hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
    if (d < 0) return -1;
    hid_t sp = H5Dget_space(d);
    hsize_t dims[2] = {0, 1};
    const int nd = H5Sget_simple_extent_dims(sp, dims, NULL);
    const long n = (long)dims[0] * (nd > 1 ? (long)dims[1] : 1);
    long rc = n <= max && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0
                  ? (long)dims[0]
                  : -1;
    H5Sclose(sp);
    H5Dclose(d);
    return rc;
}

/* Run the case with rod length L and step h; returns the rod angle error at T_END. */
static double run(double L, double h, const char *length_key, const char *h5)
{
    char err[600];
    const char *text = case_text(h, length_key);
    fmb_case_t *c =
        fmb_case_load_text("distance.yaml", text, strlen(text), NULL, 0, err, sizeof err);
    CHECK(c, "case did not load: %s", err);
    if (!c) return NAN;
    const fmb_joint_desc_t *jd = fmb_case_joint_desc(c, 0);
    CHECK(fabs(jd->param[0] - L) < 1e-15, "length %g, expected %g", jd->param[0], L);
    fmb_sim_t *sim = fmb_sim_create(fmb_case_model(c), fmb_case_options(c));
    CHECK(sim && fmb_sim_initialize(sim) == 0, "initialize: %s",
          sim ? fmb_sim_last_error(sim) : "no sim");
    fmb_writer_t *w = fmb_writer_create(h5, sim, text, err, sizeof err);
    CHECK(w, "writer: %s", err);
    const int rc = fmb_sim_run(sim, observe, w, NULL);
    CHECK(rc == 0, "run: %s", fmb_sim_last_error(sim));
    const double omega = V / L, tension = M * V * V / L;
    /* integrator error bounds: the speed (so the tension m v^2 / L) drifts by O((omega h)^2)
     * relative, the phase by O((omega h)^2 omega t) (measured: 0.2 and 0.05 times these at
     * h = 2e-3 and 1e-3, both shrinking as h^2) */
    const double oh2 = omega * h * omega * h, tol_t = oh2 * tension, tol_a = oh2 * omega * T_END;
    /* the reaction on the bob at the end: tension toward the centre, no moment */
    double F[6], pose[3];
    fmb_sim_joint_reaction(sim, 0, F);
    fmb_sim_body_pose(sim, 1, pose);
    const double ang = atan2(pose[1], pose[0]);
    const double ang_err = remainder(ang - omega * fmb_sim_time(sim), 2 * PI);
    CHECK(fabs(hypot(F[0], F[1]) - tension) < tol_t, "tension %.12g, expected %.12g",
          hypot(F[0], F[1]), tension);
    CHECK(fabs(F[0] + tension * cos(ang)) < tol_t && fabs(F[1] + tension * sin(ang)) < tol_t,
          "reaction (%g, %g) not toward the centre (angle %g)", F[0], F[1], ang);
    CHECK(fabs(F[2]) < 1e-9 * tension * L, "moment on the bob %g", F[2]);
    CHECK(fabs(pose[2]) < 1e-9, "the bob turned by %g rad", pose[2]);
    fmb_writer_destroy(&w);
    fmb_sim_destroy(&sim);
    fmb_case_destroy(&c);

    /* the writer wrote the class's outputs: /distances/rod/{distance, angle} */
    hid_t f = H5Fopen(h5, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0, "cannot open %s", h5);
    if (f < 0) return ang_err;
    enum { MAXR = 4200 };
    static double t[MAXR], dist[MAXR], a[MAXR], rea[6 * MAXR];
    const long n = read_ds(f, "/time", t, MAXR),
               nd = read_ds(f, "/distances/rod/distance", dist, MAXR),
               na = read_ds(f, "/distances/rod/angle", a, MAXR),
               nr = read_ds(f, "/joints/rod/reaction", rea, 6 * MAXR);
    CHECK(n > 100 && nd == n && na == n && nr == n,
          "records: time %ld distance %ld angle %ld "
          "reaction %ld",
          n, nd, na, nr);
    double worst_d = 0, worst_a = 0, worst_t = 0;
    for (long k = 0; k < n && nd == n && na == n && nr == n; k++) {
        worst_d = fmax(worst_d, fabs(dist[k] - L));
        worst_a = fmax(worst_a, fabs(remainder(a[k] - omega * t[k], 2 * PI)));
        worst_t = fmax(worst_t, fabs(hypot(rea[6 * k], rea[6 * k + 1]) - tension));
    }
    /* the constraint holds to the solver's phi_tol (1e-11 m); phase and tension as above */
    CHECK(worst_d < 1e-10, "max |distance - L| = %g", worst_d);
    CHECK(worst_a < tol_a, "max rod angle error %g rad > %g", worst_a, tol_a);
    CHECK(worst_t < tol_t, "max tension error %g N > %g", worst_t, tol_t);
    printf("L = %g h = %g: %ld records, |distance - L| <= %.2e, angle error <= %.2e rad, "
           "tension error <= %.2e N (tension %g N)\n",
           L, h, n, worst_d, worst_a, worst_t, tension);
    H5Fclose(f);
    return ang_err;
}

/* A load error: text and line. */
static void bad(const char *extra, const char *phrase)
{
    char err[600] = "";
    const char *text = case_text(1e-3, extra);
    fmb_case_t *c =
        fmb_case_load_text("distance.yaml", text, strlen(text), NULL, 0, err, sizeof err);
    CHECK(!c, "'%s' loaded", extra);
    CHECK(strstr(err, phrase), "message '%s' lacks '%s'", err, phrase);
    fmb_case_destroy(&c);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    /* the one registry line */
    CHECK(fmb_joint_class_register(&distance_class) == 0, "register refused");
    CHECK(fmb_joint_class_register(&distance_class) == 0, "registered twice");
    CHECK(fmb_joint_class_named("distance") == &distance_class, "not found by its name");
    /* a second class under a taken name (a built-in one, or this one) is refused */
    static const fmb_joint_class_t impostor = {.name = "revolute", .nrows = 1};
    CHECK(fmb_joint_class_register(&impostor) == FMB_ERR_ARG, "a taken name was accepted");

    char h5[512];
    snprintf(h5, sizeof h5, "%s/joint_class_1.h5", dir);
    const double e1 = run(1.5, 2e-3, ", length: 1.5", h5);
    snprintf(h5, sizeof h5, "%s/joint_class_2.h5", dir);
    const double e2 = run(1.5, 1e-3, "", h5); /* default: the initial distance */
    snprintf(h5, sizeof h5, "%s/joint_class_3.h5", dir);
    run(1.2, 1e-3, ", length: 1.2", h5);
    const double order = log2(fabs(e1) / fabs(e2));
    printf("rod angle error at t = %g: %.3e (h = 2e-3), %.3e (h = 1e-3): observed order %.2f\n",
           T_END, e1, e2, order);
    CHECK(order > 1.8 && order < 2.2, "observed order %.2f, expected 2", order);

    /* the class's key in messages: misspelt, out of bounds, another class's key */
    bad(", lenght: 1", "distance.yaml:6:");
    bad(", lenght: 1", "unknown key 'lenght' in distance joint 'rod' (allowed: name, type, "
                       "bodies, points, length); did you mean 'length'?");
    bad(", length: -1", "joint 'rod': 'length' must be > 0, got -1");
    bad(", axis: [1, 0]", "joint 'rod': 'axis' applies to type prismatic only (distance accepts");
    printf("%s\n", failures ? "FAILED" : "all passed");
    return failures ? 1 : 0;
}

/*
 * The LuGre jam stop (src/solve/contact_step.c jam_error; docs/theory.md section 9,
 * "Jams"): a LuGre slider whose law over a step, with constant bristle damping (vd = 0),
 * spikes after a velocity reversal beyond what its corner forces can carry. The step's
 * contact problem then has no solution at the law's root; the run must stop with that
 * message, and the same model with vd > 0 (the remedy the message gives) must not.
 *
 * Why: theory.md said the search's own stop had no test, because no model reaching it had
 * been found: a block on a ground guide under given loads always has a contact solution
 * (the corner forces follow from the loads for any coefficient). It takes a slider whose
 * corner forces depend on its friction: here its motion is prescribed (a driver of its
 * centre's x on an inclined guide: 0 degrees of freedom), so the driver's reaction must
 * overcome the friction, and that reaction's normal component loads the corners.
 *
 * Model (written to DIR/lugre_jam.yaml): a block of m = 1 kg, a = 0.2 m, b = 0.1 m
 * (a/b = 2) on a prismatic guide fixed to the ground along axis [2, 1] (tan phi = 1/2 =
 * b/a, cos phi = 2/sqrt(5)), no gravity; driver x(t) = A sin(2 pi t / T), A = 0.5 m,
 * T = 0.2 s; LuGre mu = mu0 = 0.5 (so g(v) = 0.5 for every v), sigma0 = 1e4 1/m,
 * sigma1 = 100 s/m, sigma2 = 0, vd = 0; HHT, fixed h = 1e-3 s (default 4 halvings), a
 * record per step.
 *
 * Hand calculation (the independent source: theory.md's law over a step and the
 * block's statics, not the code's output).
 * Corner forces. The driver's reaction R acts along x at the block centre. Normal to the
 * guide |N1 + N2| = |R| sin phi; moments about the centre: a (N2 - N1) = b mu (N1 + N2)
 * (theory.md: the faces' friction moment); along the guide m s'' = R cos phi - mu S,
 * S = |N1| + |N2| = |R| sin phi max(1, b |mu| / a), mu signed like the sliding velocity v.
 * When the drive accelerates the block the way it slides (s'' v > 0, right after a
 * reversal), R cos phi - |mu| |R| sin phi max(1, b|mu|/a) must have the sign of v:
 * possible only if |mu| tan phi max(1, b|mu|/a) < 1, i.e. with tan phi = b/a: |mu| < a/b
 * = 2. Beyond a/b the step has no contact solution (single face up to a/b, diagonal
 * beyond, where S grows as mu^2: the drive's push only wedges the block harder). While
 * the block decelerates (before the reversal) every mu has one.
 * Law over a step (theory.md: z = (z_n + h v) / (1 + h a), a = sigma0 |v| / g,
 * zdot = (v - a z_n) / (1 + h a), mu = sigma0 z + sigma1 zdot). The block slides forward
 * until t = T/4 = 0.05 s with steady bristles z_n = mu0 / sigma0 = 5e-5 m; in the step
 * after the reversal (v = -u < 0): zdot = -2u / (1 + h sigma0 u / mu0),
 *   mu(u) = mu0 - 2 (sigma0 h + sigma1) u / (1 + h sigma0 u / mu0)
 *        -> -mu0 - 2 sigma1 mu0 / (h sigma0) for u >> mu0 / (h sigma0):
 * the spike 2 sigma1 mu0 / (h sigma0) = 10 at h = 1e-3, 160 at 6.25e-5 (the fourth
 * halving), 5 .. 80 times a/b. mu(u) reaches -a/b at
 *   u_c = (a/b + mu0) / (2 (sigma0 h + sigma1) - (h sigma0 / mu0)(a/b + mu0))
 *       = 2.5 / 170 = 0.0147 m/s (h = 1e-3),  2.5 / 198.125 = 0.01262 m/s (h = 6.25e-5).
 * The prescribed sliding velocity after a step h from the reversal is u = s'' h with
 * s'' = A (2 pi / T)^2 / cos phi = 551.7 m/s^2 there: 0.552 .. 0.0345 m/s, beyond u_c at
 * every step tried (37 .. 2.7 times), and with 0 degrees of freedom the step's velocity
 * does not depend on the friction, so the root of the step's law lies in the jam at every
 * try: the search halves back to the jam's edge and stops there. So:
 *   1. (jam) the run stops at t = 0.05 s (its last completed step) with
 *      FMB_ERR_CONVERGENCE: jam_error's FMB_ERR_LINSOLVE is a failed step in step.c (so
 *      that halving retries), halving cannot help (the spike grows as 1/h), and after 4
 *      halvings the step's failure reaches the user as FMB_ERR_CONVERGENCE with the last
 *      try's message first. The message names the joint 'guide', its case-file line (the
 *      line of its "- name: guide", counted in the text below), "jams", "set vd > 0", and
 *      the last try's numbers: coefficient -a/b = -2 (the jam's edge) at v = -u_c =
 *      -0.01262 m/s (within 1 %: the integrator's velocity at t = 0.05 s is -5.8e-5 m/s,
 *      not 0, which leaves z_n at 0.9977 of the steady value: u_c 0.07 % higher) and the
 *      bound 2 sigma1 mu0 / (h sigma0) = 160 at h = 6.25e-5 s. The step's failure diagnosis
 *      that follows gives the jam as the likely cause, not the step size (smaller steps
 *      make the spike larger).
 *   2. (vd) with vd = 1e-3 m/s the damping term is at most sigma1 exp(-(u/vd)^2) 2u <=
 *      sigma1 vd sqrt(2/e) = 0.0858 (|zdot| <= 2|v|), and |sigma0 z| <= mu0, so |mu| <=
 *      0.586 < a/b at every step: the run passes the reversal to t = 0.08 s without
 *      error, sliding back, with |mu| = |friction| / normal <= 0.586 at every record.
 *   3. (h5) `flexmb run` on the vd = 0 case: exit status 4 (run failure), the jam message
 *      on stderr, and the results file closed as failed and readable: complete = 0,
 *      51 records (t = 0 .. 0.05 s, one per step), the last at t = 0.05 s, the last
 *      completed step; its contact datasets have the same 51 rows.
 * Checked to fail without the code under test: with jam_error's message
 * changed ("jams" -> "locks") checks 1 and 3 fail; with jam_error returning 0 (the search
 * goes on from the last solvable state) the step to t = 0.051 s is accepted with
 * non-finite contact values and the next one fails with "singular system matrix"
 * (FMB_ERR_SINGULAR): checks 1 and 3 fail. The failure diagnosis as it was before this test
 * (stepctl.c fail_step: the step-size guess "likely cause: the time step is too large",
 * and the message cut at 1024 bytes in the middle of it) fails checks 1 and 3 too.
 *
 * Usage: test_lugre_jam jam|vd|h5 DIR [FLEXMB_CLI]
 */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "check.h"
#include "flexmb/flexmb.h"

static int failures;

static const char *const CASE_TEXT =
    "# LuGre slider driven along an inclined guide: jams after the reversal at t = 0.05 s\n"
    "# with vd = 0 (tests/test_lugre_jam.c)\n"
    "title: LuGre jam\n"
    "parameters:\n"
    "  m: 1.0\n"
    "  a: 0.2\n"
    "  b: 0.1\n"
    "  A: 0.5\n"
    "  T: 0.2\n"
    "  h: 1e-3\n"
    "  vd: 0\n"
    "  t_end: 0.08\n"
    "solver: {integrator: hht, alpha: -0.05, h: h, t_end: t_end, output_every: 1}\n"
    "output: lugre_jam.h5\n"
    "bodies:\n"
    "  - name: block\n"
    "    mass: m\n"
    "    inertia: m*((2*a)^2 + (2*b)^2)/12\n"
    "    pose: [0, 0, 0]\n"
    "joints:\n"
    "  - name: guide\n"
    "    type: prismatic\n"
    "    bodies: [block, ground]\n"
    "    points: [[0, 0], [0, 0]]\n"
    "    axis: [2, 1]\n"
    "    friction: {model: lugre, a: a, b: b, mu: 0.5, mu0: 0.5, sigma0: 1e4, sigma1: 100,\n"
    "               sigma2: 0, vs: 1e-3, gamma: 2, vd: vd}\n"
    "  - name: drive\n"
    "    type: driver\n"
    "    bodies: [block]\n"
    "    points: [[0, 0]]\n"
    "    coordinate: x\n"
    "    function: A*sin(2*pi*t/T)\n";

/* hand values (see the comment at the top) */
static const double AB = 2.0, MU0 = 0.5, SIGMA0 = 1e4, SIGMA1 = 100.0, VD = 1e-3;
static const double T_REV = 0.05, T_END = 0.08, H_LAST = 1e-3 / 16.0;

/* the 1-based line of the guide joint's "- name: guide" in CASE_TEXT */
static int guide_line(void)
{
    const char *p = strstr(CASE_TEXT, "  - name: guide\n");
    int line = 1;
    for (const char *q = CASE_TEXT; q < p; q++)
        line += *q == '\n';
    return line;
}

static void write_case(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f || fputs(CASE_TEXT, f) < 0 || fclose(f)) {
        printf("FAIL: cannot write %s\n", path);
        exit(1);
    }
}

/* u_c(h): the sliding speed at which the law over a step from the steady forward bristle
 * reaches -a/b */
static double u_jam(double h)
{
    return (AB + MU0) / (2.0 * (SIGMA0 * h + SIGMA1) - (h * SIGMA0 / MU0) * (AB + MU0));
}

/* the jam message's parts (checks 1 and 3) */
static void check_message(const char *msg)
{
    char want[160];
    snprintf(want, sizeof want, "slider of joint 'guide' (line %d) jams at t = ", guide_line());
    CHECK(strstr(msg, want), "message lacks \"%s\":\n%s", want, msg);
    CHECK(strstr(msg, "set vd > 0"), "message lacks \"set vd > 0\":\n%s", msg);
    /* the step's failure diagnosis names the jam, not the step size (bug fixed with this
     * test: "likely cause: the time step is too large ...; suggested: h = ...", cut at the
     * 1024-byte message buffer) */
    CHECK(strstr(msg, "likely cause: the jam above, the friction law's failure, not the step "
                      "size's (smaller steps make its spike larger;") &&
              !strstr(msg, "time step is too large"),
          "the failure diagnosis does not name the jam as the cause:\n%s", msg);
    const char *p = strstr(msg, "the LuGre coefficient over the step (");
    double mu = NAN, v = NAN;
    CHECK(p && sscanf(p, "the LuGre coefficient over the step (%lf at v = %lf m/s)", &mu, &v) == 2,
          "no coefficient and velocity in the message:\n%s", msg);
    printf("jam: coefficient %g at v = %g m/s (hand: %g at %g m/s)\n", mu, v, -AB, -u_jam(H_LAST));
    CHECK(fabs(mu + AB) <= 0.01 * AB, "coefficient %g, want -a/b = %g (the jam's edge)", mu, -AB);
    CHECK(fabs(v + u_jam(H_LAST)) <= 0.01 * u_jam(H_LAST), "velocity %g, want %g", v,
          -u_jam(H_LAST));
    const double bound = 2.0 * SIGMA1 * MU0 / (H_LAST * SIGMA0);
    p = strstr(msg, "2 sigma1 mu0 / (h sigma0) = ");
    double got = NAN;
    CHECK(p && sscanf(p, "2 sigma1 mu0 / (h sigma0) = %lf", &got) == 1 &&
              fabs(got - bound) <= 1e-3 * bound,
          "spike bound %g in the message, want %g", got, bound);
}

typedef struct {
    long n;
    double mu_max, t_last, v_last;
} obs_t;

static int observe(fmb_sim_t *s, void *user)
{
    obs_t *o = user;
    double nf[4], fr[4], v;
    if (fmb_sim_contact_state(s, 0, nf, fr, NULL, NULL, &v) == 0) {
        const double n = nf[0] + nf[1] + nf[2] + nf[3];
        const double f = fabs(fr[0] + fr[1] + fr[2] + fr[3]);
        if (n > 0) o->mu_max = fmax(o->mu_max, f / n);
        o->v_last = v;
    }
    o->t_last = fmb_sim_time(s);
    o->n++;
    return 0;
}

/* run the case through the library with vd = vd; the status, the message in msg */
static int run(const char *path, const char *vd, obs_t *o, char *msg, size_t len)
{
    char err[600], set[64];
    snprintf(set, sizeof set, "vd=%s", vd);
    const char *ov[] = {set};
    fmb_case_t *c = fmb_case_load(path, ov, 1, err, sizeof err);
    if (!c) {
        printf("FAIL: load %s: %s\n", path, err);
        exit(1);
    }
    fmb_sim_t *s = fmb_sim_create(fmb_case_model(c), fmb_case_options(c));
    const int st = fmb_sim_run(s, observe, o, NULL);
    snprintf(msg, len, "%s", st ? fmb_sim_last_error(s) : "");
    o->t_last = fmb_sim_time(s);
    fmb_sim_destroy(&s);
    fmb_case_destroy(&c);
    return st;
}

static void test_jam(const char *path)
{
    obs_t o = {0};
    static char msg[4096];
    const int st = run(path, "0", &o, msg, sizeof msg);
    printf("vd = 0: status %d (%s), stopped at t = %.9g s\n", st, fmb_status_message(st), o.t_last);
    CHECK(st == FMB_ERR_CONVERGENCE, "status %d, want FMB_ERR_CONVERGENCE (%d)", st,
          FMB_ERR_CONVERGENCE);
    CHECK(fabs(o.t_last - T_REV) < 1e-12, "stopped at t = %.12g, want the reversal %g", o.t_last,
          T_REV);
    check_message(msg);
}

static void test_vd(const char *path)
{
    obs_t o = {0};
    char msg[4096], vd[32];
    snprintf(vd, sizeof vd, "%g", VD);
    const int st = run(path, vd, &o, msg, sizeof msg);
    const double bound = MU0 + SIGMA1 * VD * sqrt(2.0 / exp(1.0));
    printf("vd = %g: status %d, t = %.9g s, %ld records, max |mu| %.4g (hand bound %.4g), "
           "v(t_end) = %.4g m/s\n",
           VD, st, o.t_last, o.n, o.mu_max, bound, o.v_last);
    CHECK(st == 0, "run failed: %s", msg);
    CHECK(fabs(o.t_last - T_END) < 1e-12, "ended at t = %.12g, want %g", o.t_last, T_END);
    CHECK(o.n == 81, "%ld records, want 81", o.n);
    CHECK(o.mu_max <= bound && o.mu_max < AB, "max |mu| %.6g > hand bound %.6g", o.mu_max, bound);
    CHECK(o.v_last < -1.0, "not sliding back after the reversal: v = %g m/s", o.v_last);
}

static long read_ds(hid_t f, const char *path, double *out, long max, long *rows)
{
    hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
    if (d < 0) return -1;
    hid_t sp = H5Dget_space(d);
    hsize_t dims[2] = {0, 1};
    const int nd = H5Sget_simple_extent_dims(sp, dims, NULL);
    const long n = (long)dims[0] * (nd > 1 ? (long)dims[1] : 1);
    *rows = (long)dims[0];
    long rc = n <= max && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0
                  ? n
                  : -1;
    H5Sclose(sp);
    H5Dclose(d);
    return rc;
}

static long read_attr_long(hid_t f, const char *name)
{
    long v = -1;
    hid_t a = H5Aopen(f, name, H5P_DEFAULT);
    if (a < 0) return -1;
    if (H5Aread(a, H5T_NATIVE_LONG, &v) < 0) v = -1;
    H5Aclose(a);
    return v;
}

static void test_h5(const char *dir, const char *path, const char *cli)
{
    char h5[1024], errf[1024], cmd[4096];
    snprintf(h5, sizeof h5, "%s/lugre_jam.h5", dir);
    snprintf(errf, sizeof errf, "%s/lugre_jam.stderr", dir);
    remove(h5);
    snprintf(cmd, sizeof cmd, "'%s' run -q '%s' -o '%s' > /dev/null 2> '%s'", cli, path, h5,
             errf);
    const int ws = system(cmd);
    const int code = ws != -1 && WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
    printf("flexmb run (vd = 0): exit %d\n", code);
    CHECK(code == 4, "exit status %d, want 4 (run failure)", code);
    static char msg[8192];
    FILE *f = fopen(errf, "r");
    const size_t nr = f ? fread(msg, 1, sizeof msg - 1, f) : 0;
    msg[nr] = '\0';
    if (f) fclose(f);
    check_message(msg);

    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t h = H5Fopen(h5, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(h >= 0, "cannot open %s", h5);
    if (h < 0) return;
    const long complete = read_attr_long(h, "complete");
    const long committed = read_attr_long(h, "committed_records");
    enum { MAXR = 200 };
    static double t[MAXR], v[MAXR], nf[4 * MAXR];
    long rt = 0, rv = 0, rn = 0;
    const long nt = read_ds(h, "/time", t, MAXR, &rt);
    const long nv = read_ds(h, "/contacts/guide/v", v, MAXR, &rv);
    const long nn = read_ds(h, "/contacts/guide/normal", nf, 4 * MAXR, &rn);
    H5Fclose(h);
    printf("%s: complete %ld, committed_records %ld, time %ld rows (last t = %.9g), contacts "
           "v %ld, normal %ld rows\n",
           h5, complete, committed, rt, nt > 0 ? t[nt - 1] : NAN, rv, rn);
    CHECK(complete == 0, "complete = %ld, want 0 (failed run)", complete);
    CHECK(committed == 51 && nt == 51, "committed_records %ld, /time %ld, want 51", committed, nt);
    int ok = nt == 51;
    for (long k = 0; k < nt && ok; k++)
        ok = fabs(t[k] - k * 1e-3) < 1e-12;
    CHECK(ok, "records not at t = 0, 1e-3, ..., 0.05 s (last %.12g)", nt > 0 ? t[nt - 1] : NAN);
    CHECK(nv == 51 && rn == 51 && nn == 4 * 51, "contact datasets: v %ld, normal %ld rows", nv, rn);
    ok = nv == 51 && nn == 4 * 51;
    for (long k = 0; k < nn && ok; k++)
        ok = isfinite(nf[k]) && (k >= nv || isfinite(v[k]));
    CHECK(ok, "non-finite contact values in the records");
}

int main(int argc, char **argv)
{
    if (argc < 3 || (!strcmp(argv[1], "h5") && argc < 4)) {
        fprintf(stderr, "usage: test_lugre_jam jam|vd|h5 DIR [FLEXMB_CLI]\n");
        return 2;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/lugre_jam_%s.yaml", argv[2], argv[1]);
    write_case(path);
    if (!strcmp(argv[1], "jam"))
        test_jam(path);
    else if (!strcmp(argv[1], "vd"))
        test_vd(path);
    else if (!strcmp(argv[1], "h5"))
        test_h5(argv[2], path, argv[3]);
    else {
        fprintf(stderr, "unknown sub-test %s\n", argv[1]);
        return 2;
    }
    return failures ? 1 : 0;
}

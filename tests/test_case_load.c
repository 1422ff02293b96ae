/*
 * Case loader: the shipped cases give hand-computed numbers (parameter expressions,
 * --set overrides, the 'bar' shortcut, point lookups), and every schema feature of a
 * scratch case reaches the model descriptions. usage: test_case_load CASES_DIR
 */
#include "io/case.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int failures;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

#define NEAR(a, b, tol)                                                                            \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        if (!(fabs(a_ - b_) <= (tol))) {                                                           \
            fprintf(stderr, "%s:%d: %s = %.17g, expected %.17g\n", __FILE__, __LINE__, #a, a_,     \
                    b_);                                                                           \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static const double PI = 3.14159265358979323846;

static double param(const fmb_case_t *c, const char *name)
{
    double v = NAN;
    if (fmb_case_param(c, name, &v) != 0) {
        fprintf(stderr, "parameter '%s' not found\n", name);
        failures++;
    }
    return v;
}

static fmb_case_t *load(const char *dir, const char *file, const char *const *ov, int n)
{
    char path[1024], err[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    fmb_case_t *c = fmb_case_load(path, ov, n, err, sizeof err);
    if (!c) {
        fprintf(stderr, "cannot load %s: %s\n", path, err);
        failures++;
    }
    return c;
}

/* Open-assembly point B of the four-bar for crank angle th, by hand. */
/* the 1-based number of the first line of DIR/FILE that is LINE (without its newline), read
 * from the file itself; 0 if there is none */
static int line_number(const char *dir, const char *file, const char *line)
{
    char path[1024], buf[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int n = 0, found = 0;
    while (!found && fgets(buf, sizeof buf, f)) {
        n++;
        buf[strcspn(buf, "\r\n")] = '\0';
        found = strcmp(buf, line) == 0;
    }
    fclose(f);
    return found ? n : 0;
}

static void four_bar_b(double l1, double l2, double l3, double l4, double th, double B[2])
{
    double ax = l2 * cos(th), ay = l2 * sin(th);
    double dx = l1 - ax, dy = -ay, d = hypot(dx, dy);
    double a = (l3 * l3 - l4 * l4 + d * d) / (2 * d), h = sqrt(l3 * l3 - a * a);
    B[0] = ax + (a * dx - h * dy) / d;
    B[1] = ay + (a * dy + h * dx) / d;
}

static void test_four_bar(const char *dir)
{
    fmb_case_t *c = load(dir, "four_bar.yaml", NULL, 0);
    if (!c) return;
    fmb_model_t *m = fmb_case_model(c);
    CHECK(m != NULL);
    CHECK(strstr(fmb_case_path(c), "four_bar.yaml") != NULL);
    CHECK(fmb_case_output(c) && strcmp(fmb_case_output(c), "four_bar.h5") == 0);
    CHECK(fmb_case_text(c) && strstr(fmb_case_text(c), "function: theta0 + omega*t"));

    /* parameter expressions */
    NEAR(param(c, "omega"), 50 * PI, 1e-12);
    NEAR(param(c, "theta0"), PI / 2, 1e-15);
    NEAR(param(c, "dAC"), sqrt(0.1), 1e-15);
    NEAR(param(c, "Bx"), 0.309455878111675, 1e-12);
    NEAR(param(c, "By"), 0.136485292703892, 1e-12);
    NEAR(param(c, "th3"), -0.486104137651454, 1e-12);
    NEAR(param(c, "th4"), 0.577512056243681, 1e-12);
    /* B closes the loop: |AB| = l3, |CB| = l4 */
    double Bx = param(c, "Bx"), By = param(c, "By");
    NEAR(hypot(Bx - 0.0, By - 0.3), 0.35, 1e-12);
    NEAR(hypot(Bx - 0.1, By), 0.25, 1e-12);
    CHECK(fmb_case_param(c, "nope", NULL) == FMB_ERR_NOTFOUND);

    /* options: defaults, then the solver block */
    const fmb_sim_options_t *o = fmb_case_options(c);
    CHECK(o->integrator == FMB_HHT);
    NEAR(o->alpha, -0.05, 0);
    NEAR(o->h, 1e-4, 0);
    NEAR(o->t_end, 0.4, 0);
    fmb_sim_options_t def;
    fmb_sim_options_default(&def);
    CHECK(o->max_newton == def.max_newton && o->halving == def.halving);
    NEAR(o->rtol, def.rtol, 0);

    /* bodies: bar shortcut, mass = 7.85 kg/m * l, inertia = m l^2 / 12 */
    CHECK(fmb_case_num_bodies(c) == 3);
    const fmb_body_desc_t *crank = fmb_case_body_desc(c, 1);
    const fmb_body_desc_t *coupler = fmb_case_body_desc(c, 2);
    const fmb_body_desc_t *rocker = fmb_case_body_desc(c, 3);
    CHECK(crank && coupler && rocker);
    if (crank && coupler && rocker) {
        CHECK(strcmp(crank->name, "crank") == 0);
        NEAR(crank->mass, 2.355, 1e-14);
        NEAR(crank->inertia, 2.355 * 0.09 / 12, 1e-15);
        NEAR(crank->com[0], 0.15, 1e-15);
        NEAR(crank->com[1], 0.0, 0);
        NEAR(crank->pose[2], PI / 2, 1e-15);
        NEAR(crank->vel[2], 50 * PI, 1e-12);
        const int want = line_number(dir, "four_bar.yaml", "  - name: crank");
        CHECK(want > 0 && crank->line == want);
        NEAR(coupler->mass, 7.85 * 0.35, 1e-14);
        NEAR(coupler->inertia, 7.85 * 0.35 * 0.35 * 0.35 / 12, 1e-15);
        NEAR(coupler->pose[0], 0.0, 1e-15);
        NEAR(coupler->pose[1], 0.3, 1e-15);
        NEAR(coupler->pose[2], -0.486104137651454, 1e-12);
        NEAR(rocker->pose[0], 0.1, 0);
        NEAR(rocker->pose[2], 0.577512056243681, 1e-12);
    }
    /* named points in the model */
    int b = fmb_model_find_body(m, "rocker");
    CHECK(b == 3);
    double xy[2] = {-1, -1};
    CHECK(fmb_model_find_body_point(m, b, "end", xy) >= 0);
    NEAR(xy[0], 0.25, 1e-15);
    NEAR(xy[1], 0.0, 0);
    CHECK(fmb_model_find_body_point(m, b, "start", xy) >= 0);
    NEAR(xy[0], 0.0, 0);

    /* joints: point names resolved to coordinates */
    CHECK(fmb_case_num_joints(c) == 5);
    CHECK(fmb_model_num_joints(m) == 5);
    const fmb_joint_desc_t *jB = fmb_case_joint_desc(c, 2), *jC = fmb_case_joint_desc(c, 3);
    const fmb_joint_desc_t *mot = fmb_case_joint_desc(c, 4);
    CHECK(jB && jC && mot);
    if (jB && jC && mot) {
        CHECK(strcmp(jB->name, "B") == 0 && !strcmp(jB->type, "revolute"));
        CHECK(jB->body[0] == 2 && jB->body[1] == 3);
        NEAR(jB->point[0][0], 0.35, 1e-15);
        NEAR(jB->point[1][0], 0.25, 1e-15);
        CHECK(jC->body[0] == FMB_GROUND && jC->body[1] == 3);
        NEAR(jC->point[0][0], 0.1, 0);
        NEAR(jC->point[1][0], 0.0, 0);
        CHECK(!strcmp(mot->type, "driver_angle"));
        CHECK(mot->body[0] == 1 && mot->body[1] == FMB_GROUND);
        CHECK(mot->expr && strcmp(mot->expr, "theta0 + omega*t") == 0);
        const int want = line_number(dir, "four_bar.yaml", "  - name: motor");
        CHECK(want > 0 && mot->line == want);
    }
    fmb_case_destroy(&c);
    CHECK(c == NULL);
    fmb_case_destroy(&c); /* NULL is fine */
}

static void test_overrides(const char *dir)
{
    /* l2 changes the crank and the derived geometry; omega is an expression of l2;
     * the last override of a name wins */
    const char *ov[] = {"l2=0.5", "omega = 20*l2", "l2=0.32"};
    fmb_case_t *c = load(dir, "four_bar.yaml", ov, 3);
    if (!c) return;
    NEAR(param(c, "l2"), 0.32, 0);
    NEAR(param(c, "omega"), 6.4, 1e-14);
    NEAR(param(c, "Ay"), 0.32, 1e-15);
    double B[2];
    four_bar_b(0.1, 0.32, 0.35, 0.25, PI / 2, B);
    NEAR(param(c, "Bx"), B[0], 1e-13);
    NEAR(param(c, "By"), B[1], 1e-13);
    const fmb_body_desc_t *crank = fmb_case_body_desc(c, 1);
    if (crank) {
        NEAR(crank->mass, 7.85 * 0.32, 1e-14);
        NEAR(crank->inertia, 7.85 * 0.32 * 0.32 * 0.32 / 12, 1e-15);
        NEAR(crank->vel[2], 6.4, 1e-14);
    }
    double xy[2];
    CHECK(fmb_model_find_body_point(fmb_case_model(c), 1, "end", xy) >= 0);
    NEAR(xy[0], 0.32, 0);
    fmb_case_destroy(&c);

    /* errors: unknown parameter, a later parameter, bad form */
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/four_bar.yaml", dir);
    const char *bad1[] = {"L9=1"};
    CHECK(fmb_case_load(path, bad1, 1, err, sizeof err) == NULL);
    CHECK(strstr(err, "four_bar.yaml:") && strstr(err, "unknown parameter 'L9'"));
    const char *bad2[] = {"l2=l3"};
    CHECK(fmb_case_load(path, bad2, 1, err, sizeof err) == NULL);
    CHECK(strstr(err, "four_bar.yaml:") && strstr(err, "uses parameter 'l3' before"));
    const char *bad3[] = {"l2"};
    CHECK(fmb_case_load(path, bad3, 1, err, sizeof err) == NULL);
    CHECK(strstr(err, "name=value") != NULL);
    /* a tiny error buffer is truncated, not overrun */
    char small[8];
    memset(small, 'x', sizeof small);
    CHECK(fmb_case_load(path, bad1, 1, small, sizeof small) == NULL);
    CHECK(memchr(small, '\0', sizeof small) != NULL);
    CHECK(fmb_case_load(path, bad1, 1, NULL, 0) == NULL);
    snprintf(path, sizeof path, "%s/no_such_file.yaml", dir);
    CHECK(fmb_case_load(path, NULL, 0, err, sizeof err) == NULL);
    CHECK(strstr(err, "no_such_file.yaml: cannot open: ") != NULL);
}

static void test_pendulum_slider(const char *dir)
{
    fmb_case_t *c = load(dir, "pendulum.yaml", NULL, 0);
    if (c) {
        const fmb_body_desc_t *bar = fmb_case_body_desc(c, 1);
        if (bar) {
            NEAR(bar->mass, 1.0, 0);
            NEAR(bar->inertia, 1.0 / 12, 1e-16);
            NEAR(bar->com[0], 0.5, 0);
            NEAR(bar->pose[2], -PI / 3, 1e-15);
        }
        NEAR(fmb_case_options(c)->h, 1e-3, 0);
        NEAR(fmb_case_options(c)->t_end, 5, 0);
        fmb_case_destroy(&c);
    }
    const char *ov[] = {"theta0=pi/4"};
    c = load(dir, "pendulum.yaml", ov, 1);
    if (c) {
        NEAR(fmb_case_body_desc(c, 1)->pose[2], -PI / 4, 1e-15);
        fmb_case_destroy(&c);
    }
    c = load(dir, "slider_crank.yaml", NULL, 0);
    if (c) {
        const fmb_body_desc_t *s = fmb_case_body_desc(c, 3);
        if (s) {
            NEAR(s->mass, 0.5, 0);
            NEAR(s->inertia, 0.5 * (0.01 + 0.0025) / 12, 1e-17);
            NEAR(s->pose[0], 0.4, 1e-15);
        }
        const fmb_joint_desc_t *g = fmb_case_joint_desc(c, 3);
        if (g) {
            CHECK(!strcmp(g->type, "prismatic"));
            CHECK(g->body[0] == 3 && g->body[1] == FMB_GROUND);
            NEAR(g->axis[0], 1, 0);
            NEAR(g->axis[1], 0, 0);
            NEAR(g->angle, 0, 0);
        }
        fmb_case_destroy(&c);
    }
}

static const char scratch[] =
    "title: scratch\n"
    "parameters: {a: 2, b: a^2 + 1, k: 1e3}\n"
    "gravity: [0, -g0]\n"
    "solver:\n"
    "  integrator: newmark\n"
    "  beta: 0.3025\n"
    "  gamma: 0.6\n"
    "  h: 2e-3\n"
    "  output_every: 5\n"
    "  max_newton: 12\n"
    "  halving: 0\n"
    "bodies:\n"
    "  - name: p\n"
    "    mass: b\n"
    "    inertia: 0.5\n"
    "    com: [0.1, -0.2]\n"
    "    pose: [1, 2, pi/2]\n"
    "    velocity: [0.5, 0, -1]\n"
    "    points: {P: [0, 1], Q: [a, 0]}\n"
    "  - {name: s, mass: 1, bar: 0.5, pose: [0, 0, 0.25]}\n"
    "joints:\n"
    "  - {name: w, type: weld, bodies: [p, s], points: [P, end]}\n"
    "  - {name: dx, type: driver, coordinate: x, bodies: [s], points: [start],\n"
    "     function: 0.1*sin(a*t)}\n"
    "  - {name: pr, type: prismatic, bodies: [s, ground], axis: [1, 1], angle: 0.5}\n"
    "forces:\n"
    "  - {name: f, type: point, body: p, point: Q, fx: 10*t}\n"
    "  - {name: m, type: torque, body: s, tz: -b}\n"
    "  - {name: k, type: spring, bodies: [ground, p], points: [[1, 0], P], stiffness: k,\n"
    "     damping: 2}\n";

static void test_scratch(void)
{
    const char *path = "test_case_load_scratch.yaml";
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(scratch, f);
    fclose(f);
    char err[512];
    /* g0 is not a parameter: the gravity line is named */
    fmb_case_t *c = fmb_case_load(path, NULL, 0, err, sizeof err);
    CHECK(c == NULL);
    CHECK(strstr(err, "test_case_load_scratch.yaml:3:") && strstr(err, "unknown name 'g0'"));
    /* fix it by text: replace g0 with a number (the file is ours) */
    f = fopen(path, "w");
    if (!f) return;
    char buf[sizeof scratch + 16];
    const char *g = strstr(scratch, "-g0");
    snprintf(buf, sizeof buf, "%.*s-9.81%s", (int)(g - scratch), scratch, g + 3);
    fputs(buf, f);
    fclose(f);
    c = fmb_case_load(path, NULL, 0, err, sizeof err);
    if (!c) {
        fprintf(stderr, "scratch: %s\n", err);
        failures++;
        return;
    }
    CHECK(strcmp(fmb_case_title(c), "scratch") == 0);
    CHECK(fmb_case_output(c) == NULL);
    const fmb_sim_options_t *o = fmb_case_options(c);
    CHECK(o->integrator == FMB_NEWMARK);
    NEAR(o->beta, 0.3025, 0);
    NEAR(o->gamma, 0.6, 0);
    NEAR(o->h, 2e-3, 0);
    CHECK(o->output_every == 5 && o->max_newton == 12 && o->halving == 0);
    const fmb_body_desc_t *p = fmb_case_body_desc(c, 1), *s = fmb_case_body_desc(c, 2);
    if (p && s) {
        NEAR(p->mass, 5, 0);
        NEAR(p->com[1], -0.2, 0);
        NEAR(p->pose[2], PI / 2, 1e-15);
        NEAR(p->vel[0], 0.5, 0);
        NEAR(p->vel[2], -1, 0);
        CHECK(p->line == 13 && s->line == 20);
        NEAR(s->inertia, 0.25 / 12, 1e-16);
    }
    const fmb_joint_desc_t *w = fmb_case_joint_desc(c, 0), *dx = fmb_case_joint_desc(c, 1);
    const fmb_joint_desc_t *pr = fmb_case_joint_desc(c, 2);
    if (w && dx && pr) {
        CHECK(!strcmp(w->type, "weld") && w->body[0] == 1 && w->body[1] == 2);
        NEAR(w->point[0][1], 1, 0);
        NEAR(w->point[1][0], 0.5, 0);
        NEAR(w->angle, PI / 2 - 0.25, 1e-15); /* from the initial poses */
        CHECK(!strcmp(dx->type, "driver_x") && dx->body[0] == 2 && dx->body[1] == FMB_GROUND);
        CHECK(strcmp(dx->expr, "0.1*sin(a*t)") == 0);
        CHECK(!strcmp(pr->type, "prismatic"));
        NEAR(pr->axis[0], 1, 0);
        NEAR(pr->axis[1], 1, 0);
        NEAR(pr->angle, 0.5, 0);
    }
    CHECK(fmb_case_num_forces(c) == 3);
    const fmb_force_desc_t *fp = fmb_case_force_desc(c, 0), *fm = fmb_case_force_desc(c, 1);
    const fmb_force_desc_t *fk = fmb_case_force_desc(c, 2);
    if (fp && fm && fk) {
        CHECK(!strcmp(fp->type, "point") && fp->body[0] == 1);
        NEAR(fp->point[0][0], 2, 0);
        CHECK(strcmp(fp->expr[0], "10*t") == 0 && strcmp(fp->expr[1], "0") == 0);
        CHECK(!strcmp(fm->type, "torque") && fm->body[0] == 2);
        CHECK(strcmp(fm->expr[0], "-b") == 0);
        CHECK(!strcmp(fk->type, "spring") && fk->body[0] == FMB_GROUND && fk->body[1] == 1);
        NEAR(fk->stiffness, 1e3, 0);
        NEAR(fk->damping, 2, 0);
        /* default rest length: from (1, 0) to P = (1, 2) + R(pi/2) (0, 1) = (0, 2) */
        NEAR(fk->rest_length, sqrt(5.0), 1e-12);
        CHECK(fk->line == 29);
    }
    CHECK(fmb_model_num_forces(fmb_case_model(c)) == 3);
    fmb_case_destroy(&c);
    remove(path);
}

/* Beams: section conversions, node layouts, the rigid switch (slider_beam -> prismatic). */
static const char beam_case[] =
    "parameters: {rigid_b: 0, d: 0.012}\n"
    "bodies:\n"
    "  - name: round\n"
    "    beam: {E: 200e9, rho: 7800, section: {circle: d}, length: 0.6, elements: 10,\n"
    "           rigid: rigid_b, damping: {beta: 1e-5}}\n"
    "    pose: [0, 0, 0.5]\n"
    "    points: {B: [0.6, 0], M: [0.3, 0.01]}\n"
    "  - name: flat\n"
    "    beam: {E: 70e9, rho: 2700, section: {rectangle: [0.01, 0.02]}, length: 0.4,\n"
    "           elements: 4, reference: cantilever, rotary_inertia: true}\n"
    "  - name: given\n"
    "    beam: {E: 1e9, rho: 1000, section: {A: 3e-4, I: 2e-9}, length: 1, elements: 2}\n"
    "  - {name: s, mass: 0.2, inertia: 1e-5, pose: [0.2, 0, 0.5]}\n"
    "joints:\n"
    "  - {name: sl, type: slider_beam, bodies: [s, round], points: [[0, 0], [0, 0]]}\n"
    "  - {name: pin, type: revolute, bodies: [round, flat], points: [M, end]}\n";

static void test_beams(const char *dir)
{
    const char *path = "test_case_load_beams.yaml";
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(beam_case, f);
    fclose(f);
    char err[512];
    for (int rigid = 0; rigid <= 1; rigid++) {
        const char *ov[] = {"rigid_b=1"};
        fmb_case_t *c = fmb_case_load(path, ov, rigid, err, sizeof err);
        if (!c) {
            fprintf(stderr, "beams (rigid %d): %s\n", rigid, err);
            failures++;
            continue;
        }
        fmb_model_t *m = fmb_case_model(c);
        const fmb_beam_desc_t *r = fmb_case_beam_desc(c, 1), *fl = fmb_case_beam_desc(c, 2);
        const fmb_beam_desc_t *gv = fmb_case_beam_desc(c, 3);
        CHECK(r && fl && gv && fmb_case_beam_desc(c, 4) == NULL);
        if (!r || !fl || !gv) {
            fmb_case_destroy(&c);
            continue;
        }
        /* circle d: A = pi d^2/4, I = pi d^4/64 (d = 12 mm: 1.131e-4 m^2, 1.018e-9 m^4) */
        const double d = 0.012;
        NEAR(r->area, PI * d * d / 4, 1e-20);
        NEAR(r->inertia, PI * d * d * d * d / 64, 1e-24);
        NEAR(r->area, 1.1309733552923255e-4, 1e-18);
        NEAR(r->inertia, 1.0178760197630929e-9, 1e-22);
        /* rectangle b x h, h in the bending plane: A = b h, I = b h^3/12 */
        NEAR(fl->area, 2e-4, 1e-19);
        NEAR(fl->inertia, 0.01 * 0.02 * 0.02 * 0.02 / 12, 1e-24);
        NEAR(fl->inertia, 6.666666666666667e-9, 1e-22);
        NEAR(gv->area, 3e-4, 0);
        NEAR(gv->inertia, 2e-9, 0);
        /* nodes, reference, flags */
        CHECK(r->nnodes == 11 && fl->nnodes == 5 && gv->nnodes == 3);
        NEAR(r->x[0], 0, 0);
        NEAR(r->x[10], 0.6, 0);
        NEAR(r->x[3], 0.18, 1e-15);
        CHECK(r->reference == FMB_BEAM_SIMPLY_SUPPORTED && fl->reference == FMB_BEAM_CANTILEVER);
        CHECK(r->rotary_inertia == 0 && fl->rotary_inertia == 1);
        NEAR(r->damping_alpha, 0, 0);
        NEAR(r->damping_beta, 1e-5, 0);
        NEAR(r->E, 200e9, 0);
        NEAR(r->pose[2], 0.5, 0);
        /* the body description: the equivalent rigid bar, used when rigid */
        const fmb_body_desc_t *rb = fmb_case_body_desc(c, 1);
        const double mass = 7800 * PI * d * d / 4 * 0.6; /* rho A L = 0.52930 kg */
        if (rb) {
            NEAR(rb->mass, mass, 1e-15);
            NEAR(rb->mass, 0.5292955302768083, 1e-12);
            NEAR(rb->inertia, mass * 0.6 * 0.6 / 12, 1e-16);
            NEAR(rb->com[0], 0.3, 1e-16);
            NEAR(rb->com[1], 0, 0);
            NEAR(rb->pose[2], 0.5, 0);
        }
        CHECK(fmb_case_beam_is_rigid(c, 1) == rigid && !fmb_case_beam_is_rigid(c, 2));
        CHECK(fmb_model_body_is_beam(m, 1) == !rigid);
        CHECK(fmb_model_body_is_beam(m, 2) == 1);
        CHECK(fmb_model_body_ndof(m, 1) == (rigid ? 3 : 3 + 30));
        /* points: nodes n0..n10, start, end and the named ones, in both models */
        double xy[2];
        CHECK(fmb_model_find_body_point(m, 1, "n10", xy) >= 0 && fabs(xy[0] - 0.6) < 1e-15);
        CHECK(fmb_model_find_body_point(m, 1, "n4", xy) >= 0 && fabs(xy[0] - 0.24) < 1e-15);
        CHECK(fmb_model_find_body_point(m, 1, "end", xy) >= 0 && fabs(xy[0] - 0.6) < 1e-15);
        CHECK(fmb_model_find_body_point(m, 1, "M", xy) >= 0 && fabs(xy[1] - 0.01) < 1e-15);
        CHECK(fmb_model_find_body_point(m, 1, "B", xy) >= 0);
        CHECK(fmb_model_body_num_points(m, 1) == 15);
        /* the slider: on the elastic beam, or a prismatic joint along the rigid bar's x */
        const fmb_joint_desc_t *sl = fmb_case_joint_desc(c, 0), *pin = fmb_case_joint_desc(c, 1);
        if (sl && pin) {
            CHECK(!strcmp(sl->type, rigid ? "prismatic" : "slider_beam"));
            CHECK(sl->body[0] == 4 && sl->body[1] == 1);
            NEAR(sl->axis[0], 1, 0);
            NEAR(sl->axis[1], 0, 0);
            NEAR(sl->point[1][0], 0, 0);
            NEAR(sl->angle, 0, 0); /* from the poses: 0.5 - 0.5 */
            NEAR(pin->point[1][0], 0.4, 1e-16);
            CHECK(strcmp(fmb_model_joint_type_name(m, 0), rigid ? "prismatic" : "slider_beam") ==
                  0);
        }
        fmb_case_destroy(&c);
    }
    remove(path);

    /* the shipped quick-return case: mesh read relative to the case file */
    fmb_case_t *c = load(dir, "quick_return.yaml", NULL, 0);
    if (c) {
        int rk = fmb_model_find_body(fmb_case_model(c), "rocker");
        const fmb_beam_desc_t *r = rk > 0 ? fmb_case_beam_desc(c, rk) : NULL;
        CHECK(r != NULL);
        if (r) {
            CHECK(r->nnodes == 11);
            NEAR(r->x[10], 0.6, 1e-12);
            NEAR(r->x[5], 0.3, 1e-12);
            NEAR(r->area, PI * 0.012 * 0.012 / 4, 1e-20);
        }
        NEAR(param(c, "omega"), 20, 0);
        fmb_case_destroy(&c);
    }
    const char *ov[] = {"rigid_rocker=1", "omega=30"};
    c = load(dir, "quick_return.yaml", ov, 2);
    if (c) {
        int rk = fmb_model_find_body(fmb_case_model(c), "rocker");
        const fmb_body_desc_t *b = rk > 0 ? fmb_case_body_desc(c, rk) : NULL;
        CHECK(b && fmb_case_beam_is_rigid(c, rk));
        if (b) {
            double m = 7800 * PI * 0.012 * 0.012 / 4 * 0.6;
            NEAR(b->mass, m, 1e-15);
            NEAR(b->inertia, m * 0.36 / 12, 1e-16);
        }
        NEAR(fmb_case_options(c)->t_end, 2 * 2 * PI / 30, 1e-15);
        fmb_case_destroy(&c);
    }
}

/* Friction on sliding joints: given values and expressions, the seed-000 defaults, model
 * none (frictionless), the shipped slider cases and their overrides. */
static const char friction_case[] =
    "parameters: {half: 0.25, w: 0.08}\n"
    "bodies:\n"
    "  - {name: s1, mass: 1, inertia: 0.01}\n"
    "  - {name: s2, mass: 1, inertia: 0.01, pose: [0, 1, 0]}\n"
    "  - {name: s3, mass: 1, inertia: 0.01, pose: [0, 2, 0]}\n"
    "joints:\n"
    "  - name: g1\n"
    "    type: prismatic\n"
    "    bodies: [s1, ground]\n"
    "    friction: {model: lugre, a: 2*half, b: w/2, mu: 0.3, mu0: 0.4, sigma0: 1e5,\n"
    "               sigma1: 2*100, sigma2: 0.5, vs: 1e-3, gamma: 1.5, v_stick: 1e-5}\n"
    "  - name: g2\n"
    "    type: prismatic\n"
    "    bodies: [s2, ground]\n"
    "    points: [[0, 0], [0, 1]]\n"
    "    friction: {model: lugre, a: 0.3}\n"
    "  - name: g3\n"
    "    type: prismatic\n"
    "    bodies: [s3, ground]\n"
    "    points: [[0, 0], [0, 2]]\n"
    "    friction: {model: none, a: 0.3, b: 0.1}\n";

static void test_friction(const char *dir)
{
    const char *path = "test_case_load_friction.yaml";
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(friction_case, f);
    fclose(f);
    char err[512];
    fmb_case_t *c = fmb_case_load(path, NULL, 0, err, sizeof err);
    if (!c) {
        fprintf(stderr, "friction: %s\n", err);
        failures++;
    } else {
        const fmb_joint_desc_t *g1 = fmb_case_joint_desc(c, 0), *g2 = fmb_case_joint_desc(c, 1);
        const fmb_joint_desc_t *g3 = fmb_case_joint_desc(c, 2);
        CHECK(g1 && g2 && g3);
        if (g1 && g2 && g3) {
            const fmb_friction_desc_t *a = &g1->friction, *d = &g2->friction;
            CHECK(!strcmp(a->model, "lugre"));
            NEAR(a->a, 0.5, 0);
            NEAR(a->b, 0.04, 1e-17);
            NEAR(a->mu, 0.3, 0);
            NEAR(a->mu0, 0.4, 0);
            NEAR(a->sigma0, 1e5, 0);
            NEAR(a->sigma1, 200, 0);
            NEAR(a->sigma2, 0.5, 0);
            NEAR(a->vs, 1e-3, 0);
            NEAR(a->gamma, 1.5, 0);
            NEAR(a->v_stick, 1e-5, 0);
            /* defaults: the shipped slider cases' LuGre parameters, b = 0, v_stick = 1e-4 */
            CHECK(!strcmp(d->model, "lugre"));
            NEAR(d->a, 0.3, 0);
            NEAR(d->b, 0, 0);
            NEAR(d->mu, 0.56, 0);
            NEAR(d->mu0, 0.75, 0);
            NEAR(d->sigma0, 1.3e6, 0);
            NEAR(d->sigma1, 350, 0);
            NEAR(d->sigma2, 0, 0);
            NEAR(d->vs, 0.0009, 0);
            NEAR(d->gamma, 2, 0);
            NEAR(d->v_stick, 1e-4, 0);
            CHECK(!g3->friction.model);
        }
        fmb_model_t *m = fmb_case_model(c);
        CHECK(fmb_model_joint_has_friction(m, 0) && fmb_model_joint_has_friction(m, 1));
        CHECK(!fmb_model_joint_has_friction(m, 2));
        fmb_case_destroy(&c);
    }
    remove(path);

    /* the shipped cases: their LuGre parameters, the force's offset S as a parameter */
    static const char *const files[] = {"slider_lugre_1.yaml", "slider_lugre_2.yaml",
                                        "slider_pendulum.yaml"};
    static const double bs[] = {0.1, 0.54, 0.1};
    for (int k = 0; k < 3; k++) {
        c = load(dir, files[k], NULL, 0);
        if (!c) continue;
        fmb_model_t *m = fmb_case_model(c);
        int j = fmb_model_find_joint(m, "guide");
        const fmb_joint_desc_t *g = j >= 0 ? fmb_case_joint_desc(c, j) : NULL;
        CHECK(g != NULL && fmb_model_joint_has_friction(m, j));
        if (g) {
            CHECK(!strcmp(g->type, "prismatic") && !strcmp(g->friction.model, "lugre"));
            NEAR(g->friction.a, 0.3, 0);
            NEAR(g->friction.b, bs[k], 0);
            NEAR(g->friction.sigma0, 1.3e6, 0);
            NEAR(g->friction.sigma1, 350, 0);
            NEAR(g->friction.mu, 0.56, 0);
            NEAR(g->friction.mu0, 0.75, 0);
            NEAR(g->friction.vs, 0.0009, 0);
        }
        fmb_case_destroy(&c);
    }
    const char *ov[] = {"S=0.05", "t_end=0.5"};
    c = load(dir, "slider_lugre_1.yaml", ov, 2);
    if (c) {
        double xy[2] = {0, 0};
        int b = fmb_model_find_body(fmb_case_model(c), "slider");
        CHECK(fmb_model_find_body_point(fmb_case_model(c), b, "P", xy) >= 0);
        NEAR(xy[1], 0.05, 0);
        NEAR(fmb_case_options(c)->t_end, 0.5, 0);
        fmb_case_destroy(&c);
    }
}

/* fmb_case_load_text: the same model as from the file, messages and relative paths taken
 * from the given name; a beam's generated node points still refuse a user point of the
 * same name. */
static void test_load_text(const char *dir)
{
    char path[512], err[1024];
    snprintf(path, sizeof path, "%s/quick_return.yaml", dir);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f) return;
    static char text[65536];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    fmb_case_t *a = fmb_case_load(path, NULL, 0, err, sizeof err);
    fmb_case_t *b = fmb_case_load_text(path, text, len, NULL, 0, err, sizeof err);
    CHECK(a && b);
    if (a && b) {
        fmb_model_t *ma = fmb_case_model(a), *mb = fmb_case_model(b);
        CHECK(fmb_model_num_coords(ma) == fmb_model_num_coords(mb));
        CHECK(fmb_model_num_constraints(ma) == fmb_model_num_constraints(mb));
        CHECK(fmb_model_num_bodies(ma) == fmb_model_num_bodies(mb));
        CHECK(strcmp(fmb_case_text(a), fmb_case_text(b)) == 0);
    }
    fmb_case_destroy(&a);
    fmb_case_destroy(&b);
    /* line 3, column 8 of the text: the unknown parameter */
    static const char bad[] = "parameters:\n  a: 1\nbodies: [{name: b, mass: zz, inertia: 1}]\n";
    b = fmb_case_load_text("mem.yaml", bad, sizeof bad - 1, NULL, 0, err, sizeof err);
    CHECK(b == NULL && strncmp(err, "mem.yaml:3:", 11) == 0 && strstr(err, "zz"));
    static const char dup[] =
        "bodies:\n  - name: b\n    beam: {E: 2e11, rho: 7800, section: {circle: 0.01}, length: 1,"
        " elements: 4}\n    points: {n3: [0.5, 0]}\n";
    b = fmb_case_load_text("mem.yaml", dup, sizeof dup - 1, NULL, 0, err, sizeof err);
    CHECK(b == NULL && strstr(err, "duplicate point 'n3'"));
    if (b == NULL) printf("  duplicate node point: %s\n", err);
    fmb_case_destroy(&b);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "cases";
    test_four_bar(dir);
    test_overrides(dir);
    test_pendulum_slider(dir);
    test_scratch();
    test_beams(dir);
    test_friction(dir);
    test_load_text(dir);
    if (failures) {
        fprintf(stderr, "test_case_load: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_case_load: all checks passed\n");
    return 0;
}

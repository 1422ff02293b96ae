/* flexmb check and flexmb modes. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* ---------------------------------------------------------------- check */

static const char *body_name(const fmb_model_t *m, int b)
{
    const char *s = b >= 0 ? fmb_model_body_name(m, b) : NULL;
    return s ? s : "-";
}

/* ---------------------------------------------------------------- plausibility */

/* Engineering ranges of beam data (docs/case-format.md, "Plausibility checks"): outside
 * them a value is most likely a unit slip, and the first factor that brings it into range
 * names the slip. */
typedef struct slip {
    double factor;
    const char *text;
} slip_t;

static const char *slip_name(double v, double lo, double hi, const slip_t *cands)
{
    for (int k = 0; cands[k].text; k++)
        if (v * cands[k].factor >= lo && v * cands[k].factor <= hi) return cands[k].text;
    return NULL;
}

/* One range check: a warning on stderr when v is outside [lo, hi]. Returns 1 if warned. */
static int plausible(const char *path, const char *beam, const char *what, double v,
                     const char *unit, double lo, double hi, const slip_t *low,
                     const slip_t *high, const char *range)
{
    if (v >= lo && v <= hi) return 0;
    const char *why = slip_name(v, lo, hi, v < lo ? low : high);
    fprintf(stderr,
            "%s: warning: beam '%s': %s = %g %s is outside the engineering range (%s)%s%s\n",
            path, beam, what, v, unit, range, why ? ": " : "", why ? why : "");
    return 1;
}

#define E_MIN 5e5     /* Pa: soft rubber */
#define E_MAX 1.2e12  /* Pa: diamond */
#define RHO_MIN 10    /* kg/m^3: foams */
#define RHO_MAX 23000 /* kg/m^3: osmium */
#define LEN_MIN 1e-4  /* m */
#define LEN_MAX 100   /* m */
#define SEC_MIN 1e-4  /* m: equivalent diameter sqrt(4 A / pi) */
#define SEC_MAX 2     /* m */

/* Unit plausibility of every beam's material, length and section: the count of warnings. */
static int check_units(const char *path, const fmb_model_t *m)
{
    static const slip_t e_low[] = {{1e9, "GPa written as Pa? (200 GPa = 200e9 Pa)"},
                                   {1e6, "MPa written as Pa? (210000 MPa = 210e9 Pa)"},
                                   {0, NULL}};
    static const slip_t e_high[] = {{1e-3, "a factor 1000 too large (an extra e3?)"},
                                    {1e-6, "a factor 1e6 too large (an extra e6?)"},
                                    {0, NULL}};
    static const slip_t r_low[] = {{1e3, "g/cm^3 written as kg/m^3? (7.8 g/cm^3 = 7800 kg/m^3)"},
                                   {1e12, "t/mm^3 (N-mm-s units) written as kg/m^3? (7.8e-9 "
                                          "t/mm^3 = 7800 kg/m^3)"},
                                   {0, NULL}};
    static const slip_t r_high[] = {{1e-3, "g/m^3 written as kg/m^3? (a factor 1000 too large)"},
                                    {0, NULL}};
    static const slip_t l_low[] = {{1e3, "a factor 1000 too small (km? m written as mm?)"},
                                   {0, NULL}};
    static const slip_t l_high[] = {{1e-3, "mm written as m? (600 mm = 0.6 m)"}, {0, NULL}};
    static const slip_t s_low[] = {{1e3, "a factor 1000 too small"}, {0, NULL}};
    static const slip_t s_high[] = {{1e-3, "mm written as m? (a 12 mm rod: circle: 0.012)"},
                                    {0, NULL}};
    int n = 0;
    for (int b = 1; b < fmb_model_num_bodies(m); b++) {
        fmb_beam_props_t p;
        if (fmb_model_beam_props(m, b, &p)) continue;
        const char *nm = fmb_model_body_name(m, b);
        const double d = sqrt(4 * p.A / 3.14159265358979323846), r = sqrt(p.I / p.A);
        n += plausible(path, nm, "E", p.E, "Pa", E_MIN, E_MAX, e_low, e_high,
                       "5e5 Pa rubber .. 1.2e12 Pa diamond; steel 200e9");
        n += plausible(path, nm, "rho", p.rho, "kg/m^3", RHO_MIN, RHO_MAX, r_low, r_high,
                       "10 foam .. 23000 osmium; steel 7800");
        n += plausible(path, nm, "length", p.length, "m", LEN_MIN, LEN_MAX, l_low, l_high,
                       "0.1 mm .. 100 m");
        if (plausible(path, nm, "section size sqrt(4 A/pi)", d, "m", SEC_MIN, SEC_MAX, s_low,
                      s_high, "0.1 mm .. 2 m")) {
            n++;
        } else if (d > 0.5 * p.length) {
            fprintf(stderr,
                    "%s: warning: beam '%s': section size sqrt(4 A/pi) = %g m is more than half "
                    "its length %g m: not a slender beam (Euler-Bernoulli); a section or length "
                    "in other units?\n",
                    path, nm, d, p.length);
            n++;
        }
        /* radius of gyration against the section size: solid 0.25 .. 0.3, thin tubes and
         * I sections a few; far outside, A and I are in different units (mm^4 with m^2) */
        if (!(r >= 0.05 * d && r <= 10 * d)) {
            fprintf(stderr,
                    "%s: warning: beam '%s': radius of gyration sqrt(I/A) = %g m against section "
                    "size sqrt(4 A/pi) = %g m (expected 0.05 .. 10 times): A and I in different "
                    "units (e.g. I in mm^4 with A in m^2)?\n",
                    path, nm, r, d);
            n++;
        }
    }
    return n;
}

/* The constant speed of angle driver j over [0, t_end] (|f'|, rad/s), or 0 when its rate
 * varies (f'' != 0 or f' different at 0, t_end/3, 2 t_end/3, t_end). */
static double constant_speed(const fmb_model_t *m, int j, double t_end)
{
    int col;
    const char *dn = fmb_model_joint_drive(m, j, &col);
    if (!dn || strcmp(dn, "drive_torque") != 0) return 0.0;
    double w0, a0;
    if (fmb_model_joint_drive_rate(m, j, 0.0, &w0, &a0) || w0 == 0.0) return 0.0;
    for (int k = 0; k <= 3; k++) {
        double w, acc;
        fmb_model_joint_drive_rate(m, j, t_end * k / 3.0, &w, &acc);
        if (!(fabs(w - w0) <= 1e-9 * fabs(w0)) || !(fabs(acc) <= 1e-9 * fabs(w0))) return 0.0;
    }
    return fabs(w0);
}

#define RES_HARMONICS 3  /* drive harmonics k Omega checked */
#define RES_BAND 0.15    /* |omega - k Omega| <= RES_BAND k Omega: near resonance */
#define MODES_DENSE_MAX 600 /* mechanism modes (dense) up to this many coordinates */

/* Each beam's first elastic frequency at the start configuration against the speed of the
 * constant-speed drivers; warnings near resonance. The count of warnings. */
static int check_frequencies(const char *path, fmb_model_t *m, fmb_sim_t *sim, double t_end)
{
    const int nb = fmb_model_num_bodies(m), nj = fmb_model_num_joints(m);
    int nbeams = 0, nwarn = 0;
    for (int b = 1; b < nb; b++)
        nbeams += fmb_model_body_is_beam(m, b) > 0;
    if (nbeams == 0) return 0;
    enum { NM = 12 };
    double om[NM], *share = malloc((size_t)NM * (size_t)nb * sizeof *share);
    int nm = share && fmb_model_num_coords(m) <= MODES_DENSE_MAX
                 ? fmb_sim_modes(sim, NM, om, NULL, share, NULL)
                 : -1;
    printf("\nbeam frequencies (first elastic mode; drive speeds of constant-speed drivers):\n");
    for (int b = 1; b < nb; b++) {
        if (fmb_model_body_is_beam(m, b) <= 0) continue;
        const char *bn = fmb_model_body_name(m, b);
        double alone = NAN, w = NAN, sh = 0.0;
        fmb_model_beam_modes(m, b, &alone, 1);
        for (int k = 0; k < nm; k++) /* the lowest mechanism mode that moves the beam */
            if (om[k] > 0 && share[(size_t)nb * k + b] >= 0.01) {
                w = om[k], sh = share[(size_t)nb * k + b];
                break;
            }
        printf("  beam %-16s alone (reference conditions) %.6g rad/s (%.4g Hz)", bn, alone,
               alone / (2 * 3.14159265358979323846));
        if (w == w)
            printf("; in the mechanism at the start %.6g rad/s (%.4g Hz, beam's kinetic share "
                   "%.0f %%)\n",
                   w, w / (2 * 3.14159265358979323846), 100 * sh);
        else
            printf("\n");
        const double f1 = w == w ? w : alone;
        for (int j = 0; j < nj; j++) {
            const double W = constant_speed(m, j, t_end);
            if (!(W > 0) || !(f1 > 0)) continue;
            printf("    drive '%s' %.6g rad/s: frequency / speed = %.3g\n",
                   fmb_model_joint_name(m, j), W, f1 / W);
            if (f1 < (1 - RES_BAND) * W) {
                fprintf(stderr,
                        "%s: warning: beam '%s': first elastic frequency %.4g rad/s is below "
                        "the speed %.4g rad/s of drive '%s': the beam runs above its first "
                        "resonance (too flexible for this speed, or E, the section or their units "
                        "are off)\n",
                        path, bn, f1, W, fmb_model_joint_name(m, j));
                nwarn++;
                continue;
            }
            for (int k = 1; k <= RES_HARMONICS; k++)
                if (fabs(f1 - k * W) <= RES_BAND * k * W) {
                    fprintf(stderr,
                            "%s: warning: beam '%s': first elastic frequency %.4g rad/s is "
                            "within %.0f %% of %d x the speed %.4g rad/s of drive '%s': near "
                            "resonance (the deflection builds up over the revolutions); change "
                            "the speed or stiffen the beam\n",
                            path, bn, f1, 100 * RES_BAND, k, W, fmb_model_joint_name(m, j));
                    nwarn++;
                    break;
                }
        }
    }
    free(share);
    return nwarn;
}

int cli_cmd_check(const cli_args_t *a)
{
    fmb_case_t *c = cli_load_case(a);
    if (!c) return EXIT_CASE;
    fmb_model_t *m = fmb_case_model(c);
    int nb = fmb_model_num_bodies(m), nj = fmb_model_num_joints(m);
    int nf = fmb_model_num_forces(m);

    printf("case: %s\n", a->case_path);
    printf("\nbodies (%d, ground excluded):\n", nb - 1);
    printf("  %-20s %12s %12s %7s %5s %7s\n", "name", "mass [kg]", "inertia", "offset", "ndof",
           "points");
    for (int b = 1; b < nb; b++)
        printf("  %-20s %12.6g %12.6g %7d %5d %7d\n", body_name(m, b), fmb_model_body_mass(m, b),
               fmb_model_body_inertia(m, b), fmb_model_body_offset(m, b), fmb_model_body_ndof(m, b),
               fmb_model_body_num_points(m, b));
    printf("\njoints (%d):\n", nj);
    printf("  %-20s %-14s %-16s %-16s %5s\n", "name", "type", "body 1", "body 2", "rows");
    for (int j = 0; j < nj; j++) {
        int jb[2];
        fmb_model_joint_bodies(m, j, jb);
        const char *tn = fmb_model_joint_type_name(m, j);
        printf("  %-20s %-14s %-16s %-16s %5d\n", fmb_model_joint_name(m, j), tn ? tn : "?",
               body_name(m, jb[0]), body_name(m, jb[1]), fmb_model_joint_rows(m, j));
    }
    printf("\nforces (%d):\n", nf);
    if (nf > 0) printf("  %-20s %-14s %-16s %s\n", "name", "type", "body 1", "body 2");
    for (int f = 0; f < nf; f++) {
        int fb[2];
        fmb_model_force_bodies(m, f, fb);
        const char *tn = fmb_model_force_type_name(m, f);
        if (fb[1] >= 0)
            printf("  %-20s %-14s %-16s %s\n", fmb_model_force_name(m, f), tn ? tn : "?",
                   body_name(m, fb[0]), body_name(m, fb[1]));
        else
            printf("  %-20s %-14s %s\n", fmb_model_force_name(m, f), tn ? tn : "?",
                   body_name(m, fb[0]));
    }
    printf("\ncoordinates: %d\nconstraints: %d\n", fmb_model_num_coords(m),
           fmb_model_num_constraints(m));
    const int unit_warnings = check_units(a->case_path, m);
    int freq_warnings = 0;

    fmb_check_report_t rep;
    memset(&rep, 0, sizeof rep);
    int st = fmb_model_check(m, &rep);
    int code = EXIT_OK;
    if (st < 0) {
        const char *msg = fmb_model_last_error(m);
        fprintf(stderr, "%s: error: %s\n", a->case_path,
                msg && *msg ? msg : fmb_status_message(st));
        code = EXIT_MODEL;
    }
    if (st >= 0) {
        printf("\nJacobian rank: %d\ndegrees of freedom: %d\nredundant constraints: %d\n",
               rep.jacobian_rank, rep.dof, rep.num_redundant);
        int shown = rep.num_redundant < 64 ? rep.num_redundant : 64;
        for (int k = 0; k < shown; k++) {
            int local = -1, row = rep.redundant_rows[k];
            int j = fmb_model_row_joint(m, row, &local);
            if (j >= 0)
                printf("  row %d: joint '%s' (%s) row %d\n", row, fmb_model_joint_name(m, j),
                       fmb_model_joint_type_name(m, j), local);
            else
                printf("  row %d\n", row);
        }
        if (rep.num_redundant > shown) printf("  ... and %d more\n", rep.num_redundant - shown);
        printf("max violation after assembly: %.3e\n", rep.max_violation);
    }
    if (st >= 0 && rep.num_redundant > 0) {
        fprintf(stderr, "%s: error: %d redundant constraint%s\n", a->case_path, rep.num_redundant,
                rep.num_redundant == 1 ? "" : "s");
        code = EXIT_MODEL;
    }
    if (code == EXIT_OK) {
        /* the consistent start: velocities the case gave that the joints do not allow */
        fmb_sim_t *sim = fmb_sim_create(fmb_case_model(c), fmb_case_options(c));
        if (sim && fmb_sim_initialize(sim) == 0) {
            if (cli_report_start_velocities(stdout, fmb_case_model(c), sim) == 0)
                printf("initial velocities: every given velocity is consistent with the joints "
                       "(elastic coordinates start at rest relative to their carrier frames)\n");
            /* switching elements and their modes at the consistent start */
            const fmb_model_t *mm = fmb_case_model(c);
            for (int f = 0, first = 1; f < fmb_model_num_forces(mm); f++) {
                int mode = -1;
                double fo = 0, vr = 0;
                if (fmb_sim_switch_state(sim, f, &mode, &fo, &vr)) continue;
                if (first)
                    printf("\nswitching elements (initial mode, force, relative velocity):\n");
                first = 0;
                const char *mn = fmb_model_force_mode_name(mm, f, mode);
                printf("  %-20s %-14s %-14s %12.6g %12.6g\n", fmb_model_force_name(mm, f),
                       fmb_model_force_type_name(mm, f), mn ? mn : "?", fo + 0.0, vr + 0.0);
            }
            freq_warnings =
                check_frequencies(a->case_path, fmb_case_model(c), sim, fmb_case_options(c)->t_end);
        } else if (sim) {
            fprintf(stderr, "%s: error: %s\n", a->case_path, fmb_sim_last_error(sim));
            code = EXIT_MODEL;
        }
        fmb_sim_destroy(&sim);
    }
    if (code == EXIT_OK && unit_warnings + freq_warnings)
        printf("OK, with %d unit and %d frequency warning%s (stderr)\n", unit_warnings,
               freq_warnings, unit_warnings + freq_warnings == 1 ? "" : "s");
    else if (code == EXIT_OK)
        printf("OK\n");
    fmb_case_destroy(&c);
    return code;
}

/* ---------------------------------------------------------------- modes */

/* Mechanism modes: the constrained system linearized at t = 0 or after a run to --at T. */
static int cmd_mech_modes(const cli_args_t *a)
{
    fmb_case_t *c = cli_load_case(a);
    if (!c) return EXIT_CASE;
    if (a->output) { /* the rule of run -o, before the work (docs/output.md) */
        char msg[1024] = "", *xmf = cli_xmf_path(a->output);
        int bad = !xmf ||
                  cli_output_refused(c, a->output, CLI_OUT_RESULTS, a->force, msg, sizeof msg) ||
                  cli_output_refused(c, xmf, CLI_OUT_XDMF, a->force, msg, sizeof msg);
        free(xmf);
        if (bad) {
            fprintf(stderr, "%s: error: %s\n", a->case_path, msg[0] ? msg : "out of memory");
            fmb_case_destroy(&c);
            return EXIT_CASE;
        }
    }
    fmb_model_t *m = fmb_case_model(c);
    fmb_sim_options_t o = *fmb_case_options(c);
    const double at = a->at > 0 ? a->at : 0.0;
    o.t_end = at;
    int code = EXIT_OK, nmax = a->nmodes > 0 ? a->nmodes : 6;
    const int nb = fmb_model_num_bodies(m);
    double *shapes = NULL;
    double *om = malloc((size_t)nmax * sizeof *om);
    double *share = malloc((size_t)nmax * (size_t)nb * sizeof *share);
    fmb_sim_t *s = fmb_sim_create(m, &o);
    if (!om || !share || !s) {
        fprintf(stderr, "flexmb: out of memory\n");
        code = EXIT_MODEL;
        goto done;
    }
    int rc = fmb_sim_initialize(s);
    if (rc == 0 && at > 0) {
        cli_install_handlers();
        rc = fmb_sim_run(s, NULL, NULL, &cli_stop);
    }
    if (rc) {
        fprintf(stderr, "%s: error: %s\n", a->case_path, fmb_sim_last_error(s));
        code = rc == FMB_ERR_INTERRUPTED ? EXIT_INTERRUPTED : at > 0 ? EXIT_RUN : EXIT_MODEL;
        goto done;
    }
    double asym = 0.0;
    if (a->output &&
        !(shapes = malloc((size_t)nmax * (size_t)fmb_model_num_coords(m) * sizeof *shapes + 1))) {
        fprintf(stderr, "flexmb: out of memory\n");
        code = EXIT_MODEL;
        goto done;
    }
    int n = fmb_sim_modes(s, nmax, om, shapes, share, &asym);
    if (n < 0) {
        fprintf(stderr, "%s: error: %s\n", a->case_path, fmb_sim_last_error(s));
        code = EXIT_MODEL;
        goto done;
    }
    printf("case: %s\n", a->case_path);
    printf("mechanism modes at t = %.9g s: %d coordinates, %d constraint equations\n",
           fmb_sim_time(s), fmb_model_num_coords(m), fmb_model_num_constraints(m));
    printf("linearized with the velocities, accelerations and multipliers of that state "
           "frozen; stiffness asymmetry %.2g (docs/theory.md, \"Mechanism modes\")\n",
           asym);
    printf("  %4s %16s %14s   %s\n", "mode", "omega [rad/s]", "f [Hz]", "kinetic energy by body");
    for (int k = 0; k < n; k++) {
        printf("  %4d %16.8g %14.8g  ", k + 1, om[k], om[k] / (2 * 3.14159265358979323846));
        const double *sh = share + (size_t)nb * k;
        for (int shown = 0; shown < 3; shown++) { /* the three largest shares */
            int best = 0;
            for (int b = 1; b < nb; b++)
                if (sh[b] > sh[best]) best = b;
            if (best == 0 || sh[best] < 0.005) break;
            printf(" %s %.0f%%", fmb_model_body_name(m, best), 100 * sh[best]);
            share[(size_t)nb * k + best] = -1.0;
        }
        putchar('\n');
    }
    if (n < nmax) printf("(%d requested; the mechanism has %d degrees of freedom)\n", nmax, n);
    int negative = 0;
    for (int k = 0; k < n; k++)
        negative |= om[k] < 0;
    if (negative)
        printf("(negative omega: a statically unstable direction, omega = -sqrt(-lambda))\n");
    if (a->output && n > 0) {
        char err[1024] = "";
        /* share was overwritten by the listing: recompute */
        fmb_sim_modes(s, nmax, om, shapes, share, NULL);
        if (fmb_sim_write_modes(s, a->output, n, om, shapes, share, 0.05, err, sizeof err) < 0) {
            fprintf(stderr, "%s: error: %s\n", a->case_path, err[0] ? err : "cannot write");
            code = EXIT_RUN;
        } else {
            printf("mode shapes: %s (record k = mode k; open the .xmf in ParaView)\n", a->output);
        }
    }
done:
    fmb_sim_destroy(&s);
    free(om), free(share), free(shapes);
    fmb_case_destroy(&c);
    return code;
}

int cli_cmd_modes(const cli_args_t *a)
{
    if (!a->arg2) return cmd_mech_modes(a);
    fmb_case_t *c = cli_load_case(a);
    if (!c) return EXIT_CASE;
    fmb_model_t *m = fmb_case_model(c);
    int code = EXIT_OK;
    double *om = NULL;
    int b = fmb_model_find_body(m, a->arg2);
    if (b < 0) {
        fprintf(stderr, "%s: error: no body named '%s'", a->case_path, a->arg2);
        int nb = fmb_model_num_bodies(m), shown = 0;
        for (int k = 1; k < nb; k++)
            if (fmb_model_body_is_beam(m, k) > 0)
                fprintf(stderr, "%s'%s'", shown++ ? ", " : " (beams: ", fmb_model_body_name(m, k));
        fputs(shown ? ")\n" : " (the case has no beam body)\n", stderr);
        code = EXIT_CASE;
        goto done;
    }
    if (fmb_model_body_is_beam(m, b) <= 0) {
        fprintf(stderr, "%s: error: body '%s' is rigid: natural frequencies need a beam body\n",
                a->case_path, a->arg2);
        code = EXIT_MODEL;
        goto done;
    }
    int nmax = a->nmodes > 0 ? a->nmodes : 6;
    om = malloc((size_t)nmax * sizeof *om);
    if (!om) {
        fprintf(stderr, "flexmb: out of memory\n");
        code = EXIT_MODEL;
        goto done;
    }
    int n = fmb_model_beam_modes(m, b, om, nmax);
    if (n < 0) {
        const char *msg = fmb_model_last_error(m);
        fprintf(stderr, "%s: error: %s\n", a->case_path, msg && *msg ? msg : fmb_status_message(n));
        code = EXIT_MODEL;
        goto done;
    }
    int nn = fmb_model_beam_num_nodes(m, b);
    double len = fmb_model_beam_node_x(m, b, nn - 1) - fmb_model_beam_node_x(m, b, 0);
    printf("case: %s\n", a->case_path);
    printf("beam '%s': %d nodes, %d elements, length %.6g m, mass %.6g kg, %d elastic "
           "coordinates\n",
           fmb_model_body_name(m, b), nn, nn - 1, len, fmb_model_body_mass(m, b),
           fmb_model_body_ndof(m, b) - 3);
    printf("natural frequencies under the reference conditions (K phi = omega^2 M phi):\n");
    printf("  %4s %16s %14s\n", "mode", "omega [rad/s]", "f [Hz]");
    for (int k = 0; k < n; k++)
        printf("  %4d %16.8g %14.8g\n", k + 1, om[k], om[k] / (2 * 3.14159265358979323846));
    if (n < nmax) printf("(%d requested; the model has %d elastic coordinates)\n", nmax, n);
done:
    free(om);
    fmb_case_destroy(&c);
    return code;
}

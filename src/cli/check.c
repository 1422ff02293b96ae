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
        } else if (sim) {
            fprintf(stderr, "%s: error: %s\n", a->case_path, fmb_sim_last_error(sim));
            code = EXIT_MODEL;
        }
        fmb_sim_destroy(&sim);
    }
    if (code == EXIT_OK) printf("OK\n");
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

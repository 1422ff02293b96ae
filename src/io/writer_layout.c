/* Layout of a results file (docs/output.md): the groups and datasets of the bodies,
 * beams, joints, forces, contacts and switching elements, and the run's attributes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bodies/beam.h"
#include "io/h5util.h"
#include "io/writer_impl.h"
#include "model/model.h"
#include "model/table.h"

static const char *integrator_name(fmb_integrator it)
{
    return it == FMB_NEWMARK             ? "newmark"
           : it == FMB_GENERALIZED_ALPHA ? "generalized_alpha"
                                         : "hht";
}

static int make_columns(int ndof, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < ndof; i++) {
        static const char *const carrier[3] = {"rbar_x", "rbar_y", "theta"};
        int n = i < 3 ? snprintf(out + used, len - used, "%s%s", i ? "," : "", carrier[i])
                      : snprintf(out + used, len - used, ",e%d", i - 2);
        if (n < 0 || (size_t)n >= len - used) return -1;
        used += (size_t)n;
    }
    return 0;
}

/* /beams/<body>/{x0, points, deflection} for every beam body. */
static int write_beams_layout(fmb_writer_t *w)
{
    const fmb_model_t *m = w->model;
    hid_t gbeams = -1;
    int st = 0;
    for (int i = 0; i < w->nbodies && st >= 0; i++) {
        wbody_t *wb = &w->bodies[i];
        wb->ds_bpoints = wb->ds_bdefl = wb->ds_bslope = wb->ds_bforces = wb->ds_bstress = -1;
        if (fmb_model_body_is_beam(m, wb->b) <= 0) continue;
        int nn = fmb_model_beam_num_nodes(m, wb->b);
        if (nn < 2) continue;
        if (gbeams < 0 &&
            (gbeams = H5Gcreate2(w->file, "beams", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0)
            return fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot create group /beams", w->h5path);
        wb->nnodes = nn;
        wb->bx = malloc(3 * (size_t)nn * sizeof *wb->bx);
        if (!wb->bx) {
            st = fmb_writer_err(w, FMB_ERR_NOMEM, "out of memory");
            break;
        }
        wb->by = wb->bx + nn;
        double *x0 = wb->bx + 2 * nn; /* scratch, also the node positions once */
        const fmb_beam_t *bm = m->bodies[wb->b].data;
        wb->slope_col = malloc((size_t)nn * sizeof *wb->slope_col);
        if (!wb->slope_col) {
            st = fmb_writer_err(w, FMB_ERR_NOMEM, "out of memory");
            break;
        }
        for (int k = 0; k < nn; k++)
            wb->slope_col[k] = bm->dof[3 * k + 2]; /* u, v, phi per node */
        for (int k = 0; k < nn; k++)
            x0[k] = fmb_model_beam_node_x(m, wb->b, k);
        char name[FMB_NAME_MAX + 8];
        fmb_h5_link_name(fmb_model_body_name(m, wb->b), name, sizeof name);
        hid_t g = H5Gcreate2(gbeams, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (g < 0) {
            st = fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot create group /beams/%s", w->h5path,
                                name);
            break;
        }
        const char *ref = bm->reference == FMB_BEAM_CANTILEVER ? "cantilever" : "simply_supported";
        if (fmb_h5_double_list(g, "x0", x0, (hsize_t)nn) < 0 ||
            fmb_h5_attr_int(g, "index", wb->b) < 0 || fmb_h5_attr_int(g, "nnodes", nn) < 0 ||
            fmb_h5_attr_string(g, "reference", ref) < 0 ||
            fmb_h5_attr_string(g, "geometry",
                               bm->geometry == FMB_BEAM_NONLINEAR ? "nonlinear" : "linear") < 0 ||
            fmb_h5_attr_double(g, "E", bm->E) < 0 || fmb_h5_attr_double(g, "A", bm->A) < 0 ||
            fmb_h5_attr_double(g, "I", bm->I) < 0 || fmb_h5_attr_double(g, "c", bm->c) < 0 ||
            fmb_h5_attr_double(g, "yield", bm->yield) < 0)
            st = fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot write /beams/%s/x0", w->h5path, name);
        hsize_t t2[2] = {(hsize_t)nn, 3}, t1[1] = {(hsize_t)nn};
        if (st >= 0) wb->ds_bpoints = st = fmb_writer_ds_create(w, g, "points", 0, 3, t2, "x,y,z");
        if (st >= 0) wb->ds_bdefl = st = fmb_writer_ds_create(w, g, "deflection", 0, 2, t1, NULL);
        if (st >= 0) wb->ds_bslope = st = fmb_writer_ds_create(w, g, "slope", 0, 2, t1, NULL);
        hsize_t tf[2] = {(hsize_t)nn, 2};
        if (st >= 0) wb->ds_bforces = st = fmb_writer_ds_create(w, g, "forces", 0, 3, tf, "N,M");
        if (st >= 0 && bm->c > 0)
            wb->ds_bstress = st =
                fmb_writer_ds_create(w, g, "stress", 0, 3, t2, "axial,bending,combined");
        H5Gclose(g);
    }
    if (gbeams >= 0) H5Gclose(gbeams);
    return st < 0 ? st : 0;
}

/* /<group>/<joint>/<name> for every joint with extra outputs (e.g. /sliders/D/s). */
static int write_outputs_layout(fmb_writer_t *w)
{
    const fmb_model_t *m = w->model;
    int st = 0;
    for (int i = 0; i < w->njoints && st >= 0; i++) {
        wjoint_t *wj = &w->joints[i];
        int n = fmb_model_joint_num_outputs(m, wj->j);
        const char *group = n > 0 ? fmb_model_joint_output_group(m, wj->j) : NULL;
        if (n <= 0 || !group || !*group) continue;
        if (n > WRITER_MAX_OUTPUTS) n = WRITER_MAX_OUTPUTS;
        char gname[FMB_NAME_MAX + 8], jname[FMB_NAME_MAX + 8];
        fmb_h5_link_name(group, gname, sizeof gname);
        fmb_h5_link_name(fmb_model_joint_name(m, wj->j), jname, sizeof jname);
        hid_t gg = fmb_h5_group(w->file, gname);
        hid_t g = gg >= 0 ? H5Gcreate2(gg, jname, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
        if (g < 0)
            st = fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot create group /%s/%s", w->h5path, gname,
                                jname);
        if (st >= 0) {
            const char *tn = fmb_model_joint_type_name(m, wj->j);
            if (fmb_h5_attr_int(g, "joint_index", wj->j) < 0 ||
                fmb_h5_attr_string(g, "type", tn ? tn : "") < 0)
                st = fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot write /%s/%s attributes",
                                    w->h5path, gname, jname);
        }
        for (int k = 0; k < n && st >= 0; k++) {
            char oname[FMB_NAME_MAX + 8];
            fmb_h5_link_name(fmb_model_joint_output_name(m, wj->j, k), oname, sizeof oname);
            wj->ds_out[k] = st = fmb_writer_ds_create(w, g, oname, 0, 1, NULL, NULL);
        }
        if (st >= 0) wj->noutputs = n;
        if (g >= 0) H5Gclose(g);
        if (gg >= 0) H5Gclose(gg);
    }
    return st < 0 ? st : 0;
}

/* /<group>/<name> for every force whose class has extra outputs (docs/output.md). */
static int write_force_outputs_layout(fmb_writer_t *w)
{
    const fmb_model_t *m = w->model;
    const int nf = fmb_model_num_forces(m);
    w->forces = calloc(nf > 0 ? (size_t)nf : 1, sizeof *w->forces);
    if (!w->forces) return fmb_writer_err(w, FMB_ERR_NOMEM, "out of memory");
    int st = 0;
    for (int i = 0; i < nf && st >= 0; i++) {
        int n = fmb_model_force_num_outputs(m, i);
        char group[256];
        if (n <= 0 || fmb_model_force_output_group(m, i, group, sizeof group)) continue;
        if (n > WRITER_MAX_OUTPUTS) n = WRITER_MAX_OUTPUTS;
        wforce_t *wf = &w->forces[w->nforces];
        hid_t g = fmb_h5_path_group(w->file, group);
        if (g < 0)
            return fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot create group /%s", w->h5path, group);
        const char *tn = fmb_model_force_type_name(m, i);
        if (fmb_h5_attr_int(g, "force_index", i) < 0 ||
            fmb_h5_attr_string(g, "type", tn ? tn : "") < 0)
            st = fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot write /%s attributes", w->h5path,
                                group);
        wf->f = i;
        for (int k = 0; k < n && st >= 0; k++) {
            char oname[FMB_NAME_MAX + 8];
            fmb_h5_link_name(fmb_model_force_output_name(m, i, k), oname, sizeof oname);
            const int width = fmb_model_force_output_width(m, i, k);
            hsize_t tail[1] = {(hsize_t)width};
            wf->ds[k] = st =
                width > 1 ? fmb_writer_ds_create(w, g, oname, 0, 2, tail, width == 2 ? "x,y" : NULL)
                          : fmb_writer_ds_create(w, g, oname, 0, 1, NULL, NULL);
            wf->width[k] = width;
            wf->total += width;
        }
        H5Gclose(g);
        if (st >= 0) {
            wf->n = n;
            w->nforces++;
        }
    }
    return st < 0 ? st : 0;
}

/* /contacts/<joint>/... for every joint with friction (seed 000; docs/output.md). */
static int write_contacts_layout(fmb_writer_t *w)
{
    const fmb_model_t *m = w->model;
    int st = 0;
    hid_t gc = -1;
    for (int i = 0; i < w->njoints && st >= 0; i++) {
        wjoint_t *wj = &w->joints[i];
        if (!fmb_model_joint_has_friction(m, wj->j)) continue;
        const fmb_friction_desc_t *f = &m->joints[wj->j].friction;
        if (gc < 0 && (gc = fmb_h5_group(w->file, "contacts")) < 0)
            return fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot create group /contacts", w->h5path);
        char name[FMB_NAME_MAX + 8];
        fmb_h5_link_name(fmb_model_joint_name(m, wj->j), name, sizeof name);
        hid_t g = H5Gcreate2(gc, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (g < 0) {
            st = fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot create group /contacts/%s", w->h5path,
                                name);
            break;
        }
        /* the model's name and its parameters, from the friction-model class's table */
        const fmb_friction_class_t *fk = fmb_friction_class_for(f->model);
        int bad = fmb_h5_attr_int(g, "joint_index", wj->j) |
                  fmb_h5_attr_string(g, "model", fk ? fk->name : "unknown");
        for (const fmb_param_t *p = fk ? fk->params : NULL; p && p->kind != FMB_PARAM_END; p++)
            if (p->kind == FMB_PARAM_NUMBER) {
                double x;
                memcpy(&x, (const char *)f + p->offset, sizeof x);
                bad |= fmb_h5_attr_double(g, p->key, x);
            }
        if (bad)
            st = fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot write /contacts/%s attributes",
                                w->h5path, name);
        hsize_t t4[1] = {4};
        const char *corners = "F1+,F2+,F1-,F2-";
        if (st >= 0 &&
            (wj->ds_normal = st = fmb_writer_ds_create(w, g, "normal", 0, 2, t4, corners)) >= 0 &&
            (wj->ds_friction = st = fmb_writer_ds_create(w, g, "friction", 0, 2, t4, corners)) >=
                0 &&
            (wj->ds_ftotal = st = fmb_writer_ds_create(w, g, "friction_total", 0, 1, NULL, NULL)) >=
                0 &&
            (wj->ds_mode = st = fmb_writer_ds_create(w, g, "mode", 1, 1, NULL, NULL)) >= 0 &&
            (wj->ds_stick = st = fmb_writer_ds_create(w, g, "stick", 1, 1, NULL, NULL)) >= 0 &&
            (wj->ds_z = st = fmb_writer_ds_create(w, g, "z", 0, 1, NULL, NULL)) >= 0)
            wj->ds_v = st = fmb_writer_ds_create(w, g, "v", 0, 1, NULL, NULL);
        if (st >= 0 && fmb_h5_attr_string(w->ds[wj->ds_mode].id, "values",
                                          "0 none, 1 single point, 2 single face, 3 diagonal") < 0)
            st = fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot write /contacts/%s/mode attributes",
                                w->h5path, name);
        if (st >= 0) {
            wj->contact = 1;
            wj->v_stick = f->v_stick;
        }
        H5Gclose(g);
    }
    if (gc >= 0) H5Gclose(gc);
    return st < 0 ? st : 0;
}

/* The table files the expressions read: /solver@tables (paths as opened),
 * @table_kinds ("table" or "spline"), @table_sha256 (hex digests); absent when none. */
static int table_attrs(hid_t solver, const fmb_tableset_t *set)
{
    const int n = fmb_tableset_count(set);
    if (n == 0) return 0;
    const char **v = malloc(3 * (size_t)n * sizeof *v);
    if (!v) return -1;
    for (int k = 0; k < n; k++) {
        const fmb_table_t *tb = fmb_tableset_item(set, k);
        v[k] = fmb_table_path(tb);
        v[n + k] = fmb_table_is_spline(tb) ? "spline" : "table";
        v[2 * n + k] = fmb_table_sha256(tb);
    }
    int bad = fmb_h5_attr_strings(solver, "tables", v, (hsize_t)n) < 0;
    bad |= fmb_h5_attr_strings(solver, "table_kinds", v + n, (hsize_t)n) < 0;
    bad |= fmb_h5_attr_strings(solver, "table_sha256", v + 2 * n, (hsize_t)n) < 0;
    free(v);
    return bad ? -1 : 0;
}

/* /switches/<force>/{mode, force, relative_velocity} for every switching element
 * (seed 004; docs/switching.md, docs/output.md). */
static int write_switches_layout(fmb_writer_t *w)
{
    const fmb_model_t *m = w->model;
    const int nf = fmb_model_num_forces(m);
    int n = 0, st = 0;
    for (int f = 0; f < nf; f++)
        n += fmb_model_force_is_switching(m, f);
    if (!n) return 0;
    if (!(w->sws = calloc((size_t)n, sizeof *w->sws)))
        return fmb_writer_err(w, FMB_ERR_NOMEM, "out of memory");
    hid_t gs = fmb_h5_group(w->file, "switches");
    if (gs < 0)
        return fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot create group /switches", w->h5path);
    for (int f = 0; f < nf && st >= 0; f++) {
        if (!fmb_model_force_is_switching(m, f)) continue;
        char name[FMB_NAME_MAX + 8], modes[256] = "";
        fmb_h5_link_name(fmb_model_force_name(m, f), name, sizeof name);
        hid_t g = H5Gcreate2(gs, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (g < 0) {
            st = fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot create group /switches/%s", w->h5path,
                                name);
            break;
        }
        for (int k = 0; fmb_model_force_mode_name(m, f, k); k++) {
            size_t l = strlen(modes);
            snprintf(modes + l, sizeof modes - l, "%s%d %s", k ? ", " : "", k,
                     fmb_model_force_mode_name(m, f, k));
        }
        struct wswitch *sw = &w->sws[w->nsws];
        sw->f = f;
        const char *tn = fmb_model_force_type_name(m, f);
        if (fmb_h5_attr_int(g, "force_index", f) < 0 ||
            fmb_h5_attr_string(g, "type", tn ? tn : "") < 0)
            st = fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot write /switches/%s attributes",
                                w->h5path, name);
        if (st >= 0 &&
            (sw->ds_mode = st = fmb_writer_ds_create(w, g, "mode", 1, 1, NULL, NULL)) >= 0 &&
            (sw->ds_force = st = fmb_writer_ds_create(w, g, "force", 0, 1, NULL, NULL)) >= 0)
            sw->ds_v = st = fmb_writer_ds_create(w, g, "relative_velocity", 0, 1, NULL, NULL);
        if (st >= 0 && fmb_h5_attr_string(w->ds[sw->ds_mode].id, "values", modes) < 0)
            st = fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot write /switches/%s/mode attributes",
                                w->h5path, name);
        if (st >= 0) w->nsws++;
        H5Gclose(g);
    }
    H5Gclose(gs);
    return st < 0 ? st : 0;
}

int fmb_writer_layout(fmb_writer_t *w, const fmb_sim_t *sim, const char *case_text)
{
    const fmb_model_t *m = w->model;
    hid_t root = w->file;
    /* the commit markers first: small fixed-size messages at the head of the root object
     * header, rewritten in place at every commit (writer_commit.c) */
    if (fmb_h5_attr_put_long(root, "committed_records", 0) < 0 ||
        fmb_h5_attr_put_long(root, "committed_frames", 0) < 0 ||
        fmb_h5_attr_string(root, "creator", "flexmb") < 0 ||
        fmb_h5_attr_string(root, "version", fmb_version()) < 0 ||
        fmb_h5_attr_string(root, "units", "SI") < 0 ||
        (case_text && fmb_h5_attr_string(root, "case", case_text) < 0) ||
        fmb_h5_attr_double(root, "gravity_x", m->g[0]) < 0 ||
        fmb_h5_attr_double(root, "gravity_y", m->g[1]) < 0 ||
        fmb_h5_attr_int(root, "complete", 0) < 0) /* 1 once the run ended normally */
        return fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot write file attributes", w->h5path);

    hsize_t t1[1];
    if ((w->ds_time = fmb_writer_ds_create(w, root, "time", 0, 1, NULL, NULL)) < 0)
        return w->ds_time;
    t1[0] = FMB_ENERGY_COLUMNS;
    if ((w->ds_energy =
             fmb_writer_ds_create(w, root, "energy", 0, 2, t1, "kinetic,potential,work,total")) < 0)
        return w->ds_energy;

    hid_t solver = H5Gcreate2(root, "solver", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (solver < 0)
        return fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot create group /solver", w->h5path);
    const fmb_sim_options_t *o = fmb_sim_options(sim);
    int bad = 0;
    if (o) {
        bad |= fmb_h5_attr_string(solver, "integrator", integrator_name(o->integrator));
        bad |= fmb_h5_attr_double(solver, "h", o->h);
        bad |= fmb_h5_attr_double(solver, "t_end", o->t_end);
        /* the parameters as given (alpha: HHT, rho_inf: generalized-alpha) and the
         * coefficients the integrator used (beta and gamma are derived from them for hht
         * and generalized_alpha, given for newmark) */
        double am, af, beta, gamma;
        fmb_sim_integrator_coefficients(sim, &am, &af, &beta, &gamma);
        bad |= fmb_h5_attr_double(solver, "alpha", o->alpha);
        bad |= fmb_h5_attr_double(solver, "rho_inf", o->rho_inf);
        bad |= fmb_h5_attr_double(solver, "alpha_m", am);
        bad |= fmb_h5_attr_double(solver, "alpha_f", af);
        bad |= fmb_h5_attr_double(solver, "beta", beta);
        bad |= fmb_h5_attr_double(solver, "gamma", gamma);
        bad |= fmb_h5_attr_int(solver, "output_every", o->output_every);
        bad |= fmb_h5_attr_double(solver, "output_dt", o->output_dt);
        bad |= fmb_h5_attr_int(solver, "compress", !w->plain);
        bad |= fmb_h5_attr_int(solver, "viz_frames", o->viz_frames);
        bad |= fmb_h5_attr_int(solver, "max_newton", o->max_newton);
        bad |= fmb_h5_attr_double(solver, "rtol", o->rtol);
        bad |= fmb_h5_attr_double(solver, "atol", o->atol);
        bad |= fmb_h5_attr_double(solver, "phi_tol", o->phi_tol);
        bad |= fmb_h5_attr_string(solver, "step", o->adaptive ? "adaptive" : "fixed");
        bad |=
            fmb_h5_attr_string(solver, "start", o->start == FMB_START_STATIC ? "static" : "rigid");
        bad |= fmb_h5_attr_double(solver, "rtol_step", o->rtol_step);
        bad |= fmb_h5_attr_double(solver, "atol_step", o->atol_step);
        bad |= fmb_h5_attr_double(solver, "h_min", o->h_min);
        bad |= fmb_h5_attr_double(solver, "h_max", o->h_max);
    }
    bad |= fmb_h5_attr_int(solver, "num_coords", fmb_model_num_coords(m));
    bad |= fmb_h5_attr_int(solver, "num_constraints", fmb_model_num_constraints(m));
    bad |= table_attrs(solver, m->params.tables);
    w->ds_newton = fmb_writer_ds_create(w, solver, "newton_iterations", 1, 1, NULL, NULL);
    H5Gclose(solver);
    if (bad)
        return fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot write /solver attributes", w->h5path);
    if (w->ds_newton < 0) return w->ds_newton;

    /* Bodies (ground excluded). */
    int nb = fmb_model_num_bodies(m);
    w->bodies = calloc(nb > 1 ? (size_t)nb - 1 : 1, sizeof *w->bodies);
    if (!w->bodies) return fmb_writer_err(w, FMB_ERR_NOMEM, "out of memory");
    hid_t gb = H5Gcreate2(root, "bodies", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (gb < 0)
        return fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot create group /bodies", w->h5path);
    int st = 0;
    for (int b = 1; b < nb && st >= 0; b++) {
        wbody_t *wb = &w->bodies[w->nbodies++];
        wb->b = b;
        wb->offset = fmb_model_body_offset(m, b);
        wb->ndof = fmb_model_body_ndof(m, b);
        wb->npoints = fmb_model_body_num_points(m, b);
        wb->ds_points = wb->ds_bpoints = wb->ds_bdefl = -1;
        if (wb->npoints > 0) {
            wb->u = malloc(2 * (size_t)wb->npoints * sizeof *wb->u);
            if (!wb->u) {
                st = fmb_writer_err(w, FMB_ERR_NOMEM, "out of memory");
                break;
            }
            for (int k = 0; k < wb->npoints; k++)
                fmb_model_body_point(m, b, k, wb->u + 2 * k);
        }
        char name[FMB_NAME_MAX + 8], cols[256];
        fmb_h5_link_name(fmb_model_body_name(m, b), name, sizeof name);
        hid_t g = H5Gcreate2(gb, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (g < 0) {
            st = fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot create group /bodies/%s", w->h5path,
                                name);
            break;
        }
        if (make_columns(wb->ndof, cols, sizeof cols) < 0) cols[0] = '\0';
        t1[0] = (hsize_t)wb->ndof;
        if ((wb->ds_q = st = fmb_writer_ds_create(w, g, "q", 0, 2, t1, cols)) >= 0 &&
            (wb->ds_qd = st = fmb_writer_ds_create(w, g, "qd", 0, 2, t1, cols)) >= 0 &&
            (wb->ds_qdd = st = fmb_writer_ds_create(w, g, "qdd", 0, 2, t1, cols)) >= 0) {
            t1[0] = 3;
            wb->ds_pose = st = fmb_writer_ds_create(w, g, "pose", 0, 2, t1, "x,y,angle");
        }
        if (st >= 0 && wb->npoints > 0) {
            hsize_t t2[2] = {(hsize_t)wb->npoints, 2};
            wb->ds_points = st = fmb_writer_ds_create(w, g, "points", 0, 3, t2, "x,y");
            const char **names = malloc((size_t)wb->npoints * sizeof *names);
            if (!names) {
                st = fmb_writer_err(w, FMB_ERR_NOMEM, "out of memory");
            } else if (st >= 0) {
                for (int k = 0; k < wb->npoints; k++)
                    names[k] = fmb_model_body_point_name(m, b, k);
                if (fmb_h5_string_list(g, "point_names", names, (hsize_t)wb->npoints) < 0)
                    st = fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot write /bodies/%s/point_names",
                                        w->h5path, name);
            }
            free(names);
        }
        const fmb_body_t *bd = &m->bodies[b];
        if (st >= 0 &&
            (fmb_h5_attr_int(g, "index", b) < 0 || fmb_h5_attr_int(g, "offset", wb->offset) < 0 ||
             fmb_h5_attr_int(g, "ndof", wb->ndof) < 0 ||
             fmb_h5_attr_double(g, "mass", bd->mass) < 0 ||
             fmb_h5_attr_double(g, "inertia", bd->inertia_c) < 0 ||
             fmb_h5_attr_double(g, "com_x", bd->com[0]) < 0 ||
             fmb_h5_attr_double(g, "com_y", bd->com[1]) < 0 ||
             (bd->block[0] > 0 && (fmb_h5_attr_double(g, "block_length", bd->block[0]) < 0 ||
                                   fmb_h5_attr_double(g, "block_width", bd->block[1]) < 0))))
            st = fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot write /bodies/%s attributes",
                                w->h5path, name);
        H5Gclose(g);
    }
    H5Gclose(gb);
    if (st < 0) return st;
    if ((st = write_beams_layout(w)) < 0) return st;

    /* Joints. */
    int nj = fmb_model_num_joints(m);
    w->joints = calloc(nj > 0 ? (size_t)nj : 1, sizeof *w->joints);
    if (!w->joints) return fmb_writer_err(w, FMB_ERR_NOMEM, "out of memory");
    hid_t gj = H5Gcreate2(root, "joints", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (gj < 0)
        return fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot create group /joints", w->h5path);
    for (int j = 0; j < nj && st >= 0; j++) {
        wjoint_t *wj = &w->joints[w->njoints++];
        const fmb_joint_t *jt = &m->joints[j];
        wj->j = j;
        int side = jt->body[0] == FMB_GROUND ? 1 : 0;
        wj->body = jt->body[side];
        wj->u[0] = jt->point[side][0];
        wj->u[1] = jt->point[side][1];
        char name[FMB_NAME_MAX + 8];
        fmb_h5_link_name(fmb_model_joint_name(m, j), name, sizeof name);
        hid_t g = H5Gcreate2(gj, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (g < 0) {
            st = fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot create group /joints/%s", w->h5path,
                                name);
            break;
        }
        t1[0] = 6;
        if ((wj->ds_reaction = st = fmb_writer_ds_create(w, g, "reaction", 0, 2, t1,
                                                         "Fx1,Fy1,Mz1,Fx2,Fy2,Mz2")) >= 0 &&
            (wj->ds_reaction_joint = st = fmb_writer_ds_create(w, g, "reaction_joint", 0, 2, t1,
                                                               "Fx1,Fy1,Mz1,Fx2,Fy2,Mz2")) >= 0 &&
            (wj->ds_reaction_body = st = fmb_writer_ds_create(w, g, "reaction_body", 0, 2, t1,
                                                              "Fx1,Fy1,Mz1,Fx2,Fy2,Mz2")) >= 0 &&
            (wj->ds_force = st = fmb_writer_ds_create(w, g, "force_magnitude", 0, 1, NULL, NULL)) >=
                0 &&
            (wj->ds_violation = st = fmb_writer_ds_create(w, g, "violation", 0, 1, NULL, NULL)) >=
                0) {
            t1[0] = 2;
            wj->ds_position = st = fmb_writer_ds_create(w, g, "position", 0, 2, t1, "x,y");
        }
        const char *drive = fmb_model_joint_drive(m, j, &wj->drive_column);
        wj->ds_drive = -1;
        if (st >= 0 && drive)
            wj->ds_drive = st = fmb_writer_ds_create(w, g, drive, 0, 1, NULL, NULL);
        const char *b1 = fmb_model_body_name(m, jt->body[0]);
        const char *b2 = fmb_model_body_name(m, jt->body[1]);
        const char *tn = fmb_model_joint_type_name(m, j);
        if (st >= 0 && (fmb_h5_attr_int(g, "index", j) < 0 ||
                        fmb_h5_attr_string(g, "type", tn ? tn : "") < 0 ||
                        fmb_h5_attr_string(g, "body1", b1 ? b1 : "") < 0 ||
                        fmb_h5_attr_string(g, "body2", b2 ? b2 : "") < 0 ||
                        fmb_h5_attr_int(g, "rows", fmb_model_joint_rows(m, j)) < 0))
            st = fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot write /joints/%s attributes",
                                w->h5path, name);
        H5Gclose(g);
    }
    H5Gclose(gj);
    if (st < 0) return st;
    if ((st = write_outputs_layout(w)) < 0) return st;
    if ((st = write_force_outputs_layout(w)) < 0) return st;
    if ((st = write_contacts_layout(w)) < 0) return st;
    return write_switches_layout(w);
}

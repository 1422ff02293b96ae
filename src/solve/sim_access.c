/* Public accessors of the simulation state: time, coordinates, poses, reactions, beam
 * state, joint outputs, energies and contact states. */
#include "solve/sim_internal.h"

#include "bodies/beam.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *fmb_sim_last_error(const fmb_sim_t *s)
{
    return s->errmsg;
}
int fmb_sim_last_error_line(const fmb_sim_t *s)
{
    return s->errline;
}
void fmb_sim_get_stats(const fmb_sim_t *s, fmb_sim_stats_t *st)
{
    *st = s->diag.stats;
}
const fmb_sim_options_t *fmb_sim_options(const fmb_sim_t *s)
{
    return &s->opts;
}
double fmb_sim_time(const fmb_sim_t *s)
{
    return s->st.t;
}
const double *fmb_sim_q(const fmb_sim_t *s)
{
    return s->st.q;
}
const double *fmb_sim_qd(const fmb_sim_t *s)
{
    return s->st.qd;
}
const double *fmb_sim_qdd(const fmb_sim_t *s)
{
    return s->st.qdd;
}
const double *fmb_sim_lambda(const fmb_sim_t *s)
{
    return s->st.lam;
}
int fmb_sim_last_newton_iterations(const fmb_sim_t *s)
{
    return s->diag.last_iters;
}
fmb_model_t *fmb_sim_model(const fmb_sim_t *s)
{
    return s->model;
}

void fmb_sim_body_pose(const fmb_sim_t *s, int body, double pose[3])
{
    fmb_bodyview_t v = fmb_model_view(s->model, body, s->st.q, s->st.qd);
    const double o[2] = {0, 0};
    fmb_point_pos(&v, o, pose);
    pose[2] = fmb_body_angle(&v);
}

void fmb_sim_body_point(const fmb_sim_t *s, int body, const double u[2], double r[2])
{
    fmb_bodyview_t v = fmb_model_view(s->model, body, s->st.q, s->st.qd);
    fmb_point_pos(&v, u, r);
}

/* Reaction (docs/theory.md section 6): the generalized constraint force on body b is
 * Qc = -J_b^T lambda_j. A force F and moment M at joint point P give
 * Q = [A^T F; (Itil p)^T A^T F + M], p = A^T r_P (carrier position of P), so F = A Qc_r and
 * M = Qc_t - (Itil p) . Qc_r. The ground is viewed as a body at q = 0. */
/* A valid joint index of the simulation's model? */
static int joint_ok(const fmb_sim_t *s, int joint)
{
    return s && joint >= 0 && joint < s->model->njoints;
}

void fmb_sim_joint_reaction(const fmb_sim_t *s, int joint, double out[6])
{
    if (!joint_ok(s, joint)) {
        for (int k = 0; k < 6; k++)
            out[k] = NAN;
        return;
    }
    const double *lam = s->st.lam;
    const fmb_model_t *md = s->model;
    const fmb_joint_t *j = &md->joints[joint];
    static const double zero[3] = {0, 0, 0};
    fmb_bodyview_t v[2];
    fmb_sim_joint_views(s, j, s->st.q, s->st.qd, v);
    for (int b = 0; b < 2; b++)
        if (!v[b].ndof) v[b].ndof = 3, v[b].q = zero, v[b].qd = zero;
    fmb_joint_cols(j, v); /* the ground, viewed as a body, gets its rigid columns */
    const int nr = j->klass->nrows;
    double *phi = s->as.sphi, *J[2] = {fmb_zeroed(s->as.sJ[0], (size_t)(nr * v[0].nc)),
                                       fmb_zeroed(s->as.sJ[1], (size_t)(nr * v[1].nc))};
    j->klass->eval(j, v, s->st.t, phi, J[0], J[1]);
    for (int b = 0; b < 2; b++) {
        double Qc[3] = {0, 0, 0}, A[4];
        for (int k = 0; k < 3; k++)
            for (int r = 0; r < nr; r++)
                Qc[k] -= J[b][r + nr * k] * lam[j->row + r];
        double r[2];
        fmb_view_rot(&v[b], A); /* the body's cached cos, sin (ground: q = 0) */
        double up[2] = {j->point[b][0], j->point[b][1]};
        if (j->klass->reaction_point) j->klass->reaction_point(j, v, b, up);
        fmb_point_pos(&v[b], up, r); /* deformed point: p = A^T r */
        double p[2] = {A[0] * r[0] + A[1] * r[1], A[2] * r[0] + A[3] * r[1]};
        out[3 * b + 0] = A[0] * Qc[0] + A[2] * Qc[1];
        out[3 * b + 1] = A[1] * Qc[0] + A[3] * Qc[1];
        out[3 * b + 2] = Qc[2] - (-p[1] * Qc[0] + p[0] * Qc[1]);
    }
}

void fmb_sim_reaction_in_axes(const fmb_sim_t *s, int joint, fmb_axes axes, const double in[6],
                              double out[6])
{
    if (out != in) memcpy(out, in, 6 * sizeof *out);
    if (axes == FMB_AXES_INERTIAL || !joint_ok(s, joint)) return;
    const fmb_joint_t *j = &s->model->joints[joint];
    for (int b = 0; b < 2; b++) {
        const int body = j->body[axes == FMB_AXES_JOINT ? 0 : b];
        const fmb_body_t *bd = &s->model->bodies[body];
        const double th = bd->offset < 0 ? 0.0 : s->st.q[bd->offset + 2];
        double A[4];
        fmb_body_rot(bd, th, A); /* cos, sin (the body's cache) */
        const double c = A[0], sn = A[1], fx = out[3 * b], fy = out[3 * b + 1];
        out[3 * b] = c * fx + sn * fy; /* A^T F */
        out[3 * b + 1] = -sn * fx + c * fy;
    }
}

void fmb_sim_joint_reaction_axes(const fmb_sim_t *s, int joint, fmb_axes axes, double out[6])
{
    fmb_sim_joint_reaction(s, joint, out);
    fmb_sim_reaction_in_axes(s, joint, axes, out, out);
}

int fmb_sim_start_velocity_change(const fmb_sim_t *s, int body, double dv[3])
{
    if (!s || body < 1 || body >= s->model->nbodies || !dv) return FMB_ERR_ARG;
    const int given = s->model->bodies[body].vel_given;
    for (int k = 0; k < 3; k++)
        dv[k] = given && s->st.vel_change ? s->st.vel_change[3 * body + k] : 0.0;
    return given;
}

void fmb_sim_beam_state(const fmb_sim_t *s, int body, double *x, double *y, double *v)
{
    const fmb_model_t *md = s->model;
    const int nn = fmb_model_beam_num_nodes(md, body);
    fmb_bodyview_t view = fmb_model_view(md, body, s->st.q, s->st.qd);
    for (int k = 0; k < nn; k++) {
        const double u[2] = {fmb_model_beam_node_x(md, body, k), 0.0};
        double r[2];
        fmb_shape_t N; /* one evaluation of the node's shape functions for r and v */
        fmb_point_shape(&view, u, &N);
        fmb_point_posjac_n(&view, u, &N, r, NULL);
        if (x) x[k] = r[0];
        if (y) y[k] = r[1];
        if (v) {
            double d = 0.0;
            for (int i = 0; i < N.n; i++)
                d += N.Ny[i] * view.q[N.col[i]];
            v[k] = d;
        }
    }
}

int fmb_sim_beam_stress(const fmb_sim_t *s, int body, double *N, double *M, double *stress)
{
    if (!s || fmb_model_body_is_beam(s->model, body) <= 0) return FMB_ERR_ARG;
    const fmb_body_t *b = &s->model->bodies[body];
    fmb_beam_section_forces(b->data, s->st.q + b->offset, N, M, stress);
    return 0;
}

void fmb_sim_joint_outputs(const fmb_sim_t *s, int joint, double *values)
{
    if (!joint_ok(s, joint)) return;
    const fmb_joint_t *j = &s->model->joints[joint];
    if (!j->klass->outputs) return;
    fmb_bodyview_t v[2];
    fmb_sim_joint_views(s, j, s->st.q, s->st.qd, v);
    j->klass->outputs(j, v, s->st.t, values);
}

double fmb_sim_joint_violation(const fmb_sim_t *s, int joint)
{
    if (!joint_ok(s, joint)) return NAN;
    const fmb_joint_t *j = &s->model->joints[joint];
    fmb_bodyview_t v[2];
    fmb_sim_joint_views(s, j, s->st.q, NULL, v);
    double *phi = s->as.sphi, mx = 0.0;
    j->klass->eval(j, v, s->st.t, phi, NULL, NULL);
    for (int r = 0; r < j->klass->nrows; r++)
        mx = fmax(mx, fabs(phi[r]));
    return mx;
}

void fmb_sim_energy(const fmb_sim_t *s, double e[FMB_ENERGY_COLUMNS])
{
    const fmb_model_t *md = s->model;
    double T = 0.0, V = 0.0;
    for (int b = 1; b < md->nbodies; b++) {
        const fmb_body_t *bd = &md->bodies[b];
        const int o = bd->offset, nd = bd->ndof;
        if (bd->klass->mass_times) { /* T = qd . (M qd) / 2 without forming M */
            double *Mv = s->as.sb;
            bd->klass->mass_times(bd, s->st.q + o, s->st.qd + o, Mv);
            for (int r = 0; r < nd; r++)
                T += 0.5 * s->st.qd[o + r] * Mv[r];
        } else {
            double *M = s->as.sM;
            bd->klass->mass(bd, s->st.q + o, M);
            for (int c = 0; c < nd; c++)
                for (int r = 0; r < nd; r++)
                    T += 0.5 * s->st.qd[o + r] * M[r + nd * c] * s->st.qd[o + c];
        }
        V += bd->klass->potential(bd, s->st.q + o, md->g);
    }
    for (int i = 0; i < md->nforces; i++) {
        const fmb_force_t *f = &md->forces[i];
        if (!f->klass->potential) continue;
        fmb_bodyview_t v[2] = {fmb_model_view(md, f->body[0], s->st.q, s->st.qd),
                               fmb_model_view(md, f->body[1], s->st.q, s->st.qd)};
        V += f->klass->potential(f, v);
    }
    e[0] = T, e[1] = V, e[2] = s->st.W, e[3] = T + V - s->st.W;
}

int fmb_sim_contact_state(const fmb_sim_t *s, int joint, double normal[4], double friction[4],
                          int *mode, double *z, double *v)
{
    for (int ic = 0; ic < s->ct.ncontacts; ic++) {
        const fmb_contact_t *c = &s->ct.contacts[ic];
        if (c->joint != joint) continue;
        double per[FMB_CORNERS];
        fmb_contact_friction(c, per);
        for (int k = 0; k < FMB_CORNERS; k++) {
            if (normal) normal[k] = c->F[k];
            if (friction) friction[k] = per[k];
        }
        if (mode) *mode = c->mode;
        if (z) *z = c->z_n;
        if (v) *v = c->v;
        return 0;
    }
    return FMB_ERR_NOTFOUND;
}

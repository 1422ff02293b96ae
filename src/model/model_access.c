/*
 * Model inspection: the public fmb_model_* accessors that read a built model (counts,
 * names, points, offsets, constraint rows, bodies, forces, joints' class-table facts; a
 * beam's own queries are src/bodies/beam_model.c). Building a model is model.c (the
 * bodies: their classes' files), the elements' views of it
 * model_views.c; checking it (consistent start, rank) is solve/check.c.
 */
#include <stddef.h>
#include <string.h>

#include "model/model.h"

/* ---- bodies and forces */

double fmb_model_body_mass(const fmb_model_t *model, int body)
{
    return model && body > 0 && body < model->nbodies ? model->bodies[body].mass : 0.0;
}

double fmb_model_body_inertia(const fmb_model_t *model, int body)
{
    return model && body > 0 && body < model->nbodies ? model->bodies[body].inertia_c : 0.0;
}

const char *fmb_model_force_name(const fmb_model_t *model, int force)
{
    return model && force >= 0 && force < model->nforces ? model->forces[force].name : NULL;
}

const char *fmb_model_force_type_name(const fmb_model_t *model, int force)
{
    if (!model || force < 0 || force >= model->nforces) return NULL;
    return model->forces[force].klass->name; /* the class table names its type */
}

void fmb_model_force_bodies(const fmb_model_t *model, int force, int body[2])
{
    body[0] = body[1] = -1;
    if (model && force >= 0 && force < model->nforces) {
        body[0] = model->forces[force].body[0];
        if (model->forces[force].klass->nbodies == 2) body[1] = model->forces[force].body[1];
    }
}

/* ---- joints: facts from their class tables */

const char *fmb_model_joint_drive(const fmb_model_t *m, int joint, int *column)
{
    if (!m || joint < 0 || joint >= m->njoints) return NULL;
    const fmb_joint_class_t *k = m->joints[joint].klass;
    if (column) *column = k->drive_name ? k->drive_column : -1;
    return k->drive_name;
}

int fmb_model_joint_drive_rate(const fmb_model_t *m, int joint, double t, double *rate,
                               double *accel)
{
    if (!m || joint < 0 || joint >= m->njoints) return FMB_ERR_ARG;
    const fmb_joint_t *j = &m->joints[joint];
    if (!j->klass->drive_name || !j->klass->time || j->klass->nrows != 1) return FMB_ERR_ARG;
    double pt = 0.0, ptt = 0.0; /* Phi_t = -f'(t), Phi_tt = -f''(t) */
    j->klass->time(j, t, &pt, &ptt);
    if (rate) *rate = -pt;
    if (accel) *accel = -ptt;
    return 0;
}

int fmb_model_joint_num_outputs(const fmb_model_t *m, int joint)
{
    return m && joint >= 0 && joint < m->njoints ? m->joints[joint].klass->noutputs : 0;
}

const char *fmb_model_joint_output_group(const fmb_model_t *m, int joint)
{
    return m && joint >= 0 && joint < m->njoints ? m->joints[joint].klass->output_group : NULL;
}

const char *fmb_model_joint_output_name(const fmb_model_t *m, int joint, int k)
{
    return k >= 0 && k < fmb_model_joint_num_outputs(m, joint)
               ? m->joints[joint].klass->output_names[k]
               : NULL;
}

/* ---- counts, names, points, offsets, rows */

int fmb_model_num_bodies(const fmb_model_t *m)
{
    return m->nbodies;
}
int fmb_model_num_joints(const fmb_model_t *m)
{
    return m->njoints;
}
int fmb_model_num_forces(const fmb_model_t *m)
{
    return m->nforces;
}
int fmb_model_num_coords(const fmb_model_t *m)
{
    return m->ncoords;
}
int fmb_model_num_constraints(const fmb_model_t *m)
{
    return m->nrows;
}
const char *fmb_model_body_name(const fmb_model_t *m, int b)
{
    return m->bodies[b].name;
}
const char *fmb_model_joint_name(const fmb_model_t *m, int j)
{
    return m->joints[j].name;
}
const char *fmb_model_joint_type_name(const fmb_model_t *m, int j)
{
    return m->joints[j].klass->name;
}
int fmb_model_joint_rows(const fmb_model_t *m, int j)
{
    return m->joints[j].klass->nrows;
}
void fmb_model_joint_bodies(const fmb_model_t *m, int j, int body[2])
{
    body[0] = m->joints[j].body[0];
    body[1] = m->joints[j].body[1];
}
int fmb_model_body_num_points(const fmb_model_t *m, int b)
{
    return m->bodies[b].npoints;
}
int fmb_model_find_body_point(const fmb_model_t *m, int b, const char *name, double xy[2])
{
    const fmb_body_t *bd = &m->bodies[b];
    for (int k = 0; k < bd->npoints; k++)
        if (strcmp(bd->points[k].name, name) == 0) {
            if (xy) xy[0] = bd->points[k].u[0], xy[1] = bd->points[k].u[1];
            return k;
        }
    return FMB_ERR_NOTFOUND;
}
void fmb_model_body_point(const fmb_model_t *m, int b, int k, double xy[2])
{
    xy[0] = m->bodies[b].points[k].u[0];
    xy[1] = m->bodies[b].points[k].u[1];
}
const char *fmb_model_body_point_name(const fmb_model_t *m, int b, int k)
{
    return m->bodies[b].points[k].name;
}
int fmb_model_body_offset(const fmb_model_t *m, int b)
{
    return m->bodies[b].offset;
}
int fmb_model_body_ndof(const fmb_model_t *m, int b)
{
    return m->bodies[b].ndof;
}
const char *fmb_model_last_error(const fmb_model_t *m)
{
    return m->errmsg;
}

int fmb_model_row_joint(const fmb_model_t *m, int row, int *local)
{
    for (int j = 0; j < m->njoints; j++) {
        int r0 = m->joints[j].row, nr = m->joints[j].klass->nrows;
        if (row >= r0 && row < r0 + nr) {
            if (local) *local = row - r0;
            return j;
        }
    }
    return FMB_ERR_NOTFOUND;
}


/*
 * Model inspection: the public fmb_model_* accessors that read a built model (bodies,
 * forces, joints' class-table facts, a beam's own modes). Building a model is model.c;
 * checking it (consistent start, rank) is solve/check.c.
 */
#include <stddef.h>

#include "bodies/beam.h"
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

/* ---- beams */

int fmb_model_beam_modes(fmb_model_t *m, int body, double *omega, int nmax)
{
    if (!fmb_model_body_is_beam(m, body))
        return fmb_model_error(m, FMB_ERR_ARG, "body %d is not a beam", body);
    const fmb_beam_t *bm = m->bodies[body].data;
    /* K phi = omega^2 Muu phi with the frame held by the reference conditions: dense
     * LAPACK dsygv for small beams, CHOLMOD subspace iteration for the lowest modes of
     * large ones */
    const int ne = bm->ndof - 3;
    const int rc = ne > FMB_BEAM_DENSE_MODES_MAX && nmax < ne / 4
                       ? fmb_beam_modes_sparse(bm, omega, nmax)
                       : fmb_beam_modes_dense(bm, omega, nmax);
    if (rc < 0)
        return fmb_model_error(m, rc, "beam '%s': eigenvalue solver failed (%s)",
                               m->bodies[body].name, fmb_status_message(rc));
    return rc;
}

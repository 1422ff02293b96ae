/*
 * Beam bodies in the model: the public fmb_model_add_beam, the initial elastic state and
 * the beam queries (nodes, geometry, material, own modes). The model keeps bodies of any
 * class (model.h); this file is the beam class's side of building and inspecting them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bodies/beam.h"

static int finite3_(const double *v)
{
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

int fmb_model_add_beam(fmb_model_t *m, const fmb_beam_desc_t *d)
{
    char name[FMB_NAME_MAX];
    int rc = fmb_model_new_body_name(m, d->name, name);
    if (rc) return rc;
    const double vals[4] = {d->E, d->rho, d->area, d->inertia};
    const char *what[4] = {"Young's modulus E", "density rho", "section area A",
                           "second moment of area I"};
    for (int k = 0; k < 4; k++)
        if (!(vals[k] > 0) || !isfinite(vals[k]))
            return fmb_model_error(m, FMB_ERR_MODEL, "beam '%s': %s must be positive (got %g)",
                                   name, what[k], vals[k]);
    if (d->nnodes < 2 || !d->x)
        return fmb_model_error(m, FMB_ERR_MODEL, "beam '%s': needs at least 2 nodes", name);
    for (int k = 0; k + 1 < d->nnodes; k++)
        if (!(d->x[k + 1] > d->x[k]))
            return fmb_model_error(m, FMB_ERR_MODEL,
                                   "beam '%s': node positions must increase (node %d at %g, node "
                                   "%d at %g)",
                                   name, k, d->x[k], k + 1, d->x[k + 1]);
    if ((int)d->reference < 0 || d->reference >= FMB_BEAM_REFERENCE_COUNT)
        return fmb_model_error(m, FMB_ERR_MODEL,
                               "beam '%s': unsupported reference condition %d (use simply "
                               "supported or cantilever)",
                               name, (int)d->reference);
    if (d->reference == FMB_BEAM_SIMPLY_SUPPORTED && d->nnodes < 2)
        return fmb_model_error(m, FMB_ERR_MODEL, "beam '%s': too few nodes", name);
    if ((int)d->geometry < 0 || d->geometry >= FMB_BEAM_GEOMETRY_COUNT)
        return fmb_model_error(m, FMB_ERR_MODEL, "beam '%s': unknown geometry %d", name,
                               (int)d->geometry);
    if (!(d->damping_alpha >= 0) || !(d->damping_beta >= 0))
        return fmb_model_error(m, FMB_ERR_MODEL, "beam '%s': damping must be >= 0", name);
    if (!(d->fibre >= 0) || !isfinite(d->fibre) || !(d->yield_stress >= 0) ||
        !isfinite(d->yield_stress))
        return fmb_model_error(m, FMB_ERR_MODEL,
                               "beam '%s': extreme-fibre distance c (%g m) and yield stress "
                               "(%g Pa) must be >= 0 (0: not given)",
                               name, d->fibre, d->yield_stress);
    if (!finite3_(d->pose) || !finite3_(d->vel))
        return fmb_model_error(m, FMB_ERR_MODEL, "beam '%s': non-finite pose or velocity", name);
    fmb_beam_t *bm = calloc(1, sizeof *bm);
    if (!bm) return FMB_ERR_NOMEM;
    bm->nnodes = d->nnodes;
    bm->x = malloc((size_t)d->nnodes * sizeof *bm->x);
    if (!bm->x) {
        free(bm);
        return FMB_ERR_NOMEM;
    }
    memcpy(bm->x, d->x, (size_t)d->nnodes * sizeof *bm->x);
    bm->E = d->E, bm->rho = d->rho, bm->A = d->area, bm->I = d->inertia;
    bm->c = d->fibre, bm->yield = d->yield_stress;
    bm->rotary = d->rotary_inertia != 0;
    bm->alpha = d->damping_alpha, bm->beta = d->damping_beta;
    bm->reference = d->reference;
    bm->geometry = d->geometry;
    bm->nonconstant_stiffness = d->geometry == FMB_BEAM_NONLINEAR;
    char msg[256];
    fmb_body_t tmp = {.data = bm};
    if ((rc = fmb_beam_build(bm, msg, sizeof msg))) {
        fmb_beam_body_class.destroy(&tmp);
        return fmb_model_error(m, rc, "beam '%s': %s", name, msg);
    }
    fmb_body_t body, *b = &body;
    memset(b, 0, sizeof *b);
    strcpy(b->name, name);
    b->klass = &fmb_beam_body_class;
    b->data = bm;
    b->ndof = b->klass->ndof(b);
    b->mass = d->rho * d->area * (d->x[d->nnodes - 1] - d->x[0]);
    /* informative only (the beam class integrates its own inertia): the undeformed
     * bar's centre of mass and centroidal inertia */
    const double len = d->x[d->nnodes - 1] - d->x[0];
    b->com[0] = 0.5 * (d->x[0] + d->x[d->nnodes - 1]), b->com[1] = 0.0;
    b->inertia_c =
        b->mass * len * len / 12.0 + (d->rotary_inertia ? d->rho * d->inertia * len : 0.0);
    memcpy(b->pose0, d->pose, sizeof b->pose0);
    memcpy(b->vel0, d->vel, sizeof b->vel0);
    b->vel_given = d->vel_given;
    b->line = d->line;
    const int idx = fmb_model_push_body(m, b);
    if (idx < 0) {
        fmb_beam_body_class.destroy(&tmp);
        return idx;
    }
    /* Named points at the nodes for drawing and joints: n0, n1, ..., start, end. */
    char pn[FMB_NAME_MAX];
    for (int k = 0; k < d->nnodes; k++) {
        snprintf(pn, sizeof pn, "n%d", k);
        fmb_model_append_point(m, idx, pn, d->x[k], 0.0, 1);
    }
    return idx;
}

int fmb_model_set_beam_initial(fmb_model_t *m, int b, const double *U, const double *Ud)
{
    if (!fmb_model_body_is_beam(m, b))
        return fmb_model_error(m, FMB_ERR_ARG, "body %d is not a beam", b);
    fmb_beam_t *bm = m->bodies[b].data;
    const int nn = bm->nnodes;
    for (int i = 0; i < 3 * nn; i++)
        if ((U && !isfinite(U[i])) || (Ud && !isfinite(Ud[i])))
            return fmb_model_error(m, FMB_ERR_MODEL, "beam '%s': non-finite initial state at node %d",
                                   m->bodies[b].name, i / 3);
    char msg[256];
    const int rc = fmb_beam_set_initial(bm, U, Ud, msg, sizeof msg);
    if (rc) return fmb_model_error(m, rc, "beam '%s': initial state: %s", m->bodies[b].name, msg);
    return 0;
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

/* ---- beam queries */

int fmb_model_body_is_beam(const fmb_model_t *m, int b)
{
    return b > 0 && b < m->nbodies && m->bodies[b].klass == &fmb_beam_body_class;
}

int fmb_model_beam_num_nodes(const fmb_model_t *m, int b)
{
    return fmb_model_body_is_beam(m, b) ? ((const fmb_beam_t *)m->bodies[b].data)->nnodes : 0;
}

int fmb_model_beam_geometry(const fmb_model_t *m, int b)
{
    return fmb_model_body_is_beam(m, b) ? (int)((const fmb_beam_t *)m->bodies[b].data)->geometry
                                        : FMB_ERR_ARG;
}

int fmb_model_beam_mode_shape(fmb_model_t *m, int b, int k, double *shape, double *omega)
{
    if (!fmb_model_body_is_beam(m, b))
        return fmb_model_error(m, FMB_ERR_ARG, "body %d is not a beam", b);
    const fmb_beam_t *bm = m->bodies[b].data;
    if (k < 1 || k > bm->ndof - 3 || !shape)
        return fmb_model_error(m, FMB_ERR_ARG, "beam '%s': mode %d out of range 1..%d",
                               m->bodies[b].name, k, bm->ndof - 3);
    const int rc = fmb_beam_mode_shape(bm, k, shape, omega);
    if (rc)
        return fmb_model_error(m, rc, "beam '%s': mode %d: eigenvalue solver failed (%s)",
                               m->bodies[b].name, k, fmb_status_message(rc));
    return 0;
}

int fmb_model_beam_props(const fmb_model_t *m, int b, fmb_beam_props_t *p)
{
    if (!m || !p || fmb_model_body_is_beam(m, b) <= 0) return FMB_ERR_ARG;
    const fmb_beam_t *bm = m->bodies[b].data;
    p->E = bm->E, p->rho = bm->rho, p->A = bm->A, p->I = bm->I;
    p->c = bm->c, p->yield_stress = bm->yield;
    p->length = bm->x[bm->nnodes - 1] - bm->x[0];
    return 0;
}

double fmb_model_beam_node_x(const fmb_model_t *m, int b, int k)
{
    return fmb_model_body_is_beam(m, b) ? ((const fmb_beam_t *)m->bodies[b].data)->x[k] : 0.0;
}

/* The tests' hooks into a run (test_hooks.h). */
#include "solve/test_hooks.h"

#include <stdlib.h>
#include <string.h>

#include "bodies/beam.h"
#include "model/model.h"
#include "model/params.h"
#include "solve/sim.h"
#include "solve/sim_internal.h"

void fmb_test_set_accept_hook(fmb_sim_t *s, fmb_test_accept_fn fn, void *user)
{
    s->diag.accept_hook = fn;
    s->diag.accept_hook_user = user;
}

void fmb_test_set_keep_force(fmb_sim_t *s, int on)
{
    s->ctl.keep_force = on;
}

const double *fmb_test_acc(const fmb_sim_t *s)
{
    return s->st.acc;
}

int fmb_test_switch_z(const fmb_sim_t *s, int force, double z[4])
{
    for (int e = 0; e < s->ct.nsw; e++)
        if (s->ct.swe[e].force == force) {
            memcpy(z, s->ct.swe[e].z, sizeof s->ct.swe[e].z);
            return 0;
        }
    return FMB_ERR_NOTFOUND;
}

int fmb_test_num_contacts(const fmb_sim_t *s)
{
    return s->ct.ncontacts;
}

int fmb_test_contact(const fmb_sim_t *s, int k, fmb_test_contact_t *out)
{
    if (k < 0 || k >= s->ct.ncontacts) return FMB_ERR_NOTFOUND;
    const fmb_contact_t *c = &s->ct.contacts[k];
    out->minv = c->minv, out->v_n = c->v_n, out->v = c->v;
    out->v_stick = fmb_friction_stick_velocity(&c->d);
    memcpy(out->F, c->F, sizeof out->F);
    out->z = c->z;
    return 0;
}

int fmb_test_contact_step_control(fmb_sim_t *s, double h, double *h_max, char *why, size_t len)
{
    return fmb_sim_contact_step_control(s, h, h_max, why, len);
}

void fmb_test_set_reach_all(fmb_sim_t *s, int on)
{
    s->as.reach_all = on;
}

int fmb_test_reach_joint(const fmb_sim_t *s, int *joint, int *nel, int *window)
{
    const fmb_model_t *md = s->model;
    for (int i = 0; i < md->njoints; i++) {
        const fmb_joint_t *j = &md->joints[i];
        if (!j->klass->reach) continue;
        const fmb_beam_t *bm = (const fmb_beam_t *)md->bodies[j->body[1]].data;
        *joint = i;
        *nel = bm->nnodes - 1;
        *window = fmb_reach_elements(*nel);
        return 0;
    }
    return FMB_ERR_NOTFOUND;
}

void fmb_test_kkt_pattern(const fmb_sim_t *s, long *nsymbolic, int *nnz)
{
    *nsymbolic = s->as.kkt.nsymbolic;
    *nnz = s->as.kkt.Ap[s->as.kkt.n];
}

void fmb_test_zero_forces(fmb_sim_t *s, int k, int coulomb)
{
    memset(s->st.qdd, 0, (size_t)s->n * sizeof *s->st.qdd);
    memset(s->st.lam, 0, (size_t)s->m * sizeof *s->st.lam);
    if (k < 0 || k >= s->ct.ncontacts) return;
    memset(s->ct.contacts[k].F, 0, sizeof s->ct.contacts[k].F);
    if (coulomb) memset(s->ct.contacts[k].beta, 0, sizeof s->ct.contacts[k].beta);
}

int fmb_test_restart(fmb_sim_t *s)
{
    return fmb_sim_restart(s);
}

int fmb_test_mass_projection(fmb_sim_t *s, const double *v, double *x)
{
    const size_t n = (size_t)s->n;
    double *qd = malloc(n * sizeof *qd);
    if (!qd) return FMB_ERR_NOMEM;
    memcpy(qd, s->st.qd, n * sizeof *qd);
    memcpy(s->st.qd, v, n * sizeof *qd);
    const int rc = fmb_sim_mass_projection(s, x, "projecting (test)");
    memcpy(s->st.qd, qd, n * sizeof *qd);
    free(qd);
    return rc;
}

int fmb_test_beam_nodes(const fmb_sim_t *s, int body, int *nnodes, const double **x,
                        const int **dof)
{
    if (body < 0 || body >= s->model->nbodies || !fmb_model_body_is_beam(s->model, body))
        return FMB_ERR_NOTFOUND;
    const fmb_beam_t *bm = s->model->bodies[body].data;
    *nnodes = bm->nnodes;
    *x = bm->x;
    *dof = bm->dof;
    return 0;
}

double *fmb_test_q(fmb_sim_t *s)
{
    return s->st.q;
}

int fmb_test_assemble_positions(fmb_sim_t *s)
{
    return fmb_sim_assemble_positions(s, 0.0);
}

int fmb_test_friction_columns(fmb_sim_t *s, int k, double mu, fmb_test_columns_t *out)
{
    if (k < 0 || k >= s->ct.ncontacts) return FMB_ERR_NOTFOUND;
    fmb_contact_t c = s->ct.contacts[k];
    const fmb_joint_t *j = &s->model->joints[c.joint];
    fmb_bodyview_t v[2];
    fmb_sim_contact_views(s, &s->ct.contacts[k], s->st.q, s->st.qd, v);
    c.mu = mu;
    out->nc0 = v[0].nc;
    out->nn = v[0].nc + v[1].nc;
    out->cols = calloc((size_t)out->nn * FMB_CORNERS, sizeof *out->cols);
    if (!out->cols) return FMB_ERR_NOMEM;
    fmb_contact_columns(&c, j, v, out->cols);
    for (int b = 0; b < 2; b++)
        out->theta[b] = v[b].q[2];
    j->klass->slide_direction(j, v, out->e);
    out->b = c.d.b;
    return 0;
}

int fmb_test_try_step(fmb_sim_t *s, double h)
{
    return fmb_sim_try_step(s, h);
}

void fmb_test_reject_step(fmb_sim_t *s)
{
    fmb_sim_reject_step(s);
}

void fmb_test_take_state(fmb_sim_t *B, const fmb_sim_t *A)
{
    /* A's saved state becomes B's, restored as a rejected step restores it */
    memcpy(B->st.save, A->st.save, (4 * (size_t)A->n + (size_t)A->m) * sizeof(double));
    B->st.t = A->st.t;
    fmb_sim_reject_step(B);
}

void fmb_test_set_h(fmb_sim_t *s, double h, int next)
{
    s->opts.h = h;
    if (next) s->ctl.h_next = h;
}

void fmb_test_newton(const fmb_sim_t *s, fmb_test_newton_t *out)
{
    out->cand_iters = s->ctl.cand_iters;
    out->cand_once = s->ctl.cand_once;
    out->once = s->diag.trace.iters[0][1];
    out->kept = s->diag.trace.steps[1];
    out->force_evals = s->diag.trace.force_evals;
    out->drop_ratio = s->diag.trace.drop_ratio;
    out->drop_limit = s->diag.trace.drop_limit;
}

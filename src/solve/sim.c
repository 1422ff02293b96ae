/* The simulation object: options, creation (state vectors, element scratch, frictional
 * contacts, KKT workspace) and destruction. The integrator itself is in step.c. */
#include "solve/sim_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fmb_sim_error(fmb_sim_t *s, int status, const char *fmt, ...)
{
    s->errline = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->errmsg, sizeof s->errmsg, fmt, ap);
    va_end(ap);
    return status;
}

void fmb_sim_options_default(fmb_sim_options_t *o)
{
    memset(o, 0, sizeof *o);
    o->integrator = FMB_HHT;
    o->alpha = -0.05;
    o->beta = 0.25;
    o->gamma = 0.5;
    o->rho_inf = 0.8;
    o->h = 1e-3;
    o->t_end = 1.0;
    o->output_every = 1;
    o->viz_every = 0;
    o->viz_frames = 1000;
    o->compress = -1;
    o->max_newton = 25;
    o->rtol = 1e-10;
    o->atol = 1e-12;
    o->phi_tol = 1e-11;
    o->halving = 4;
    o->reuse_jacobian = 0;
    o->adaptive = 0;
    o->rtol_step = 1e-3;
    o->atol_step = 1e-6;
    o->h_min = 0.0;
    o->h_max = 0.0;
}
/* The elements with per-step hooks (sim.h hk): the step loop's visits without a test per
 * element and step, and the step's own scratch (candidate views, qscale1, wq, newton_D). */
static int hooks_create(fmb_sim_t *s)
{
    const fmb_model_t *md = s->model;
    const int nj = md->njoints, nf = md->nforces, nb = md->nbodies;
    s->el.hk = calloc(4 * (size_t)nj + 3 * (size_t)nf + (size_t)nb + 1, sizeof *s->el.hk);
    s->ctl.qscale1 = calloc((size_t)s->n + 1, sizeof(double));
    s->ctl.wq = calloc((size_t)s->n + 1, sizeof(double));
    s->ctl.newton_D = calloc(2 * (size_t)s->ctl.newton_nb + 1, sizeof(double));
    if (!s->el.hk || !s->ctl.qscale1 || !s->ctl.wq || !s->ctl.newton_D) return -1;
    int *p = s->el.hk;
    s->el.jvalid = p, p += nj;
    s->el.jctl = p, p += nj;
    s->el.jtime = p, p += nj;
    s->el.jslot = p, p += nj;
    s->el.fctl = p, p += nf;
    s->el.fpow = p, p += nf;
    s->el.ferr = p, p += nf;
    s->el.bpow = p;
    for (int i = 0; i < nj; i++) {
        const fmb_joint_class_t *k = md->joints[i].klass;
        s->el.jslot[i] = k->valid ? s->el.njvalid : -1;
        if (k->valid) s->el.jvalid[s->el.njvalid++] = i;
        if (k->step_control) s->el.jctl[s->el.njctl++] = i;
        if (k->time) s->el.jtime[s->el.njtime++] = i;
    }
    for (int i = 0; i < nf; i++) {
        const fmb_force_class_t *k = md->forces[i].klass;
        if (k->step_control) s->el.fctl[s->el.nfctl++] = i;
        if (k->power) s->el.fpow[s->el.nfpow++] = i;
        if (k->step_error && s->opts.adaptive) s->el.ferr[s->el.nferr++] = i;
    }
    if (s->el.nferr && !(s->ctl.eq = calloc((size_t)s->n + 1, sizeof(double)))) return -1;
    for (int b = 1; b < nb; b++)
        if (md->bodies[b].klass->power) s->el.bpow[s->el.nbpow++] = b;
    s->el.cv = calloc(2 * (size_t)s->el.njvalid + 1, sizeof *s->el.cv);
    return s->el.cv ? 0 : -1;
}

fmb_sim_t *fmb_sim_create(fmb_model_t *model, const fmb_sim_options_t *opts)
{
    if (!model) return NULL;
    fmb_sim_t *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->model = model;
    if (opts)
        s->opts = *opts;
    else
        fmb_sim_options_default(&s->opts);
    s->n = model->ncoords;
    s->m = model->nrows;
    size_t n = (size_t)s->n, m = (size_t)s->m, N = n + m;
    s->st.q = calloc(n + 1, sizeof(double));
    s->st.qd = calloc(n + 1, sizeof(double));
    s->st.qdd = calloc(n + 1, sizeof(double));
    s->st.lam = calloc(m + 1, sizeof(double));
    s->st.acc = calloc(n + 1, sizeof(double));
    s->ctl.acc1 = calloc(n + 1, sizeof(double));
    s->ctl.qscale = calloc(n + 1, sizeof(double));
    s->st.accp = calloc(n + 1, sizeof(double));
    s->st.accpp = calloc(n + 1, sizeof(double));
    s->diag.err_lim = calloc(n + 1, sizeof(long));
    s->st.lamp = calloc(m + 1, sizeof(double));
    s->ctl.zero = calloc(m + 1, sizeof(double));
    s->st.save = calloc(4 * n + m + 1, sizeof(double));
    s->ctl.work = calloc(4 * N + 1, sizeof(double));
    if (!s->st.q || !s->st.qd || !s->st.qdd || !s->st.lam || !s->st.acc || !s->ctl.acc1 ||
        !s->ctl.qscale || !s->st.accp || !s->st.accpp || !s->diag.err_lim || !s->st.lamp ||
        !s->st.save || !s->ctl.work || !s->ctl.zero) {
        fmb_sim_destroy(&s);
        return NULL;
    }
    /* Scratch for element blocks (column-compressed: at most FMB_ELEM_COLS columns, the
     * most rows of a joint) and for bodies: vectors of the largest body, dense matrices
     * only for bodies assembled densely (rigid ones; a beam emits element blocks). */
    int maxr = 1, maxq = FMB_ELEM_COLS, maxd = 3;
    for (int i = 0; i < model->njoints; i++)
        maxr = model->joints[i].klass->nrows > maxr ? model->joints[i].klass->nrows : maxr;
    for (int b = 0; b < model->nbodies; b++) {
        const fmb_body_t *bd = &model->bodies[b];
        maxq = bd->ndof > maxq ? bd->ndof : maxq;
        if (bd->klass && (!bd->klass->blocks || !bd->klass->mass_times))
            maxd = bd->ndof > maxd ? bd->ndof : maxd;
    }
    s->as.maxr = maxr, s->as.maxq = maxq, s->as.maxd = maxd;
    const size_t mn = FMB_ELEM_COLS, mr = (size_t)maxr, mq = (size_t)maxq, md = (size_t)maxd;
    s->as.scratch =
        calloc(2 * mr * FMB_VIEW_COLS + 3 * mn * mn + 4 * md * md + 3 * mq + 2 * mn + 2 * mr + 8,
               sizeof(double));
    s->ct.cuoff = calloc((size_t)model->njoints + 2, sizeof *s->ct.cuoff);
    /* Newton's carried constants (step.c): at most two blocks per body, one for lambda */
    s->ctl.newton_nb = 2 * model->nbodies + 1;
    s->ctl.newton_B = calloc(3 * (size_t)s->ctl.newton_nb, sizeof(double));
    /* the joints' evaluation handed from a residual to the assembly (sim.h) */
    s->as.jm = calloc(1, sizeof *s->as.jm);
    if (s->as.jm) {
        size_t nj = (size_t)model->njoints, nJ = 0;
        s->as.jm->joff = calloc(nj + 1, sizeof *s->as.jm->joff);
        if (s->as.jm->joff)
            for (size_t i = 0; i < nj; i++) {
                s->as.jm->joff[i] = nJ;
                nJ += (size_t)model->joints[i].klass->nrows * FMB_ELEM_COLS;
            }
        s->as.jm->on = n <= FMB_JOINT_MEMO_MAXN;
        s->as.jm->q = calloc(n + 1, sizeof(double));
        s->as.jm->v = calloc(2 * nj + 1, sizeof *s->as.jm->v);
        s->as.jm->J = calloc(nJ + 1, sizeof(double));
    }
    if (!s->as.scratch || !s->ct.cuoff || !s->ctl.newton_B || !s->as.jm || !s->as.jm->joff ||
        !s->as.jm->q || !s->as.jm->v || !s->as.jm->J) {
        fmb_sim_destroy(&s);
        return NULL;
    }
    s->as.sJ[0] = s->as.scratch;
    s->as.sJ[1] = s->as.sJ[0] + mr * FMB_VIEW_COLS;
    s->as.sH = s->as.sJ[1] + mr * FMB_VIEW_COLS;
    s->as.sK = s->as.sH + mn * mn;
    s->as.sC = s->as.sK + mn * mn;
    s->as.sM = s->as.sC + mn * mn;
    s->as.dK = s->as.sM + md * md;
    s->as.dC = s->as.dK + md * md;
    s->as.dH = s->as.dC + md * md;
    s->as.sQ[0] = s->as.dH + md * md;
    s->as.sQ[1] = s->as.sQ[0] + mq;
    s->as.sb = s->as.sQ[1] + mq;
    s->as.sv = s->as.sb + mq;
    s->as.sw = s->as.sv + mn;
    s->as.sphi = s->as.sw + mn;
    s->as.sphi2 = s->as.sphi + mr;
    for (int i = 0; i < model->njoints; i++)
        if (fmb_friction_on(&model->joints[i].friction)) s->ct.ncontacts++;
    if (s->ct.ncontacts) {
        const size_t nc = (size_t)s->ct.ncontacts;
        s->ct.contacts = calloc(nc, sizeof *s->ct.contacts);
        s->ct.cX = calloc(N * 8 * nc, sizeof(double));
        /* D+, P, p0, M, q, z, w, a velocity row: sized for 8 unknowns per contact */
        s->ct.clcp = calloc(8 * (8 * nc) * (8 * nc) + 16 * (8 * nc) + 16, sizeof(double));
        s->ct.cstart = calloc(4 * N + 2 * n + 1, sizeof(double));
        if (!s->ct.contacts || !s->ct.cX || !s->ct.clcp || !s->ct.cstart) {
            fmb_sim_destroy(&s);
            return NULL;
        }
        int c = 0;
        for (int i = 0; i < model->njoints; i++)
            if (fmb_friction_on(&model->joints[i].friction)) {
                s->ct.contacts[c].joint = i;
                s->ct.contacts[c].d = model->joints[i].friction;
                s->ct.contacts[c].fk = fmb_friction_class_for(model->joints[i].friction.model);
                c++;
            }
    }
    if (hooks_create(s)) {
        fmb_sim_destroy(&s);
        return NULL;
    }
    if (fmb_sim_switch_create(s)) {
        fmb_sim_destroy(&s);
        return NULL;
    }
    fmb_kkt_init(&s->as.kkt, (int)N);
    s->as.kkt.ncoord = (int)s->n; /* coordinates first, then the multipliers */
    s->as.kkt.ordering = (int)s->opts.ordering;
    s->as.kkt.solver = s->opts.linear_solver == FMB_LINEAR_UMFPACK ? FMB_KKT_UMFPACK : FMB_KKT_KLU;
    return s;
}

void fmb_sim_destroy(fmb_sim_t **ps)
{
    if (!ps || !*ps) return;
    fmb_sim_t *s = *ps;
    fmb_kkt_free(&s->as.kkt);
    free(s->st.q), free(s->st.qd), free(s->st.qdd), free(s->st.lam), free(s->st.acc),
        free(s->ctl.acc1), free(s->ctl.qscale), free(s->st.accp), free(s->st.accpp),
        free(s->diag.err_lim), free(s->st.lamp), free(s->st.save);
    free(s->ctl.zero);
    free(s->st.vel_change);
    free(s->ctl.work);
    free(s->as.scratch), free(s->ct.cuoff), free(s->ctl.newton_B);
    free(s->el.hk), free(s->el.cv), free(s->ctl.qscale1), free(s->ctl.wq), free(s->ctl.eq),
        free(s->ctl.newton_D);
    if (s->as.jm)
        free(s->as.jm->q), free(s->as.jm->v), free(s->as.jm->J), free(s->as.jm->joff),
            free(s->as.jm);
    free(s->ct.contacts), free(s->ct.cX), free(s->ct.clcp), free(s->ct.cstart);
    fmb_sim_switch_free(s);
    free(s);
    *ps = NULL;
}

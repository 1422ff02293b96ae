/* Force items seen from outside: the extra outputs of force classes (clearance
 * joints: /joints/<name>/clearance/...), and the force-law history kept across steps. */
#include "solve/sim_internal.h"

#include <stdio.h>
#include <string.h>

static const fmb_force_t *force_at(const fmb_model_t *m, int force)
{
    return m && force >= 0 && force < m->nforces ? &m->forces[force] : NULL;
}

int fmb_model_force_num_outputs(const fmb_model_t *m, int force)
{
    const fmb_force_t *f = force_at(m, force);
    return f && f->klass->outputs ? f->klass->noutputs : 0;
}

int fmb_model_force_output_group(const fmb_model_t *m, int force, char *buf, size_t len)
{
    const fmb_force_t *f = force_at(m, force);
    if (!f || !f->klass->output_group || !len) return FMB_ERR_ARG;
    int n = snprintf(buf, len, f->klass->output_group, f->name);
    return n < 0 || (size_t)n >= len ? FMB_ERR_ARG : 0;
}

const char *fmb_model_force_output_name(const fmb_model_t *m, int force, int k)
{
    return k >= 0 && k < fmb_model_force_num_outputs(m, force)
               ? m->forces[force].klass->output_names[k]
               : NULL;
}

int fmb_model_force_output_width(const fmb_model_t *m, int force, int k)
{
    if (k < 0 || k >= fmb_model_force_num_outputs(m, force)) return 0;
    const int *w = m->forces[force].klass->output_width;
    return w ? w[k] : 1;
}

void fmb_sim_force_outputs(const fmb_sim_t *s, int force, double *values)
{
    const fmb_force_t *f = s ? force_at(s->model, force) : NULL;
    if (!f || !f->klass->outputs) return;
    fmb_bodyview_t v[2] = {fmb_model_view(s->model, f->body[0], s->st.q, s->st.qd),
                           fmb_model_view(s->model, f->body[1], s->st.q, s->st.qd)};
    f->klass->outputs(f, v, s->st.t, values);
}

void fmb_sim_force_history(fmb_sim_t *s, int reset)
{
    const fmb_model_t *md = s->model;
    for (int i = 0; i < md->nforces; i++) {
        const fmb_force_t *f = &md->forces[i];
        void (*hook)(const fmb_force_t *, const fmb_bodyview_t[2], double) =
            reset ? f->klass->reset : f->klass->accept;
        if (!hook || !f->state) continue;
        if (reset) memset(f->state, 0, (size_t)f->klass->nstate * sizeof *f->state);
        fmb_bodyview_t v[2] = {fmb_model_view(md, f->body[0], s->st.q, s->st.qd),
                               fmb_model_view(md, f->body[1], s->st.q, s->st.qd)};
        hook(f, v, s->st.t);
    }
}

/* Model building: bodies, joints, forces, parameters; validation of inputs. */
#include "model/model.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "model/params_check.h"

int fmb_model_error(fmb_model_t *m, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fmb_vformat(m->errmsg, sizeof m->errmsg, fmt, ap); /* long names leave room for the cause */
    va_end(ap);
    return status;
}

static int grow(void **arr, int *cap, int n, size_t size)
{
    if (n < *cap) return 0;
    int nc = *cap ? 2 * *cap : 8;
    void *p = realloc(*arr, (size_t)nc * size);
    if (!p) return FMB_ERR_NOMEM;
    memset((char *)p + (size_t)*cap * size, 0, (size_t)(nc - *cap) * size);
    *arr = p;
    *cap = nc;
    return 0;
}

static int copy_name(fmb_model_t *m, char dst[FMB_NAME_MAX], const char *src, const char *what)
{
    if (!src || !*src) return fmb_model_error(m, FMB_ERR_ARG, "%s without a name", what);
    if (strlen(src) >= FMB_NAME_MAX)
        return fmb_model_error(m, FMB_ERR_ARG, "%s name '%s' longer than %d characters", what, src,
                               FMB_NAME_MAX - 1);
    /* names become HDF5 group and dataset names: no '/', no control characters, not . or .. */
    for (const char *p = src; *p; p++)
        if (*p == '/' || (unsigned char)*p < 0x20 || *p == 0x7f)
            return fmb_model_error(m, FMB_ERR_ARG,
                                   "%s name '%s' contains '%s': names are HDF5 group names in the "
                                   "results (use letters, digits, '_', '-', '.')",
                                   what, *p == '/' ? src : "?",
                                   *p == '/' ? "/" : "a control character");
    if (!strcmp(src, ".") || !strcmp(src, ".."))
        return fmb_model_error(m, FMB_ERR_ARG, "%s name '%s' is not allowed", what, src);
    strcpy(dst, src);
    return 0;
}

fmb_model_t *fmb_model_create(void)
{
    fmb_model_t *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    if (grow((void **)&m->bodies, &m->cap_bodies, 0, sizeof *m->bodies)) {
        free(m);
        return NULL;
    }
    fmb_body_t *g = &m->bodies[0];
    strcpy(g->name, "ground");
    g->offset = -1;
    m->nbodies = 1;
    return m;
}

void fmb_model_destroy(fmb_model_t **pm)
{
    if (!pm || !*pm) return;
    fmb_model_t *m = *pm;
    for (int i = 0; i < m->nbodies; i++) {
        free(m->bodies[i].points);
        if (m->bodies[i].klass && m->bodies[i].klass->destroy)
            m->bodies[i].klass->destroy(&m->bodies[i]);
    }
    for (int i = 0; i < m->njoints; i++)
        fmb_expr_destroy(&m->joints[i].fn);
    for (int i = 0; i < m->nforces; i++) {
        fmb_expr_destroy(&m->forces[i].fn[0]);
        fmb_expr_destroy(&m->forces[i].fn[1]);
        free(m->forces[i].state);
    }
    free(m->bodies);
    free(m->joints);
    free(m->forces);
    fmb_params_free(&m->params);
    free(m);
    *pm = NULL;
}

int fmb_model_set_param(fmb_model_t *m, const char *name, double value)
{
    if (!name || !*name || strcmp(name, "t") == 0)
        return fmb_model_error(m, FMB_ERR_ARG, "invalid parameter name '%s' (t is reserved)",
                               name ? name : "");
    if (fmb_params_set(&m->params, name, value)) return FMB_ERR_NOMEM;
    return 0;
}

void fmb_model_set_gravity(fmb_model_t *m, double gx, double gy)
{
    m->g[0] = gx;
    m->g[1] = gy;
}

void fmb_model_set_source(fmb_model_t *m, const char *source)
{
    snprintf(m->source, sizeof m->source, "%s", source ? source : "");
}

int fmb_model_find_body(const fmb_model_t *m, const char *name)
{
    for (int i = 0; i < m->nbodies; i++)
        if (strcmp(m->bodies[i].name, name) == 0) return i;
    return FMB_ERR_NOTFOUND;
}

int fmb_model_find_joint(const fmb_model_t *m, const char *name)
{
    for (int i = 0; i < m->njoints; i++)
        if (strcmp(m->joints[i].name, name) == 0) return i;
    return FMB_ERR_NOTFOUND;
}

static int find_force(const fmb_model_t *m, const char *name)
{
    for (int i = 0; i < m->nforces; i++)
        if (strcmp(m->forces[i].name, name) == 0) return i;
    return FMB_ERR_NOTFOUND;
}

int fmb_model_new_body_name(fmb_model_t *m, const char *name, char dst[FMB_NAME_MAX])
{
    const int rc = copy_name(m, dst, name, "body");
    if (rc) return rc;
    if (fmb_model_find_body(m, dst) >= 0)
        return fmb_model_error(m, FMB_ERR_MODEL, "duplicate body name '%s'", dst);
    return 0;
}

int fmb_model_push_body(fmb_model_t *m, const fmb_body_t *body)
{
    if (grow((void **)&m->bodies, &m->cap_bodies, m->nbodies, sizeof *m->bodies))
        return FMB_ERR_NOMEM;
    fmb_body_t *b = &m->bodies[m->nbodies];
    *b = *body;
    b->offset = m->ncoords;
    m->ncoords += b->ndof;
    return m->nbodies++;
}

/* Append a point with a checked name; unique: the caller guarantees a new name (a
 * beam's generated n0 .. nN), which skips the linear duplicate search. */
int fmb_model_append_point(fmb_model_t *m, int body, const char *name, double x, double y,
                        int unique)
{
    if (body < 0 || body >= m->nbodies)
        return fmb_model_error(m, FMB_ERR_ARG, "no body with index %d", body);
    fmb_body_t *b = &m->bodies[body];
    char nm[FMB_NAME_MAX];
    int rc = copy_name(m, nm, name, "point");
    if (rc) return rc;
    if (!unique)
        for (int k = 0; k < b->npoints; k++)
            if (strcmp(b->points[k].name, nm) == 0)
                return fmb_model_error(m, FMB_ERR_MODEL, "body '%s': duplicate point '%s'",
                                       b->name, nm);
    if (!isfinite(x) || !isfinite(y))
        return fmb_model_error(m, FMB_ERR_MODEL, "body '%s': point '%s' is not finite", b->name,
                               nm);
    if (grow((void **)&b->points, &b->cap_points, b->npoints, sizeof *b->points))
        return FMB_ERR_NOMEM;
    fmb_point_t *p = &b->points[b->npoints];
    strcpy(p->name, nm);
    p->u[0] = x, p->u[1] = y;
    return b->npoints++;
}

int fmb_model_add_body_point(fmb_model_t *m, int body, const char *name, double x, double y)
{
    return fmb_model_append_point(m, body, name, x, y, 0);
}

static int check_bodies(fmb_model_t *m, const int body[2], int two, const char *what,
                        const char *name)
{
    for (int k = 0; k < (two ? 2 : 1); k++)
        if (body[k] < 0 || body[k] >= m->nbodies)
            return fmb_model_error(m, FMB_ERR_MODEL, "%s '%s': no body with index %d", what, name,
                                   body[k]);
    return 0;
}

/* The class's body rules (fmb_joint_class_t.bodies, distinct). */
static int check_body_kinds(fmb_model_t *m, const fmb_joint_class_t *k, const int body[2],
                            const char *name)
{
    static const char *const which[2] = {"first", "second"};
    static const char *const names[3] = {"the ground", "a rigid body", "a beam"};
    if (k->distinct && body[0] == body[1])
        return fmb_model_error(m, FMB_ERR_MODEL, "joint '%s' (%s) connects a body to itself",
                               name, k->name);
    for (int b = 0; b < 2; b++) {
        const unsigned want = k->bodies[b], kind = fmb_body_kind(&m->bodies[body[b]]);
        if (!want || (want & kind)) continue;
        char list[64] = "";
        for (int i = 0, n = 0; i < 3; i++)
            if (want & (1u << i)) {
                const size_t u = strlen(list);
                snprintf(list + u, sizeof list - u, "%s%s", n++ ? " or " : "", names[i]);
            }
        const int is = kind == FMB_BODY_GROUND ? 0 : kind == FMB_BODY_RIGID ? 1 : 2;
        return fmb_model_error(m, FMB_ERR_MODEL,
                               "joint '%s' (%s): its %s body '%s' is %s; this type takes %s there",
                               name, k->name, which[b], m->bodies[body[b]].name, names[is], list);
    }
    return 0;
}

/* Friction parameters of a sliding joint (docs/theory.md section 9): the friction-model
 * class checks its own parameters (model/params.h). */
static int check_friction(fmb_model_t *m, const fmb_joint_t *j)
{
    const fmb_friction_desc_t *f = &j->friction;
    if (!fmb_friction_on(f)) return 0;
    const fmb_friction_class_t *fk = fmb_friction_class_for(f->model);
    if (!fk)
        return fmb_model_error(m, FMB_ERR_MODEL, "joint '%s': unknown friction model '%s'",
                               j->name, f->model);
    if (!j->klass->slide_direction)
        return fmb_model_error(m, FMB_ERR_MODEL,
                               "joint '%s': friction needs a sliding joint (prismatic or "
                               "slider_beam), not %s",
                               j->name, j->klass->name);
    char msg[400];
    int rc = fk->check ? fk->check(f, msg, sizeof msg) : 0;
    if (rc) return fmb_model_error(m, rc, "joint '%s': %s", j->name, msg);
    return 0;
}

int fmb_model_joint_has_friction(const fmb_model_t *m, int joint)
{
    return joint >= 0 && joint < m->njoints && fmb_friction_on(&m->joints[joint].friction);
}

/* The time expressions of an item: one per EXPR key of its class table (the key's field is
 * the k-th of the n strings at offset `base` of the description desc, compiled into fn[k];
 * absent: the key's default text, else dflt). 0, or FMB_ERR_EXPR with the message in msg
 * and nothing compiled. */
static int compile_exprs(fmb_model_t *m, const fmb_param_t *params, const void *desc, size_t base,
                         int n, const char *dflt, fmb_expr_t **fn, char *msg, size_t len)
{
    for (const fmb_param_t *p = params; p && p->kind != FMB_PARAM_END; p++) {
        if (p->kind != FMB_PARAM_EXPR || p->offset < base) continue;
        const size_t e = (p->offset - base) / sizeof(const char *);
        if (e >= (size_t)n || fn[e]) continue;
        const char *text = *(const char *const *)(const void *)((const char *)desc + p->offset);
        if (!text) text = p->dflt_text ? p->dflt_text : dflt;
        if (!(fn[e] = fmb_expr_create(text, &m->params, msg, len))) {
            for (int i = 0; i < n; i++) fmb_expr_destroy(&fn[i]);
            return FMB_ERR_EXPR;
        }
    }
    return 0;
}

int fmb_model_add_joint(fmb_model_t *m, const fmb_joint_desc_t *d)
{
    char name[FMB_NAME_MAX];
    int rc = copy_name(m, name, d->name, "joint");
    if (rc) return rc;
    if (fmb_model_find_joint(m, name) >= 0)
        return fmb_model_error(m, FMB_ERR_MODEL, "duplicate joint name '%s'", name);
    const fmb_joint_class_t *k = fmb_joint_class_named(d->type);
    if (!k)
        return fmb_model_error(m, FMB_ERR_MODEL, "joint '%s': unknown type '%s'", name,
                               d->type ? d->type : "(none)");
    if ((rc = check_bodies(m, d->body, 1, "joint", name)) ||
        (rc = check_body_kinds(m, k, d->body, name)))
        return rc;
    if (grow((void **)&m->joints, &m->cap_joints, m->njoints, sizeof *m->joints))
        return FMB_ERR_NOMEM;
    fmb_joint_t *j = &m->joints[m->njoints];
    memset(j, 0, sizeof *j);
    strcpy(j->name, name);
    j->klass = k;
    memcpy(j->body, d->body, sizeof j->body);
    memcpy(j->point, d->point, sizeof j->point);
    j->ref = d->angle;
    j->line = d->line;
    j->friction = d->friction;
    memcpy(j->par, d->param, sizeof j->par);
    double ax = d->axis[0], ay = d->axis[1], n = hypot(ax, ay);
    if (n == 0) ax = 1, ay = 0, n = 1;
    j->axis[0] = ax / n, j->axis[1] = ay / n;
    char msg[512];
    if ((rc = compile_exprs(m, k->params, d, offsetof(fmb_joint_desc_t, expr), 1, "",
                            &j->fn, msg, sizeof msg)))
        return fmb_model_error(m, rc, "joint '%s': %s", name, msg);
    if (k->check && (rc = k->check(m, j, msg, sizeof msg))) {
        fmb_expr_destroy(&j->fn);
        return fmb_model_error(m, rc, "%s", msg);
    }
    if ((rc = check_friction(m, j))) {
        fmb_expr_destroy(&j->fn);
        return rc;
    }
    /* the class table's bounds (the case loader's, for library users too) */
    if ((rc = fmb_params_check(k->params, d, "", msg, sizeof msg))) {
        fmb_expr_destroy(&j->fn);
        return fmb_model_error(m, rc, "joint '%s': %s", name, msg);
    }
    if (fmb_friction_on(&j->friction)) { /* 0: the model's default, stored */
        j->friction.v_stick = fmb_friction_stick_velocity(&j->friction);
        j->friction.model = fmb_friction_class_for(j->friction.model)->name; /* not the caller's */
    } else {
        j->friction.model = NULL;
    }
    j->row = m->nrows;
    m->nrows += k->nrows;
    return m->njoints++;
}

int fmb_model_add_force(fmb_model_t *m, const fmb_force_desc_t *d)
{
    char name[FMB_NAME_MAX];
    int rc = copy_name(m, name, d->name, "force");
    if (rc) return rc;
    if (find_force(m, name) >= 0)
        return fmb_model_error(m, FMB_ERR_MODEL, "duplicate force name '%s'", name);
    const fmb_force_class_t *const type = fmb_force_class_named(d->type), *k = type;
    if (!k)
        return fmb_model_error(m, FMB_ERR_MODEL, "force '%s': unknown type '%s'", name,
                               d->type ? d->type : "(none)");
    if (k->specialize && !(k = k->specialize(d)))
        return fmb_model_error(m, FMB_ERR_MODEL,
                               "force '%s': no law of type '%s' for this description", name,
                               d->type);
    const int two = k->nbodies == 2;
    if ((rc = check_bodies(m, d->body, two, "force", name))) return rc;
    if (grow((void **)&m->forces, &m->cap_forces, m->nforces, sizeof *m->forces))
        return FMB_ERR_NOMEM;
    fmb_force_t *f = &m->forces[m->nforces];
    memset(f, 0, sizeof *f);
    strcpy(f->name, name);
    f->klass = k;
    f->body[0] = d->body[0];
    f->body[1] = two ? d->body[1] : FMB_GROUND;
    memcpy(f->point, d->point, sizeof f->point);
    f->k = d->stiffness, f->c = d->damping, f->l0 = d->rest_length;
    f->clr = d->clearance;
    f->coord = d->coordinate;
    memcpy(f->axis, d->axis, sizeof f->axis);
    memcpy(f->par, d->param, sizeof f->par);
    f->fr = d->friction;
    if (f->fr.model) { /* the class's name, not the caller's string */
        const fmb_friction_class_t *fk = fmb_friction_class_for(f->fr.model);
        f->fr.model = fk ? fk->name : NULL;
    }
    f->line = d->line;
    char msg[512];
    if ((rc = compile_exprs(m, type->params, d, offsetof(fmb_force_desc_t, expr), 2, "0", f->fn,
                            msg, sizeof msg)))
        return fmb_model_error(m, rc, "force '%s': %s", name, msg);
    if (k->check && (rc = k->check(f, msg, sizeof msg))) {
        fmb_expr_destroy(&f->fn[0]);
        fmb_expr_destroy(&f->fn[1]);
        return fmb_model_error(m, rc, "%s", msg);
    }
    /* the table's bounds (that of the type: a specialized law shares its keys) */
    if ((rc = fmb_params_check(type->params, d, "", msg, sizeof msg))) {
        fmb_expr_destroy(&f->fn[0]);
        fmb_expr_destroy(&f->fn[1]);
        return fmb_model_error(m, rc, "force '%s': %s", name, msg);
    }
    if (k->nstate > 0 && !(f->state = calloc((size_t)k->nstate, sizeof(double)))) {
        fmb_expr_destroy(&f->fn[0]);
        fmb_expr_destroy(&f->fn[1]);
        return FMB_ERR_NOMEM;
    }
    return m->nforces++;
}

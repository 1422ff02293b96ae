/*
 * Views of a model's bodies for its elements (model.h): a view's body, ndof and state
 * pointers, and the element columns of a joint or force (the default ones kept in the
 * element, or the class's own cols()). Called at every evaluation of an element in a step;
 * building a model is model.c, reading it model_access.c.
 */
#include <string.h>

#include "model/model.h"

/* The view's body, ndof and state pointers (not its columns). */
static inline void view_state(const fmb_model_t *m, int b, const double *q, const double *qd,
                              fmb_bodyview_t *v)
{
    const fmb_body_t *bd = &m->bodies[b];
    v->body = bd;
    v->ndof = bd->ndof;
    v->q = v->qd = NULL;
    if (bd->offset >= 0) {
        v->q = q ? q + bd->offset : NULL;
        v->qd = qd ? qd + bd->offset : NULL;
    }
}

void fmb_model_view_into(const fmb_model_t *m, int b, const double *q, const double *qd,
                         fmb_bodyview_t *v)
{
    view_state(m, b, q, qd, v);
    fmb_view_rigid(v);
}

fmb_bodyview_t fmb_model_view(const fmb_model_t *m, int b, const double *q, const double *qd)
{
    fmb_bodyview_t v = {0};
    fmb_model_view_into(m, b, q, qd, &v);
    return v;
}

/* Default columns: the rigid ones plus the shape columns of point[b] on each body. They
 * depend only on the points and the bodies, so they are kept in the element (written
 * through the const pointer: a model's elements are not const objects, and no threads
 * share a model) and rebuilt when a point or a view's ndof differs from the kept ones. */
static void default_cols_build(const double point[2][2], fmb_elem_cols_t *c, fmb_bodyview_t v[2])
{
    for (int b = 0; b < 2; b++) {
        fmb_view_rigid(&v[b]);
        fmb_view_add_point(&v[b], point[b]);
        c->ndof[b] = v[b].ndof, c->nc[b] = v[b].nc;
        memcpy(c->point[b], point[b], sizeof c->point[b]);
        memcpy(c->cols[b], v[b].cols, (size_t)v[b].nc * sizeof *v[b].cols);
    }
    c->ok = 1;
}

/* the check and the copy inline in the views (39 per step of the quick-return), the
 * rebuild out of line */
static inline void default_cols(const double point[2][2], const fmb_elem_cols_t *cc,
                                fmb_bodyview_t v[2])
{
    fmb_elem_cols_t *c = (fmb_elem_cols_t *)cc;
    if (!(c->ok && c->ndof[0] == v[0].ndof && c->ndof[1] == v[1].ndof &&
          c->point[0][0] == point[0][0] && c->point[0][1] == point[0][1] &&
          c->point[1][0] == point[1][0] && c->point[1][1] == point[1][1])) {
        default_cols_build(point, c, v);
        return;
    }
    for (int b = 0; b < 2; b++) { /* a fixed-size copy: a few moves, no library call */
        v[b].nc = c->nc[b];
        memcpy(v[b].cols, c->cols[b], sizeof v[b].cols);
    }
}

void fmb_joint_cols(const fmb_joint_t *j, fmb_bodyview_t v[2])
{
    if (j->klass->cols) {
        j->klass->cols(j, v);
        return;
    }
    default_cols(j->point, &j->colcache, v);
}

/* The element's views: with the default columns straight from the element's cache
 * (default_cols sets the rigid columns itself when it rebuilds it); a class cols() starts
 * from the rigid columns, as fmb_model_view_into leaves them. */
void fmb_joint_views(const fmb_model_t *m, const fmb_joint_t *j, const double *q, const double *qd,
                     fmb_bodyview_t v[2])
{
    view_state(m, j->body[0], q, qd, &v[0]);
    view_state(m, j->body[1], q, qd, &v[1]);
    if (j->klass->cols) {
        fmb_view_rigid(&v[0]), fmb_view_rigid(&v[1]);
        j->klass->cols(j, v);
        return;
    }
    default_cols(j->point, &j->colcache, v);
}

void fmb_force_views(const fmb_model_t *m, const fmb_force_t *f, const double *q, const double *qd,
                     fmb_bodyview_t v[2])
{
    view_state(m, f->body[0], q, qd, &v[0]);
    view_state(m, f->body[1], q, qd, &v[1]);
    if (f->klass->cols) {
        fmb_view_rigid(&v[0]), fmb_view_rigid(&v[1]);
        f->klass->cols(f, v);
        return;
    }
    default_cols(f->point, &f->colcache, v);
}

/* Private declarations of the joint classes (one file each) and the registry. */
#ifndef FMB_JOINTS_JOINTS_H
#define FMB_JOINTS_JOINTS_H
#include <stdio.h>
#include <string.h>

#include "model/model.h"

/* Second-derivative contraction of the point-coincidence rows r_P0 - r_P1 (weights
 * w[0], w[1]): blockdiag(H_P0(w), -H_P1(w)). Shared by revolute and weld joints. */
void fmb_joint_pin_hess(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, const double *w,
                        double *H);
/* The shape functions of joint point b (fmb_point_shape), kept in the joint's evalcache
 * (revolute and weld joints: two of these, one per body), keyed on the body, its data, its
 * ndof and the point's bits: a hit returns the kept N, bitwise the evaluation it replaces
 * (fmb_joint_pin_shape_fill evaluates and keeps it; revolute.c). With them the places of
 * N's columns among the view's columns (fmb_view_col), found for a view of pnc columns and
 * checked at every use (revolute.c pin_places: v->cols[pos[k]] == N.col[k] for every k);
 * cover: the places are 3 .. pnc - 1, each once (the default columns of a beam pin). */
typedef struct fmb_pin_memo {
    const fmb_body_t *body;
    const void *data;
    double u[2];
    int ndof, ok;
    int pnc, cover;
    int pos[FMB_SHAPE_MAX];
    fmb_shape_t N;
} fmb_pin_memo_t;
fmb_pin_memo_t *fmb_joint_pin_memo_fill(const fmb_joint_t *j, const fmb_bodyview_t *v, int b);
static inline fmb_pin_memo_t *fmb_joint_pin_memo(const fmb_joint_t *j, const fmb_bodyview_t *v,
                                                 int b)
{
    fmb_pin_memo_t *m = (fmb_pin_memo_t *)(void *)((fmb_joint_t *)j)->evalcache + b;
    if (m->ok && m->body == v->body && m->ndof == v->ndof &&
        m->data == (v->body ? v->body->data : NULL) && !memcmp(m->u, j->point[b], sizeof m->u))
        return m;
    return fmb_joint_pin_memo_fill(j, v, b);
}
static inline const fmb_shape_t *fmb_joint_pin_shape(const fmb_joint_t *j, const fmb_bodyview_t *v,
                                                     int b)
{
    return &fmb_joint_pin_memo(j, v, b)->N;
}


/* ---- case keys shared by joint classes (model/params.h) */
/* angle: locked relative angle theta_0 - theta_1; default from the initial poses
 * (fmb_joint_prepare_angle). */
#define FMB_JOINT_ANGLE_PARAM                                                                      \
    {                                                                                              \
        .key = "angle", .kind = FMB_PARAM_NUMBER, .flags = FMB_PARAM_DERIVED,                      \
        .offset = offsetof(fmb_joint_desc_t, angle), .unit = "rad",                                \
        .doc = "locked relative angle theta_1 - theta_2 (default: initial poses)"                  \
    }
/* friction: a slider block with a friction model (contact/friction_*.c) */
#define FMB_JOINT_FRICTION_PARAM                                                                   \
    {                                                                                              \
        .key = "friction", .kind = FMB_PARAM_FRICTION,                                             \
        .offset = offsetof(fmb_joint_desc_t, friction),                                            \
        .doc = "slider block and friction model (docs/case-format.md, 'friction')"                 \
    }
/* prepare(): the angle from the initial poses unless given. */
int fmb_joint_prepare_angle(fmb_item_env_t *env, fmb_joint_desc_t *d);

/* Test hook: register an extra joint class under its name (not thread-safe; call before
 * loading cases). Returns 0 (also when this class is registered already), or FMB_ERR_ARG
 * when another class has its name or the table of extras (8) is full. Built-in classes
 * are one line in joints/registry.c instead (docs/extending.md). */
int fmb_joint_class_register(const fmb_joint_class_t *k);

#endif

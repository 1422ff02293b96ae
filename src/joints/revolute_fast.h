/* The revolute joint's fast path (revolute_fast.c), private to the pin joints: the class
 * of runs, fmb_revolute_class, evaluates the pins with kept shape functions and inlined
 * point kinematics; the reference, revolute.c's fmb_revolute_reference_class (not in the
 * registry), evaluates them through bodies/point.c. Tests compare the two. */
#ifndef FMB_JOINTS_REVOLUTE_FAST_H
#define FMB_JOINTS_REVOLUTE_FAST_H
#include "joints/joints.h"

/* revolute.c: the plain evaluation, the template of a joint class */
extern const fmb_joint_class_t fmb_revolute_reference_class;
/* revolute_fast.c: the class of runs (registry.c) */
extern const fmb_joint_class_t fmb_revolute_class;

/* Second-derivative contraction of the point-coincidence rows r_P0 - r_P1 (weights
 * w[0], w[1]): blockdiag(H_P0(w), -H_P1(w)). The fast paths of the revolute and weld joints
 * (weld_fast.c) share it. */
void fmb_joint_pin_hess(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, const double *w,
                        double *H);
/* The shape functions of joint point b (fmb_point_shape), kept in the joint's evalcache
 * (the revolute and weld fast paths: one per body), keyed on the body, its data, its
 * ndof and the point's bits: a hit returns the kept N, bitwise the evaluation it replaces
 * (fmb_joint_pin_memo_fill evaluates and keeps it). With them the places of
 * N's columns among the view's columns (fmb_view_col), found for a view of pnc columns and
 * checked at every use (pin_places: v->cols[pos[k]] == N.col[k] for every k);
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

#endif

/*
 * The memo of the slider on an elastic guide (slider_beam.c is the element: its equations,
 * the place search and the evaluation from a place). The registered class takes its places
 * from here; the reference table, fmb_slider_beam_reference_class, searches every one.
 *
 * The last two places are kept in the joint (evalcache): the views' columns, Phi and its
 * Jacobian and the Hessian at one iterate all need one, and the step control the states at
 * t_n and of the candidate. A place is taken again when every input is bitwise the same:
 * the rigid coordinates of both bodies, the slider point and the guide coordinates that
 * the curve read (fmb_beam_curve_reads_t), so a kept place is the searched one bit for
 * bit (tests/test_slider_cache.c compares the class of runs with the reference table,
 * exactly). On the quick-return (cases/quick_return.yaml, 10 rocker elements) the
 * joint's functions ask for a place 11.6 times per step, 3.4 of them at a new state; each
 * search is an element search and Hermite evaluations on the guide. With every place
 * searched a step costs 163,400 instructions, with the memo 159,000 (callgrind, -2.7 %).
 */
#include "joints/slider_beam.h"

typedef struct kept_place {
    int ok;
    const fmb_beam_t *bm;
    double key[8];
    fmb_beam_curve_reads_t rd;
    fmb_slider_place_t c;
} kept_place_t;
typedef struct kept {
    kept_place_t m[2];
    int last; /* the slot used last */
} kept_t;
_Static_assert(sizeof(kept_t) <= sizeof(((fmb_joint_t *)0)->evalcache),
               "slider_beam's kept places must fit the joint's evalcache");

static int hit(const kept_place_t *m, const fmb_beam_t *bm, const double key[8], const double *q1)
{
    if (!m->ok || m->bm != bm || memcmp(m->key, key, sizeof m->key)) return 0;
    for (int i = 0; i < m->rd.n; i++)
        if (memcmp(&q1[m->rd.col[i]], &m->rd.val[i], sizeof(double))) return 0;
    return 1;
}

const fmb_slider_place_t *fmb_slider_place_kept(const fmb_joint_t *j, const fmb_bodyview_t v[2])
{
    kept_t *kp = (kept_t *)(void *)((fmb_joint_t *)j)->evalcache;
    const fmb_beam_t *bm = v[1].body->data;
    const double *q1 = v[1].q;
    const double key[8] = {v[0].ndof ? v[0].q[0] : 0.0,
                           v[0].ndof ? v[0].q[1] : 0.0,
                           fmb_body_angle(&v[0]),
                           q1[0],
                           q1[1],
                           q1[2],
                           j->point[0][0],
                           j->point[0][1]};
    for (int i = 0; i < 2; i++) {
        const int k = i ? 1 - kp->last : kp->last;
        if (hit(&kp->m[k], bm, key, q1)) {
            kp->last = k;
            return &kp->m[k].c;
        }
    }
    kept_place_t *m = &kp->m[1 - kp->last]; /* replaces the older one */
    kp->last = 1 - kp->last;
    fmb_slider_place(j, v, &m->c, &m->rd);
    m->ok = m->rd.n >= 0;
    m->bm = bm;
    memcpy(m->key, key, sizeof key);
    return &m->c;
}

/* Shared by the pin tests (test_pin_rigid.c, test_pin_beam.c, test_weld_fast.c): an array
 * against its reference to rounding, the magnitude bound of one side of a pin, the bodies
 * they join and the views they check on. The including
 * file defines `static int failures, compared` before including it (as check.h's CHECK). */
#ifndef FMB_TESTS_PIN_CHECK_H
#define FMB_TESTS_PIN_CHECK_H

#include <math.h>
#include <stdio.h>

#include "model/model.h"
#include "near.h"

/* a within tol of the reference's b, entry by entry (near.h: NaN and Inf by class) */
static void near_vals(const char *what, const char *tag, const double *a, const double *b, int n,
                      double tol)
{
    compared++;
    for (int i = 0; i < n; i++)
        if (!near_tol(a[i], b[i], tol)) {
            printf("FAIL %-40s %-14s entry %d: %.17g, reference %.17g (tol %.3g)\n", tag, what, i,
                   a[i], b[i], tol);
            failures++;
            return;
        }
}

/* a bound on the magnitude of one side's terms: 1 + |u|_1 + the sum of |q| over the body's
 * coordinates but the angle (rotation entries and shape function values are at most 1; an
 * angle is not a magnitude) */
static double side_mag(const fmb_bodyview_t *v, const double u[2])
{
    double m = 1.0 + fabs(u[0]) + fabs(u[1]);
    for (int k = 0; k < v->ndof; k++)
        if (k != 2 && v->q) m += fabs(v->q[k]);
    return m;
}

enum kind { GROUND, RIGID, BEAM };

/* A body of kind k in m: ground, a rigid body, or a five-node beam (nodes unevenly spaced
 * over 0.8 m) in reference conditions ref; its index. */
static inline int add_kind(fmb_model_t *m, enum kind k, const char *name, fmb_beam_reference ref)
{
    if (k == GROUND) return FMB_GROUND;
    if (k == RIGID) {
        fmb_body_desc_t d = {.name = name, .mass = 1.3, .inertia = 0.07, .com = {0.1, -0.2}};
        return fmb_model_add_body(m, &d);
    }
    static const double x[5] = {0, 0.2, 0.35, 0.6, 0.8};
    fmb_beam_desc_t d = {.name = name,
                         .E = 2e11,
                         .rho = 7800,
                         .area = 1e-4,
                         .inertia = 1e-9,
                         .nnodes = 5,
                         .x = x,
                         .reference = ref};
    return fmb_model_add_beam(m, &d);
}

/* check(j, v, is, tag) on the joint's default views v, then for each body with elastic
 * columns on a view with an extra column (places found anew) and on one with as many
 * columns, one of the point's replaced by another (kept places no longer hold their
 * columns; point.c skips the missing one), then on v again. */
typedef void (*view_check_fn)(fmb_joint_t *j, fmb_bodyview_t v[2], int is, const char *tag);
static inline void check_view_variants(view_check_fn check, fmb_joint_t *j, fmb_bodyview_t v[2],
                                       int is, const char *tag)
{
    check(j, v, is, tag);
    for (int b = 0; b < 2; b++) {
        if (v[b].ndof <= 3) continue;
        fmb_bodyview_t vx[2] = {v[0], v[1]};
        const int extra = v[b].ndof - 1 - is % 3;
        fmb_view_add_cols(&vx[b], 1, &extra);
        char tx[128];
        snprintf(tx, sizeof tx, "%s +col %d on %d", tag, extra, b);
        check(j, vx, is, tx);
        fmb_bodyview_t vs[2] = {v[0], v[1]};
        if (vs[b].nc <= 3) continue;
        int other = 3;
        while (fmb_view_col(&vs[b], other) >= 0)
            other++;
        if (other >= vs[b].ndof) continue;
        vs[b].nc--;
        fmb_view_add_cols(&vs[b], 1, &other);
        snprintf(tx, sizeof tx, "%s swap col %d on %d", tag, other, b);
        check(j, vs, is, tx);
    }
    check(j, v, is, tag);
}

#endif

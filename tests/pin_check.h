/* Shared by the revolute pin tests (test_pin_rigid.c, test_pin_beam.c): an array against
 * its reference to rounding, and the magnitude bound of one side of a pin. The including
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

#endif

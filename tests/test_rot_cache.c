/*
 * The body rotation cache (model.h fmb_body_rot / fmb_view_rot): A(theta) = [c -s; s c]
 * kept in the body and keyed on the angle. Independent reference: the C library's cos and
 * sin of each angle (C17 Annex F: sin(-0) = -0, sin(NaN) = NaN), compared bit for bit with
 * what the cache returns, over a sequence of angles that exercises every hit and miss:
 * a repeat (hit), a new value (miss), +0 after -0 and -0 after +0 (equal as values,
 * different sines), NaN (never a hit), and the same through a body view (q[2]).
 * Checked to fail: with the key compared by value (th != rot_th) the -0 after +0 returns sin(+0) = +0 (and +0 after -0 returns -0):
 * 6 failures (3 on each path).
 * Compared exactly: the cache is keyed on the angle's bits and returns the library's own
 * cos and sin of that angle, so a hit must give their bits (the sign of a zero included).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "check.h"

static int failures = 0;

/* A from the cache equals [cos th, sin th, -sin th, cos th] bit for bit (NaN: NaN) */
static void expect(const double A[4], double th, const char *what)
{
    const double ref[4] = {cos(th), sin(th), -sin(th), cos(th)};
    if (isnan(th)) {
        CHECK(isnan(A[0]) && isnan(A[1]) && isnan(A[2]) && isnan(A[3]), "%s: NaN angle", what);
        return;
    }
    CHECK(memcmp(A, ref, sizeof ref) == 0,
          "%s: theta %g: A = [%a %a %a %a], cos/sin give [%a %a %a %a]", what, th, A[0], A[1], A[2],
          A[3], ref[0], ref[1], ref[2], ref[3]);
}

int main(void)
{
    const double seq[] = {0.0, -0.0, -0.0, 0.0, 1.0, 1.0, -1.0, NAN, NAN, 0.5, -0.0, 0.0};
    const int ns = (int)(sizeof seq / sizeof *seq);
    fmb_body_t body;
    memset(&body, 0, sizeof body);
    double A[4];
    for (int i = 0; i < ns; i++) {
        fmb_body_rot(&body, seq[i], A);
        expect(A, seq[i], "fmb_body_rot");
    }
    /* the same through a rigid body's view (q[2] is the angle) */
    fmb_body_t b2;
    memset(&b2, 0, sizeof b2);
    double q[3] = {0.1, 0.2, 0.0};
    fmb_bodyview_t v;
    memset(&v, 0, sizeof v);
    v.body = &b2, v.ndof = 3, v.q = q;
    for (int i = 0; i < ns; i++) {
        q[2] = seq[i];
        fmb_view_rot(&v, A);
        expect(A, seq[i], "fmb_view_rot");
    }
    printf("rot_cache: %d angles twice, %d failure(s)\n", ns, failures);
    return failures != 0;
}

/* The slider on an elastic guide (slider_beam.c) and its memo (slider_beam_memo.c). */
#ifndef FMB_JOINTS_SLIDER_BEAM_H
#define FMB_JOINTS_SLIDER_BEAM_H
#include "bodies/beam_curve.h"
#include "joints/joints.h"

/* The slider's place on its guide at a state: B = A(theta0 - theta1), B p0, the slider
 * point in the guide's body frame s = B p0 - rbar1, and the guide's centre line there. */
typedef struct fmb_slider_place {
    const fmb_beam_t *bm;
    double B[4], Bp[2], s[2];
    fmb_beam_curve_t cv;
} fmb_slider_place_t;

/* slider_beam.c: the place at the views' state, searched (reads, when non-NULL: the guide
 * coordinates the search read, beam_curve.h). */
void fmb_slider_place(const fmb_joint_t *j, const fmb_bodyview_t v[2], fmb_slider_place_t *c,
                      fmb_beam_curve_reads_t *reads);
/* slider_beam_memo.c: the place at the views' state from the last two kept in the joint
 * (evalcache) when every input is bitwise the same, else searched and kept. Borrowed: valid
 * until the joint's next evaluation of a third state. */
const fmb_slider_place_t *fmb_slider_place_kept(const fmb_joint_t *j, const fmb_bodyview_t v[2]);

/* slider_beam.c: the class of runs, its places kept (registry.c), and the reference table,
 * every place searched (not in the registry); otherwise the same table. */
extern const fmb_joint_class_t fmb_slider_beam_class;
extern const fmb_joint_class_t fmb_slider_beam_reference_class;

#endif

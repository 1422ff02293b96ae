/* The weld joint's reference and fast path: weld.c's fmb_weld_reference_class (not in the
 * registry) evaluates through bodies/point.c; weld_fast.c's fmb_weld_class, the class of
 * runs, keeps the joint points' shape functions (revolute_fast.h). Tests compare the two. */
#ifndef FMB_JOINTS_WELD_FAST_H
#define FMB_JOINTS_WELD_FAST_H
#include "joints/joints.h"

/* weld.c: the plain evaluation */
extern const fmb_joint_class_t fmb_weld_reference_class;
/* weld_fast.c: the class of runs (registry.c) */
extern const fmb_joint_class_t fmb_weld_class;

#endif

/* Private declarations of the joint classes (one file each) and the registry. */
#ifndef FMB_JOINTS_JOINTS_H
#define FMB_JOINTS_JOINTS_H
#include <stdio.h>

#include "model/model.h"

extern const fmb_joint_class_t fmb_revolute_class;
extern const fmb_joint_class_t fmb_prismatic_class;
extern const fmb_joint_class_t fmb_weld_class;
extern const fmb_joint_class_t fmb_driver_angle_class;
extern const fmb_joint_class_t fmb_driver_x_class;
extern const fmb_joint_class_t fmb_driver_y_class;

/* Second-derivative contraction of the point-coincidence rows r_P0 - r_P1 (weights
 * w[0], w[1]): blockdiag(H_P0(w), -H_P1(w)). Shared by revolute and weld joints. */
void fmb_joint_pin_hess(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, const double *w,
                        double *H);

/* Shared check: the two bodies differ. */
/* support of joints that see each body only through j->point[b] (revolute, weld) */
int fmb_joint_point_support(const fmb_joint_t *j, const fmb_bodyview_t v[2], int b, int *cols);
int fmb_joint_check_distinct(const fmb_model_t *m, const fmb_joint_t *j, char *msg, size_t len);
/* Shared check: distinct bodies, none of them a beam (rigid-body joint types). */
int fmb_joint_check_rigid(const fmb_model_t *m, const fmb_joint_t *j, char *msg, size_t len);
extern const fmb_joint_class_t fmb_slider_beam_class;

#endif

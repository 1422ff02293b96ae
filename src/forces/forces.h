/* Private declarations of the force classes and their registry. */
#ifndef FMB_FORCES_FORCES_H
#define FMB_FORCES_FORCES_H
#include <stdio.h>

#include "model/model.h"

extern const fmb_force_class_t fmb_point_force_class;
extern const fmb_force_class_t fmb_torque_class;
extern const fmb_force_class_t fmb_spring_class;
extern const fmb_force_class_t fmb_torsion_class;
extern const fmb_force_class_t fmb_clearance_class;

#endif

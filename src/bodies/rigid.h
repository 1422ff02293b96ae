#ifndef FMB_BODIES_RIGID_H
#define FMB_BODIES_RIGID_H
#include "model/model.h"
extern const fmb_body_class_t fmb_rigid_body_class;
#endif

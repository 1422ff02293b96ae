/*
 * Private case-file accessors (not part of the public API): the values the loader
 * computed, for tests and tools inside the tree. Public API: fmb_case_* in
 * include/flexmb/flexmb.h.
 */
#ifndef FLEXMB_IO_CASE_H
#define FLEXMB_IO_CASE_H

#include "flexmb/flexmb.h"

/* Title of the case (NULL when the file has none). */
const char *fmb_case_title(const fmb_case_t *c);

/* Parameters in file order, with overrides applied (final values). */
int fmb_case_num_params(const fmb_case_t *c);
const char *fmb_case_param_name(const fmb_case_t *c, int k);
/* Value of a parameter by name: 0 and *value set, or FMB_ERR_NOTFOUND. */
int fmb_case_param(const fmb_case_t *c, const char *name, double *value);

/* Descriptions exactly as passed to fmb_model_add_* (strings owned by the case).
 * Bodies are numbered as in the model: 1 .. n (0, ground, has no description). */
int fmb_case_num_bodies(const fmb_case_t *c); /* excluding ground */
const fmb_body_desc_t *fmb_case_body_desc(const fmb_case_t *c, int body);
int fmb_case_num_joints(const fmb_case_t *c);
const fmb_joint_desc_t *fmb_case_joint_desc(const fmb_case_t *c, int joint);
int fmb_case_num_forces(const fmb_case_t *c);
const fmb_force_desc_t *fmb_case_force_desc(const fmb_case_t *c, int force);

#endif

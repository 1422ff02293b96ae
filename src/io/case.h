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

/* Parameters: fmb_case_num_params, fmb_case_param_name, fmb_case_param (flexmb.h). */

/* Descriptions exactly as passed to fmb_model_add_* (strings owned by the case).
 * Bodies are numbered as in the model: 1 .. n (0, ground, has no description).
 * For a body declared with 'beam:' the body description is the equivalent rigid bar
 * (mass rho A L, inertia m L^2/12, com at mid-length): passed to fmb_model_add_body
 * when the beam is built rigid ('rigid' non-zero), for information only otherwise. */
int fmb_case_num_bodies(const fmb_case_t *c); /* excluding ground */
const fmb_body_desc_t *fmb_case_body_desc(const fmb_case_t *c, int body);
/* Beam description of a body declared with 'beam:' (NULL for other bodies), as passed to
 * fmb_model_add_beam when the beam is elastic; x points to node positions owned by the
 * case. */
const fmb_beam_desc_t *fmb_case_beam_desc(const fmb_case_t *c, int body);
/* 1 when the body was declared with 'beam:' and built as the equivalent rigid bar. */
int fmb_case_beam_is_rigid(const fmb_case_t *c, int body);
int fmb_case_num_joints(const fmb_case_t *c);
const fmb_joint_desc_t *fmb_case_joint_desc(const fmb_case_t *c, int joint);
int fmb_case_num_forces(const fmb_case_t *c);
const fmb_force_desc_t *fmb_case_force_desc(const fmb_case_t *c, int force);

#endif

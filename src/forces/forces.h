/* Private declarations of the force classes and their registry. */
#ifndef FMB_FORCES_FORCES_H
#define FMB_FORCES_FORCES_H
#include <stdio.h>

#include "model/model.h"

/* Where the switching classes keep their keys in fmb_force_desc_t.param / fmb_force_t.par
 * (private: programs set them by name, fmb_force_desc_set). */
/* gap: free for lo < x < hi, contact law 0 linear (F = k d + c dd) or
 * 1 Hunt-Crossley (F = k d^n (1 + c dd), c in s/m), exponent n. friction: static and
 * kinetic force (N or N m), stick velocity. ratchet: drive sense (+1: body 0 drives body 1
 * in +x... see docs), screw: lead (m per turn), mean radius (m), thread friction
 * coefficient, stick velocity. */
enum {
    FMB_SW_GAP_LO = 0,
    FMB_SW_GAP_HI = 1,
    FMB_SW_GAP_LAW = 2,
    FMB_SW_GAP_EXP = 3,
    FMB_SW_GAP_TOL = 4, /* event tolerance on the penetration (m or rad), 0: none */
    FMB_SW_FR_STATIC = 0,
    FMB_SW_FR_KINETIC = 1,
    FMB_SW_FR_VSTICK = 2,
    FMB_SW_RATCHET_SENSE = 0,
    FMB_SW_SCREW_LEAD = 0,
    FMB_SW_SCREW_RADIUS = 1,
    FMB_SW_SCREW_MU = 2,
    FMB_SW_SCREW_VSTICK = 3,
    FMB_SW_SCREW_PRELOAD = 4,
    FMB_SW_SCREW_ONEWAY = 5 /* 0, or the only sense (+1, -1) the screw may turn in (mu 0) */
};

/* ---- case keys (model/params.h) */
#define FMB_FORCE_NUM(k, field, fl, lo_, d, u, text)                                               \
    {                                                                                              \
        .key = k, .kind = FMB_PARAM_NUMBER, .flags = fl,                                           \
        .offset = offsetof(fmb_force_desc_t, field), .lo = lo_, .dflt = {d}, .unit = u,            \
        .doc = text                                                                                \
    }
/* coordinate and axis of a switching element (relative.c: fmb_rel_prepare) */
extern const char *const fmb_rel_coord_names[];
#define FMB_REL_PARAMS                                                                             \
    {.key = "coordinate",                                                                          \
     .kind = FMB_PARAM_ENUM,                                                                       \
     .offset = offsetof(fmb_force_desc_t, coordinate),                                             \
     .dflt_text = "rotation",                                                                      \
     .choices = fmb_rel_coord_names,                                                               \
     .unit = "-",                                                                                  \
     .doc = "relative coordinate: rotation (theta_1 - theta_2) or direction (along axis)"},        \
    {                                                                                              \
        .key = "axis", .kind = FMB_PARAM_VECTOR, .flags = FMB_PARAM_NONZERO | FMB_PARAM_UNIT,      \
        .n = 2, .offset = offsetof(fmb_force_desc_t, axis), .unit = "-",                           \
        .doc = "inertial direction of the coordinate (coordinate: direction)"                      \
    }
/* prepare() part shared by switching elements: axis present exactly for a direction;
 * *x0: the coordinate at the initial poses. */
int fmb_rel_prepare(fmb_item_env_t *env, fmb_force_desc_t *d, double *x0);

/* Relative coordinate of a switching element (forces/relative.c): x, xd and, when
 * non-NULL, D = dx/dq and Dv = d(xd)/dq over the two-body block (nn entries each). */
void fmb_rel_coord(const fmb_force_t *f, const fmb_bodyview_t v[2], double *x, double *xd,
                   double *D, double *Dv);
/* The relative velocity xd alone (fmb_rel_coord's): the event function of the located
 * switches (ratchet, dry_friction). */
double fmb_rel_velocity(const fmb_force_t *f, const fmb_bodyview_t v[2]);
/* Tangents of a force F(x, xd) along x (F_x = dF/dx, F_xd = dF/dxd) added to K, C. */
void fmb_rel_tangent(const fmb_force_t *f, const fmb_bodyview_t v[2], double F, double Fx,
                     double Fxd, double *K, double *C);
/* Q0, Q1 += F D (the generalized force of F along x). */
void fmb_rel_apply(const fmb_bodyview_t v[2], const double *D, double F, double *Q0, double *Q1);
/* Common checks: distinct bodies, unit axis, known coordinate. */
int fmb_rel_check(const fmb_force_t *f, char *msg, size_t len);
/* The Coulomb LCP rows of a friction of capacity cap >= 0 on the sliding row D (nn
 * columns): unknowns beta1, beta2, sigma with G = [D, -D, 0] and
 *   beta1 _|_ v + sigma,  beta2 _|_ -v + sigma,  sigma _|_ cap - beta1 - beta2.
 * A zero capacity transmits nothing, and there sigma (any value >= |v|) would be
 * unbounded: the rows become w = z (z = 0) with G = 0. The element has ne >= 3 unknowns
 * (Az is ne x ne, column-major; the first three are these). */
void fmb_rel_coulomb_rows(int nn, const double *D, double cap, double *G, double *av, double *Az,
                          double *b, int ne);

/* Switch events on a relative velocity reaching zero (relative.c; docs/switching.md
 * "Switch events"): a ratchet engaging, a dry friction or a screw thread sticking or
 * reversing; and a dry friction's breakaway. The element keeps the last FMB_REL_HIST_PTS
 * accepted states in its force history (nstate >= FMB_REL_HIST from offset 0): t and v
 * by reset() and accept() calling the first two functions below, its LCP force and slip
 * flag by mode() calling fmb_rel_history_force (mode() runs once per accepted state with
 * the step's LCP unknowns, after accept()). */
enum { FMB_REL_HIST_PTS = 3, FMB_REL_PT = 4, FMB_REL_HIST = 1 + FMB_REL_PT * FMB_REL_HIST_PTS };
void fmb_rel_history_reset(const fmb_force_t *f, double t, double v);
void fmb_rel_history_accept(const fmb_force_t *f, double t, double v);
/* Record the LCP force F at the newest state (its time t) and whether it slips there. */
void fmb_rel_history_force(const fmb_force_t *f, double t, double F, int slipping);
/* v of the i-th newest accepted state (0: the newest), NAN when there is none. */
double fmb_rel_history_velocity(const fmb_force_t *f, int i);
/* The step t0 -> t0 + h (v0, v1: the relative velocity at its ends) in the sense
 * e = sg v: a switch when e0 > 1e-6 vtol and e1 <= 1e-6 vtol (the element reached zero relative
 * velocity inside the step). Returns the step_control code: 1 rejected, *h_max = the root
 * of e fitted through the history (the retry ends there); 3 the step ends at that root
 * (within FMB_REL_EVENT_TOL h: the retry), or switched where the fit has no root in the
 * step (accepted unlocated): the caller then re-solves the accelerations; 0 otherwise. */
#define FMB_REL_EVENT_TOL 1e-9
int fmb_rel_zero_event(const fmb_force_t *f, double sg, double vtol, double t0, double h, double v0,
                       double v1, double *h_max, char *why, size_t len, const char *what);
/* Breakaway: stuck at t0 (|v0| < vtol, the newest state recorded as not slipping) and
 * slipping at t0 + h (|v1| > 1e-6 vtol): the root of e = Fs - |F(t)| through the recorded
 * sticking forces, located as fmb_rel_zero_event (same codes). */
int fmb_rel_breakaway_event(const fmb_force_t *f, double Fs, double vtol, double t0, double h,
                            double v0, double v1, double *h_max, char *why, size_t len);

#endif

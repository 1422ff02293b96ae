/* The simulation object (sim.c and the integrator files listed in sim_internal.h;
 * docs/theory.md sections 4-6). It composes one part per concern, each in its own header
 * that says what it holds and which files write it:
 *   st    sim_state.h    the state (t, q, qd, qdd, lam, acc), its backup and the accepted
 *                        steps' history
 *   ctl   sim_stepctl.h  step control: the candidate's error estimate and Newton record,
 *                        the next step, the kept-factorization constants, step scratch
 *   as    sim_assembly.h the KKT matrix, the element-block scratch, the joints' memo
 *   ct    sim_contact.h  frictional contacts and switching elements with their LCPs
 *   diag  sim_diag.h     statistics, Newton trace, error history, the tests' accept hook
 *   el    sim_elems.h    the elements with per-step hooks and their views at the candidate
 * plus the model, the options, the sizes and the last error. */
#ifndef FMB_SOLVE_SIM_H
#define FMB_SOLVE_SIM_H

#include "model/model.h"
#include "solve/sim_assembly.h"
#include "solve/sim_contact.h"
#include "solve/sim_diag.h"
#include "solve/sim_elems.h"
#include "solve/sim_state.h"
#include "solve/sim_stepctl.h"

struct fmb_sim {
    fmb_model_t *model;
    fmb_sim_options_t opts;
    int n, m; /* coordinates, constraint rows */
    fmb_sim_state_t st;
    fmb_sim_ctl_t ctl;
    fmb_sim_asm_t as;
    fmb_sim_contact_t ct;
    fmb_sim_diag_t diag;
    fmb_sim_elems_t el;
    int initialized;
    char errmsg[2048]; /* a failed step: its try, the tries, the cause (a jam's ~1.1 kB) */
    int jammed;  /* the step try stopped in a LuGre jam (contact_step.c jam_error) */
    int errline; /* case-file line of the joint the last error is about, 0 if none */
};

int fmb_sim_error(fmb_sim_t *s, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Global residual pieces at (q, qd, qdd, lam, t): Mqdd = M qdd and F = Phi_q^T lam - Q
 * (any may be NULL). */
void fmb_sim_eval_forces(const fmb_sim_t *s, const double *q, const double *qd, const double *qdd,
                         const double *lam, double t, double *Mqdd, double *F);
/* The same and Phi(q, t) (m values, when phi is non-NULL and F is: the joints are
 * evaluated once for both). */
void fmb_sim_eval_residual(const fmb_sim_t *s, const double *q, const double *qd,
                           const double *qdd, const double *lam, double t, double *Mqdd,
                           double *F, double *phi);
/* Phi(q, t) (m values); returns max |Phi| and its row in *row when non-NULL. */
double fmb_sim_eval_phi(const fmb_sim_t *s, const double *q, double t, double *phi, int *row);
/* Newton on Phi(q, 0) = 0 from the current q (c22 < 0 regularizes for redundant rows). */
int fmb_sim_assemble_positions(fmb_sim_t *s, double c22);
/* Dense constraint Jacobian (m x n, column-major) at q, t. */
void fmb_sim_dense_jacobian(const fmb_sim_t *s, const double *q, double t, double *Jd);
/* Rank of an m x n matrix (column-major, overwritten) by QR with column pivoting of its
 * transpose; the indices of up to maxred dependent rows go to redundant[]. */
int fmb_rank_rows(double *Jd, int m, int n, int *redundant, int maxred, int *nred);

#endif

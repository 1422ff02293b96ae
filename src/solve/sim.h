/* Private simulation state (sim.c and the integrator files listed in sim_internal.h;
 * docs/theory.md sections 4-6). */
#ifndef FMB_SOLVE_SIM_H
#define FMB_SOLVE_SIM_H

#include "model/model.h"
#include "solve/sim_assembly.h"
#include "solve/sim_contact.h"
#include "solve/sim_diag.h"
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
    int initialized;
    char errmsg[2048]; /* a failed step: its try, the tries, the cause (a jam's ~1.1 kB) */
    int jammed;  /* the step try stopped in a LuGre jam (contact_step.c jam_error) */
    int errline; /* case-file line of the joint the last error is about, 0 if none */
    /* The elements with per-step hooks, listed once at creation (sim.c; the class members
     * are fixed with the model): the step loop visits these alone, in model order
     * (invalid_state and fmb_sim_commit_step in step.c, events in stepctl.c, fmb_sim_power
     * in start.c). One allocation, hk. */
    int *hk;
    int *jvalid, njvalid; /* joints whose class has valid */
    int *jctl, njctl;     /* joints with step_control */
    int *fctl, nfctl;     /* forces with step_control */
    int *ferr, nferr;     /* forces with step_error (adaptive runs) */
    int *bpow, nbpow;     /* bodies (not ground) with power */
    int *fpow, nfpow;     /* forces with power */
    int *jtime, njtime;   /* joints with time (drivers) */
    int *jslot;           /* per joint: its place in jvalid (cv), -1 if none */
    /* the views of the joints in jvalid at the candidate (s->st.q, s->st.qd), as invalid_state
     * made them: events (stepctl.c) takes them for the same joints' step control */
    fmb_bodyview_t *cv; /* 2 per joint in jvalid */
    int cv_ok;          /* 1: cv holds the views at the current candidate (step.c) */
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
/* The coefficients the integrator uses (step.c): alpha_m, alpha_f, beta, gamma. */
void fmb_sim_integrator_coefficients(const fmb_sim_t *s, double *am, double *af, double *beta,
                                     double *gamma);

#endif

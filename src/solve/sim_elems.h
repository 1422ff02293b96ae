/* The elements with per-step hooks, listed once at creation (sim.c; the class members
 * are fixed with the model): the step loop visits these alone, in model order
 * (invalid_state and fmb_sim_commit_step in step.c, events in stepctl.c, fmb_sim_power in
 * start.c). One allocation, hk. With them the views of the joints in jvalid at the
 * candidate (s->st.q, s->st.qd), as invalid_state (step.c) made them: events (stepctl.c)
 * takes them for the same joints' step control. sim.c writes the lists, step.c cv and
 * cv_ok. Part `el` of struct fmb_sim (solve/sim.h). */
#ifndef FMB_SOLVE_SIM_ELEMS_H
#define FMB_SOLVE_SIM_ELEMS_H

#include "model/model.h"

typedef struct fmb_sim_elems {
    int *hk;
    int *jvalid, njvalid; /* joints whose class has valid */
    int *jctl, njctl;     /* joints with step_control */
    int *fctl, nfctl;     /* forces with step_control */
    int *ferr, nferr;     /* forces with step_error (adaptive runs) */
    int *bpow, nbpow;     /* bodies (not ground) with power */
    int *fpow, nfpow;     /* forces with power */
    int *jtime, njtime;   /* joints with time (drivers) */
    int *jslot;           /* per joint: its place in jvalid (cv), -1 if none */
    fmb_bodyview_t *cv;   /* 2 per joint in jvalid */
    int cv_ok;            /* 1: cv holds the views at the current candidate (step.c) */
} fmb_sim_elems_t;

#endif

/* Frictional contacts and switching elements inside the integrator (docs/theory.md
 * section 9, docs/switching.md): the slider contacts and their LCP workspaces, the switching
 * elements with their LCP unknowns, and the generalized LCP forces at the accepted state.
 * sim.c and switch_step.c create them; the step's LCPs (contact_step.c, switch_step.c), the
 * located stops (contact_stepctl.c) and the start and restarts (start_lcp.c, restart.c)
 * write them. Part `ct` of struct fmb_sim (solve/sim.h). */
#ifndef FMB_SOLVE_SIM_CONTACT_H
#define FMB_SOLVE_SIM_CONTACT_H

#include "contact/friction.h"

/* A switching element (solve/switch_step.c; docs/switching.md). */
typedef struct fmb_switch {
    int force;   /* model force index */
    int zoff;    /* its first LCP unknown */
    double z[4]; /* LCP unknowns of the last iterate (totals) */
    double av[4], Az[16], b[4];
    double v_n;       /* relative velocity at the last accepted state */
    double force_out; /* element force along its coordinate there */
    int mode;         /* mode there (index into the class's mode_names) */
} fmb_switch_t;

typedef struct fmb_sim_contact {
    /* frictional sliding joints (docs/theory.md section 9) */
    fmb_contact_t *contacts;
    int ncontacts;
    int *cuoff;     /* contacts + 1: first LCP unknown per contact */
    double *cX;     /* N x (4 ncontacts): KKT responses to unit corner forces */
    double *clcp;   /* LCP workspace */
    double *cstart; /* fmb_sim_start_lcps's x, work and scratch: 4 N + 2 n (start_lcp.c; it
                     * runs at every restart: no allocation there) */
    /* switching elements (switch_step.c) */
    fmb_switch_t *swe;
    int nsw, nswz; /* elements, LCP unknowns */
    double *swX;   /* KKT responses to unit z and the LCP workspace */
    double *swQ;   /* generalized LCP forces sum_e G_e z_e at the last accepted state (n) */
} fmb_sim_contact_t;

#endif

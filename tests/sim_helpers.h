/* Shared scaffolding of the C tests that build a model and step it (the switching tests):
 * stop the test with a FAIL line naming the cause when a model cannot be built, a run
 * cannot start or a step fails. Each test keeps its own independent reference; these only
 * run the solver. Include after flexmb/flexmb.h. */
#ifndef FMB_TESTS_SIM_HELPERS_H
#define FMB_TESTS_SIM_HELPERS_H

#include <stdio.h>
#include <stdlib.h>

#include "flexmb/flexmb.h"

static inline void fail_model(fmb_model_t *m)
{
    printf("FAIL model: %s\n", fmb_model_last_error(m));
    exit(1);
}

/* a fixed-step run (default options, step h, end t_end), initialized */
static inline fmb_sim_t *make_sim(fmb_model_t *m, double h, double t_end)
{
    fmb_sim_options_t o;
    fmb_sim_options_default(&o);
    o.h = h, o.t_end = t_end;
    fmb_sim_t *s = fmb_sim_create(m, &o);
    if (!s || fmb_sim_initialize(s)) {
        printf("FAIL start: %s\n", s ? fmb_sim_last_error(s) : "no memory");
        exit(1);
    }
    return s;
}

/* one step */
static inline void step(fmb_sim_t *s)
{
    if (fmb_sim_step(s)) {
        printf("FAIL step at t = %g: %s\n", fmb_sim_time(s), fmb_sim_last_error(s));
        exit(1);
    }
}

/* steps until time t (to 1e-12 s) */
static inline void run_to(fmb_sim_t *s, double t)
{
    while (fmb_sim_time(s) < t - 1e-12)
        step(s);
}

#endif

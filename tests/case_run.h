/* Shared scaffolding of the C tests that run a shipped case (cases/<file>) through the
 * library (test_newton_once, test_reuse, test_slider_reach): load it with overrides, create
 * the run with the case's options as the test sets them, initialize it, tear it down.
 * Failures are printed (stderr) and returned as 1. Each test keeps its own independent
 * reference; these only start the solver. Include after flexmb/flexmb.h; the test's
 * target defines FMB_SOURCE_DIR. */
#ifndef FMB_TESTS_CASE_RUN_H
#define FMB_TESTS_CASE_RUN_H

#include <stdio.h>

#include "flexmb/flexmb.h"

#ifndef FMB_SOURCE_DIR
#define FMB_SOURCE_DIR "."
#endif

typedef struct case_run {
    fmb_case_t *c;
    fmb_sim_t *s;
} case_run_t;

/* FMB_SOURCE_DIR/cases/<file> with the overrides ov[0 .. nov) into r->c, and its solver
 * options into *o for the test to change. */
static inline int case_run_load(case_run_t *r, const char *file, const char *const *ov, int nov,
                                fmb_sim_options_t *o)
{
    char path[1024], err[1024];
    snprintf(path, sizeof path, "%s/cases/%s", FMB_SOURCE_DIR, file);
    r->c = fmb_case_load(path, ov, nov, err, sizeof err);
    if (!r->c) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    *o = *fmb_case_options(r->c);
    return 0;
}

/* The run of r->c with options o in r->s, created but not initialized (a test may set the
 * run's test-only switches first, solve/test_hooks.h). */
static inline int case_run_create(case_run_t *r, const fmb_sim_options_t *o)
{
    r->s = fmb_sim_create(fmb_case_model(r->c), o);
    if (!r->s) fprintf(stderr, "%s: no run created\n", "case_run_create");
    return r->s == NULL;
}

static inline int case_run_init(case_run_t *r)
{
    if (!fmb_sim_initialize(r->s)) return 0;
    fprintf(stderr, "start failed: %s\n", fmb_sim_last_error(r->s));
    return 1;
}

static inline void case_run_finish(case_run_t *r)
{
    fmb_sim_destroy(&r->s);
    fmb_case_destroy(&r->c);
}

#endif

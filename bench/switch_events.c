/*
 * Switch events of the seed 004 system (cases/switching.yaml; docs/switching.md "Switch
 * events"): one run with fixed steps h (or adaptive), printing the quantities whose error
 * against a fine fixed-step reference shows the order of the step at the switches. Not a
 * test. Usage:
 *   switch_events CASE H [adaptive] [NAME=VALUE]...
 * prints one line: h, steps, contact time (the gap's coordinate reaching its limit,
 * interpolated linearly between steps), the time the wheel stops after the input is off
 * (the first step end at rest; and the root of the linear extrapolation through the last
 * two moving steps), the wheel angle and the nut position at t_end, the largest error
 * estimate ratio of the steps after the first millisecond (s->ctl.err_ratio per accepted step,
 * through the tests' accept hook) and where, and the located events (element rejections)
 * and restarts.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flexmb/flexmb.h"
#include "solve/sim_internal.h"

typedef struct watch {
    double rmax, tmax;
    int ow, oc, od;
    double hi, t_off;
    double t_contact, t_stop, t_lin, xp, tp, wp, wpp, tpp;
} watch_t;

/* every accepted step (the candidate at s->st.t + h; fixed runs split a step at a located
 * event, so the records alone would not show them) */
static void hook(fmb_sim_t *s, double h, void *user)
{
    watch_t *w = user;
    const double t = s->st.t + h, x = s->st.q[w->oc] - s->st.q[w->od], wv = s->st.qd[w->ow + 2];
    if (t > 1e-3 && s->ctl.err_ratio > w->rmax) w->rmax = s->ctl.err_ratio, w->tmax = t;
    if (w->t_contact < 0 && x >= w->hi)
        w->t_contact = w->tp + (t - w->tp) * (w->hi - w->xp) / (x - w->xp);
    if (t > w->t_off && w->t_stop < 0 && fabs(wv) < 1e-12) {
        w->t_stop = t;
        w->t_lin = w->tp - w->wp * (w->tp - w->tpp) / (w->wp - w->wpp);
    }
    w->xp = x, w->tpp = w->tp, w->tp = t, w->wpp = w->wp, w->wp = wv;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: switch_events CASE H [adaptive] [NAME=VALUE]...\n");
        return 2;
    }
    const double h = atof(argv[2]);
    int adaptive = 0, a = 3;
    if (argc > 3 && !strcmp(argv[3], "adaptive")) adaptive = 1, a = 4;
    char err[512];
    fmb_case_t *c = fmb_case_load(argv[1], (const char **)argv + a, argc - a, err, sizeof err);
    if (!c) return fprintf(stderr, "%s\n", err), 1;
    fmb_model_t *m = fmb_case_model(c);
    fmb_sim_options_t o = *fmb_case_options(c);
    o.adaptive = adaptive, o.h = h, o.output_every = 1;
    fmb_sim_t *s = fmb_sim_create(m, &o);
    if (!s || fmb_sim_initialize(s)) return fprintf(stderr, "start failed\n"), 1;
    watch_t w = {.t_contact = -1, .t_stop = -1, .t_lin = -1};
    w.ow = fmb_model_body_offset(m, fmb_model_find_body(m, "wheel"));
    w.oc = fmb_model_body_offset(m, fmb_model_find_body(m, "C"));
    w.od = fmb_model_body_offset(m, fmb_model_find_body(m, "D"));
    double gap = 0;
    fmb_case_param(c, "gap", &gap), fmb_case_param(c, "t_off", &w.t_off);
    /* the gap's coordinate x = (x_C + 0.05) - (x_D - 0.05) reaches x0 + gap */
    w.xp = fmb_sim_q(s)[w.oc] - fmb_sim_q(s)[w.od];
    w.hi = w.xp + gap;
    s->diag.accept_hook = hook, s->diag.accept_hook_user = &w;
    if (fmb_sim_run(s, NULL, NULL, NULL)) return fprintf(stderr, "%s\n", fmb_sim_last_error(s)), 1;
    fmb_sim_stats_t stt;
    fmb_sim_get_stats(s, &stt);
    const fmb_sim_stats_t *st = &stt;
    printf("h %.4g steps %ld contact %.12g stop %.12g stop_lin %.12g angle %.12g xC %.12g "
           "errmax %.3g at %.6g located %ld restarts %ld\n",
           h, st->steps, w.t_contact, w.t_stop, w.t_lin, fmb_sim_q(s)[w.ow + 2], fmb_sim_q(s)[w.oc],
           w.rmax, w.tmax, st->rejected_event, st->restarts);
    fmb_sim_destroy(&s);
    fmb_case_destroy(&c);
    return 0;
}

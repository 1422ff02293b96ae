/*
 * Time control of the integrator (docs/theory.md, "Local error estimate and step control"):
 * the run loop over record times, fixed steps with subdivision on failure, adaptive steps
 * from the local error estimate of fmb_sim_try_step, the event hook of the element classes
 * (step_control in fmb_joint_class_t / fmb_force_class_t), and the diagnosis of a step
 * that cannot be completed.
 *
 * Fixed steps: a step rejected by an element's step control with a step h' < h (an event
 * located inside it) is taken as h' and h - h'; otherwise halved. An element that accepts
 * with 3 (a located switch of an LCP element: ratchet engaged, friction stuck) has the
 * accelerations re-solved in the new mode after the step, in fixed and adaptive runs
 * (fmb_sim_switch_restart).
 * A failed step (Newton, singular, non-finite) is retried as two halves,
 * recursively, up to opts.halving levels, unless the error estimate exceeded its tolerance
 * RESCUE_LIMIT-fold on more than 10 % of the steps: the run then stops and names the step
 * as the cause.
 *
 * Adaptive control: the candidate step's error ratio r (<= 1: within tolerance) scales as
 * h^2 (error per unit step of a second-order method), so the next step is
 *   h' = h min(grow, max(shrink, safety / sqrt(r))),  safety 0.9, shrink 0.2, grow 2,
 * no growth right after a rejection, bounded by h_min, h_max, the element caps and the
 * next record time (steps land on record times; a step is split in two equal parts when
 * the remainder is between one and two proposed steps).
 */
#include "solve/sim_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SAFETY 0.9
#define SHRINK 0.2
#define GROW 2.0
#define MAX_LOG 12
/* Fixed steps: a failed step is not halved when more than 10 % of the steps so far had an
 * error estimate above this multiple of its tolerance: the results are then meaningless
 * and the failure is the symptom of a step that is too large. Isolated
 * excesses (an acceleration jump: stick-slip, impact) still allow halving. */
#define RESCUE_LIMIT 100.0
/* Adaptive steps: an accepted step whose error ratio exceeds this was sized by the error
 * estimate (not by a record time, an element's cap or h_max); its worst coordinate, and
 * that of every step the estimate rejects, is counted for the end-of-run advice
 * (fmb_sim_step_warning). */
#define ERR_LIMITED 0.1
/* Adaptive advice: given when the run took at least SLOW_STEPS steps and their mean is
 * below SLOW_RATIO of the largest step allowed. */
#define SLOW_STEPS 10000
#define SLOW_RATIO 1e-3

/* Tries of the current step, for the failure message. */
typedef struct trylog {
    int n;
    double h[MAX_LOG];
    const char *why[MAX_LOG];
} trylog_t;

static const char *reason(int rc)
{
    switch (rc) {
    case FMB_ERR_SINGULAR: return "singular iteration matrix";
    case FMB_ERR_CONVERGENCE: return "Newton did not converge";
    case FMB_ERR_NONFINITE: return "non-finite values";
    case FMB_ERR_LINSOLVE: return "linear solver failure";
    default: return "error";
    }
}

static int retryable(int rc)
{
    return rc == FMB_ERR_SINGULAR || rc == FMB_ERR_CONVERGENCE || rc == FMB_ERR_NONFINITE ||
           rc == FMB_ERR_LINSOLVE;
}

static void log_try(trylog_t *L, double h, const char *why)
{
    if (L->n < MAX_LOG) {
        L->h[L->n] = h, L->why[L->n] = why;
        L->n++;
    } else { /* keep the first tries and the last one */
        L->h[MAX_LOG - 1] = h, L->why[MAX_LOG - 1] = why;
    }
}

const char *fmb_sim_coord_name(const fmb_sim_t *s, int i, char *buf, size_t len)
{
    if (!buf || len == 0) return "";
    buf[0] = '\0';
    if (!s || i < 0 || i >= s->n + s->el.nferr) return buf;
    const fmb_model_t *md = s->model;
    if (i >= s->n) { /* an element's own coordinates (step.c element_error) */
        const fmb_force_t *f = &md->forces[s->el.ferr[i - s->n]];
        snprintf(buf, len, "force '%s' (its own coordinates)", f->name);
        return buf;
    }
    for (int b = 1; b < md->nbodies; b++) {
        const fmb_body_t *B = &md->bodies[b];
        if (B->offset < 0 || i < B->offset || i >= B->offset + B->ndof) continue;
        const int k = i - B->offset;
        if (k < 3)
            snprintf(buf, len, "body '%s' %s", B->name, k == 0 ? "x" : k == 1 ? "y" : "angle");
        else
            snprintf(buf, len, "body '%s' elastic coordinate %d", B->name, k - 3);
        return buf;
    }
    return buf;
}

/* Element step control on the candidate: 1 reject (h_cap < h), 0 accept; *h_cap may cap
 * the next step; *restart: an element asked for a restart after the step (return 2).
 * why: the reason for the cap, for messages, or NULL: the step loop passes NULL and asks
 * again (the same pure evaluation) only when it reports a failure, so that no string is
 * formatted per step. */
static int events(fmb_sim_t *s, double h, double *h_cap, char *why, size_t len, int *restart)
{
    *restart = 0;
    const fmb_model_t *md = s->model;
    const int n = s->n;
    *h_cap = INFINITY;
    /* LuGre breakaway control: part of the adaptive step choice (a fixed step is the
     * user's; the error estimate's warning covers it) */
    int reject = s->ct.ncontacts && s->opts.adaptive
                     ? fmb_sim_contact_step_control(s, h, h_cap, why, len)
                     : 0;
    if (s->ct.ncontacts) { /* a Coulomb slider's located stop (fixed and adaptive runs) */
        const int r = fmb_sim_contact_stop_control(s, h, h_cap, why, len);
        if (r == 4)
            *restart |= 4;
        else if (r == 3)
            *restart |= 2;
        else if (r)
            reject = 1;
    }
    /* the joints and forces with step control alone (sim.h hk); a joint with a valid member
     * was viewed at the candidate by the step's validity check (step.c invalid_state: the
     * same q and qd, so the same views), which are taken instead of viewing it again */
    for (int k = 0; k < s->el.njctl; k++) {
        const int i = s->el.jctl[k];
        const fmb_joint_t *j = &md->joints[i];
        fmb_bodyview_t v0[2], vc[2];
        fmb_sim_joint_views(s, j, s->st.save, s->st.save + n, v0);
        const fmb_bodyview_t *v1 = vc;
        if (s->el.cv_ok && s->el.jslot[i] >= 0)
            v1 = s->el.cv + 2 * s->el.jslot[i];
        else
            fmb_sim_joint_views(s, j, s->st.q, s->st.qd, vc);
        double hm = INFINITY;
        char w[160] = "";
        int r = j->klass->step_control(j, v0, v1, s->st.t, h, &hm, why ? w : NULL, sizeof w);
        if (hm < *h_cap) {
            *h_cap = hm;
            if (why) snprintf(why, len, "joint '%s' (line %d): %s", j->name, j->line, w);
        }
        if (r == 2)
            *restart = 1;
        else if (r)
            reject = 1;
    }
    for (int k = 0; k < s->el.nfctl; k++) {
        const fmb_force_t *f = &md->forces[s->el.fctl[k]];
        fmb_bodyview_t v0[2], v1[2];
        for (int k = 0; k < 2; k++) {
            v0[k] = fmb_model_view(md, f->body[k], s->st.save, s->st.save + n);
            v1[k] = fmb_model_view(md, f->body[k], s->st.q, s->st.qd);
        }
        double hm = INFINITY;
        char w[160] = "";
        int r = f->klass->step_control(f, v0, v1, s->st.t, h, &hm, why ? w : NULL, sizeof w);
        if (hm < *h_cap) {
            *h_cap = hm;
            if (why) snprintf(why, len, "force '%s' (line %d): %s", f->name, f->line, w);
        }
        if (r == 2)
            *restart |= 1;
        else if (r == 3)
            *restart |= 2; /* a located switch of an LCP element */
        else if (r)
            reject = 1;
    }
    return reject;
}

/* A step meeting the tolerance, from the largest error ratio seen (ratio ~ h^2). */
static double suggested_step(const fmb_sim_diag_t *d)
{
    if (!(d->err_hist_max > 1.0) || !(d->err_hist_h > 0)) return 0.0;
    return d->err_hist_h * 0.8 / sqrt(d->err_hist_max);
}

/* The message of a step that could not be completed: the tries, the smallest h, the
 * likely cause and a step to use. The last try's own message comes first. */
static int fail_step(fmb_sim_t *s, int rc, trylog_t *L, double t0, const char *limit)
{
    char last[sizeof s->errmsg];
    const int line = s->errline;
    snprintf(last, sizeof last, "%s", s->errmsg);
    char tries[400] = "";
    double hmin = INFINITY;
    for (int k = 0; k < L->n; k++) {
        size_t u = strlen(tries);
        snprintf(tries + u, sizeof tries - u, "%s%.3g (%s)", k ? ", " : "", L->h[k], L->why[k]);
        if (L->h[k] < hmin) hmin = L->h[k];
    }
    char cause[900];
    const fmb_sim_options_t *o = &s->opts;
    const double hs = suggested_step(&s->diag);
    char where[160];
    fmb_sim_coord_name(s, s->diag.stats.max_error_coord, where, sizeof where);
    if (rc == FMB_ERR_NONFINITE)
        snprintf(cause, sizeof cause,
                 "the values stay non-finite at every step tried: the element is not defined "
                 "there (check its expression or parameters)");
    else if (hs > 0)
        snprintf(cause, sizeof cause,
                 "likely cause: the time step is too large for the dynamics: the local error "
                 "estimate reached %.3g times its tolerance (rtol_step %g, atol_step %g) at "
                 "h = %.3g%s%s; suggested: h = %.2g (or step: adaptive)",
                 s->diag.err_hist_max, o->rtol_step, o->atol_step, s->diag.err_hist_h,
                 where[0] ? ", worst in " : "", where, hs);
    else
        snprintf(cause, sizeof cause,
                 "the local error estimate stayed within its tolerance before (largest ratio "
                 "%.3g), so the step size is not the likely cause: the mechanism may reach a "
                 "singular position (flexmb check) or a force or joint may not be defined there",
                 s->diag.err_hist_max);
    if (o->integrator == FMB_NEWMARK && o->gamma <= 0.5 + 1e-12) {
        size_t u = strlen(cause);
        snprintf(cause + u, sizeof cause - u,
                 "; also: plain Newmark with gamma = 1/2 has no numerical damping and is weakly "
                 "unstable on the index-3 constraints: integrator hht or generalized_alpha "
                 "damps the drift");
    }
    char wedge[640];
    if (s->jammed) /* the last try stopped in a LuGre jam (contact_step.c jam_error): its
                    * message names the cause, and smaller steps make the spike larger */
        snprintf(cause, sizeof cause,
                 "likely cause: the jam above, the friction law's failure, "
                 "not the step size's (smaller steps make its spike larger; the error "
                 "estimate's %.3g times its tolerance is not the cause)",
                 s->diag.err_hist_max);
    else if (rc != FMB_ERR_NONFINITE && fmb_sim_contact_diagnosis(s, wedge, sizeof wedge))
        /* the friction law's failure, not the step size's (contact_stepctl.c): smaller steps
         * make its spike larger */
        snprintf(cause, sizeof cause,
                 "likely cause: %s (the error estimate's %.3g times its "
                 "tolerance is its symptom)",
                 wedge, s->diag.err_hist_max);
    if (rc != FMB_ERR_NONFINITE) {
        /* last (a truncated message loses it first): the fastest mode of the linearized
         * system at t_n and the step that resolves every mode (the scheme damps the
         * unresolved ones; an excited mode needs a step between the error estimate's
         * suggestion and this one) */
        double om = 0.0;
        int oc = -1;
        char emsg[sizeof s->errmsg];
        snprintf(emsg, sizeof emsg, "%s", s->errmsg);
        if (fmb_sim_fastest_mode_estimate(s, &om, &oc, NULL) == 0 && om > 0) {
            char mw[160];
            fmb_sim_coord_name(s, oc, mw, sizeof mw);
            size_t u = strlen(cause);
            snprintf(cause + u, sizeof cause - u,
                     "; fastest mode of the linearized system at t = %.6g: omega_max = %.3g "
                     "rad/s (%.3g Hz%s%s): h = 1/omega_max = %.2g s resolves every mode",
                     s->st.t, om, om / 6.283185307179586, mw[0] ? ", mostly " : "", mw, 1.0 / om);
        }
        snprintf(s->errmsg, sizeof s->errmsg, "%s", emsg); /* the estimate's own errors */
    }
    if (rc != FMB_ERR_NONFINITE && hs > 0) {
        /* the step is the cause: drop the generic guess of the singular-matrix message */
        static const char generic[] = " (the mechanism is at a singular position or a body is "
                                      "unconstrained and massless)";
        char *g = strstr(last, generic);
        if (g) memmove(g, g + strlen(generic), strlen(g + strlen(generic)) + 1);
    }
    fmb_sim_error(s, rc,
                  "%s; the step from t = %.9g could not be completed: tried h = %s; %s "
                  "(smallest h %.3g); %s",
                  last, t0, tries, limit, hmin, cause);
    s->errline = line;
    L->n = 0; /* diagnosed: callers up the recursion pass the status on */
    return rc;
}

/* The worst coordinate of a step the error estimate sized or rejected (adaptive advice) */
static void count_limit(fmb_sim_t *s)
{
    if (s->ctl.err_coord >= 0 && s->ctl.err_coord < s->n)
        s->diag.err_lim[s->ctl.err_coord]++, s->diag.n_err_lim++;
}

/* jump: accepted under the jump rule (attempt()) with a ratio above 1: its one-time error
 * r h / t_span is recorded apart from max_error, which then stays the largest ratio of the
 * steps accepted on it (the summary's "at most" does not quote a deliberate excess). */
static void accept(fmb_sim_t *s, double h, int jump)
{
    if (s->diag.accept_hook) s->diag.accept_hook(s, h, s->diag.accept_hook_user);
    fmb_sim_stats_t *st = &s->diag.stats;
    const double t1 = s->st.t + h;
    if (s->ctl.err_ratio < 1e-200) s->ctl.err_ratio = 0.0; /* only coordinates left out (start.c) */
    if (st->h_min_used == 0.0 || h < st->h_min_used) st->h_min_used = h;
    if (h > st->h_max_used) st->h_max_used = h;
    if (jump) {
        const double e = s->ctl.err_ratio * h / s->ctl.t_span;
        st->jump_steps++;
        if (e > st->jump_error || st->jump_coord < 0) {
            st->jump_error = e;
            st->jump_ratio = s->ctl.err_ratio;
            st->jump_time = t1;
            st->jump_coord = s->ctl.err_coord;
        }
    } else if (s->ctl.err_ratio > st->max_error || st->max_error_coord < 0) {
        st->max_error = s->ctl.err_ratio;
        st->max_error_time = t1;
        st->max_error_coord = s->ctl.err_coord;
    }
    st->error_sum += s->ctl.err_ratio * h / s->ctl.t_span;
    if (s->ctl.err_ratio > s->diag.err_hist_max)
        s->diag.err_hist_max = s->ctl.err_ratio, s->diag.err_hist_h = h;
    if (s->ctl.err_ratio > RESCUE_LIMIT) s->diag.n_over++;
    if (s->opts.adaptive && s->ctl.err_ratio > ERR_LIMITED) count_limit(s);
    fmb_sim_commit_step(s, h);
}

/* One try of h: 0 accepted (committed), 1 rejected by an element (h_cap: its limit),
 * 2 rejected by the error estimate (adaptive), 3 rejected and restarted (adaptive: retry
 * the same h), or a negative status (state restored). */
static int attempt(fmb_sim_t *s, double h, double *h_cap, trylog_t *L, double h_floor)
{
    /* a change of h beyond round-off (t_k = k h makes t_k - t_{k-1} vary in its last bits) */
    if (!(fabs(h - s->ctl.h_last_try) <= 1e-9 * h)) s->ctl.newton_stale = 1;
    s->ctl.h_last_try = h;
    *h_cap = INFINITY;
    int rc = fmb_sim_try_step(s, h);
    if (rc) {
        if (!retryable(rc)) return rc;
        s->ctl.newton_stale = 1;
        s->diag.stats.halvings++;
        log_try(L, h, reason(rc));
        return rc;
    }
    int restart = 0;
    if (events(s, h, h_cap, NULL, 0, &restart)) {
        const double hn = *h_cap < h ? *h_cap : 0.5 * h;
        char why[240] = "";
        if (hn < h_floor) { /* the reason, from the same evaluation of the candidate */
            double cap;
            events(s, h, &cap, why, sizeof why, &restart);
        }
        fmb_sim_reject_step(s);
        s->diag.stats.rejected_event++;
        log_try(L, h, "rejected by an element's step control");
        if (hn < h_floor) {
            fmb_sim_error(s, FMB_ERR_CONVERGENCE, "step control of %s asks for h = %.3g", why,
                          hn);
            return fail_step(s, FMB_ERR_CONVERGENCE, L, s->st.t, "the step fell below h_min");
        }
        return 1;
    }
    if (restart & 4) {
        /* a Coulomb slider stopped at the step's start (contact_stepctl.c): at rest at t_n,
         * so the run restarts there (the contact re-solved at rest) and retries h; the
         * slider is then held or starts from rest, so this does not recur */
        fmb_sim_reject_step(s);
        const int rc = fmb_sim_switch_restart(s);
        if (rc) return rc;
        return attempt(s, h, h_cap, L, h_floor);
    }
    if (restart & 1) {
        /* an element changed its discrete state in the step (a slider crossing a beam
         * element's end: the constraint's second derivatives jump): Newton's carried
         * quadratic constant (step.c) does not hold across it, and a candidate accepted on
         * it after one increment is retried with the constant measured anew */
        s->ctl.newton_K[0] = s->ctl.newton_K[1] = s->ctl.newton_K[2] = s->ctl.newton_K[3] = 0.0;
        if (s->ctl.cand_once) {
            fmb_sim_reject_step(s);
            return attempt(s, h, h_cap, L, h_floor);
        }
    }
    const double r = s->ctl.err_ratio;
    /* A jump in the accelerations (contact onset, a slider crossing a beam element's end)
     * makes the ratio fall only like h instead of h^2 on rejection. Its error is made once,
     * not per unit time: such a step is accepted when its local error alone, r h / t_span,
     * is within the tolerance. */
    const int jump = s->diag.rej_h > h && s->diag.rej_t == s->st.t && s->diag.rej_ratio > r &&
                     log(s->diag.rej_ratio / r) < 1.5 * log(s->diag.rej_h / h) &&
                     r * h / s->ctl.t_span <= 1.0;
    /* A ratio that hardly falls as the step shrinks (slower than h^0.5 between two
     * rejections at the same time; an error of the method falls like h^2, an acceleration
     * jump like h) is the period-2 transient of the index-3 scheme, whose accelerations
     * carry a velocity mismatch dv / h and which decays per step, not per unit time:
     * velocities off the constraint's velocity manifold after a kink or a change of h.
     * Shrinking h only makes it larger; the run restarts from t_n instead (velocities
     * projected, accelerations consistent; once per time point) and retries the same h. */
    const int stagnant = ((s->diag.rej_h > h && s->diag.rej_t == s->st.t && s->diag.rej_ratio > 0 &&
                           log(s->diag.rej_ratio / r) < 0.5 * log(s->diag.rej_h / h)) ||
                          s->ctl.err_alt) &&
                         s->diag.restart_t != s->st.t;
    if (s->opts.adaptive && r > 1.0 && !jump && stagnant && !s->ct.nsw) {
        fmb_sim_reject_step(s);
        s->diag.stats.rejected_error++;
        log_try(L, h, "error estimate not falling with h: restart");
        s->diag.restart_t = s->st.t;
        s->diag.rej_h = 0.0;
        const int rc = fmb_sim_restart(s);
        return rc ? rc : 3;
    }
    if (s->opts.adaptive && r > 1.0 && !jump) {
        s->diag.rej_h = h, s->diag.rej_t = s->st.t, s->diag.rej_ratio = r;
        count_limit(s);
        fmb_sim_reject_step(s);
        s->diag.stats.rejected_error++;
        if (r > s->diag.err_hist_max) s->diag.err_hist_max = r, s->diag.err_hist_h = h;
        log_try(L, h, "error estimate above tolerance");
        if (h * fmax(SHRINK, SAFETY / sqrt(r)) < h_floor) {
            fmb_sim_error(s, FMB_ERR_CONVERGENCE,
                          "the error estimate (%.3g times the tolerance) cannot be met", r);
            return fail_step(s, FMB_ERR_CONVERGENCE, L, s->st.t, "the step fell below h_min");
        }
        return 2;
    }
    char wedge[640];
    if (s->ct.ncontacts && fmb_sim_contact_diagnosis(s, wedge, sizeof wedge)) {
        /* a step that would be accepted, converged into a wedged slider (contact_stepctl.c):
         * the friction law's failure, not the step size's, so it is never accepted (checked
         * after the error estimate: a step it rejects is retried smaller first). Whether
         * Newton still converges there depends on rounding (omega +- 1 ulp flips it on the
         * quick-return at h = 1e-5), the state's coefficient does not. */
        fmb_sim_reject_step(s);
        fmb_sim_error(s, FMB_ERR_CONVERGENCE,
                      "%s; the step from t = %.9g could not be completed: it converged (h = %.3g) "
                      "into that state, which is never accepted (the law's failure, not the "
                      "step size's)",
                      wedge, s->st.t, h);
        L->n = 0; /* diagnosed */
        return FMB_ERR_CONVERGENCE;
    }
    accept(s, h, s->opts.adaptive && jump && r > 1.0);
    L->n = 0;
    if (restart & 2) { /* a located switch: accelerations of the new mode (fixed or adaptive) */
        const int rc = fmb_sim_switch_restart(s);
        if (rc) return rc;
    }
    if ((restart & 1) && s->opts.adaptive) {
        s->diag.restart_t = s->st.t;
        return fmb_sim_restart(s);
    }
    return 0;
}

/* Fixed steps: h, or on failure its two halves, recursively (at most opts.halving levels
 * for failed iterations; element rejections halve down to h_floor). */
static int fixed_step(fmb_sim_t *s, double h, int depth, trylog_t *L, double h_floor)
{
    double cap;
    int r = attempt(s, h, &cap, L, h_floor);
    if (r == 0) return 0;
    if (r == 1 && cap > 0.0 && cap < h) {
        /* an element located an event inside the step (gap onset): the step to it, then
         * the rest (records stay at k h) */
        int rc = fixed_step(s, cap, depth, L, h_floor);
        return rc ? rc : fixed_step(s, h - cap, depth, L, h_floor);
    }
    if (r < 0) {
        if (!retryable(r) || L->n == 0) return r; /* not retryable, or already diagnosed */
        if (s->diag.n_over > 0.1 * (double)s->diag.stats.steps) {
            /* halving would hide the cause: the steps before were already far off */
            char lim[160];
            snprintf(lim, sizeof lim,
                     "not halved: the error estimate had exceeded its tolerance more than "
                     "%g-fold on %ld of %ld steps, so the step itself is the cause",
                     RESCUE_LIMIT, s->diag.n_over, s->diag.stats.steps);
            return fail_step(s, r, L, s->st.t, lim);
        }
        if (depth >= s->opts.halving) {
            char lim[80];
            snprintf(lim, sizeof lim, "%d halving%s allowed (solver: halving)", s->opts.halving,
                     s->opts.halving == 1 ? "" : "s");
            return fail_step(s, r, L, s->st.t, lim);
        }
        depth++;
    }
    int rc = fixed_step(s, 0.5 * h, depth, L, h_floor);
    return rc ? rc : fixed_step(s, 0.5 * h, depth, L, h_floor);
}

/* Steps from s->st.t to exactly t_target. */
static int advance_to(fmb_sim_t *s, double t_target, volatile const int *stop)
{
    const fmb_sim_options_t *o = &s->opts;
    if (!(s->ctl.t_span > 0)) s->ctl.t_span = fmax(o->t_end - s->st.t, t_target - s->st.t);
    const double h_floor = o->h_min > 0 ? o->h_min : 1e-12 * fmax(o->t_end, 1e-300);
    trylog_t L = {0};
    if (!o->adaptive) {
        int rc = fixed_step(s, t_target - s->st.t, 0, &L, h_floor);
        if (rc) return rc;
        s->st.t = t_target; /* exact (no drift from repeated additions) */
        return 0;
    }
    int after_reject = 0;
    double cap = s->ctl.ev_cap > 0 ? s->ctl.ev_cap : INFINITY; /* element cap on the next step */
    while (s->st.t < t_target) {
        if (stop && *stop)
            return fmb_sim_error(s, FMB_ERR_INTERRUPTED, "interrupted at t = %g", s->st.t);
        const double rem = t_target - s->st.t;
        const double h_prop = fmin(s->ctl.h_next, fmin(o->h_max > 0 ? o->h_max : INFINITY, cap));
        const double h =
            rem <= h_prop * (1.0 + 1e-9) ? rem : rem < 2.0 * h_prop ? 0.5 * rem : h_prop;
        double hcap;
        int r = attempt(s, h, &hcap, &L, h_floor);
        if (r < 0) {
            if (!retryable(r) || L.n == 0) return r;
            s->ctl.h_next = 0.5 * h;
            after_reject = 1;
            if (s->ctl.h_next < h_floor) {
                int rc = fail_step(s, r, &L, s->st.t, "the step fell below h_min");
                return rc;
            }
            continue;
        }
        if (r == 1) {
            s->ctl.h_next = hcap < h ? hcap : 0.5 * h;
            after_reject = 1;
            continue;
        }
        if (r == 3) continue; /* restarted at t_n: the same h again */
        if (r == 2) {
            s->ctl.h_next = h * fmax(SHRINK, SAFETY / sqrt(s->ctl.err_ratio));
            after_reject = 1;
            continue;
        }
        cap = hcap;
        s->ctl.ev_cap = isfinite(hcap) ? hcap : 0.0;
        const double e = s->ctl.err_ratio;
        double f = e > 0 ? SAFETY / sqrt(e) : GROW;
        f = fmin(after_reject ? 1.0 : GROW, fmax(SHRINK, f));
        double hn = h * f;
        if (h < h_prop && hn < h_prop && !after_reject) hn = h_prop; /* landed short */
        s->ctl.h_next = fmax(hn, h_floor);
        after_reject = 0;
    }
    s->st.t = t_target; /* exact (no drift from repeated additions) */
    return 0;
}

int fmb_sim_step(fmb_sim_t *s)
{
    if (!s->initialized)
        return fmb_sim_error(s, FMB_ERR_ARG, "fmb_sim_step called before fmb_sim_initialize");
    if (!(s->ctl.h_next > 0)) s->ctl.h_next = s->opts.h;
    return advance_to(s, s->st.t + s->opts.h, NULL);
}

/* Records at r_j = t0 + j output_dt (the last at t_end), independent of the step. Fixed
 * steps keep their grid t0 + k h and also end on every record time between two of its
 * points (a record on the grid, to 1e-9 h, is taken there); adaptive steps land on the
 * record times and stay <= h_max (h when h_max is 0: the step no longer follows from the
 * record interval). */
static int run_output_dt(fmb_sim_t *s, fmb_observer_fn observer, void *user,
                         volatile const int *stop)
{
    fmb_sim_options_t *o = &s->opts;
    const double dt = o->output_dt, T = o->t_end, t0 = s->st.t;
    s->ctl.t_span = T - t0;
    if (o->adaptive && !(o->h_max > 0)) o->h_max = o->h;
    if (!(s->ctl.h_next > 0)) s->ctl.h_next = fmin(o->h, o->h_max > 0 ? o->h_max : INFINITY);
    const double h = o->h;
    long j = 1, k = 1;
    for (;;) {
        double tr = t0 + (double)j * dt;
        if (tr > T - 1e-9 * dt) tr = T; /* the last record at t_end */
        double target = tr;
        int record = 1;
        if (!o->adaptive) {
            double tk = t0 + (double)k * h;
            while (tk <= s->st.t + 1e-9 * h)
                tk = t0 + (double)(++k) * h;
            if (tk < tr - 1e-9 * h) target = tk, record = 0;
            if (fabs(tk - tr) <= 1e-9 * h) k++;
        }
        if (stop && *stop)
            return fmb_sim_error(s, FMB_ERR_INTERRUPTED, "interrupted at t = %g", s->st.t);
        int rc = advance_to(s, target, stop);
        if (rc) return rc;
        if (!record) {
            k++;
            continue;
        }
        if (observer && (rc = observer(s, user))) return rc;
        if (tr >= T) return 0;
        j++;
    }
}

int fmb_sim_run(fmb_sim_t *s, fmb_observer_fn observer, void *user, volatile const int *stop)
{
    int rc;
    if (!s->initialized && (rc = fmb_sim_initialize(s))) return rc;
    if (observer && (rc = observer(s, user))) return rc;
    /* Targets at t_k = k H (no drift from repeated additions), the last one shortened to
     * end exactly at t_end (a remainder below 1e-9 H is absorbed by the previous step);
     * H > t_end gives one target at t_end. Fixed steps: H = h, a record every
     * output_every targets; adaptive: H = h output_every, a record at every target. */
    if (s->opts.output_dt > 0) return run_output_dt(s, observer, user, stop);
    const fmb_sim_options_t *o = &s->opts;
    const int every = o->adaptive ? 1 : o->output_every;
    const double H = o->adaptive ? o->h * o->output_every : o->h, T = o->t_end;
    const double t0 = s->st.t;
    const double full = floor((T - t0) / H * (1.0 + 1e-12));
    const long nfull = (long)full;
    const double rem = T - t0 - full * H;
    const long ntargets = nfull + (rem > 1e-9 * H ? 1 : 0);
    s->ctl.t_span = T - t0;
    if (!(s->ctl.h_next > 0)) s->ctl.h_next = fmin(o->h, o->h_max > 0 ? o->h_max : INFINITY);
    for (long k = 1; k <= ntargets; k++) {
        const double t1 = k == ntargets ? T : t0 + k * H;
        if (stop && *stop)
            return fmb_sim_error(s, FMB_ERR_INTERRUPTED, "interrupted at t = %g", s->st.t);
        if ((rc = advance_to(s, t1, stop))) return rc;
        if (observer && (k % every == 0 || k == ntargets) && (rc = observer(s, user))) return rc;
    }
    return 0;
}

/* Adaptive runs: steps far below the largest allowed, over many steps. Names the coordinate
 * that sized most of them: in the quick-return with friction (docs/theory.md, "Reversal on
 * an elastic guide") the undamped rocker's axial and bending modes, excited at every
 * reversal of a slider, ring above the tolerance and are followed in phase. */
static int adaptive_advice(const fmb_sim_t *s, char *msg, size_t len)
{
    const fmb_sim_stats_t *st = &s->diag.stats;
    const double hmax = s->opts.h_max > 0 ? s->opts.h_max : s->opts.h * s->opts.output_every;
    if (st->steps < SLOW_STEPS || !(s->st.t > 0) || !(hmax > 0)) return 0;
    const double mean = s->st.t / (double)st->steps;
    if (!(mean < SLOW_RATIO * hmax)) return 0;
    int wi = -1;
    for (int i = 0; i < s->n; i++)
        if (s->diag.err_lim[i] > 0 && (wi < 0 || s->diag.err_lim[i] > s->diag.err_lim[wi])) wi = i;
    char where[160] = "";
    if (wi >= 0) fmb_sim_coord_name(s, wi, where, sizeof where);
    const double share =
        wi >= 0 ? 100.0 * (double)s->diag.err_lim[wi] / (double)s->diag.n_err_lim : 0.0;
    if (msg && len)
        snprintf(msg, len,
                 "adaptive steps averaged %.3g s over %ld steps (%ld rejected), %.2g of the "
                 "largest step %g s: of the steps the error estimate (rtol_step %g, atol_step "
                 "%g) sized or rejected, %.0f %% were limited by %s. If that is a lightly "
                 "damped vibration (an elastic coordinate's high modes, excited e.g. by a "
                 "slider's stick-slip), the control follows it in phase: damping (a beam's "
                 "zeta), a looser tolerance or fixed steps make such a run cheaper "
                 "(docs/theory.md, \"Reversal on an elastic guide\")",
                 mean, st->steps, st->rejected_error, mean / hmax, hmax, s->opts.rtol_step,
                 s->opts.atol_step, share, where[0] ? where : "no single coordinate");
    return 1;
}

int fmb_sim_step_warning(const fmb_sim_t *s, char *msg, size_t len)
{
    if (!s) return 0;
    if (s->opts.adaptive) return adaptive_advice(s, msg, len);
    const fmb_sim_stats_t *st = &s->diag.stats;
    if (!(st->error_sum > 1.0)) return 0;
    char where[160];
    fmb_sim_coord_name(s, st->max_error_coord, where, sizeof where);
    /* the local error of a step scales as h^3, their sum over the run as h^2 */
    const double hs = st->h_max_used * 0.8 / sqrt(st->error_sum);
    if (msg && len)
        snprintf(msg, len,
                 "the local error estimate accumulated over the run is %.3g times its tolerance "
                 "(rtol_step %g, atol_step %g; the coordinates drivers prescribe left out), "
                 "largest at t = %.6g s in %s: the results may be inaccurate; h = %.2g s meets "
                 "the tolerance (or use step: adaptive)",
                 st->error_sum, s->opts.rtol_step, s->opts.atol_step, st->max_error_time,
                 where[0] ? where : "?", hs);
    return 1;
}

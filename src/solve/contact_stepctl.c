/* LuGre stick-slip step control of adaptive runs (docs/theory.md "Stick-slip"; moved out of
 * contact_step.c, which solves the contacts inside a Newton iteration). */
#include "solve/sim_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* LuGre stick-slip step control (docs/theory.md, "Stick-slip"). An implicit step of the
 * slider's momentum balance m (v1 - v0) / h = F - N g(v1) + ... has a unique velocity when
 * m / h > N |g'| over the velocities it can reach; a longer step can converge to a sliding
 * root while the load is still below the static limit (slip starts early), and it jumps
 * over the breakaway, whose timing sets the velocity of the whole slip that follows. The
 * error estimate sees neither (a state at rest has no error). With h_b(v) = m / (N S(v)),
 * S(v) the steepest |g'| at speeds >= |v| (m: the effective mass the friction drives, the
 * inverse of the Delassus value of the step's contact problem, fmb_contact_t.minv: the
 * slider with what it is coupled to; N the normal force):
 *   - sticking at both ends (|v| < v_stick), loaded towards the static limit: the
 *     breakaway is an event near the static utilization u = sigma0 |z| / mu0 = 1 (u follows
 *     load / (mu0 N) in a stick). A step longer than 1.5 h_b(0) may cover at most the
 *     fraction FMB_APPROACH of the remaining distance 1 - u0 (else it is rejected and
 *     retried with that fraction of the time to u = 1 at the rate it showed) and the next
 *     step is capped the same way: the steps shrink geometrically towards the breakaway,
 *     ~log(T / h_b) of them, instead of marching at h_b(0) through the whole approach
 *     (seed 000: 0.27 s from u = 0.95, 480 steps of h_b);
 *   - a step longer than 1.5 h_b(0) that ends sliding after a stick is rejected: below
 *     u = 0.95 it picked the sliding root (retry with h_b(0)); near the limit the
 *     breakaway lies inside it (u saturates below 1 in the creep just before it, so the
 *     approach alone cannot place it): retried with a quarter of the step, down to h_b(0);
 *   - sliding: the next step is capped at h_b(v) (h_b(0) inside the Stribeck region,
 *     growing like 1 / |g'(v)| beyond it) for the first steps of a slip.
 * Adaptive runs only (stepctl.c). */
#define FMB_BREAKAWAY_U 0.95
#define FMB_APPROACH 0.25 /* fraction of the remaining distance to the static limit per step */

/* Steepest fall |g'(w)| of the Stribeck curve over |w| >= |v|. */
static double stribeck_slope(const fmb_friction_desc_t *d, double v)
{
    const double gm = d->gamma > 0 ? d->gamma : 2.0;
    /* |g'| = (mu0 - mu) gamma / vs x^(gamma-1) e^(-x^gamma), x = |v| / vs; for gamma > 1
     * largest at x^gamma = 1 - 1/gamma, for gamma <= 1 at x -> 0 (bounded here by its
     * value at x = 1e-3) */
    const double xs = gm > 1 ? pow(1.0 - 1.0 / gm, 1.0 / gm) : 1e-3;
    const double x = fmax(fabs(v) / d->vs, xs);
    return fabs(d->mu0 - d->mu) * gm / d->vs * pow(x, gm - 1.0) * exp(-pow(x, gm));
}

/* h_b(v) = m_eff / (N S(v)): m_eff the effective mass the friction drives, 1 / minv from
 * the step's contact problem (the slider and all it is rigidly or stiffly coupled to;
 * docs/theory.md "Stick-slip"), the slider body's own mass before the first step. */
static double breakaway_step(const fmb_sim_t *s, const fmb_contact_t *c, double v)
{
    const double S = stribeck_slope(&c->d, v);
    double N = 0.0;
    for (int k = 0; k < FMB_CORNERS; k++)
        N += c->F[k];
    if (!(S > 0) || !(N > 0)) return INFINITY;
    if (c->minv > 0) return 1.0 / (c->minv * N * S);
    const fmb_joint_t *j = &s->model->joints[c->joint];
    const fmb_body_t *b = &s->model->bodies[j->body[0] != FMB_GROUND ? j->body[0] : j->body[1]];
    return b->mass / (N * S);
}

int fmb_sim_contact_step_control(fmb_sim_t *s, double h, double *h_max, char *why, size_t len)
{
    int reject = 0;
    for (int ic = 0; ic < s->ct.ncontacts; ic++) {
        const fmb_contact_t *c = &s->ct.contacts[ic];
        if (!c->fk->smooth || !(c->d.mu0 > 0)) continue;
        const fmb_joint_t *j = &s->model->joints[c->joint];
        const double vst = fmb_friction_stick_velocity(&c->d);
        const int stick0 = fabs(c->v_n) < vst, stick1 = fabs(c->v) < vst;
        const double u0 = c->d.sigma0 * fabs(c->z_n) / c->d.mu0;
        const double u1 = c->d.sigma0 * fabs(c->z) / c->d.mu0;
        const double hb = breakaway_step(s, c, 0.0);
        if (!(hb < INFINITY)) continue;
        double lim = INFINITY;
        const char *what = "";
        if (!stick1) { /* sliding at the end */
            if (stick0 && h > 1.5 * hb) {
                /* a long step that broke loose: below the static limit it picked the
                 * sliding root (retry with h_b); near it, the breakaway lies somewhere
                 * inside the step: locate it by quarter steps down to h_b */
                reject = 1;
                lim = u0 < FMB_BREAKAWAY_U ? hb : fmax(hb, 0.25 * h);
                what = "broke loose within a long step";
            } else {
                lim = breakaway_step(s, c, c->v), what = "sliding on the Stribeck curve";
            }
        } else if (stick0 && u1 > u0) { /* sticking, loaded towards the static limit */
            /* time left to the breakaway at the rate of this step, from u -> 1 and from the
             * creep velocity, which grows like 1 / (t_b - t) (|v| ~ z' / (1 - u)), so that
             * 1 / |v| falls linearly to 0 at t_b; u itself saturates just below 1 */
            const double rate = (u1 - u0) / h;
            double tau0 = fmax(1.0 - u0, 0.0) / rate, tau1 = fmax(1.0 - u1, 0.0) / rate;
            const double av0 = fabs(c->v_n), av1 = fabs(c->v);
            if (av0 > 0 && av1 > av0 && c->v * c->v_n > 0) {
                const double irate = (1.0 / av0 - 1.0 / av1) / h;
                tau0 = fmin(tau0, 1.0 / av0 / irate);
                tau1 = fmin(tau1, 1.0 / av1 / irate);
            }
            if (h > 1.5 * hb && h > FMB_APPROACH * tau0) {
                reject = 1;
                lim = fmax(hb, FMB_APPROACH * tau0);
            } else {
                lim = fmax(hb, FMB_APPROACH * tau1);
            }
            what = "approaching the static limit";
        }
        if (lim < *h_max) {
            *h_max = lim;
            if (why)
                snprintf(why, len, "joint '%s' (line %d): %s (%.0f %% of the static limit)",
                         j->name, j->line, what, 100.0 * u1);
        }
    }
    return reject;
}

/* docs/theory.md section 9, "Jams": the law over a step with constant sigma1 reaches
 * 2 sigma1 mu0 / (h sigma0) right after a reversal; beyond a/b the friction moment b mu N
 * exceeds what one face's corners can hold (a N) and the block wedges in its guide (the
 * corner forces then follow the guide's compliance, not the load): the step's failure is
 * the law's, not the step size's. */
int fmb_sim_contact_diagnosis(const fmb_sim_t *s, char *buf, size_t len)
{
    for (int ic = 0; ic < s->ct.ncontacts; ic++) {
        const fmb_contact_t *c = &s->ct.contacts[ic];
        /* beyond a/b and beyond the static level the Stribeck curve allows (mu0, plus the
         * viscous part): only the sigma1 dz/dt term can put it there */
        if (!c->fk->smooth || !(c->d.b > 0) || !(fabs(c->mu) * c->d.b > c->d.a) ||
            !(fabs(c->mu) > c->d.mu0 + c->d.sigma2 * fabs(c->v)))
            continue;
        const fmb_joint_t *j = &s->model->joints[c->joint];
        snprintf(buf, len,
                 "the slider of joint '%s' (line %d) wedges: its LuGre coefficient over the step "
                 "reached %.3g at v = %.3g m/s, beyond its static level mu0 = %.3g and beyond "
                 "a/b = %.3g (the friction moment exceeds what one face's corners can hold)%s",
                 j->name, j->line, c->mu, c->v, c->d.mu0, c->d.a / c->d.b,
                 c->d.vd > 0 ? ""
                             : "; with constant bristle damping (vd = 0) sigma1 dz/dt spikes "
                               "after a velocity reversal, up to 2 sigma1 mu0 / (h sigma0)");
        size_t u = strlen(buf);
        if (!(c->d.vd > 0) && c->h > 0 && u < len)
            snprintf(buf + u, len - u,
                     " = %.3g at h = %.3g s, more for smaller steps: set vd > 0 (sigma1 in "
                     "presliding only)",
                     2.0 * c->d.sigma1 * c->d.mu0 / (c->h * c->d.sigma0), c->h);
        return 1;
    }
    return 0;
}

/* Located stop of a Coulomb slider (docs/theory.md, "Static and kinetic levels"): HHT's
 * update v_{n+1} = v_n + h ((1 - gamma) a_n + gamma a_{n+1}) carries the sliding phase's
 * a_n into a step in which the slider stops, so that holding v_{n+1} = 0 at its end needs
 * an end friction (F + mu N)(theta - 1 + gamma)/gamma - F (theta: the stop's fraction of
 * the step), beyond mu0 N for early stops: the block slides away. As for dry_friction's
 * switch events (forces/relative.c fmb_rel_zero_event, docs/switching.md "Switch
 * events"), the stop is located and the step ends there: a step that starts sliding (not
 * held) with e0 = sign(v_n) v_n > 1e-6 v_stick and ends with e1 = sign(v_n) v <= 1e-6
 * v_stick (at rest or reversed) is rejected and retried with h' = tau, the root of the
 * line through the last two accepted sliding velocities,
 *   e(t_n + tau) = e0 + b tau,  b = (e0 - sign(v_n) v_{n-1}) / h_{n-1}
 * (exact for a constant deceleration, first order otherwise); a step that ends at the
 * root (within FMB_STOP_TOL h) returns 3: the accelerations and the contact forces are
 * re-solved at the accepted stop as at the start (restart.c fmb_sim_switch_restart,
 * fmb_sim_start_lcps: at rest, the static level decides on the sliding acceleration), the
 * step history starts anew. Without a history (the run's first step) or a root inside the
 * step, a step that stopped is accepted and restarted the same way. A root closer to the
 * step's start than the time's resolution (1e-9 (t + h)) cannot be stepped to: the slider
 * is at rest at t_n (its velocity there, decel tau, is below 1e-9 (t + h) decel), so it is
 * marked held and 4 asks to reject the step, restart at t_n (the contact re-solved at rest
 * there) and retry it (accepting the step instead let the block slide away: the early-stop
 * limit above). Fixed and adaptive runs (stepctl.c events()); codes as an element's
 * step_control, plus 4. */
#define FMB_STOP_TOL 1e-9

int fmb_sim_contact_stop_control(fmb_sim_t *s, double h, double *h_max, char *why, size_t len)
{
    int code = 0;
    for (int ic = 0; ic < s->ct.ncontacts; ic++) {
        fmb_contact_t *c = &s->ct.contacts[ic];
        if (!c->fk->stops || c->stuck) continue;
        const double vst = fmb_friction_stick_velocity(&c->d);
        const double sg = c->v_n < 0 ? -1.0 : 1.0, e0 = sg * c->v_n, e1 = sg * c->v;
        if (!(e0 > 1e-6 * vst)) continue;
        const int stopped = e1 <= 1e-6 * vst;
        double tau = -1.0;
        if (c->nvh >= 2 && c->hh > 0) {
            const double b = (e0 - sg * c->vh[1]) / c->hh;
            if (b < 0) tau = -e0 / b;
        }
        int r = 0;
        if (tau > 0 && fabs(h - tau) <= FMB_STOP_TOL * h)
            r = 3; /* the step ends at the stop */
        else if (!stopped)
            r = 0;
        else if (!(tau > 0 && tau < h))
            r = 3; /* stopped, not locatable: restart at the accepted state */
        else if (tau <= 1e-9 * (s->st.t + h)) {
            r = 4;        /* at the step's start: at rest at t_n (restart there, retry) */
            c->stuck = 1; /* held at t_n: the retried step starts at the static level */
        } else
            r = 1;
        if (r == 1 && tau < *h_max) {
            *h_max = tau;
            if (why) {
                const fmb_joint_t *j = &s->model->joints[c->joint];
                snprintf(why, len,
                         "joint '%s' (line %d): Coulomb slider's stop located at t = %.9g "
                         "(sliding velocity %.3g -> %.3g)",
                         j->name, j->line, s->st.t + tau, c->v_n, c->v);
            }
        }
        if (r == 1 || (r >= 3 && code != 1 && r > code)) code = r;
    }
    return code;
}

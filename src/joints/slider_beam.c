/*
 * Slider on an elastic guide bar (seed 001, eqs 16-18). Body 0 is the slider (rigid),
 * body 1 the guide, a beam body along its body x axis. The slider point u0 of body 0,
 * expressed in the guide's body frame relative to the guide origin, is
 *   s = B p0 - rbar1,   B = A(theta0 - theta1),  p0 = rbar0 + u0
 * (A1^T r_P0 = A(theta0 - theta1) p0). A binary search over the element ends finds the
 * element containing x = s_x; with v(x), phi(x) = v'(x) from its Hermite functions and
 * the guide's nodal coordinates U:
 *   Phi_1 = s_y - v(s_x)                         (slider on the deflected centre line)
 *   Phi_2 = theta0 - theta1 - angle - v'(s_x)    (slider follows the local slope)
 * Jacobian (ds/dq: rbar0 -> B, theta0 -> B Itil p0, rbar1 -> -I, theta1 -> -B Itil p0):
 *   dPhi_1/dq = ds_y/dq - v'  ds_x/dq - [H(x) on U]
 *   dPhi_2/dq = e_t0 - e_t1 - v'' ds_x/dq - [H'(x) on U]
 * Second derivatives, weights w1, w2, with om = (-w1 v' - w2 v'', w1):
 *   sum_k w_k d2Phi_k = om . d2s - (w1 v'' + w2 v''') ds_x ds_x^T - (ds_x g^T + g ds_x^T),
 *   g = w1 H'(x) + w2 H''(x) on U,
 *   om . d2s: (rbar0, theta0) = Itil^T B^T om, (rbar0, theta1) = -Itil^T B^T om,
 *             (theta0, theta0) = (theta1, theta1) = -om.B p0, (theta0, theta1) = om.B p0.
 * v and v' are continuous across element ends (Hermite), so Phi is continuous while a
 * Newton iteration moves the slider into the next element; v'' and v''' jump, so the
 * tangent does (only when the guide is bent). The slider force reaches the guide nodes
 * through the Jacobian's U block, i.e. through N(x)^T.
 * Columns (model.h, column-compressed): the slider's rigid columns, the guide's rigid
 * columns and the v, v' columns of the guide element under the slider (cols(), state
 * dependent): the blocks are O(1) whatever the guide's mesh. When the slider enters
 * another element the columns change; the assembler places the entries by lookup and
 * adds the new element's entries to the matrix pattern once.
 */
#include <string.h>

#include "bodies/beam.h"
#include "joints/joints.h"

typedef struct sb {
    const fmb_beam_t *bm;
    double B[4], s[2], Bp[2];
    int e, col[4];
    double H[4][4]; /* d-th derivative of the Hermite functions at x */
} sb_t;

/* The slider's place on the guide at the views' state: sb_t depends only on the rigid
 * coordinates of both bodies (and the slider point), so it is kept in the joint (evalcache)
 * keyed on their bit patterns: slider_cols, slider_eval and slider_hess at one iterate (the
 * residual, then the assembly) share one sincos, one element search and one set of Hermite
 * values, bitwise the same, read in place (sb_place returns the kept copy). Two states are
 * kept (the last two used). The guide's deflection there (v, v', v'', v''': sb_eval) is
 * summed afresh from the element's four coordinates at every call.
 * The step control compares the state at t_n with the candidate. By then the two kept
 * states are the candidate and an earlier iterate (or the predictor), t_n's state having
 * been the last step's candidate: its axial position, element and columns (all that the
 * step control and the views need of it) are kept apart (at: set by slider_step_control
 * from its candidate), so t_n's state is not placed again at every step (a sincos, an
 * element search and four Hermite rows per step). */
typedef struct sb_memo {
    double key[8];
    const fmb_beam_t *bm;
    int ok;
    sb_t c;
} sb_memo_t;
typedef struct sb_at {
    double key[8];
    const fmb_beam_t *bm;
    int ok, e;
    int col[4];
    double s0;
} sb_at_t;
typedef struct sb_cache {
    sb_memo_t m[2];
    int last;   /* the slot used last */
    sb_at_t at; /* the last step control's candidate */
} sb_cache_t;
_Static_assert(sizeof(sb_cache_t) <= sizeof(((fmb_joint_t *)0)->evalcache),
               "slider_beam's cache must fit the joint's evalcache");

/* The key: every input of the place (compared as bit patterns). */
static inline void sb_key(const fmb_joint_t *j, const fmb_bodyview_t v[2], double key[8])
{
    key[0] = v[0].ndof ? v[0].q[2] : 0.0; /* fmb_body_angle */
    key[1] = v[1].q[2];
    key[2] = v[0].ndof ? v[0].q[0] : 0.0;
    key[3] = v[0].ndof ? v[0].q[1] : 0.0;
    key[4] = v[1].q[0];
    key[5] = v[1].q[1];
    key[6] = j->point[0][0];
    key[7] = j->point[0][1];
}

/* The kept slot for the key (now the one used last), or NULL. */
static inline const sb_t *sb_kept(sb_cache_t *cc, const fmb_beam_t *bm, const double key[8])
{
    for (int i = 0; i < 2; i++) {
        const int k = i ? 1 - cc->last : cc->last;
        const sb_memo_t *m = &cc->m[k];
        if (m->ok && m->bm == bm && !memcmp(m->key, key, sizeof m->key)) {
            cc->last = k;
            return &m->c;
        }
    }
    return NULL;
}

/* A new place for the key, kept in the older slot. */
static const sb_t *sb_new(const fmb_joint_t *j, sb_cache_t *cc, const fmb_beam_t *bm,
                          const double key[8])
{
    sb_memo_t *m = &cc->m[1 - cc->last]; /* replaces the older state */
    sb_t *c = &m->c;
    c->bm = bm;
    fmb_rot(key[0] - key[1], c->B);
    const double p0[2] = {j->point[0][0] + key[2], j->point[0][1] + key[3]};
    c->Bp[0] = c->B[0] * p0[0] + c->B[2] * p0[1];
    c->Bp[1] = c->B[1] * p0[0] + c->B[3] * p0[1];
    c->s[0] = c->Bp[0] - key[4];
    c->s[1] = c->Bp[1] - key[5];
    c->e = fmb_beam_element_at(c->bm, c->s[0]);
    fmb_beam_vcols(c->bm, c->e, c->col);
    for (int d = 0; d < 4; d++)
        fmb_beam_hermite(c->bm, c->e, c->s[0], d, c->H[d]);
    memcpy(m->key, key, sizeof m->key);
    m->bm = bm;
    m->ok = 1;
    cc->last = 1 - cc->last;
    return c;
}

static const sb_t *sb_place(const fmb_joint_t *j, const fmb_bodyview_t v[2])
{
    double key[8];
    sb_key(j, v, key);
    sb_cache_t *cc = (sb_cache_t *)(void *)((fmb_joint_t *)j)->evalcache;
    const fmb_beam_t *bm = v[1].body->data;
    const sb_t *kept = sb_kept(cc, bm, key);
    return kept ? kept : sb_new(j, cc, bm, key);
}

/* The axial position, element and element columns at the views' state: a kept place's,
 * else the last step control's candidate's when it is that state, else a new place's
 * (sb_place). */
static void sb_where(const fmb_joint_t *j, const fmb_bodyview_t v[2], double *s0, int *e,
                     int col[4])
{
    double key[8];
    sb_key(j, v, key);
    sb_cache_t *cc = (sb_cache_t *)(void *)((fmb_joint_t *)j)->evalcache;
    const fmb_beam_t *bm = v[1].body->data;
    const sb_t *c = sb_kept(cc, bm, key);
    if (!c && cc->at.ok && cc->at.bm == bm && !memcmp(cc->at.key, key, sizeof key)) {
        *s0 = cc->at.s0, *e = cc->at.e;
        memcpy(col, cc->at.col, sizeof cc->at.col);
        return;
    }
    if (!c) c = sb_new(j, cc, bm, key);
    *s0 = c->s[0], *e = c->e;
    memcpy(col, c->col, sizeof c->col);
}

/* The place (in the joint's cache, not copied: it stays valid through one more sb_place of
 * another state) and vv = v, v', v'', v''' of the deflected guide there. */
static const sb_t *sb_eval(const fmb_joint_t *j, const fmb_bodyview_t v[2], double vv[4])
{
    const sb_t *c = sb_place(j, v);
    for (int d = 0; d < 4; d++) {
        vv[d] = 0.0;
        for (int k = 0; k < 4; k++)
            if (c->col[k] >= 0) vv[d] += c->H[d][k] * v[1].q[c->col[k]];
    }
    return c;
}

/* The place of guide column col among the guide view's columns: at guess (3 + its rank
 * among the element's columns, where slider_cols appends them) when it is there (a view's
 * columns are distinct: the place fmb_view_col finds), else searched. */
static inline int sb_pos(const fmb_bodyview_t *v, int guess, int col)
{
    return guess < v->nc && v->cols[guess] == col ? guess : fmb_view_col(v, col);
}

/* ds_c/dq over the element's columns (length v[0].nc + v[1].nc). */
static void ds_dq(const sb_t *c, const fmb_bodyview_t v[2], int comp, double *ds)
{
    const int n0 = v[0].nc, n = n0 + v[1].nc;
    for (int k = 0; k < n; k++)
        ds[k] = 0.0;
    /* B Itil p0 = (-Bp_y, Bp_x) */
    const double bip[2] = {-c->Bp[1], c->Bp[0]};
    if (n0) {
        ds[0] = c->B[comp + 0], ds[1] = c->B[comp + 2];
        ds[2] = bip[comp];
    }
    ds[n0 + 0] = comp == 0 ? -1.0 : 0.0;
    ds[n0 + 1] = comp == 1 ? -1.0 : 0.0;
    ds[n0 + 2] = -bip[comp];
}

static void slider_eval(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, double *phi,
                        double *J0, double *J1)
{
    (void)t;
    double vv[4];
    const sb_t *c = sb_eval(j, v, vv);
    phi[0] = c->s[1] - vv[0];
    phi[1] = fmb_body_angle(&v[0]) - v[1].q[2] - j->ref - vv[1];
    if (!J0 && !J1) return;
    const int n0 = v[0].nc, n = n0 + v[1].nc;
    double dsx[FMB_ELEM_COLS], dsy[FMB_ELEM_COLS];
    ds_dq(c, v, 0, dsx);
    ds_dq(c, v, 1, dsy);
    for (int k = 0; k < n; k++) {
        double r1 = dsy[k] - vv[1] * dsx[k], r2 = -vv[2] * dsx[k];
        double *J = k < n0 ? J0 : J1;
        int kk = k < n0 ? k : k - n0;
        if (!J) continue;
        J[0 + 2 * kk] = r1;
        J[1 + 2 * kk] = r2;
    }
    if (J0 && n0) J0[1 + 2 * 2] += 1.0;
    if (J1) {
        J1[1 + 2 * 2] -= 1.0;
        for (int k = 0, r = 0; k < 4; k++) {
            const int p = c->col[k] < 0 ? -1 : sb_pos(&v[1], 3 + r++, c->col[k]);
            if (p < 0) continue;
            J1[0 + 2 * p] -= c->H[0][k];
            J1[1 + 2 * p] -= c->H[1][k];
        }
    }
}

static void slider_hess(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, const double *w,
                        double *Hm)
{
    (void)t;
    double vv[4];
    const sb_t *c = sb_eval(j, v, vv);
    const int n0 = v[0].nc, n = n0 + v[1].nc;
    const double w1 = w[0], w2 = w[1];
    const double om[2] = {-w1 * vv[1] - w2 * vv[2], w1};
    /* om . d2s */
    const double bto[2] = {c->B[0] * om[0] + c->B[1] * om[1], c->B[2] * om[0] + c->B[3] * om[1]};
    const double itb[2] = {bto[1], -bto[0]}; /* Itil^T B^T om */
    const double obp = om[0] * c->Bp[0] + om[1] * c->Bp[1];
    const int t0 = n0 ? 2 : -1, t1 = n0 + 2;
#define ADD(r, cc, val)                                                                            \
    do {                                                                                           \
        Hm[(r) + (size_t)(cc)*n] += (val);                                                         \
        if ((r) != (cc)) Hm[(cc) + (size_t)(r)*n] += (val);                                        \
    } while (0)
    if (t0 >= 0) {
        ADD(0, t0, itb[0]);
        ADD(1, t0, itb[1]);
        ADD(0, t1, -itb[0]);
        ADD(1, t1, -itb[1]);
        ADD(t0, t0, -obp);
        ADD(t0, t1, obp);
    }
    ADD(t1, t1, -obp);
#undef ADD
    double dsx[FMB_ELEM_COLS], g[FMB_ELEM_COLS];
    ds_dq(c, v, 0, dsx);
    for (int k = 0; k < n; k++)
        g[k] = 0.0;
    int pos[4];
    for (int k = 0, r = 0; k < 4; k++) {
        pos[k] = c->col[k] < 0 ? -1 : sb_pos(&v[1], 3 + r++, c->col[k]);
        if (pos[k] >= 0) g[n0 + pos[k]] = w1 * c->H[1][k] + w2 * c->H[2][k];
    }
    const double a = w1 * vv[2] + w2 * vv[3];
    /* dsx lives on the rigid coordinates (n0 + 3), g on the element's four columns: the
     * outer products only touch those, and of a * dsx dsx^T + dsx g^T + g dsx^T each part
     * only its own block (rigid-rigid, rigid-element, element-rigid; none element-element).
     * The terms left out are exact zeros: an entry's sum differed by them at most in the sign
     * of a zero, and subtracting it from Hm (never -0: +0 plus the ADDs above) gave the same
     * bits as now. */
    int S[FMB_SHAPE_MAX + 6], ns = 0;
    const int nrig = n0 + 3;
    for (int k = 0; k < nrig; k++)
        S[ns++] = k;
    for (int k = 0; k < 4; k++)
        if (pos[k] >= 0) S[ns++] = n0 + pos[k];
    for (int x = 0; x < nrig; x++) {
        const int cc = S[x];
        double *Hc = Hm + (size_t)cc * n;
        for (int y = 0; y < nrig; y++)
            Hc[S[y]] -= a * dsx[S[y]] * dsx[cc];
        for (int y = nrig; y < ns; y++)
            Hc[S[y]] -= g[S[y]] * dsx[cc];
    }
    for (int x = nrig; x < ns; x++) {
        const int cc = S[x];
        double *Hc = Hm + (size_t)cc * n;
        for (int y = 0; y < nrig; y++)
            Hc[S[y]] -= dsx[S[y]] * g[cc];
    }
}

/* Columns: rigid ones of both bodies, and the guide element's v, v' columns at the
 * current slider position (none without a state). */
static void slider_cols(const fmb_joint_t *j, fmb_bodyview_t v[2])
{
    fmb_view_rigid(&v[0]);
    fmb_view_rigid(&v[1]);
    if (!v[1].q || !v[1].ndof || (v[0].ndof && !v[0].q)) return;
    double s0;
    int e, col[4]; /* the element's columns only */
    sb_where(j, v, &s0, &e, col);
    /* the elastic columns appended after 0 1 2 while ascending (a mesh in node order) */
    int na = 0, asc = 1, prev = 2, *dst = v[1].cols + 3;
    for (int k = 0; k < 4; k++)
        if (col[k] >= 0) {
            asc &= col[k] > prev;
            prev = col[k];
            dst[na++] = col[k];
        }
    if (asc) {
        v[1].nc = 3 + na;
        return;
    }
    int add[4]; /* else the same insertion, one column at a time */
    memcpy(add, dst, (size_t)na * sizeof *add);
    fmb_view_add_cols(&v[1], na, add);
}

/* The columns the slider's columns can include: the slider's rigid ones, the guide's
 * rigid ones and, near the present state, the columns of the guide elements within
 * fmb_reach_elements of the present one (all: every guide column, the slider may reach any
 * element). */
static int slider_reach(const fmb_joint_t *j, const fmb_bodyview_t v[2], int b, int all, int *cols)
{
    if (!b || all || !v[1].q || (v[0].ndof && !v[0].q)) {
        const int n = b ? v[1].ndof : (v[0].ndof ? 3 : 0);
        for (int k = 0; k < n; k++)
            cols[k] = k;
        return n;
    }
    double s0;
    int e, col[4];
    sb_where(j, v, &s0, &e, col);
    const fmb_beam_t *bm = v[1].body->data;
    const int W = fmb_reach_elements(bm->nnodes - 1);
    const int x0 = e - W > 0 ? e - W : 0;
    const int x1 = e + 1 + W < bm->nnodes - 1 ? e + 1 + W : bm->nnodes - 1;
    int n = 0;
    for (int k = 0; k < 3; k++)
        cols[n++] = k;
    /* the nodes' columns, once each: v, v' (the slider's, fmb_beam_vcols) and u (a
     * frictional contact's points on the guide, friction.c fmb_contact_cols: without it,
     * every element change rebuilt the pattern) */
    for (int x = x0; x <= x1; x++)
        for (int d = 0; d < 3; d++)
            if (bm->dof[3 * x + d] >= 3) cols[n++] = bm->dof[3 * x + d];
    for (int a = 4; a < n; a++) /* ascending (already so for a mesh in node order) */
        for (int c = a; c > 3 && cols[c - 1] > cols[c]; c--) {
            const int t = cols[c];
            cols[c] = cols[c - 1], cols[c - 1] = t;
        }
    return n;
}

static int slider_check(const fmb_model_t *m, const fmb_joint_t *j, char *msg, size_t len)
{
    const fmb_body_t *s = &m->bodies[j->body[0]], *g = &m->bodies[j->body[1]];
    if (!s->klass || s->klass->shape) {
        snprintf(msg, len, "slider_beam '%s': the slider (first body) must be a rigid body",
                 j->name);
        return FMB_ERR_MODEL;
    }
    if (g->klass != &fmb_beam_body_class) {
        snprintf(msg, len, "slider_beam '%s': the guide (second body) '%s' must be a beam", j->name,
                 g->name);
        return FMB_ERR_MODEL;
    }
    return 0;
}

static int slider_valid(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, char *msg,
                        size_t len)
{
    const sb_t *c = sb_place(j, v);
    const double x0 = c->bm->x[0], x1 = c->bm->x[c->bm->nnodes - 1];
    if (c->s[0] < x0 || c->s[0] > x1) {
        snprintf(msg, len,
                 "slider '%s' ran off its guide '%s' at t = %.9g: axial position %.6g m, guide "
                 "from %.6g to %.6g m",
                 j->name, v[1].body->name, t, c->s[0], x0, x1);
        return FMB_ERR_MODEL;
    }
    return 0;
}

static void slider_reaction_point(const fmb_joint_t *j, const fmb_bodyview_t v[2], int b,
                                  double u[2])
{
    if (b == 0) {
        u[0] = j->point[0][0], u[1] = j->point[0][1];
        return;
    }
    const sb_t *c = sb_place(j, v);
    u[0] = c->s[0], u[1] = 0.0;
}

/* Sliding direction: the deflected guide's tangent at the slider, angle theta1 + v'(s_x). */
static void slider_slide_direction(const fmb_joint_t *j, const fmb_bodyview_t v[2], double e[2])
{
    double vv[4];
    sb_eval(j, v, vv);
    const double th = v[1].q[2] + vv[1];
    e[0] = cos(th), e[1] = sin(th);
}

/* Element crossing (docs/theory.md, "Element crossings"). v'' jumps at an element end, and
 * with it the rate of the slope constraint Phi_2: the slider's rotation rate must jump by
 * (v''_R - v''_L) ds_x/dt there. A step across it ends with velocities that do not satisfy
 * the new element's constraint rate, and the index-3 integrator removes that by a
 * period-2 transient that decays per step, not per unit time, so the error estimate sees it
 * at every step size (the quick-return fell to 1e-9 s steps after crossings). The crossing
 * is therefore an event: the next step is capped to end just past the next element end at
 * the present rate of s_x (by SB_PAST of the last step), and a step that has crossed one
 * returns 2: the adaptive run restarts from it (velocities projected onto the new
 * constraint, accelerations recomputed). */
#define SB_PAST 0.01

static int slider_step_control(const fmb_joint_t *j, const fmb_bodyview_t v0[2],
                               const fmb_bodyview_t v1[2], double t0, double h, double *h_max,
                               char *why, size_t len)
{
    (void)t0;
    /* the candidate's place (kept since its Phi) and t_n's position and element (the last
     * step control's candidate, sb_where); the candidate is kept for the next step's t_n */
    const sb_t *c1 = sb_place(j, v1);
    double s00;
    int e0, col0[4];
    sb_where(j, v0, &s00, &e0, col0);
    sb_cache_t *cc = (sb_cache_t *)(void *)((fmb_joint_t *)j)->evalcache;
    sb_key(j, v1, cc->at.key);
    cc->at.bm = c1->bm, cc->at.e = c1->e, cc->at.s0 = c1->s[0], cc->at.ok = 1;
    memcpy(cc->at.col, c1->col, sizeof c1->col);
    const fmb_beam_t *bm = c1->bm;
    const double ds = c1->s[0] - s00;
    if (ds != 0.0 && h > 0) {
        const int k = ds > 0 ? c1->e + 1 : c1->e; /* the next element end ahead */
        if (k >= 1 && k <= bm->nnodes - 2) {
            const double tau = (bm->x[k] - c1->s[0]) / ds * h;
            if (tau >= 0) {
                *h_max = tau + SB_PAST * h;
                if (why)
                    snprintf(why, len, "slider reaches the guide's element end at x = %.6g m",
                             bm->x[k]);
            }
        }
    }
    return c1->e != e0 ? 2 : 0;
}

static const char *const slider_output_names[] = {"s", "element"};

static void slider_outputs(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, double *val)
{
    (void)t;
    const sb_t *c = sb_place(j, v);
    val[0] = c->s[0];
    val[1] = c->e;
}

/* Case keys: the slider's angle relative to the beam's carrier frame, friction. A guide
 * declared with 'beam:' but built rigid makes this joint a prismatic one along the bar's x
 * axis (the same slider). */
static const fmb_param_t slider_params[] = {FMB_JOINT_ANGLE_PARAM, FMB_JOINT_FRICTION_PARAM, {0}};

static int slider_prepare(fmb_item_env_t *env, fmb_joint_desc_t *d)
{
    if (!env->beam[1])
        return fmb_item_fail(env, "bodies", 1,
                             "the second body '%s' of a slider_beam joint is not a beam (declare "
                             "it with 'beam:')",
                             env->body_name[1]);
    if (env->beam[0] || env->body[0] == FMB_GROUND)
        return fmb_item_fail(env, "bodies", 0,
                             "the first body '%s' of a slider_beam joint (the slider) must be a "
                             "rigid body",
                             env->body_name[0]);
    if (hypot(d->point[1][0], d->point[1][1]) > 0)
        return fmb_item_fail(env, "points", 1,
                             "the guide point of a slider_beam joint must be [0, 0] (the slider "
                             "moves along the beam's x axis), got [%g, %g]",
                             d->point[1][0], d->point[1][1]);
    fmb_joint_prepare_angle(env, d);
    if (env->beam[1] == 2) {
        /* guide built rigid: the same slider as a prismatic joint along its x axis */
        d->type = FMB_JOINT_PRISMATIC;
        d->axis[0] = 1, d->axis[1] = 0;
    }
    return 0;
}

const fmb_joint_class_t fmb_slider_beam_class = {
    .name = "slider_beam",
    .nrows = 2,
    .eval = slider_eval,
    .hess = slider_hess,
    .cols = slider_cols,
    .reach = slider_reach,
    .time = NULL,
    .check = slider_check,
    .valid = slider_valid,
    .reaction_point = slider_reaction_point,
    .slide_direction = slider_slide_direction,
    .noutputs = 2,
    .output_group = "sliders",
    .output_names = slider_output_names,
    .outputs = slider_outputs,
    .case_type = "slider_beam",
    .item_flags = FMB_ITEM_BODIES | FMB_ITEM_POINTS | FMB_ITEM_DISTINCT,
    .params = slider_params,
    .prepare = slider_prepare,
    .step_control = slider_step_control,
};

/*
 * Slider on an elastic guide bar, on the guide's deformed centre line (seed 001, eqs
 * 16-18; docs/theory.md section 8). Body 0 is the slider (rigid), body 1 the guide, a
 * beam along its body x axis.
 *
 * The slider point u0 of body 0, in the guide's body frame relative to its origin:
 *   s = B p0 - rbar1,   B = A(theta0 - theta1),   p0 = rbar0 + u0.
 * The guide's centre line near s (bodies/beam_curve.c: the element, the material
 * coordinate xi of the curve point matched with s, the offset f0 of s across the curve and
 * the curve's tangent angle f1, with exact first and second derivatives over
 * y = (s, z), z the element's six dofs; each beam geometry has its own curve, the one its
 * elastic forces describe: body-frame interpolation for linear beams, the co-rotated
 * element's curve for nonlinear ones):
 *   Phi_1 = f0(s, z)                              (on the deformed centre line)
 *   Phi_2 = theta0 - theta1 - angle - f1(s, z)    (along its tangent)
 * Jacobian, with ds/dq: rbar0 -> B, theta0 -> B Itil p0, rbar1 -> -I, theta1 -> -B Itil p0
 * and dz/dq selecting the element's columns:
 *   dPhi_1/dq = df0/ds ds/dq + df0/dz dz/dq,
 *   dPhi_2/dq = e_t0 - e_t1 - df1/ds ds/dq - df1/dz dz/dq.
 * Second derivatives, weights w1, w2, om = (w1 df0/ds - w2 df1/ds) and
 * Y = w1 d2f0/dy2 - w2 d2f1/dy2 (8 x 8), D = dy/dq (8 x n: ds_x, ds_y, the selections):
 *   sum_k w_k d2Phi_k = om . d2s + D^T Y D,
 *   om . d2s: (rbar0, theta0) = Itil^T B^T om, (rbar0, theta1) = -Itil^T B^T om,
 *             (theta0, theta0) = (theta1, theta1) = -om.B p0, (theta0, theta1) = om.B p0.
 * No work: Phi does not depend on t, so along any motion that keeps Phi = 0, Phi_q qd = 0
 * and the reaction -Phi_q^T lambda has zero power (the slider slides over the material of
 * the deformed guide at its local velocity, which the Jacobian's z block carries).
 * Columns: the slider's rigid columns, the guide's rigid columns and the six columns of
 * the guide element under the slider (state dependent, cols()): the blocks are O(1)
 * whatever the guide's mesh.
 *
 * Every function below starts from the slider's place (fmb_slider_place: B, s and the
 * centre line there). The class of runs takes the place from its memo, the fast path beside
 * this file (slider_beam_memo.c: the last two places kept, bitwise the searched ones); the
 * reference table, fmb_slider_beam_reference_class, searches it at every call.
 */
#include "joints/slider_beam.h"

/* The place at the views' state: B, B p0, s and the guide's centre line at s
 * (bodies/beam_curve.c: the element search, xi, f0, f1 and their gradients). */
void fmb_slider_place(const fmb_joint_t *j, const fmb_bodyview_t v[2], fmb_slider_place_t *c,
                      fmb_beam_curve_reads_t *reads)
{
    const fmb_beam_t *bm = v[1].body->data;
    const double *q1 = v[1].q;
    c->bm = bm;
    fmb_rot(fmb_body_angle(&v[0]) - q1[2], c->B);
    const double p0[2] = {j->point[0][0] + (v[0].ndof ? v[0].q[0] : 0.0),
                          j->point[0][1] + (v[0].ndof ? v[0].q[1] : 0.0)};
    c->Bp[0] = c->B[0] * p0[0] + c->B[2] * p0[1];
    c->Bp[1] = c->B[1] * p0[0] + c->B[3] * p0[1];
    c->s[0] = c->Bp[0] - q1[0];
    c->s[1] = c->Bp[1] - q1[1];
    fmb_beam_curve_at(bm, q1, c->s, &c->cv, reads);
}

/* The place for one of the functions below: searched into *c for the reference table; the
 * class of runs takes it from the memo beside this file (slider_beam_memo.c: the last two
 * places kept in the joint, a kept place bitwise the searched one). */
static const fmb_slider_place_t *place(const fmb_joint_t *j, const fmb_bodyview_t v[2],
                                       fmb_slider_place_t *c)
{
    if (j->klass == &fmb_slider_beam_class) return fmb_slider_place_kept(j, v);
    fmb_slider_place(j, v, c, NULL);
    return c;
}

/* D = dy/dq on the views' columns (n = v[0].nc + v[1].nc, body 1's after body 0's), row
 * by row: ds_x, ds_y, then the element's six dofs as the view positions they select (-1:
 * removed or not in the view). */
static void sb_dy(const fmb_slider_place_t *c, const fmb_bodyview_t v[2],
                  double ds[2][FMB_ELEM_COLS], int pos[6])
{
    const int n0 = v[0].nc, n = n0 + v[1].nc;
    for (int k = 0; k < n; k++)
        ds[0][k] = ds[1][k] = 0.0;
    const double bip[2] = {-c->Bp[1], c->Bp[0]}; /* B Itil p0 */
    for (int r = 0; r < 2; r++) {
        if (n0) ds[r][0] = c->B[r], ds[r][1] = c->B[r + 2], ds[r][2] = bip[r];
        ds[r][n0 + r] = -1.0;
        ds[r][n0 + 2] = -bip[r];
    }
    for (int k = 0; k < 6; k++) {
        const int p = c->cv.col[k] < 0 ? -1 : fmb_view_col(&v[1], c->cv.col[k]);
        pos[k] = p < 0 ? -1 : n0 + p;
    }
}

static void slider_eval(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, double *phi,
                        double *J0, double *J1)
{
    (void)t;
    fmb_slider_place_t pl;
    const fmb_slider_place_t *c = place(j, v, &pl);
    phi[0] = c->cv.f[0];
    phi[1] = fmb_body_angle(&v[0]) - v[1].q[2] - j->ref - c->cv.f[1];
    if (!J0 && !J1) return;
    double ds[2][FMB_ELEM_COLS], row[2][FMB_ELEM_COLS];
    int pos[6];
    sb_dy(c, v, ds, pos);
    const int n0 = v[0].nc, n = n0 + v[1].nc;
    for (int k = 0; k < n; k++) {
        row[0][k] = c->cv.g[0][0] * ds[0][k] + c->cv.g[0][1] * ds[1][k];
        row[1][k] = -(c->cv.g[1][0] * ds[0][k] + c->cv.g[1][1] * ds[1][k]);
    }
    for (int k = 0; k < 6; k++)
        if (pos[k] >= 0) {
            row[0][pos[k]] += c->cv.g[0][2 + k];
            row[1][pos[k]] -= c->cv.g[1][2 + k];
        }
    if (n0) row[1][2] += 1.0;
    row[1][n0 + 2] -= 1.0;
    for (int k = 0; k < n; k++) {
        double *J = k < n0 ? J0 : J1;
        const int kk = k < n0 ? k : k - n0;
        if (!J) continue;
        J[0 + 2 * kk] = row[0][k];
        J[1 + 2 * kk] = row[1][k];
    }
}

static void slider_hess(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, const double *w,
                        double *Hm)
{
    (void)t;
    fmb_slider_place_t pl;
    const fmb_slider_place_t *c = place(j, v, &pl);
    double ds[2][FMB_ELEM_COLS];
    int pos[6];
    sb_dy(c, v, ds, pos);
    const int n0 = v[0].nc, n = n0 + v[1].nc;
    const double wf[2] = {w[0], -w[1]}; /* Phi_1 = f0, Phi_2 = ... - f1 */
    /* om . d2s on the rigid columns */
    const double om[2] = {wf[0] * c->cv.g[0][0] + wf[1] * c->cv.g[1][0],
                          wf[0] * c->cv.g[0][1] + wf[1] * c->cv.g[1][1]};
    const double bto[2] = {c->B[0] * om[0] + c->B[1] * om[1], c->B[2] * om[0] + c->B[3] * om[1]};
    const double itb[2] = {bto[1], -bto[0]}; /* Itil^T B^T om */
    const double obp = om[0] * c->Bp[0] + om[1] * c->Bp[1];
    const int t1 = n0 + 2;
#define ADD(r, k, val)                                                                             \
    do {                                                                                           \
        Hm[(r) + (size_t)(k)*n] += (val);                                                          \
        if ((r) != (k)) Hm[(k) + (size_t)(r)*n] += (val);                                          \
    } while (0)
    if (n0) {
        ADD(0, 2, itb[0]);
        ADD(1, 2, itb[1]);
        ADD(0, t1, -itb[0]);
        ADD(1, t1, -itb[1]);
        ADD(2, 2, -obp);
        ADD(2, t1, obp);
    }
    ADD(t1, t1, -obp);
#undef ADD
    /* D^T Y D: ds lives on the rigid columns R, the selections on the element's (none of
     * them rigid) */
    double Y[FMB_CURVE_NY * FMB_CURVE_NY];
    fmb_beam_curve_hess(c->bm, &c->cv, wf, Y);
    int R[6], nr = 0;
    for (int k = 0; k < 3 && n0; k++)
        R[nr++] = k;
    for (int k = 0; k < 3; k++)
        R[nr++] = n0 + k;
    for (int b = 0; b < nr; b++) {
        const int cb = R[b];
        double yd[FMB_CURVE_NY]; /* Y D's column cb */
        for (int i = 0; i < FMB_CURVE_NY; i++)
            yd[i] = Y[i] * ds[0][cb] + Y[i + FMB_CURVE_NY] * ds[1][cb];
        for (int a = 0; a < nr; a++)
            Hm[R[a] + (size_t)cb * n] += ds[0][R[a]] * yd[0] + ds[1][R[a]] * yd[1];
        for (int k = 0; k < 6; k++)
            if (pos[k] >= 0) {
                Hm[pos[k] + (size_t)cb * n] += yd[2 + k];
                Hm[cb + (size_t)pos[k] * n] += yd[2 + k];
            }
    }
    for (int l = 0; l < 6; l++)
        if (pos[l] >= 0)
            for (int k = 0; k < 6; k++)
                if (pos[k] >= 0)
                    Hm[pos[k] + (size_t)pos[l] * n] += Y[(2 + k) + FMB_CURVE_NY * (2 + l)];
}

/* Columns: the rigid ones of both bodies and the six of the guide element under the slider
 * (none beyond the rigid ones without a state). */
static void slider_cols(const fmb_joint_t *j, fmb_bodyview_t v[2])
{
    fmb_view_rigid(&v[0]);
    fmb_view_rigid(&v[1]);
    if (!v[1].q || !v[1].ndof || (v[0].ndof && !v[0].q)) return;
    fmb_slider_place_t pl;
    const fmb_slider_place_t *c = place(j, v, &pl);
    /* appended after 0 1 2 when ascending (a mesh in node order), else inserted */
    int add[6], na = 0, asc = 1, prev = 2;
    for (int k = 0; k < 6; k++)
        if (c->cv.col[k] >= 0) {
            asc &= c->cv.col[k] > prev;
            prev = add[na++] = c->cv.col[k];
        }
    if (asc) {
        memcpy(v[1].cols + 3, add, (size_t)na * sizeof *add);
        v[1].nc = 3 + na;
    } else {
        fmb_view_add_cols(&v[1], na, add);
    }
}

/* The columns the slider's columns can include: the slider's rigid ones, the guide's rigid
 * ones and, near the present state, the columns of the guide elements within
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
    fmb_slider_place_t pl;
    const fmb_slider_place_t *c = place(j, v, &pl);
    const fmb_beam_t *bm = c->bm;
    const int W = fmb_reach_elements(bm->nnodes - 1);
    const int x0 = c->cv.e - W > 0 ? c->cv.e - W : 0;
    const int x1 = c->cv.e + 1 + W < bm->nnodes - 1 ? c->cv.e + 1 + W : bm->nnodes - 1;
    int n = 0;
    for (int k = 0; k < 3; k++)
        cols[n++] = k;
    /* the nodes' u, v, phi columns, once each (the slider's and a frictional contact's
     * points on the guide, friction.c fmb_contact_cols) */
    for (int x = x0; x <= x1; x++)
        for (int d = 0; d < 3; d++)
            if (bm->dof[3 * x + d] >= 3) cols[n++] = bm->dof[3 * x + d];
    for (int a = 4; a < n; a++) /* ascending (already so for a mesh in node order) */
        for (int k = a; k > 3 && cols[k - 1] > cols[k]; k--) {
            const int tmp = cols[k];
            cols[k] = cols[k - 1], cols[k - 1] = tmp;
        }
    return n;
}

static int slider_valid(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, char *msg,
                        size_t len)
{
    fmb_slider_place_t pl;
    const fmb_slider_place_t *c = place(j, v, &pl);
    const double x0 = c->bm->x[0], x1 = c->bm->x[c->bm->nnodes - 1];
    if (!(c->cv.stretch > 0)) {
        snprintf(msg, len,
                 "slider '%s': the guide '%s' element %d under it is compressed to nothing "
                 "(deformed / undeformed length %.3g) at t = %.9g",
                 j->name, v[1].body->name, c->cv.e, c->cv.stretch, t);
        return FMB_ERR_MODEL;
    }
    if (c->cv.xi < x0 || c->cv.xi > x1) {
        snprintf(msg, len,
                 "slider '%s' ran off its guide '%s' at t = %.9g: material coordinate %.6g m, "
                 "guide from %.6g to %.6g m",
                 j->name, v[1].body->name, t, c->cv.xi, x0, x1);
        return FMB_ERR_MODEL;
    }
    return 0;
}

/* The reaction point on the guide is the material point under the slider, (xi, 0). */
static void slider_reaction_point(const fmb_joint_t *j, const fmb_bodyview_t v[2], int b,
                                  double u[2])
{
    if (b == 0) {
        u[0] = j->point[0][0], u[1] = j->point[0][1];
        return;
    }
    fmb_slider_place_t pl;
    const fmb_slider_place_t *c = place(j, v, &pl);
    u[0] = c->cv.xi, u[1] = 0.0;
}

/* Sliding direction: the deformed guide's tangent at the slider, angle theta1 + phi(xi). */
static void slider_slide_direction(const fmb_joint_t *j, const fmb_bodyview_t v[2], double e[2])
{
    fmb_slider_place_t pl;
    const fmb_slider_place_t *c = place(j, v, &pl);
    const double th = v[1].q[2] + c->cv.f[1];
    e[0] = cos(th), e[1] = sin(th);
}

/* Element crossing (docs/theory.md, "Element crossings"). v'' jumps at an element end, and
 * with it the rate of the slope constraint Phi_2: the slider's rotation rate must jump by
 * (v''_R - v''_L) dxi/dt there. A step across it ends with velocities that do not satisfy
 * the new element's constraint rate, and the index-3 integrator removes that by a
 * period-2 transient that decays per step, not per unit time, so the error estimate sees it
 * at every step size. The crossing is therefore an event: the next step is capped to end
 * just past the next element end at the present rate of xi (by SB_PAST of the last step),
 * and a step that has crossed one returns 2: the adaptive run restarts from it
 * (velocities projected onto the new constraint, accelerations recomputed). */
#define SB_PAST 0.01

static int slider_step_control(const fmb_joint_t *j, const fmb_bodyview_t v0[2],
                               const fmb_bodyview_t v1[2], double t0, double h, double *h_max,
                               char *why, size_t len)
{
    (void)t0;
    /* t_n's place, then the candidate's (the memo's latest: the next step's views take it) */
    fmb_slider_place_t pl0, pl1;
    const fmb_slider_place_t *c0 = place(j, v0, &pl0);
    const double xi0 = c0->cv.xi;
    const int e0 = c0->cv.e;
    const fmb_slider_place_t *c1 = place(j, v1, &pl1);
    const fmb_beam_t *bm = c1->bm;
    const double dxi = c1->cv.xi - xi0;
    if (dxi != 0.0 && h > 0) {
        const int k = dxi > 0 ? c1->cv.e + 1 : c1->cv.e; /* the next element end ahead */
        if (k >= 1 && k <= bm->nnodes - 2) {
            const double tau = (bm->x[k] - c1->cv.xi) / dxi * h;
            if (tau >= 0) {
                *h_max = tau + SB_PAST * h;
                if (why)
                    snprintf(why, len, "slider reaches the guide's element end at x = %.6g m",
                             bm->x[k]);
            }
        }
    }
    return c1->cv.e != e0 ? 2 : 0;
}

/* Outputs: the material coordinate xi (where v(xi) is the guide's deflection under the
 * slider), the element and the axial position s_x = xi + u(xi) in the guide's body frame. */
static const char *const slider_output_names[] = {"s", "element", "x"};

static void slider_outputs(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, double *val)
{
    (void)t;
    fmb_slider_place_t pl;
    const fmb_slider_place_t *c = place(j, v, &pl);
    val[0] = c->cv.xi;
    val[1] = c->cv.e;
    val[2] = c->s[0];
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
        d->type = "prismatic";
        d->axis[0] = 1, d->axis[1] = 0;
    }
    return 0;
}

/* The two tables are one: the class of runs (registry.c), whose places come from the memo
 * (place() above), and the reference, every place searched (not in the registry; tests
 * run it beside the class of runs). */
/* clang-format off */
#define SLIDER_BEAM_TABLE                                                     \
    .name = "slider_beam",                                                    \
    .nrows = 2,                                                               \
    .eval = slider_eval,                                                      \
    .hess = slider_hess,                                                      \
    .cols = slider_cols,                                                      \
    .reach = slider_reach,                                                    \
    .time = NULL,                                                             \
    .bodies = {FMB_BODY_RIGID, FMB_BODY_BEAM}, /* the slider, the guide */    \
    .valid = slider_valid,                                                    \
    .reaction_point = slider_reaction_point,                                  \
    .slide_direction = slider_slide_direction,                                \
    .noutputs = 3,                                                            \
    .output_group = "sliders",                                                \
    .output_names = slider_output_names,                                      \
    .outputs = slider_outputs,                                                \
    .case_type = "slider_beam",                                               \
    .item_flags = FMB_ITEM_BODIES | FMB_ITEM_POINTS | FMB_ITEM_DISTINCT,      \
    .params = slider_params,                                                  \
    .prepare = slider_prepare,                                                \
    .step_control = slider_step_control,
/* clang-format on */

const fmb_joint_class_t fmb_slider_beam_class = {SLIDER_BEAM_TABLE};
const fmb_joint_class_t fmb_slider_beam_reference_class = {SLIDER_BEAM_TABLE};

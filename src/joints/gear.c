/*
 * Gear pair: gear 1 on body 0 and gear 2 on body 1 (pitch radii r1, r2), centred at
 * point[0] and point[1], rolling on each other without slip at the pitch point:
 *   Phi = r1 a0 + s r2 a1 - phase
 *   a_b = theta_b + phi_b(u_b): the material rotation of body b at its gear's centre
 *         (the frame angle on a rigid body; plus the section's elastic rotation on a beam;
 *         0 on the ground), linear in the body's coordinates: a_b = W_b q_b
 *   s = +1 external mesh (the gears turn in opposite senses: r1 da0 = -r2 da1),
 *       -1 internal mesh (gear 2 an internal ring: the same sense, r1 da0 = r2 da1)
 *   phase = the value of r1 a0 + s r2 a1 at which the teeth mesh (default: at the start)
 *   Phi_q = [ r1 W_0 , s r2 W_1 ]   (W_b = d a_b / dq_b = fmb_point_rotjac: e3^T on a
 *                                    rigid body)
 *   sum_k w_k d2Phi_k/dq2 = 0       (Phi is linear in q)
 *   Phi_t = Phi_tt = 0
 * The multiplier lambda is the tangential tooth force (N): the joint applies the moments
 * -r1 lambda to body 0 and -s r2 lambda to body 1 (reaction Mz; no force).
 * The line of centres is taken as not rotating: the pair is exact when both gears turn
 * about centres fixed on one non-rotating frame (the ground, or a carrier that only
 * translates), as in a gear train on a frame; a rotating carrier (a planetary stage)
 * would need the carrier's angle in a_b.
 * Blocks column-compressed on the default columns: the rigid columns plus the shape
 * columns of point[b].
 */
#include "joints/joints.h"

/* The class's parameters, by name, in fmb_joint_desc_t.param / fmb_joint_t.par. */
typedef struct gear_par {
    double r[2];  /* pitch radii of the gears on body 0 and body 1, m */
    double mesh;  /* 0 external, 1 internal */
    double phase; /* r1 a0 + s r2 a1 when meshing, m */
} gear_par_t;
_Static_assert(sizeof(gear_par_t) <= sizeof(((fmb_joint_desc_t *)0)->param),
               "gear parameters fit in fmb_joint_desc_t.param");
#define GEAR_KEY(field) (offsetof(fmb_joint_desc_t, param) + offsetof(gear_par_t, field))

static const gear_par_t *gear_par(const double *par)
{
    return (const gear_par_t *)(const void *)par;
}

/* a_b and (W non-NULL) W_b on the view's columns. */
static double gear_rotation(const fmb_bodyview_t *v, const double u[2], double *W)
{
    double Wl[FMB_VIEW_COLS], *w = W ? W : Wl;
    if (!v->ndof) return 0.0;
    fmb_point_rotjac(v, u, w);
    double a = 0.0;
    for (int k = 0; k < v->nc; k++)
        a += w[k] * v->q[v->cols[k]];
    return a;
}

static void gear_eval(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, double *phi,
                      double *J0, double *J1)
{
    (void)t;
    const gear_par_t *p = gear_par(j->par);
    const double c[2] = {p->r[0], p->mesh ? -p->r[1] : p->r[1]};
    phi[0] = -p->phase;
    for (int b = 0; b < 2; b++) {
        double *Jb = b ? J1 : J0;
        phi[0] += c[b] * gear_rotation(&v[b], j->point[b], Jb && v[b].ndof ? Jb : NULL);
        if (Jb && v[b].ndof)
            for (int k = 0; k < v[b].nc; k++)
                Jb[k] *= c[b];
    }
}

static void gear_hess(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, const double *w,
                      double *H)
{
    (void)j, (void)v, (void)t, (void)w, (void)H; /* linear */
}

static const char *const gear_meshes[] = {"external", "internal", NULL};

static const fmb_param_t gear_params[] = {
    {.key = "radii",
     .kind = FMB_PARAM_VECTOR,
     .flags = FMB_PARAM_REQUIRED | FMB_PARAM_MIN_OPEN,
     .n = 2,
     .offset = GEAR_KEY(r),
     .unit = "m",
     .doc = "pitch radii [r1, r2] of the gears on the first and second body"},
    {.key = "mesh",
     .kind = FMB_PARAM_ENUM,
     .flags = FMB_PARAM_IN_DOUBLE,
     .offset = GEAR_KEY(mesh),
     .dflt_text = "external",
     .choices = gear_meshes,
     .unit = "-",
     .doc = "external (opposite senses) or internal (gear 2 a ring: the same sense)"},
    {.key = "phase",
     .kind = FMB_PARAM_NUMBER,
     .flags = FMB_PARAM_DERIVED,
     .offset = GEAR_KEY(phase),
     .unit = "m",
     .doc = "r1 theta1 +- r2 theta2 when the teeth mesh (default: initial poses)"},
    {0}};

/* The phase from the initial frame angles unless given. */
static int gear_prepare(fmb_item_env_t *env, fmb_joint_desc_t *d)
{
    gear_par_t *p = (gear_par_t *)(void *)d->param;
    if (!fmb_item_given(env, "phase"))
        p->phase = p->r[0] * env->pose[0][2] + (p->mesh ? -p->r[1] : p->r[1]) * env->pose[1][2];
    return 0;
}

const fmb_joint_class_t fmb_gear_class = {
    .name = "gear",
    .nrows = 1,
    .eval = gear_eval,
    .hess = gear_hess,
    .hess_kind = FMB_HESS_POINTS, /* none at all: a subset */
    .distinct = 1,
    .case_type = "gear",
    .item_flags = FMB_ITEM_BODIES | FMB_ITEM_POINTS | FMB_ITEM_DISTINCT,
    .params = gear_params,
    .prepare = gear_prepare,
};

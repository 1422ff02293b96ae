/* Private model structures shared by bodies, joints, forces and the solver. */
#ifndef FMB_MODEL_MODEL_H
#define FMB_MODEL_MODEL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "flexmb/flexmb.h"
#include "model/expr.h"
#include "model/params.h"

#define FMB_NAME_MAX 64

/* ---- bodies ---------------------------------------------------------------
 * Every body has coordinates q = [rbar_x, rbar_y, theta, U] in its carrier frame
 * (docs/theory.md sections 1 and 7; U: elastic coordinates, empty for a rigid body). A
 * body class (bodies/rigid.c, bodies/beam.c with its fast path beam_fast.c) supplies the mass matrix, the generalized
 * body forces Q (quadratic velocity, gravity, strain, damping), their tangents and the
 * shape functions that place its material points. */
typedef struct fmb_point {
    char name[FMB_NAME_MAX];
    double u[2];
} fmb_point_t;

typedef struct fmb_body fmb_body_t;

/* Shape functions of a body at an undeformed point: the point's carrier position is
 * p = rbar + u + sum_k (Nx[k], Ny[k]) q[col[k]], col indexing the body's own q (>= 3). */
#define FMB_SHAPE_MAX 8
typedef struct fmb_shape {
    int n;
    int col[FMB_SHAPE_MAX];
    double Nx[FMB_SHAPE_MAX], Ny[FMB_SHAPE_MAX];
} fmb_shape_t;

/* Receives an n x n block (column-major) on the body-local columns cols. */
typedef void (*fmb_block_emit)(void *ctx, int n, const int *cols, const double *B);

typedef struct fmb_body_class {
    const char *name;
    int (*ndof)(const fmb_body_t *b);
    /* M (ndof x ndof, column-major). */
    void (*mass)(const fmb_body_t *b, const double *q, double *M);
    /* out = M(q) v without forming M (optional; NULL: via mass). */
    void (*mass_times)(const fmb_body_t *b, const double *q, const double *v, double *out);
    /* Body forces Q(q, qd) (quadratic velocity, gravity, strain); when Kq/Cq are non-NULL,
     * add dQ/dq and dQ/dqd (ndof x ndof, column-major). Also d(M qdd)/dq into Kmq when
     * non-NULL for the given qdd. */
    void (*forces)(const fmb_body_t *b, const double *q, const double *qd, const double *qdd,
                   const double g[2], double *Q, double *Kq, double *Cq, double *Kmq);
    /* Gravity and strain potential energy. */
    double (*potential)(const fmb_body_t *b, const double *q, const double g[2]);
    /* Power of the body's own non-conservative forces (internal damping), <= 0; NULL: none.
     * Booked in the work W of /energy like the applied forces' power. */
    double (*power)(const fmb_body_t *b, const double *q, const double *qd);
    /* Shape functions at an undeformed body-frame point (NULL: rigid, no elastic dofs). */
    void (*shape)(const fmb_body_t *b, const double u[2], fmb_shape_t *N);
    /* Release body data (NULL if none). */
    void (*destroy)(fmb_body_t *b);
    /* The body's part of the iteration matrix, cf[0] M + cf[1] Kmq - cf[2] Kq - cf[3] Cq,
     * as small dense blocks (same blocks in the same order at every call), or NULL: the
     * assembler forms the dense matrices (mass, forces) and stores them all (small bodies
     * only: a body with many coordinates must have blocks and mass_times). */
    void (*blocks)(const fmb_body_t *b, const double *q, const double *qd, const double *qdd,
                   const double g[2], const double cf[4], fmb_block_emit emit, void *ctx);
    /* Initial elastic coordinates and velocities into q[3..ndof), qd[3..ndof) (NULL or
     * nothing written: at rest, undeformed). */
    void (*initial_state)(const fmb_body_t *b, double *q, double *qd);
    /* Optional fast form of blocks (or of the assembler's dense path) for the assemblies
     * without the quasi-static start's modifiers: the body's part of the iteration matrix
     * as ONE list of entries in compressed columns over its body-local coordinates (column
     * j's rows Ii[Jp[j] .. Jp[j + 1] - 1], j < ndof), the entries those would emit (the
     * same sparse pattern). tangent_pattern returns the count Jp[ndof] and the two arrays,
     * constant for the body's life, or 0: not available now (blocks / the dense path is
     * used). tangent_add adds the values of cf[0] M + cf[1] Kmq - cf[2] Kq - cf[3] Cq
     * (equal to the blocks' to rounding: summed in another order) as A[pos[e]] += value of
     * entry e. NULL: none (docs/extending.md "Body classes"). */
    int (*tangent_pattern)(const fmb_body_t *b, const int **Jp, const int **Ii);
    void (*tangent_add)(const fmb_body_t *b, const double *q, const double *qd, const double *qdd,
                        const double g[2], const double cf[4], const int *pos, double *A);
    /* Optional: the residual's two body products at one state in one call, Mv = M(q) v
     * (written, as mass_times / the residual's own product of mass) and Q += Q(q, qd) (as
     * forces with Kq = Cq = Kmq = NULL), each equal to what those give to rounding (the
     * residual calls it when present; NULL: the two calls; tests/test_beam_resid.c). */
    void (*mass_forces)(const fmb_body_t *b, const double *q, const double *qd, const double *v,
                        const double g[2], double *Mv, double *Q);
} fmb_body_class_t;

struct fmb_body {
    char name[FMB_NAME_MAX];
    const fmb_body_class_t *klass; /* NULL for ground */
    int offset;                    /* first global coordinate, -1 for ground */
    int ndof;
    double mass, inertia_c; /* inertia about the centre of mass */
    double com[2];
    double block[2]; /* drawn block length x width (body axes), 0 0: none */
    double pose0[3], vel0[3];
    int vel_given; /* vel0 stated by the case (weighted heavily in the start projection) */
    fmb_point_t *points;
    int npoints, cap_points;
    int line;
    void *data; /* class data (beam mesh, shape integrals) */
    /* Rotation cache shared by all views of the body (fmb_view_rot): cos and sin of the
     * angle rot_th, valid when rot_ok; keyed on the angle's bit pattern (no state is assumed). */
    int rot_ok;
    double rot_th, rot_c, rot_s;
};

/* ---- point kinematics on a body (ground included: fixed points) -----------
 * r = A(theta) (rbar + u), J = dr/dq = A [I, Itil p] and the contraction
 * H(w) = d(J^T w)/dq, all in COLUMN-COMPRESSED form: an element (joint, force,
 * contact) sees each body through a view that lists the body columns it works on,
 * v.cols[0..v.nc) (body-local, 0 1 2 = rbar_x rbar_y theta first, then elastic columns
 * ascending). Every block an element class reads or writes (Jacobians, generalized
 * forces, Hessians, tangents) has one row/column per listed column, never one per body
 * coordinate, so nothing an element does grows with a beam's mesh. */
#define FMB_VIEW_COLS (3 + 2 * FMB_SHAPE_MAX) /* columns of one body in one element */
#define FMB_ELEM_COLS (2 * FMB_VIEW_COLS)     /* columns of a two-body element */
typedef struct fmb_bodyview {
    const fmb_body_t *body;
    int ndof;         /* 0 for ground (or 3 when ground is viewed as a virtual body) */
    const double *q;  /* body's coordinates (NULL for ground) */
    const double *qd; /* body's velocities (NULL for ground) */
    int nc;           /* element columns on this body (0 for ground) */
    int cols[FMB_VIEW_COLS];
} fmb_bodyview_t;

void fmb_point_pos(const fmb_bodyview_t *v, const double u[2], double r[2]);
/* fmb_point_pos and (J non-NULL, body not ground) fmb_point_jac in one evaluation of the
 * point's shape functions and carrier position: the same values bitwise. */
void fmb_point_posjac(const fmb_bodyview_t *v, const double u[2], double r[2], double *J);
/* J (2 x v->nc, column-major) on the view's columns. The point's shape columns must be
 * among them (fmb_view_add_point). */
void fmb_point_jac(const fmb_bodyview_t *v, const double u[2], double *J);
/* The point's shape functions N(u) on the view's body (N->n = 0 on a rigid body and on
 * ground); they depend on the body and u alone, never on the state, so an element may keep
 * them (joints/revolute_fast.c fmb_joint_pin_shape). fmb_point_posjac_n / fmb_point_hess_n are
 * fmb_point_posjac / fmb_point_hess with N given: the same values bitwise. */
int fmb_point_shape(const fmb_bodyview_t *v, const double u[2], fmb_shape_t *N);
void fmb_point_posjac_n(const fmb_bodyview_t *v, const double u[2], const fmb_shape_t *N,
                        double r[2], double *J);
void fmb_point_hess_n(const fmb_bodyview_t *v, const double u[2], const fmb_shape_t *N,
                      const double w[2], double *H, int ld);
/* Adds H(w) (v->nc x v->nc, on the view's columns) into the block at H with leading
 * dimension ld. */
void fmb_point_hess(const fmb_bodyview_t *v, const double u[2], const double w[2], double *H,
                    int ld);
void fmb_point_vel(const fmb_bodyview_t *v, const double u[2], double rd[2]);
/* Columns of the body on which the point's position depends (0, 1, 2 and the shape
 * columns, ascending); returns the count (0 for ground). */
int fmb_point_support(const fmb_bodyview_t *v, const double u[2], int *cols);
/* d(rdot)/dq (2 x v->nc, column-major, on the view's columns). */
void fmb_point_veljac(const fmb_bodyview_t *v, const double u[2], double *Jv);
/* View columns: reset to the rigid columns 0 1 2 (none for ground); add columns (kept
 * ascending, no duplicates, at most FMB_VIEW_COLS); add the support of a point; position
 * of body column c among the view's columns, or -1. */
void fmb_view_rigid(fmb_bodyview_t *v);
void fmb_view_add_cols(fmb_bodyview_t *v, int n, const int *cols);
void fmb_view_add_point(fmb_bodyview_t *v, const double u[2]);
int fmb_view_col(const fmb_bodyview_t *v, int c);
double fmb_body_angle(const fmb_bodyview_t *v);
/* d(theta + phi(u))/dq (v->nc, on the view's columns): the material rotation of the
 * section through u (phi: the elastic rotation, a beam's slope v'(x); 0 on a rigid body).
 * Its rate W qd, on any view: fmb_point_rotrate. */
void fmb_point_rotjac(const fmb_bodyview_t *v, const double u[2], double *W);
double fmb_point_rotrate(const fmb_bodyview_t *v, const double u[2]);

/* Default element columns of a joint / force (class cols() NULL: the rigid columns plus
 * point[b]'s shape columns) are the same at every state: computed once and kept here,
 * keyed on the points and the views' ndof (fmb_joint_cols / fmb_force_views, model_views.c). */
enum { FMB_HESS_DENSE = 0, FMB_HESS_POINTS = 1 };
#define FMB_JOINT_CACHE 256 /* doubles of fmb_joint_t.evalcache */
/* A moving element's reach near its state (the reach() member below): the elements on
 * either side of its present one, of a mesh of nel, max(FMB_REACH_MIN, nel /
 * FMB_REACH_DIV). A fraction of the mesh keeps both costs linear in it: a rebuild of the
 * pattern costs O(nel) and comes once per window travelled, and the window's explicit
 * zeros cost O(window) per factorization. By measurement (quick-return, fmb_bench at 80,
 * 320, 1,000 and 10,000 elements; windows of 1/4, 1/8 and 1/16 of the mesh and of 8 to 64
 * elements; docs/performance.md "The slider's reach: a window"). */
#define FMB_REACH_MIN 8
#define FMB_REACH_DIV 8
static inline int fmb_reach_elements(int nel)
{
    return nel / FMB_REACH_DIV > FMB_REACH_MIN ? nel / FMB_REACH_DIV : FMB_REACH_MIN;
}

typedef struct fmb_elem_cols {
    int ok;
    int ndof[2];
    double point[2][2];
    int nc[2];
    int cols[2][FMB_VIEW_COLS];
} fmb_elem_cols_t;

/* Kinds of body (fmb_joint_class_t.bodies): the ground, a body without elastic
 * coordinates (its class has no shape()), a body with them (a beam). */
enum { FMB_BODY_GROUND = 1u << 0, FMB_BODY_RIGID = 1u << 1, FMB_BODY_BEAM = 1u << 2 };
static inline unsigned fmb_body_kind(const fmb_body_t *b)
{
    return !b->klass ? FMB_BODY_GROUND : b->klass->shape ? FMB_BODY_BEAM : FMB_BODY_RIGID;
}

/* ---- joints ---------------------------------------------------------------
 * A joint class fills a small function table; the solver never switches on type. */
typedef struct fmb_joint fmb_joint_t;

typedef struct fmb_joint_class {
    const char *name;
    int nrows;
    /* Phi (nrows) and its Jacobian blocks J0 (nrows x v[0].nc), J1 (nrows x v[1].nc) on
     * the views' columns, column-major. J0/J1 may be NULL. */
    void (*eval)(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, double *phi, double *J0,
                 double *J1);
    /* Add sum_k w_k d2Phi_k/dq2 on the views' columns: an nl x nl block H (column-major,
     * nl = v[0].nc + v[1].nc, body 1's columns after body 0's). */
    void (*hess)(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, const double *w,
                 double *H);
    /* Structure of hess()'s block, stated by the class (value-independent, so the matrix
     * pattern stays fixed): FMB_HESS_DENSE (0, the default): any entry of the nl x nl
     * block; FMB_HESS_POINTS: a sum of fmb_point_hess terms, each on one body's own
     * columns, so nonzero only in a body's theta row and theta column (local column 2 of
     * that body) and never between the two bodies. The assembler emits only those
     * entries; the conformance test checks the statement against finite differences. */
    int hess_kind;
    /* The views' columns at the current state (v[b].nc, v[b].cols; use fmb_view_rigid /
     * fmb_view_add_point / fmb_view_add_cols). NULL: the rigid columns plus the shape
     * columns of point[b], the same at every state. A class with cols() may change its
     * columns with the state (a slider moving along its guide): the assembler then
     * places its entries by lookup and grows the matrix pattern when needed. */
    void (*cols)(const fmb_joint_t *j, fmb_bodyview_t v[2]);
    /* Optional, with cols(): the columns of body b that the element's columns can include
     * while it stays near its present state in v (all = 0: a slider, the guide elements
     * within fmb_reach_elements() of its present one), or every column they can ever include
     * (all = 1); ascending, returns the count; cols holds up to the body's ndof. The
     * assembler reserves, once per matrix pattern, the Jacobian rows on these columns and
     * the Hessian between them and the rigid columns, so that the pattern and its
     * fill-reducing order stay fixed while the element moves within its reach. Beyond
     * it, the element's searched entries are not in the pattern, and the pattern is
     * rebuilt (kkt.c) with the reach reserved anew at the new state: a rebuild per
     * window travelled, instead of an arrow of O(ndof) explicit zeros
     * that every factorization computes with (docs/performance.md "The slider's reach: a
     * window"). Used for KKT systems above FMB_KKT_LARGE unknowns (solve/kkt.h). */
    int (*reach)(const fmb_joint_t *j, const fmb_bodyview_t v[2], int b, int all, int *cols);
    /* Phi_t and Phi_tt (nrows each); NULL means scleronomic. */
    void (*time)(const fmb_joint_t *j, double t, double *phit, double *phitt);
    /* The bodies it accepts, checked by fmb_model_add_joint before check() (and read by
     * tests/test_conformance.c): per body a mask of FMB_BODY_GROUND, FMB_BODY_RIGID,
     * FMB_BODY_BEAM (0: any kind); distinct: the two bodies must differ. */
    unsigned bodies[2];
    int distinct;
    /* Validation at model build time (0 or negative status with message; optional). */
    int (*check)(const fmb_model_t *m, const fmb_joint_t *j, char *msg, size_t len);
    /* Validity of an accepted state (e.g. a slider still on its guide), or NULL. */
    int (*valid)(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, char *msg, size_t len);
    /* Point on body b at which the reaction is reported (body-frame, undeformed), or
     * NULL for point[b]. */
    void (*reaction_point)(const fmb_joint_t *j, const fmb_bodyview_t v[2], int b, double u[2]);
    /* Sliding joints: inertial unit direction of sliding at the current state (the guide's
     * tangent at the slider), or NULL for joints that do not slide. */
    void (*slide_direction)(const fmb_joint_t *j, const fmb_bodyview_t v[2], double e[2]);
    /* Extra outputs written to /<output_group>/<joint>/<name> (noutputs values). */
    int noutputs;
    const char *output_group;
    const char *const *output_names;
    void (*outputs)(const fmb_joint_t *j, const fmb_bodyview_t v[2], double t, double *val);
    /* Drivers: name of the generalized force they apply and its reaction column (on body 1),
     * or NULL. A driver of column 2 prescribes body 1's angle (relative to body 2), of
     * column 0 / 1 the inertial x / y of point[0] (solve/start.c: a driven coordinate). */
    const char *drive_name;
    int drive_column;
    /* 1: the joint relates angles only and acts at no point (an angle driver, a gear pair):
     * the visualization draws no joint marker for it; 0: point[] is where it acts. */
    int no_point;
    /* Event step control (optional, NULL: none; docs/theory.md, "Step control"). Called
     * when a step t0 -> t0 + h has converged, before it is accepted: v0 views the state at
     * t0, v1 the candidate at t0 + h. Return 0 to accept, 1 to reject: the step is retried
     * with a step <= *h_max (which must then be < h, e.g. the estimated onset time minus
     * t0). On acceptance, lowering *h_max caps the next step. *h_max arrives as INFINITY;
     * why (len bytes) takes a short reason for messages; it is NULL when no message is wanted (the
     * step loop asks for one only to report a failure: no string work per step). Return 2 to accept
     * and have an adaptive run restart the integrator from the accepted state: the constraint's
     * Jacobian jumps there (a slider crossing a guide element's end), so the velocities
     * are projected onto the new constraint and the accelerations recomputed (stepctl.c
     * fmb_sim_restart); fixed-step runs take 2 as 0. */
    int (*step_control)(const fmb_joint_t *j, const fmb_bodyview_t v0[2],
                        const fmb_bodyview_t v1[2], double t0, double h, double *h_max, char *why,
                        size_t len);
    /* ---- case-file form (model/params.h, docs/extending.md); all optional */
    const char *case_type;     /* `type:` name in case files (NULL: no case-file form) */
    const char *variant_key;   /* several classes share case_type: the value of this key */
    const char *variant;       /*   selects this class (driver: coordinate angle | x | y) */
    unsigned item_flags;       /* FMB_ITEM_*: the body keys */
    const fmb_param_t *params; /* the class's own keys, {0}-terminated */
    /* Cross-key rules and defaults that need the initial poses (params.h). */
    int (*prepare)(fmb_item_env_t *env, fmb_joint_desc_t *d);
} fmb_joint_class_t;

struct fmb_joint {
    char name[FMB_NAME_MAX];
    const fmb_joint_class_t *klass;
    int body[2];
    double point[2][2];
    double axis[2];               /* unit guide direction in body 1's frame (prismatic) */
    double ref;                   /* reference relative angle (prismatic, weld) */
    double d0;                    /* prismatic: initial offset, fixed at build */
    fmb_expr_t *fn;               /* driver function of t */
    fmb_friction_desc_t friction; /* model: the class's name; NULL: frictionless */
    double par[FMB_JOINT_PARAMS]; /* per class (fmb_joint_desc_t.param) */
    int row;                      /* first global constraint row */
    int line;
    fmb_elem_cols_t colcache; /* default columns (model.c; not with class cols()) */
    /* Class-owned derived values of the state (e.g. slider_beam's guide element and Hermite
     * values at the slider), keyed by the class on the bit patterns of every input they
     * depend on, so a hit is bitwise the evaluation it replaces. Written through the const
     * pointer the classes receive, as colcache (no threads share a model); zero at creation. */
    double evalcache[FMB_JOINT_CACHE];
};

/* Registry (one line per type in joints/registry.c): the class of a name
 * (fmb_joint_desc_t.type), NULL if none; the k-th registered class (0 ..; the built-in
 * types first, then registered extras), NULL past the end. */
const fmb_joint_class_t *fmb_joint_class_named(const char *name);
const fmb_joint_class_t *fmb_joint_class_at(int k);

/* ---- forces ---------------------------------------------------------------*/
typedef struct fmb_force fmb_force_t;

typedef struct fmb_force_class {
    const char *name;
    int nbodies; /* 1: acts on body[0] only (body[1] unused); 2: between two bodies */
    /* Generalized forces Q0 (v[0].nc), Q1 (v[1].nc) added on the views' columns; when K/C
     * are non-NULL add dQ/dq and dQ/dqd as nl x nl blocks (nl = v[0].nc + v[1].nc, body 1
     * after body 0), column-major. */
    void (*eval)(const fmb_force_t *f, const fmb_bodyview_t v[2], double t, double *Q0, double *Q1,
                 double *K, double *C);
    /* The views' columns (as fmb_joint_class_t.cols); NULL: rigid columns plus the shape
     * columns of point[b]. */
    void (*cols)(const fmb_force_t *f, fmb_bodyview_t v[2]);
    /* Potential energy (conservative part), or NULL (the work is then integrated). */
    double (*potential)(const fmb_force_t *f, const fmb_bodyview_t v[2]);
    /* Power of the non-conservative part (integrated into the work column). */
    double (*power)(const fmb_force_t *f, const fmb_bodyview_t v[2], double t);
    int (*check)(const fmb_force_t *f, char *msg, size_t len);
    /* Event step control (optional, NULL: none; docs/theory.md, "Step control"). Called
     * when a step t0 -> t0 + h has converged, before it is accepted: v0 views the state at
     * t0, v1 the candidate at t0 + h. Return 0 to accept, 1 to reject: the step is retried
     * with a step <= *h_max (which must then be < h, e.g. the estimated onset time minus
     * t0). On acceptance, lowering *h_max caps the next step. *h_max arrives as INFINITY;
     * why (len bytes) takes a short reason for messages; it is NULL when no message is wanted (the
     * step loop asks for one only to report a failure: no string work per step). Return 3 to accept
     * a step that ends at a located switch of the element's LCP mode (ratchet engaged, friction
     * stuck): the accelerations are then re-solved in the new mode and the step history restarts,
     * in fixed and adaptive runs (fmb_sim_switch_restart; docs/switching.md "Switch events"). */
    int (*step_control)(const fmb_force_t *f, const fmb_bodyview_t v0[2],
                        const fmb_bodyview_t v1[2], double t0, double h, double *h_max, char *why,
                        size_t len);
    /* Error measure of the element's own coordinates (optional, NULL: none; adaptive runs;
     * docs/theory.md "Local error estimate", element coordinates). v views the candidate;
     * dv the same bodies with the step's local error estimate of the coordinates in place of
     * the velocities (dv[b].qd = e_q, signed, Newton's noise removed), so that a point
     * velocity evaluated on dv is the error of that point's position (fmb_point_vel is
     * linear in qd). Returns the largest error of the element's coordinates, each over its
     * own scale (a clearance joint: its eccentricity's error over the clearance c); the step
     * control compares it with rtol_step, as the coordinates' errors (times t_span / h). */
    double (*step_error)(const fmb_force_t *f, const fmb_bodyview_t v[2],
                         const fmb_bodyview_t dv[2]);
    /* Optional history of the force law (e.g. the impact velocity of a contact): nstate
     * doubles at f->state (the pointer is const-free: the sim owns the values), set by
     * reset() when the run starts and by accept() after every accepted step; eval reads
     * them and never writes them. */
    int nstate;
    void (*reset)(const fmb_force_t *f, const fmb_bodyview_t v[2], double t);
    void (*accept)(const fmb_force_t *f, const fmb_bodyview_t v[2], double t);
    /* Extra outputs, written as /<output_group>/<output_names[k]> with output_group a
     * printf format of the force name (e.g. "joints/%s/clearance"); output k has
     * output_width[k] columns (NULL: 1 each); outputs() fills them in order. */
    int noutputs;
    const char *output_group;
    const char *const *output_names;
    const int *output_width;
    void (*outputs)(const fmb_force_t *f, const fmb_bodyview_t v[2], double t, double *val);
    /* ---- switching elements (seed 004; docs/switching.md); all optional ------------
     * Set-valued part: nz >= 1 unknowns z >= 0 found by an LCP inside every Newton
     * iteration (solve/switch_step.c), as totals (never in eval). lcp() fills, at the
     * current state, the generalized force per unit z_k (G: nl x nz on the views' columns,
     * column-major), the row D (nl) of the element's relative velocity v = D . qd, and
     *   w_k = av[k] v_new + sum_j Az[k + nz j] z_j + b[k] >= 0,  z_k >= 0,  w_k z_k = 0
     * with v_new the relative velocity at the end of the step. v_n: relative velocity at
     * the start of the step (selects static or kinetic levels). */
    int nz;
    void (*lcp)(const fmb_force_t *f, const fmb_bodyview_t v[2], double t, double v_n, double *G,
                double *D, double *av, double *Az, double *b);
    /* Mode (index into mode_names) at a state, with the LCP unknowns z (NULL when nz = 0);
     * *force: the element's force along its coordinate (positive pushes x up; N or N m),
     * *vrel: the relative velocity. Non-NULL marks a switching element (output
     * /switches/<name>, listed by `flexmb check`). Called by the sim once per accepted state
     * (after accept()) and at the start and a switch restart, with the LCP unknowns of that
     * state: it may record them into the force history (dry_friction.c does). */
    int (*mode)(const fmb_force_t *f, const fmb_bodyview_t v[2], double t, const double *z,
                double *force, double *vrel);
    const char *const *mode_names; /* "open", "stick", ... */
    int nmodes;
    /* Optional: a type whose law is chosen by its description (dry friction: Coulomb,
     * set-valued, or LuGre, smooth with a bristle state) returns the class to use for d
     * (NULL: an error, the description names no law of this type). */
    const struct fmb_force_class *(*specialize)(const fmb_force_desc_t *d);
    /* ---- case-file form (model/params.h, docs/extending.md); all optional */
    const char *case_type;
    const char *variant_key, *variant;
    unsigned item_flags;
    const fmb_param_t *params;
    int (*prepare)(fmb_item_env_t *env, fmb_force_desc_t *d);
} fmb_force_class_t;

struct fmb_force {
    char name[FMB_NAME_MAX];
    const fmb_force_class_t *klass;
    int body[2];
    double point[2][2];
    fmb_expr_t *fn[2];
    double k, c, l0;
    fmb_clearance_desc_t clr; /* clearance joint parameters */
    double *state;            /* klass->nstate doubles of history, or NULL */
    int coord;                /* switching elements: FMB_REL_ROTATION or FMB_REL_DIRECTION */
    double axis[2];           /* unit inertial axis (FMB_REL_DIRECTION, screw) */
    double par[6];            /* per type (fmb_force_desc_t.param; forces/forces.h) */
    fmb_friction_desc_t fr;   /* dry_friction: the LuGre law (force units) */
    int line;
    fmb_elem_cols_t colcache; /* default columns (model.c; not with class cols()) */
};

/* Registry (one line per type in forces/force_registry.c): the class of a name
 * (fmb_force_desc_t.type), NULL if none; the k-th class, NULL past the end. */
const fmb_force_class_t *fmb_force_class_named(const char *name);
const fmb_force_class_t *fmb_force_class_at(int k);

/* ---- model ----------------------------------------------------------------*/
/* Building blocks of the body classes' fmb_model_add_* (src/bodies: rigid.c, beam_model.c),
 * so that the model never names a body class: check a new body's name (an HDF5 name, not
 * yet taken) into dst; append a filled body (name, klass, data, ndof, ...) at the next
 * coordinates, returning its index (FMB_ERR_NOMEM: not appended); append a named point to
 * a body (unique: the caller guarantees a new name, no duplicate search). 0 / the index,
 * or a negative status with the model's message. */
int fmb_model_new_body_name(fmb_model_t *m, const char *name, char dst[FMB_NAME_MAX]);
int fmb_model_push_body(fmb_model_t *m, const fmb_body_t *body);
int fmb_model_append_point(fmb_model_t *m, int body, const char *name, double x, double y,
                           int unique);

struct fmb_model {
    fmb_body_t *bodies;
    int nbodies, cap_bodies;
    fmb_joint_t *joints;
    int njoints, cap_joints;
    fmb_force_t *forces;
    int nforces, cap_forces;
    fmb_params_t params;
    double g[2];
    int ncoords, nrows;
    char source[256];
    char errmsg[1024];
};

int fmb_model_error(fmb_model_t *m, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Build a view of body b from global vectors (q, qd may be NULL); its columns are the
 * rigid ones (0 1 2). */
fmb_bodyview_t fmb_model_view(const fmb_model_t *m, int b, const double *q, const double *qd);
/* The same into *v, writing only the fields in use (not the unused tail of cols). */
void fmb_model_view_into(const fmb_model_t *m, int b, const double *q, const double *qd,
                         fmb_bodyview_t *v);
/* Views of a joint's / force's two bodies with the element's columns (class cols() or the
 * default: rigid columns plus point[b]'s shape columns). */
void fmb_joint_views(const fmb_model_t *m, const fmb_joint_t *j, const double *q, const double *qd,
                     fmb_bodyview_t v[2]);
void fmb_force_views(const fmb_model_t *m, const fmb_force_t *f, const double *q, const double *qd,
                     fmb_bodyview_t v[2]);
/* (Re)compute the element columns of views built otherwise. */
void fmb_joint_cols(const fmb_joint_t *j, fmb_bodyview_t v[2]);
/* Global coordinate of local column k of an element (body 0's columns first), or -1. */
static inline int fmb_elem_gidx(const fmb_bodyview_t v[2], int k)
{
    const int b = k >= v[0].nc, off = v[b].body ? v[b].body->offset : -1;
    return off < 0 ? -1 : off + v[b].cols[b ? k - v[0].nc : k];
}
/* All of them at once: g[k] = fmb_elem_gidx(v, k) for k < nl (g holds FMB_ELEM_COLS);
 * returns nl = v[0].nc + v[1].nc. */
static inline int fmb_elem_gidx_map(const fmb_bodyview_t v[2], int *g)
{
    int nl = 0;
    for (int b = 0; b < 2; b++) {
        const int off = v[b].body ? v[b].body->offset : -1;
        for (int k = 0; k < v[b].nc; k++)
            g[nl++] = off < 0 ? -1 : off + v[b].cols[k];
    }
    return nl;
}

/* Small dense helpers (column-major). */
static inline void fmb_rot(double th, double A[4])
{
    A[0] = cos(th), A[1] = sin(th), A[2] = -A[1], A[3] = A[0];
}

/* A(theta) of a view's body (identity for ground). The cosine and sine of an angle are
 * computed once and kept in the body (bitwise the same values as fmb_rot), keyed on the
 * angle's bit pattern: every element on a body at the same state shares one evaluation, and a
 * q changed in place (finite differences) is recomputed. A model's bodies are not const
 * objects, so the cache is written through the const pointer the classes receive (no
 * threads share a model). */
void fmb_body_rot_update(const fmb_body_t *b, double th);
/* The cache key is the angle's bit pattern, not its value: -0.0 == +0.0 compares equal
 * but sin(-0.0) is -0.0 (a value key returned the other zero's sine). A NaN never hits. */
static inline int fmb_same_angle(double a, double b)
{
    uint64_t x, y;
    memcpy(&x, &a, sizeof x), memcpy(&y, &b, sizeof y);
    return x == y && a == a;
}
/* A(th) through body b's cache (a body class's own functions: rigid.c). */
static inline void fmb_body_rot(const fmb_body_t *b, double th, double A[4])
{
    if (!b->rot_ok || !fmb_same_angle(th, b->rot_th)) fmb_body_rot_update(b, th);
    A[0] = b->rot_c, A[1] = b->rot_s, A[2] = -b->rot_s, A[3] = b->rot_c;
}
static inline void fmb_view_rot(const fmb_bodyview_t *v, double A[4])
{
    const double th = v->ndof ? v->q[2] : 0.0;
    const fmb_body_t *b = v->body;
    if (!b) {
        fmb_rot(th, A);
        return;
    }
    fmb_body_rot(b, th, A);
}

#endif

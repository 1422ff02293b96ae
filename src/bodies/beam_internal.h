/* Private declarations shared by the beam body's files: the reference (beam.c,
 * beam_inertia.c), the fast path (beam_fast.c, beam_state.h, beam_kernels.h,
 * beam_tangent.c, beam_tangent_simd.c) and the build (beam_build.c, beam_shape.c). */
#ifndef FMB_BODIES_BEAM_INTERNAL_H
#define FMB_BODIES_BEAM_INTERNAL_H

#include "bodies/beam.h"

/* 4-point Gauss rule on [-1, 1]: abscissae and weights. */
extern const double fmb_beam_gauss_x[4], fmb_beam_gauss_w[4];
/* Shape functions of element e's six local dofs (u1 v1 phi1 u2 v2 phi2) at body-frame
 * point (x, y0). */
void fmb_beam_local_shape(const fmb_beam_t *bm, int e, double x, double y0, double nx[6],
                          double ny[6]);
/* Shape functions at body-frame point (x, y0) of element e, on the body's columns. */
void fmb_beam_element_shape(const fmb_beam_t *bm, int e, double x, double y0, fmb_shape_t *N);

/* Inertia shape integrals of one element over its mass points g (the 4 Gauss points, or
 * their rotary-inertia pairs; beam.c's header), with u_g the undeformed body-frame
 * position, w_g the mass and N_g the 2 x 6 shape functions of the element's local dofs
 * (u1 v1 phi1 u2 v2 phi2), Itil = [0 -1; 1 0]. Computed once at build (beam_build.c);
 * the mass block of the elastic dofs, Mff = sum w N^T N, is fmb_beam_me and
 * Sbar = sum w N^T Itil N is fmb_beam_sb (shared by elements with bitwise equal sets,
 * beam.h). With them the element's inertia is a closed form in its coordinates
 * (beam_inertia.c). */
typedef struct fmb_beam_elem {
    double m;            /* sum w */
    double s0[2];        /* sum w u */
    double J0;           /* sum w u.u */
    double Sx[6], Sy[6]; /* S = sum w N (rows x and y) */
    double s1[6];        /* sum w N^T u */
    double c1[6];        /* sum w N^T Itil u */
    /* the element's Mff, Sbar and k_e in the beam's shared sets (beam.h me, sb, ke) */
    const double *Mff, *Sb, *ke;
    /* the element's columns: local slots k = 0..8 (rbar_x, rbar_y, theta, u1 .. phi2) sit
     * at pos[k] of the compressed columns cols[0..nl-1] (body columns, -1: removed dof) */
    int nl, cols[9], pos[9];
    int bcol[9]; /* = cols[pos[k]]: slot k's body column, -1: removed */
} fmb_beam_elem_t;

/* An element's inertia terms at a state (beam_inertia.c; equations there): z = [rbar,
 * theta, U_e] in the element's 9 local slots (removed dofs 0). Only what a caller needs
 * is computed (fmb_beam_states `what`): FMB_IS_MASS for M and M v, FMB_IS_FORCE for Q,
 * FMB_IS_ALL for the tangents as well. */
enum { FMB_IS_MASS = 1, FMB_IS_FORCE = 2, FMB_IS_TANGENT = 4, FMB_IS_ALL = 7, FMB_IS_Q = 8 };
typedef struct fmb_beam_istate {
    double r[2], U[6]; /* rbar, U_e */
    double Pm[2];      /* sum w p = m rbar + s0 + S U */
    double pU[6];      /* sum w N^T p = S^T rbar + s1 + Mff U */
    /* FMB_IS_MASS: */
    double g[6]; /* M_U,theta = sum w N^T Itil p = S^T Itil rbar + c1 + Sbar U */
    double J;    /* M_theta,theta = sum w p.p */
    /* FMB_IS_FORCE (rates): */
    double rd[2], thd, Ud[6];
    double Vm[2]; /* sum w pd = m rbard + S Ud */
    double W;     /* sum w p.pd */
    double hU[6]; /* sum w N^T Itil pd = S^T Itil rbard + Sbar Ud */
    /* FMB_IS_TANGENT: */
    double MUd[6]; /* Mff Ud */
} fmb_beam_istate_t;

/* The element states of a beam at one (q, qd), kept between calls (fmb_beam_states):
 * st[e] holds the parts in `have` (FMB_IS_Q: the position part; FMB_IS_MASS, FMB_IS_FORCE,
 * FMB_IS_TANGENT) computed from the key values q (and qd for the rate parts), ndof each.
 * Allocated with the beam (fmb_beam_build); not for concurrent use (no body is evaluated
 * from two threads). */
typedef struct fmb_beam_cache {
    int have;
    double *q, *qd;
    fmb_beam_istate_t *st;
} fmb_beam_cache_t;

/* a = A^T g: gravity in the body frame (A the rotation by theta). */
static inline void fmb_beam_gravity(double theta, const double g[2], double a[2])
{
    double A[4];
    fmb_rot(theta, A);
    a[0] = A[0] * g[0] + A[1] * g[1], a[1] = A[2] * g[0] + A[3] * g[1];
}

/* The body class's tangent_pattern and tangent_add (beam_tangent.c). */
int fmb_beam_tangent_pattern(const fmb_body_t *b, const int **Jp, const int **Ii);
void fmb_beam_tangent_add(const fmb_body_t *b, const double *q, const double *qd, const double *qdd,
                          const double g[2], const double cf[4], const int *pos, double *A);
/* tangent_add's constant part: A[pos[p]] += alpha XA + beta XB + cK XK (+ cC XC) for every
 * list entry p outside the theta row and column, k = (alpha, beta, cK, cC): the scalar form
 * (beam_tangent.c) and the two-lane form (beam_tangent_simd.c; the scalar one where
 * core/simd.h leaves FMB_SIMD undefined), which tangent_add uses; tests/test_beam_simd.c
 * compares the two. */
void fmb_beam_tangent_constants(const fmb_beam_t *bm, const double k[4], const int *pos, double *A);
void fmb_beam_tangent_constants_v2(const fmb_beam_t *bm, const double k[4], const int *pos,
                                   double *A);

/* Shape integrals and the mass matrix me (36, column-major) of element e by its mass
 * points (beam_build.c). */
void fmb_beam_element_inertia(const fmb_beam_t *bm, int e, fmb_beam_elem_t *el, double me[36],
                              double sb[36]);
/* Element e's Sbar = sum w N^T Itil N (skew, 36, column-major; beam.h `sb`), Mff = me
 * and k_e. */
static inline const double *fmb_beam_sb(const fmb_beam_t *bm, int e)
{
    return bm->el[e].Sb;
}
static inline const double *fmb_beam_me(const fmb_beam_t *bm, int e)
{
    return bm->el[e].Mff;
}
static inline const double *fmb_beam_ke(const fmb_beam_t *bm, int e)
{
    return bm->el[e].ke;
}
/* The reference element (beam_inertia.c, plain loops): element e's inertia state at q, qd
 * from scratch, every part (qd NULL: the position and FMB_IS_MASS parts only). */
void fmb_beam_element_state(const fmb_beam_t *bm, int e, const double *q, const double *qd,
                            fmb_beam_istate_t *s);
/* out (9) = M_e v (v: 9 local slots; state with FMB_IS_MASS). */
void fmb_beam_inertia_mv(const fmb_beam_t *bm, int e, const fmb_beam_istate_t *s, const double v[9],
                         double out[9]);
/* Inertia force Q_e (9) with a = A^T g (state with FMB_IS_FORCE). */
void fmb_beam_inertia_q(const fmb_beam_t *bm, int e, const fmb_beam_istate_t *s, const double a[2],
                        double Q[9]);
/* B (9 x 9, column-major) += cf[0] M + cf[1] d(M qdd)/dq - cf[2] dQ/dq - cf[3] dQ/dqd of
 * element e (qdd: 9 local slots; state with FMB_IS_ALL, or FMB_IS_MASS if cf[2] = cf[3] = 0). */
void fmb_beam_inertia_matrix(const fmb_beam_t *bm, int e, const fmb_beam_istate_t *s,
                             const double a[2], const double qdd[9], const double cf[4],
                             double B[81]);

/* Element e's elastic force f_e (6) at its local dofs ul, its strain energy (energy
 * non-NULL), and when kt is non-NULL the tangent df_e/du_e: returns the tangent (the
 * constant k_e for linear beams, else kt; beam.c). */
const double *fmb_beam_element_elastic(const fmb_beam_t *bm, int e, const double ul[6],
                                       double fe[6], double *kt, double *energy);
/* Element e's Rayleigh damping at local dofs ul, rates vl: adds the force to fe, writes
 * ct = df/dud (36) and returns the stiffness k plus the damping's df/dul (in kbuf, non-NULL,
 * for nonlinear beams) or k (beam.c). */
const double *fmb_beam_element_damping(const fmb_beam_t *bm, int e, const double ul[6],
                                       const double vl[6], double fe[6], const double *k,
                                       double *kbuf, double ct[36]);
/* The class members the reference and the fast class share (beam.c). */
int fmb_beam_class_ndof(const fmb_body_t *b);
void fmb_beam_class_shape(const fmb_body_t *b, const double u[2], fmb_shape_t *N);
double fmb_beam_class_power(const fmb_body_t *b, const double *q, const double *qd);
void fmb_beam_class_destroy(fmb_body_t *b);

/* Element e's six local dofs (u1 v1 phi1 u2 v2 phi2) of a body vector (removed dofs 0). */
static inline void fmb_beam_element_dofs(const fmb_beam_t *bm, int e, const double *q, double ul[6])
{
    const int *d = bm->dof + 3 * e;
    for (int i = 0; i < 6; i++)
        ul[i] = d[i] >= 0 ? q[d[i]] : 0.0;
}
/* Element e's 9 local slots (rbar, theta, u1 .. phi2) of a body vector (removed dofs 0). */
static inline void fmb_beam_element_slots(const fmb_beam_t *bm, int e, const double *v, double z[9])
{
    z[0] = v[0], z[1] = v[1], z[2] = v[2];
    fmb_beam_element_dofs(bm, e, v, z + 3);
}
/* Add a 9 x 9 local block B to the dense nd x nd matrix A. */
static inline void fmb_beam_scatter_block(const fmb_beam_elem_t *el, const double B[81], double *A,
                                          size_t nd)
{
    for (int j = 0; j < 9; j++) {
        if (el->pos[j] < 0) continue;
        const size_t cj = nd * (size_t)el->cols[el->pos[j]];
        for (int i = 0; i < 9; i++)
            if (el->pos[i] >= 0) A[el->cols[el->pos[i]] + cj] += B[i + 9 * j];
    }
}
/* Add a local 9-vector to the body vector. */
static inline void fmb_beam_scatter_vec(const fmb_beam_elem_t *el, const double z[9], double *v)
{
    for (int i = 0; i < 9; i++)
        if (el->bcol[i] >= 0) v[el->bcol[i]] += z[i];
}
/* The deformation part of element e's local dofs ul = (u1, v1, phi1, u2, v2, phi2): ul
 * minus the rigid-body motion of the element (translation u1, v1 and the chord rotation
 * psi = (v2 - v1) / l), which k_e maps to zero. k_e ud equals k_e ul in exact arithmetic,
 * but its rounding scales with the deformation instead of the displacements: on a fine
 * mesh the products 12 EI / l^3 v cancel to ~EI v'''' l, and at 10,000 elements their
 * rounding put the Newton increments above the tolerance (docs/performance.md; tests/
 * test_beam_floor.c). */
static inline void fmb_beam_deformation(const fmb_beam_t *bm, int e, const double ul[6],
                                        double ud[6])
{
    const double psi = (ul[4] - ul[1]) / (bm->x[e + 1] - bm->x[e]);
    ud[0] = 0.0, ud[1] = 0.0, ud[2] = ul[2] - psi;
    ud[3] = ul[3] - ul[0], ud[4] = 0.0, ud[5] = ul[5] - psi;
}

/* ---- the fast path's element-state cache (beam_fast.c) ---- */
/* All elements' states at q, qd with at least the parts `what` (qd may be NULL without
 * FMB_IS_FORCE/TANGENT), from the beam's cache (tests/test_beam_cache.c). */
const fmb_beam_istate_t *fmb_beam_states(const fmb_beam_t *bm, const double *q, const double *qd,
                                         int what);
/* The same inside a caller's element loop: begin moves the cache's key to (q, qd) and
 * returns the states with the plan of missing parts; the caller must then call
 * fmb_beam_state(bm, e, q, qd, &plan, st + e) (beam_state.h) for EVERY element e (each before its
 * use, in any order) before the next call of the cache. */
typedef struct fmb_beam_plan {
    int doq, need; /* the position part; the parts FMB_IS_* still missing */
} fmb_beam_plan_t;
fmb_beam_istate_t *fmb_beam_states_begin(const fmb_beam_t *bm, const double *q, const double *qd,
                                         int what, fmb_beam_plan_t *p);

#endif

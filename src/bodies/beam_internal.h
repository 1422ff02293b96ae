/* Private declarations shared by the beam body's files (beam.c, beam_shape.c,
 * beam_build.c, beam_inertia.c). */
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
/* All elements' states at q, qd with at least the parts `what` (qd may be NULL without
 * FMB_IS_FORCE/TANGENT), from the beam's cache: bitwise equal to states computed from
 * scratch (tests/test_beam_cache.c). */
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

#endif

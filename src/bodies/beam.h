/* Beam body data and helpers shared with the slider-on-beam joint. */
#ifndef FMB_BODIES_BEAM_H
#define FMB_BODIES_BEAM_H
#include <stdio.h>

#include "model/model.h"

typedef struct fmb_beam {
    int nnodes;
    double *x; /* node positions along the body x axis */
    double E, rho, A, I;
    int rotary;
    double alpha, beta; /* Rayleigh damping */
    fmb_beam_reference reference;
    fmb_beam_geometry geometry; /* nonlinear: co-rotational elements (beam_corot.c) */
    int *dof; /* 3 per node (u, v, phi): column in the body's q, or -1 if removed */
    int ndof; /* 3 + free elastic dofs */
    /* Element matrices in the element's local dofs (u1 v1 phi1 u2 v2 phi2, body frame),
     * 36 each, column-major: the linear stiffness ke, the consistent mass me of the elastic
     * dofs (rotary inertia included) and the inertia integral Sbar (beam_internal.h).
     * Constant; computed once at build, and stored once per distinct set of the three
     * (nmat sets; sets equal bit for bit are one: a mesh's elements mostly share their
     * lengths, 41 sets for the quick-return's 10,000 elements, so the element loops read
     * ~860 bytes less per element). Element e's: fmb_beam_me / ke / sb (beam_internal.h;
     * its set's addresses are kept in el[e]). */
    double *ke, *me, *sb;
    int nmat;
    /* per element: inertia shape integrals and column maps (beam_internal.h), built once */
    struct fmb_beam_elem *el;
    /* per element: the inertia states of the last (q, qd) evaluated (beam_inertia.c) */
    struct fmb_beam_cache *cache;
    /* 1: the axial slots (u1, u2) and the bending slots (v1, phi1, v2, phi2) are
     * uncoupled in every element's Mff and k_e, Sbar couples only axial with bending, and
     * S's x row lives on the axial slots, its y row on the bending ones, all as EXACT zeros
     * (checked entry by entry at build; so far every beam: without rotary inertia the mass
     * points lie on the centre line, with it the +-y0 pairs cancel exactly). The kernels
     * then skip the zero products (beam_kernels.h): the same sums, about half the work. */
    int decoupled;
    /* 0: linear elastic forces ke U (constant tangent, the fast path). Nonzero: the
     * element force and tangent are recomputed from the element's dofs every evaluation
     * (geometrically nonlinear elements): see element_elastic in beam.c. */
    int nonconstant_stiffness;
    /* assembled K and Muu over the free elastic dofs (i, j < ndof - 3) as nonzero lists
     * (banded: coupling only inside elements), column-major order */
    int nnz, *nz_i, *nz_j;
    double *Kz, *Mz;
    /* The iteration matrix's entries as one list in compressed columns over the body's
     * coordinates (the class's tangent_pattern / tangent_add; beam_tangent.c): column j's
     * rows tIi[tJp[j] .. tJp[j + 1] - 1] (ascending, tnz in all), and per entry tnv
     * constant coefficients (3, or 4 with Rayleigh damping) of the body's scalars. Built
     * once (fmb_beam_tangent_build); tnz = 0 for nonlinear beams (blocks only). */
    int tnz, tnv, *tJp, *tIi;
    double *tX;
    /* initial elastic state (ndof - 3 each, Ud0 = U0 + ndof - 3), NULL: at rest,
     * undeformed (beam_init.c) */
    double *U0, *Ud0;
    /* section's extreme-fibre distance c (m, 0: not known) and yield stress (Pa, 0: none);
     * output only (beam_stress.c) */
    double c, yield;
} fmb_beam_t;

/* The class of runs (beam_fast.c: the element-state cache, the decoupled kernels, the
 * residual's one pass and the iteration matrix as one list) and its reference (beam.c:
 * every element evaluated from scratch in plain loops; not used by runs). Tests compare
 * the two to rounding. */
extern const fmb_body_class_t fmb_beam_body_class;
extern const fmb_body_class_t fmb_beam_reference_class;

/* Element index containing x (clamped to the first/last element). */
int fmb_beam_element_at(const fmb_beam_t *bm, double x);
/* Hermite functions (d-th x-derivative, d = 0..3) of element e at x, for the dofs
 * v1, phi1, v2, phi2. */
void fmb_beam_hermite(const fmb_beam_t *bm, int e, double x, int d, double H[4]);
/* All four at once: H[d] bitwise equal to fmb_beam_hermite(bm, e, x, d, H[d]). */
void fmb_beam_hermite_all(const fmb_beam_t *bm, int e, double x, double H[4][4]);
/* Columns of element e's v1, phi1, v2, phi2 in the body's q (-1 if removed). */
void fmb_beam_vcols(const fmb_beam_t *bm, int e, int col[4]);
/* Natural frequencies under the reference conditions (ascending, rad/s): all of them by
 * dense LAPACK dsygv, or the lowest nmax by CHOLMOD subspace iteration. Return the
 * count or a negative status. fmb_model_beam_modes picks sparse above this size. */
#define FMB_BEAM_DENSE_MODES_MAX 300 /* dense dsygv loses the lowest modes of fine meshes */
int fmb_beam_modes_dense(const fmb_beam_t *bm, double *omega, int nmax);
int fmb_beam_modes_sparse(const fmb_beam_t *bm, double *omega, int nmax);

/* Mode k (1-based) of K Phi = omega^2 Muu Phi as nodal values (u, v, phi per node, 3 nn;
 * removed dofs 0), largest |v| scaled to +1 (|u| for an axial mode); omega if non-NULL.
 * 0 or a negative status (beam_init.c). */
int fmb_beam_mode_shape(const fmb_beam_t *bm, int k, double *shape, double *omega);
/* Initial elastic state, nodal (3 nn each, NULL = zero): 0 or a negative status with a
 * message (a value on a dof the reference condition removes). */
int fmb_beam_set_initial(fmb_beam_t *bm, const double *U, const double *Ud, char *msg, size_t len);
/* Body class hook: copy the initial elastic state into q[3..], qd[3..]. */
void fmb_beam_initial_state(const fmb_body_t *b, double *q, double *qd);

/* Memory per element of a run (beam data, KKT entries and factors), measured: the
 * loader's limit check (docs/performance.md). */
#define FMB_BEAM_BYTES_PER_ELEMENT 12e3
/* The iteration-matrix list (beam.h tJp ...), from the built elements (beam_tangent.c):
 * 0 or FMB_ERR_NOMEM. */
int fmb_beam_tangent_build(fmb_beam_t *bm);
/* Element e's axial force n (N) and bending moments M = EI v'' at its start (ma) and end
 * (mb) from the body's coordinates qb: the element's local forces (co-rotational for
 * nonlinear beams; beam_stress.c). */
void fmb_beam_element_forces(const fmb_beam_t *bm, const double *qb, int e, double *n, double *ma,
                             double *mb);
/* Section forces at the nodes from the body's coordinates qb (beam_stress.c): N (N) and
 * M (N m) per node, and when stress is non-NULL 3 per node (axial, bending, combined; Pa),
 * as fmb_sim_beam_stress documents. */
void fmb_beam_section_forces(const fmb_beam_t *bm, const double *qb, double *N, double *M,
                             double *stress);
/* Dof map, stiffness, constant mass. */
int fmb_beam_build(fmb_beam_t *bm, char *msg, size_t len);

#endif

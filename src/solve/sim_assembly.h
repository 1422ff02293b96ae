/* The assembly of the iteration matrix (assemble.c; docs/performance.md): the KKT matrix
 * with its pattern and factorization, the scratch of one element block, the coefficients the
 * assembly is called with, and the joints' memo that hands the residual's joint evaluation to
 * the assembly of the same iterate. sim.c sizes and allocates it; the assembly (assemble.c)
 * and the factorizations (assemble.c fmb_sim_solve_kkt, start.c, fastmode.c, modes.c) write
 * kkt; residual.c fills the memo, step.c sets its handoff. Part `as` of struct fmb_sim
 * (solve/sim.h). */
#ifndef FMB_SOLVE_SIM_ASSEMBLY_H
#define FMB_SOLVE_SIM_ASSEMBLY_H

#include <stddef.h>

#include "model/model.h"
#include "solve/kkt.h"

/* Coefficients of the assembled KKT matrix
 *   [ cM M + cKm Kmq + cK (Kc(lam) - Kq) - cC Cq    cA Phi_q^T ]
 *   [ Phi_q                                         c22 I      ]
 * Two modifiers for the quasi-static start (static_start.c), zero in every other use:
 * ee != 0 multiplies the elastic-elastic entries of the body blocks (both coordinates
 * elastic, body-local index >= 3) by ee (meant for pure mass matrices, cKm = cK = cC = 0);
 * elastic_rows != 0 splits the rows: rows of elastic coordinates get the tangent terms
 * alone (Kmq, Kq, Kc, Cq, contacts; no mass), carrier rows (body-local index < 3) the
 * mass term alone (cM M for bodies without blocks, cM M_rr, the carrier block, for
 * bodies with them). Both keep the emitted entries, i.e. the sparse pattern. */
typedef struct fmb_coeffs {
    double cM, cKm, cK, cC, cA, c22;
    double ee;
    int elastic_rows;
} fmb_coeffs_t;

/* The joints' views and Jacobians as the last residual (fmb_sim_eval_residual) evaluated
 * them, for the assembly of the same Newton iterate (try_step: the residual at an iterate,
 * then, when it refactors, the matrix at the same iterate): the assembly takes them instead
 * of evaluating every joint again, when handoff is set (by try_step around its assembly
 * alone: nothing else the joints depend on can change between the two) and the assembly's
 * q, qd and t are the residual's (the same arrays, the same bits of q and t). Bitwise the
 * same matrix (tests/test_joint_memo.c). The key is a copy of q: in systems of more than
 * FMB_JOINT_MEMO_MAXN coordinates its copy and comparison (n doubles each) cost more than
 * the joints' evaluation it saves (callgrind, quick-return 1,000 elements, n = 3,003: +0.34 %
 * per step; 320 elements -0.14 %, 80 elements -0.5 %), so there the memo is off. */
#define FMB_JOINT_MEMO_MAXN 1500 /* coordinates: above, the q copy costs more than it saves */
typedef struct fmb_joint_memo {
    int on;      /* n <= FMB_JOINT_MEMO_MAXN: the memo is kept (sim.c) */
    int ok;      /* 1: filled by the last residual (0 while it runs, or if it had no F) */
    int handoff; /* 1: the next assembly may take them (step.c) */
    const double *qp, *qdp; /* the arrays the residual read */
    double t;               /* its time */
    double *q;              /* n: a copy of q's values */
    fmb_bodyview_t *v;      /* 2 per joint */
    double *J;              /* joint i's nr x nl Jacobian (J_0 then J_1) at J + joff[i] */
    size_t *joff;
    long used; /* assemblies that took them (tests, bench) */
} fmb_joint_memo_t;

typedef struct fmb_sim_asm {
    fmb_kkt_t kkt;
    /* scratch for one element block: elements are column-compressed (model.h), so their
     * blocks are at most FMB_ELEM_COLS square and maxr (most rows of a joint) high;
     * maxq = largest body (body force vectors), maxd = largest body assembled through
     * dense matrices (bodies without the `blocks` or `mass_times` members: rigid) */
    int maxr, maxq, maxd;
    double *scratch, *sJ[2], *sH, *sK, *sC, *sQ[2], *sv, *sw, *sphi, *sphi2;
    double *sM, *dK, *dC, *dH; /* maxd^2 each: dense body matrices */
    double *sb;                /* maxq: a body vector */
    fmb_joint_memo_t *jm;      /* the joints' evaluation of the last residual (residual.c) */
    int reach_all;             /* tests: moving elements reserve every column they can ever reach
                                  (model.h reach(), all = 1) instead of a window near their state */
} fmb_sim_asm_t;

#endif

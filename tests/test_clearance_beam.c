/*
 * Clearance joint with its journal on an elastic beam: the friction moment acts on the
 * material rotation of the section at the journal, not on the beam frame's rotation.
 *
 * Independent reference (power balance): the friction part of the generalized force,
 * Q_f = Q(mu) - Q(mu = 0), does the power Q_f . qd = F_T v_T, with F_T = -mu_d F_N sgn v_T
 * (sliding, |v_T| far beyond v_d) and the slip of the contact points
 *   v_T = t . (rdot_J - rdot_B) + R_J w_J - R_B w_B,
 * where w_J, the rotation rate of the journal's section, is measured here without the
 * solver's rotation helper: the angle of the material segment from (x, -s) to (x, +s)
 * (points on the beam placed by fmb_point_pos) at q - h qd and q + h qd, central
 * difference. F_N = F_K(delta) of seed eqs 7-8, re-typed (eta = 0, no damping).
 * Two states: the journal at a node with only the node's rotation dof moving (then
 * w_J = phi_dot of that dof exactly and the centre does not move) and the journal inside
 * an element with random rates. Before the fix (w_J = theta_dot of the frame) the node
 * case gave no friction at all (v_T = 0) and both cases fail.
 * Usage: test_clearance_beam
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bodies/beam.h"
#include "check.h"
#include "flexmb/flexmb.h"
#include "forces/forces.h"
#include "model/model.h"

static int failures = 0;
static const double PI = 3.14159265358979323846;

static double urand(double a, double b)
{
    return a + (b - a) * (rand() / (double)RAND_MAX);
}

/* angle of the material segment of the beam at x across the section, at coordinates q */
static double section_angle(const fmb_bodyview_t *v, double x)
{
    const double s = 1e-3, ua[2] = {x, -s}, ub[2] = {x, s};
    double ra[2], rb[2];
    fmb_point_pos(v, ua, ra);
    fmb_point_pos(v, ub, rb);
    /* the segment points along +y of the section: angle of (rb - ra) minus pi/2 */
    return atan2(rb[1] - ra[1], rb[0] - ra[0]) - PI / 2;
}

static void run_case(int at_node)
{
    fmb_model_t *m = fmb_model_create();
    double x[5] = {0, 0.25, 0.5, 0.75, 1.0};
    fmb_beam_desc_t bd = {.name = "beam",
                          .E = 2.1e11,
                          .rho = 7800,
                          .area = 1e-4,
                          .inertia = 1e-9,
                          .nnodes = 5,
                          .x = x,
                          .reference = FMB_BEAM_SIMPLY_SUPPORTED};
    const int beam = fmb_model_add_beam(m, &bd);
    const double xj = at_node ? 0.5 : 0.6; /* journal centre on the beam axis */
    const double c = 2e-4, RB = 10e-3, RJ = RB - c, L = 10e-3, Es = 1.137e11, mu = 0.3;
    fmb_force_desc_t fd = {.name = "B", .type = "clearance", .body = {beam, FMB_GROUND}};
    fd.point[0][0] = xj;
    fd.clearance = (fmb_clearance_desc_t){.law = FMB_CLEARANCE_WANG2016,
                                          .clearance = c,
                                          .bearing_radius = RB,
                                          .length = L,
                                          .modulus = Es,
                                          .eta = 0,
                                          .d_max = 1e-4,
                                          .mu_s = mu,
                                          .mu_d = mu,
                                          .v_s = 1e-7,
                                          .v_d = 2e-7};
    const int fi = fmb_model_add_force(m, &fd);
    if (beam < 0 || fi < 0) {
        printf("FAIL model: %s\n", fmb_model_last_error(m));
        failures++;
        fmb_model_destroy(&m);
        return;
    }
    const int nq = fmb_model_num_coords(m), o = fmb_model_body_offset(m, beam);
    const int nb = fmb_model_body_ndof(m, beam);
    double *q = calloc((size_t)nq, sizeof *q), *qd = calloc((size_t)nq, sizeof *qd);
    q[o + 0] = 0.1, q[o + 1] = -0.05, q[o + 2] = 0.3;
    for (int k = 3; k < nb; k++)
        q[o + k] = urand(-1e-4, 1e-4);
    fmb_force_t *f = &m->forces[fi];
    const fmb_beam_t *bm = m->bodies[beam].data;
    int rot_dof = -1; /* the rotation dof of the middle node (node 2) */
    for (int k = 0; k < 3 * bd.nnodes; k++)
        if (k == 3 * 2 + 2) rot_dof = bm->dof[k];
    if (at_node) {
        qd[o + rot_dof] = 2.0; /* rad/s: only the section at the node turns */
    } else {
        for (int k = 0; k < nb; k++)
            qd[o + k] = urand(-1, 1);
        qd[o + rot_dof] = 3.0;
    }
    fmb_bodyview_t v[2] = {fmb_model_view(m, beam, q, qd), fmb_model_view(m, FMB_GROUND, q, qd)};
    /* place the bearing so that the journal penetrates delta along a chosen direction */
    const double delta = 2e-6, ang = 0.7, n[2] = {cos(ang), sin(ang)}, t[2] = {-n[1], n[0]};
    double rJ[2], vJ[2];
    fmb_point_pos(&v[0], f->point[0], rJ);
    fmb_point_vel(&v[0], f->point[0], vJ);
    f->point[1][0] = rJ[0] - (c + delta) * n[0];
    f->point[1][1] = rJ[1] - (c + delta) * n[1];
    /* independent slip velocity: section rotation rate by a central difference in time */
    const double h = 1e-6;
    double *qp = malloc((size_t)nq * sizeof *qp), *qm = malloc((size_t)nq * sizeof *qm);
    for (int k = 0; k < nq; k++)
        qp[k] = q[k] + h * qd[k], qm[k] = q[k] - h * qd[k];
    fmb_bodyview_t vp = fmb_model_view(m, beam, qp, qd), vm = fmb_model_view(m, beam, qm, qd);
    const double wJ = (section_angle(&vp, xj) - section_angle(&vm, xj)) / (2 * h);
    const double vT = t[0] * vJ[0] + t[1] * vJ[1] + RJ * wJ;
    const double FK = PI * Es * L / 2 * delta * sqrt(delta / (2 * (c + delta)));
    const double P_ref = -mu * FK * fabs(vT);
    /* generalized forces with and without friction */
    /* the class works on its element columns (model.h: rigid columns and the journal
     * point's shape columns); Q0 has one entry per column */
    fmb_bodyview_t ve[2];
    fmb_force_views(m, f, q, qd, ve);
    double *Q0 = calloc((size_t)nb, sizeof *Q0), *Qn = calloc((size_t)nb, sizeof *Qn);
    double Q1[FMB_VIEW_COLS] = {0};
    f->klass->eval(f, ve, 0.0, Q0, Q1, NULL, NULL);
    f->clr.mu_s = f->clr.mu_d = 0;
    f->klass->eval(f, ve, 0.0, Qn, Q1, NULL, NULL);
    double P = 0;
    for (int k = 0; k < ve[0].nc; k++)
        P += (Q0[k] - Qn[k]) * qd[o + ve[0].cols[k]];
    printf("%s: w_J (difference) %.9g rad/s, frame rate %.3g, v_T %.6g m/s, F_N %.6g N\n"
           "  friction power %.9g W, reference F_T v_T = %.9g W (rel. diff %.2e)\n",
           at_node ? "journal at a node" : "journal inside an element", wJ, qd[o + 2], vT, FK, P,
           P_ref, fabs(P - P_ref) / fabs(P_ref));
    if (at_node) /* the slope at a node is the node's rotation dof (Hermite interpolation) */
        CHECK(fabs(wJ - qd[o + rot_dof]) < 1e-6 * fabs(qd[o + rot_dof]),
              "section rate %.9g != nodal rotation rate %.9g", wJ, qd[o + rot_dof]);
    /* the beam's kinematics are linear in the elastic rotation phi (plane sections): the
     * segment's angle is atan(phi), its rate phi_dot / (1 + phi^2), relative 1e-8 here
     * (|phi| ~ 1e-4); the time difference adds ~h^2; 1e-6 leaves room */
    CHECK(fabs(P - P_ref) < 1e-6 * fabs(P_ref), "friction power %.9g W vs F_T v_T %.9g W", P,
          P_ref);
    free(q), free(qd), free(qp), free(qm), free(Q0), free(Qn);
    fmb_model_destroy(&m);
}

int main(void)
{
    srand(9);
    run_case(1);
    run_case(0);
    printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}

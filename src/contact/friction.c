/*
 * Friction in sliding joints (seed 000, eqs 2-3 and 8-12).
 *
 * A slider block of half-length a and half-width b runs in its guide with a tiny
 * clearance. Its slider point is the block centre; e is the sliding direction and
 * n = Itil e the normal (both inertial). Corner normal forces: F1+, F2+ on the lower face
 * (at -b n), F1-, F2- on the upper face (+b n); corner 1 at -a e, corner 2 at +a e. The
 * joint's reaction on the slider (force F, moment M about the slider point) is their
 * resultant: F . n = N1 + N2, M = a (N2 - N1) with N_l = F_l+ - F_l- and F_l+ F_l- = 0
 * (a corner touches one face at most): the complementarity problem the integrator
 * solves (src/solve/contact_step.c, docs/theory.md section 9).
 *
 * Friction: each corner force F_k carries a friction force -mu F_k e on the slider at its
 * face and +mu F_k e on the guide. LuGre (seed eq 3):
 *   zdot = v - sigma0 |v| z / g(v),  g(v) = mu + (mu0 - mu) exp(-(|v|/vs)^gamma)
 *   mu_L = sigma0 z + sigma1 zdot + sigma2 v
 * (optionally sigma1 exp(-(v/vd)^2) in place of sigma1: bristle damping active only in
 * presliding, Canudas de Wit, Olsson, Astrom, Lischinsky 1995)
 * v is the sliding velocity of the slider relative to the guide material point under it.
 * Backward Euler over the step gives z in closed form for a given v, so the step size
 * is set by accuracy and not by the bristle stiffness sigma0.
 *
 * Generalized force columns, velocity rows and tangents are column-compressed on the
 * contact's element columns (fmb_contact_cols: the slider's rigid columns, the guide's
 * rigid columns and the shape columns of the guide points under the slider and its
 * faces), nl = v[0].nc + v[1].nc entries, whatever the guide's mesh.
 */
#include "contact/friction.h"

#include <string.h>

/* The law itself (backward Euler for z) is contact/lugre.c, shared with the dry friction
 * element; the slider keeps its state (z_n, z, mu, dmu) in fmb_contact_t. */
void fmb_lugre_update(fmb_contact_t *c, double v, double h)
{
    const fmb_lugre_t o = fmb_lugre_step(&c->d, c->z_n, v, h);
    c->z = o.z;
    c->v = v;
    c->mu = o.f;
    c->dmu = o.df;
}

void fmb_contact_kinematics(const fmb_joint_t *j, const fmb_bodyview_t v[2], double e[2],
                            double *vt, double ug[2])
{
    j->klass->slide_direction(j, v, e);
    j->klass->reaction_point(j, v, 1, ug);
    double vs[2], vg[2];
    fmb_point_vel(&v[0], j->point[0], vs);
    fmb_point_vel(&v[1], ug, vg);
    *vt = e[0] * (vs[0] - vg[0]) + e[1] * (vs[1] - vg[1]);
}

void fmb_contact_normal_map(const fmb_contact_t *c, const fmb_joint_t *j, const fmb_bodyview_t v[2],
                            double *S)
{
    const int nr = j->klass->nrows, n0 = v[0].nc;
    double phi[8], J0[8 * FMB_VIEW_COLS] = {0};
    j->klass->eval(j, v, 0.0, phi, J0, NULL); /* the Jacobian does not depend on t here */
    double e[2], A[4], r[2];
    j->klass->slide_direction(j, v, e);
    const double n[2] = {-e[1], e[0]};
    fmb_rot(fmb_body_angle(&v[0]), A);
    fmb_point_pos(&v[0], j->point[0], r);
    const double p[2] = {A[0] * r[0] + A[1] * r[1], A[2] * r[0] + A[3] * r[1]};
    for (int k = 0; k < nr; k++) {
        /* reaction on the slider for lambda = e_k: Qc = -J0^T e_k */
        double Qc[3] = {0, 0, 0};
        for (int col = 0; col < 3 && col < n0; col++)
            Qc[col] = -J0[k + nr * col];
        const double F[2] = {A[0] * Qc[0] + A[2] * Qc[1], A[1] * Qc[0] + A[3] * Qc[1]};
        const double M = Qc[2] - (-p[1] * Qc[0] + p[0] * Qc[1]);
        const double Fn = F[0] * n[0] + F[1] * n[1];
        S[0 + 2 * k] = 0.5 * (Fn - M / c->d.a);
        S[1 + 2 * k] = 0.5 * (Fn + M / c->d.a);
    }
}

/* Material (undeformed body-frame) points of corner k's face point: on the slider (us), at
 * the slider point offset by -+b along the inertial normal of the sliding direction; on the
 * guide (ug), the guide's material point under the slider point (the joint's reaction
 * point: (s_x, 0) on a beam) offset by -+b across the guide's undeformed axis, so that the
 * guide's point Jacobian adds the deformation once (a deformed position used as a material
 * point would count the deflection twice: a net moment -v(s) per newton of corner force
 * under a rigid rotation of the whole system). For a rigid guide both give the same point. */
static void face_points(const fmb_contact_t *c, const fmb_joint_t *j, const fmb_bodyview_t v[2],
                        const double e[2], int k, double us[2], double ug[2])
{
    const double n[2] = {-e[1], e[0]}, off = k < 2 ? -c->d.b : c->d.b;
    double r[2], A[4];
    fmb_point_pos(&v[0], j->point[0], r);
    const double rc[2] = {r[0] + off * n[0], r[1] + off * n[1]};
    fmb_rot(fmb_body_angle(&v[0]), A);
    const double rb[2] = {v[0].ndof ? v[0].q[0] : 0.0, v[0].ndof ? v[0].q[1] : 0.0};
    us[0] = A[0] * rc[0] + A[1] * rc[1] - rb[0];
    us[1] = A[2] * rc[0] + A[3] * rc[1] - rb[1];
    /* guide: material point under the slider, offset across the undeformed axis */
    j->klass->reaction_point(j, v, 1, ug);
    const double ax = j->axis[0], ay = j->axis[1], an = hypot(ax, ay);
    const double nb[2] = {an > 0 ? -ay / an : 0.0, an > 0 ? ax / an : 1.0};
    ug[0] += off * nb[0];
    ug[1] += off * nb[1];
}

/* G_k^T w for both bodies: slider part J0(us)^T w, guide part -J1(ug)^T w. */
static void apply_G(const fmb_bodyview_t v[2], const double us[2], const double ug[2],
                    const double w[2], double *out)
{
    const int n0 = v[0].nc, n1 = v[1].nc;
    double J0[2 * FMB_VIEW_COLS], J1[2 * FMB_VIEW_COLS];
    fmb_point_jac(&v[0], us, J0);
    fmb_point_jac(&v[1], ug, J1);
    for (int i = 0; i < n0; i++)
        out[i] = J0[2 * i] * w[0] + J0[2 * i + 1] * w[1];
    for (int i = 0; i < n1; i++)
        out[n0 + i] = -(J1[2 * i] * w[0] + J1[2 * i + 1] * w[1]);
}

void fmb_contact_columns(const fmb_contact_t *c, const fmb_joint_t *j, const fmb_bodyview_t v[2],
                         double *cols)
{
    const int nn = v[0].nc + v[1].nc;
    double e[2];
    j->klass->slide_direction(j, v, e);
    const double f[2] = {-c->mu * e[0], -c->mu * e[1]};
    for (int k = 0; k < FMB_CORNERS; k++) {
        double us[2], ug[2];
        face_points(c, j, v, e, k, us, ug);
        apply_G(v, us, ug, f, cols + (size_t)nn * k);
    }
}

void fmb_contact_tangent(const fmb_contact_t *c, const fmb_joint_t *j, const fmb_bodyview_t v[2],
                         const double *F, double *C)
{
    if (c->exact) return; /* the law is solved in the contact problem (contact_step.c) */
    const int nn = v[0].nc + v[1].nc;
    double e[2], vt, ug0[2];
    fmb_contact_kinematics(j, v, e, &vt, ug0);
    /* dv/dqd = e^T [J0(u0), -J1(ug0)] */
    double D[FMB_ELEM_COLS], g[FMB_ELEM_COLS], tmp[FMB_ELEM_COLS];
    apply_G(v, j->point[0], ug0, e, D);
    for (int i = 0; i < nn; i++)
        g[i] = 0.0;
    const double me[2] = {-e[0], -e[1]};
    for (int k = 0; k < FMB_CORNERS; k++) {
        if (F[k] == 0.0) continue;
        double us[2], ug[2];
        face_points(c, j, v, e, k, us, ug);
        apply_G(v, us, ug, me, tmp);
        for (int i = 0; i < nn; i++)
            g[i] += F[k] * tmp[i];
    }
    /* Q_f = g mu(v): dQ_f/dqd = g dmu D^T */
    for (int col = 0; col < nn; col++)
        for (int r = 0; r < nn; r++)
            C[r + (size_t)nn * col] += g[r] * c->dmu * D[col];
}

int fmb_contact_mode(const double F[FMB_CORNERS])
{
    double mx = 0.0;
    for (int k = 0; k < FMB_CORNERS; k++)
        mx = fmax(mx, F[k]);
    const double tol = 1e-9 * fmax(mx, 1e-300);
    int on[FMB_CORNERS], count = 0;
    for (int k = 0; k < FMB_CORNERS; k++)
        count += on[k] = F[k] > tol && F[k] > 0;
    if (count == 0) return 0;
    if (count == 1) return 1;
    if ((on[0] && on[1]) || (on[2] && on[3])) return 2; /* both corners of one face */
    return 3;                                           /* diagonal: F1+ with F2-, ... */
}

void fmb_contact_beta_columns(const fmb_contact_t *c, const fmb_joint_t *j,
                              const fmb_bodyview_t v[2], double *cols)
{
    const int nn = v[0].nc + v[1].nc;
    double e[2];
    j->klass->slide_direction(j, v, e);
    const double me[2] = {-e[0], -e[1]};
    for (int face = 0; face < 2; face++) {
        double us[2], ug[2];
        face_points(c, j, v, e, 2 * face, us, ug); /* corner 0: lower face, 2: upper */
        apply_G(v, us, ug, e, cols + (size_t)nn * (2 * face));
        apply_G(v, us, ug, me, cols + (size_t)nn * (2 * face + 1));
    }
}

void fmb_contact_velocity_row(const fmb_joint_t *j, const fmb_bodyview_t v[2], double *D)
{
    double e[2], vt, ug[2];
    fmb_contact_kinematics(j, v, e, &vt, ug);
    apply_G(v, j->point[0], ug, e, D);
}

void fmb_contact_cols(const fmb_contact_t *c, const fmb_joint_t *j, fmb_bodyview_t v[2])
{
    fmb_joint_cols(j, v);
    double e[2], vt, ug[2];
    fmb_contact_kinematics(j, v, e, &vt, ug);
    fmb_view_add_point(&v[0], j->point[0]);
    fmb_view_add_point(&v[1], ug);
    for (int k = 0; k < FMB_CORNERS; k++) {
        double us[2], ugk[2];
        face_points(c, j, v, e, k, us, ugk);
        fmb_view_add_point(&v[0], us);
        fmb_view_add_point(&v[1], ugk);
    }
}

double fmb_contact_friction(const fmb_contact_t *c, double per_corner[FMB_CORNERS])
{
    /* force on the slider along e: -mu F_k per corner (LuGre); per face
     * beta[2f] - beta[2f+1], shared by the face's corners by their normal forces
     * (Coulomb) */
    double f = 0.0;
    for (int face = 0; face < 2; ++face) {
        const double *F = c->F + 2 * face;
        const double Nf = F[0] + F[1];
        const double ff = c->fk && c->fk->face_force ? c->fk->face_force(c, face, Nf) : 0.0;
        f += ff;
        for (int l = 0; per_corner && l < 2; l++)
            per_corner[2 * face + l] = Nf > 0 ? -ff * F[l] / Nf : 0.0; /* opposing +e */
    }
    return f;
}

double fmb_contact_friction_power(const fmb_contact_t *c, const fmb_joint_t *j,
                                  const fmb_bodyview_t v[2])
{
    double per[FMB_CORNERS], e[2];
    fmb_contact_friction(c, per);
    j->klass->slide_direction(j, v, e);
    double P = 0.0;
    for (int k = 0; k < FMB_CORNERS; k++) {
        if (per[k] == 0.0) continue;
        double us[2], ug[2], vs[2], vg[2];
        face_points(c, j, v, e, k, us, ug);
        fmb_point_vel(&v[0], us, vs);
        fmb_point_vel(&v[1], ug, vg);
        /* force -per[k] e on the slider at its face point, +per[k] e on the guide */
        P -= per[k] * (e[0] * (vs[0] - vg[0]) + e[1] * (vs[1] - vg[1]));
    }
    return P;
}

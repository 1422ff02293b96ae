/* Friction in sliding joints (seed 000; docs/theory.md section 9): corner normal forces,
 * LuGre friction coefficient with an implicitly integrated bristle state, generalized
 * friction forces per unit corner force, and their velocity tangent. */
#ifndef FMB_CONTACT_FRICTION_H
#define FMB_CONTACT_FRICTION_H

#include "contact/lugre.h"
#include "model/model.h"

/* Corner order everywhere: F1+, F2+ (lower face, rear and front corner), F1-, F2- (upper
 * face). Rear/front: -a/+a along the sliding direction from the slider point; lower/upper:
 * the face at -b/+b along the normal n = Itil e. */
#define FMB_CORNERS 4

typedef struct fmb_contact {
    int joint;
    fmb_friction_desc_t d;
    const fmb_friction_class_t *fk; /* the friction model's class (model/params.h) */
    double z_n, z;                  /* LuGre bristle state at t_n and at the current iterate */
    double v, v_n;         /* relative sliding velocity (slider minus guide) along e, m/s */
    double mu, dmu;        /* friction coefficient and d mu / d v at the current iterate */
    double F[FMB_CORNERS]; /* corner normal forces, N (>= 0) */
    double beta[4];        /* Coulomb, per face (lower, upper): friction force
                              (beta[2f] - beta[2f+1]) e on the slider at that face */
    double mu_e;           /* Coulomb: coefficient of the LCP (mu0 while held, else mu) */
    int stuck;             /* Coulomb: held at the last accepted state (static level next) */
    int slip;              /* Coulomb: the last LCP slides it on a loaded face */
    int mode;              /* 0 none, 1 single point, 2 single face, 3 diagonal */
    /* Consistent start (src/solve/start.c, docs/theory.md "Friction at the start"): the
     * contact LCP is then solved for the accelerations (unknowns [qdd; lambda]), and a
     * set-valued model decides by the start state: sliding (|v| >= v_stick) friction
     * opposes v, at rest the rows are on the sliding acceleration Dv qdd + vq */
    int at_start;
    double vq; /* (dv/dq) qd at the start: the sliding acceleration at qdd = 0, m/s^2 */
    /* In a step (h > 0), a smooth law (LuGre) is solved exactly inside the contact problem
     * (src/solve/contact_step.c, docs/theory.md "Newton at v = 0"): its velocity tangent is
     * then not in the iteration matrix (fmb_contact_tangent adds nothing) */
    int exact;
    double h; /* the step of the last update (the law over the step depends on it) */
    /* Delassus value of the sliding direction at the step's last contact problem (exact
     * contacts): the sliding velocity per unit friction force over the step, divided by
     * gamma' h, from the factorized iteration matrix (1 / kg: the inverse of the effective
     * mass the friction drives, the slider with all it is coupled to); 0 before a step */
    double minv;
    /* Coulomb: sliding velocity at the last two accepted states (vh[0] at t_n, vh[1] at
     * t_n - hh; nvh of them known) for locating a stop inside a step (contact_stepctl.c
     * fmb_sim_contact_stop_control) */
    double vh[2], hh;
    int nvh;
    /* Coulomb at a located switch's restart (restart.c, > 0 only there): a contact at rest
     * holds v / tau_rest + dv/dt at zero, as a switching element's stuck rows
     * (v / tau + D qdd, tau = 1e-3 h), so that parallel stuck frictions agree on a
     * round-off v; 0: dv/dt (the start) */
    double tau_rest;
} fmb_contact_t;

/* LuGre with backward Euler for z over a step h from z_n at velocity v:
 *   z = (z_n + h v) / (1 + h sigma0 |v| / g(v)),  zdot = (z - z_n) / h,
 *   mu = sigma0 z + sigma1 zdot + sigma2 v;  also d mu / d v (fmb_lugre_step). */
void fmb_lugre_update(fmb_contact_t *c, double v, double h);

/* Sliding direction e (inertial), the relative sliding velocity, and the guide point under
 * the slider (guide body frame). */
void fmb_contact_kinematics(const fmb_joint_t *j, const fmb_bodyview_t v[2], double e[2],
                            double *vt, double ug[2]);

/* Net corner normal forces N_l = F_l+ - F_l- as a linear map of the joint multipliers:
 * N = S lambda_j, S is 2 x nrows (column-major). From the joint's reaction on the slider
 * (force F, moment M about the slider point): F_n = F . n, N1 = (F_n - M/a)/2,
 * N2 = (F_n + M/a)/2. */
void fmb_contact_normal_map(const fmb_contact_t *c, const fmb_joint_t *j, const fmb_bodyview_t v[2],
                            double *S);

/* Element columns of a contact (model.h): the joint's columns plus the shape columns of
 * the slider point, the guide point under it and the four face points, so that every
 * block below is on them (nl = v[0].nc + v[1].nc rows). Views need state (q, qd). */
void fmb_contact_cols(const fmb_contact_t *c, const fmb_joint_t *j, fmb_bodyview_t v[2]);

/* Generalized friction forces per unit corner force with the current mu: column k of the
 * nl x 4 block is the force -mu e applied at corner k's face point (slider)
 * and +mu e on the guide at the same place. */
void fmb_contact_columns(const fmb_contact_t *c, const fmb_joint_t *j, const fmb_bodyview_t v[2],
                         double *cols);

/* Velocity tangent of the friction forces at corner forces F: dQ_f/dqd, block
 * nl x nl added to C (through d mu / d v only); nothing for a contact whose law is solved
 * exactly in the contact problem (c->exact). */
void fmb_contact_tangent(const fmb_contact_t *c, const fmb_joint_t *j, const fmb_bodyview_t v[2],
                         const double *F, double *C);

/* Coulomb: generalized forces of unit friction forces at the lower face (+e, -e on the
 * slider; the opposite on the guide) and at the upper face (+e, -e); block
 * nl x 4. */
void fmb_contact_beta_columns(const fmb_contact_t *c, const fmb_joint_t *j,
                              const fmb_bodyview_t v[2], double *cols);

/* Row of d(sliding velocity)/d(qd) on the contact's columns (length nl). */
void fmb_contact_velocity_row(const fmb_joint_t *j, const fmb_bodyview_t v[2], double *D);

/* Signed friction force on the slider along e (N) and its split over the corners (the
 * corner shares are mu F_k for LuGre; for Coulomb proportional to F_k). */
double fmb_contact_friction(const fmb_contact_t *c, double per_corner[FMB_CORNERS]);

/* Power of the friction forces on both bodies, W: each corner's force at its face points
 * times their relative velocity along e (not the centre's v: on a curved guide the faces,
 * +-b across it, slide at v (1 -+ b kappa)). Views with the contact's columns and qd. */
double fmb_contact_friction_power(const fmb_contact_t *c, const fmb_joint_t *j,
                                  const fmb_bodyview_t v[2]);

/* Contact mode from the corner forces (threshold: tiny relative to the largest). */
int fmb_contact_mode(const double F[FMB_CORNERS]);

#endif

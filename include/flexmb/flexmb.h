/*
 * flexmb: planar flexible multibody dynamics.
 *
 * This header is the whole public API. It includes no SuiteSparse, HDF5, libyaml
 * or libmatheval header. Units are SI everywhere: m, kg, s, N, rad.
 *
 * Sign conventions (see docs/theory.md):
 *   - angles are counter-clockwise positive, measured from the inertial x axis;
 *   - the equations of motion are  M qdd + Phi_q^T lambda = Q  (lambda is the
 *     Lagrange multiplier; the constraint force on the bodies is -Phi_q^T lambda);
 *   - a joint's reaction is the force and moment that the joint exerts ON each of
 *     its bodies, in inertial axes, at the joint point.
 *
 * Ownership: the caller owns what fmb_*_create returns and releases it with the
 * matching fmb_*_destroy(T **p), which accepts NULL and sets *p to NULL.
 * Every function that can fail returns an fmb_status (0 ok, negative error) or a
 * negative value; the object involved then carries the message (fmb_*_last_error).
 */
#ifndef FLEXMB_FLEXMB_H
#define FLEXMB_FLEXMB_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FMB_VERSION_MAJOR 0
#define FMB_VERSION_MINOR 1
#define FMB_VERSION_PATCH 0
#define FMB_VERSION_STRING "0.1.0"

/* ---------------------------------------------------------------- status */

/* X-macro list: name, value, message. 0 is success, errors are negative. */
#define FMB_STATUS_LIST(X)                                                                         \
    X(FMB_OK, 0, "success")                                                                        \
    X(FMB_ERR_NOMEM, -1, "out of memory")                                                          \
    X(FMB_ERR_ARG, -2, "invalid argument")                                                         \
    X(FMB_ERR_IO, -3, "input/output error")                                                        \
    X(FMB_ERR_PARSE, -4, "case file error")                                                        \
    X(FMB_ERR_EXPR, -5, "expression error")                                                        \
    X(FMB_ERR_MODEL, -6, "invalid model")                                                          \
    X(FMB_ERR_ASSEMBLY, -7, "initial configuration cannot be assembled")                           \
    X(FMB_ERR_SINGULAR, -8, "singular system matrix (redundant constraints?)")                     \
    X(FMB_ERR_CONVERGENCE, -9, "Newton iteration did not converge")                                \
    X(FMB_ERR_LINSOLVE, -10, "linear solver failure")                                              \
    X(FMB_ERR_INTERRUPTED, -11, "interrupted")                                                     \
    X(FMB_ERR_NOTFOUND, -12, "not found")                                                          \
    X(FMB_ERR_HDF5, -13, "HDF5 error")                                                             \
    X(FMB_ERR_NONFINITE, -14, "non-finite value (NaN or Inf) in the model")

#define FMB_STATUS_ENUM_(name, value, msg) name = value,
typedef enum fmb_status { FMB_STATUS_LIST(FMB_STATUS_ENUM_) } fmb_status;
#undef FMB_STATUS_ENUM_

/* Static message for a status code ("unknown status" for other values). */
const char *fmb_status_message(int status);
/* Program version string, e.g. "0.1.0". */
const char *fmb_version(void);

/* Messages that quote what the user gave: vsnprintf of the whole message into out (cap
 * bytes), its words longer than 160 characters shortened to their first and last 60
 * around "...", so that the cause after a long name or path still fits. */
void fmb_vformat(char *out, size_t cap, const char *fmt, va_list ap);
/* Open the regular file at path for reading, refused when larger than max bytes; a FIFO,
 * device or directory is refused without waiting. Returns the stream, or NULL with *err
 * an errno value and *why a reason ("not a regular file", ...) or NULL when strerror(*err)
 * says it. */
FILE *fmb_open_regular(const char *path, size_t max, int *err, const char **why);

/* ---------------------------------------------------------------- model */

typedef struct fmb_model fmb_model_t;

/* Index of the ground body; it has no coordinates. */
#define FMB_GROUND 0

typedef struct fmb_body_desc {
    const char *name;
    double mass;     /* kg, > 0 */
    double inertia;  /* kg m^2 about the centre of mass, > 0 */
    double com[2];   /* centre of mass in the body frame, m */
    double pose[3];  /* initial x, y (inertial, of the body-frame origin), angle */
    double vel[3];   /* initial xdot, ydot (inertial, of the origin), angular velocity */
    int vel_given;   /* the case states vel: kept by the start projection when consistent */
    int line;        /* source line in the case file for messages, 0 if none */
    double block[2]; /* drawing only: a slider block's length (body x) and width (body y),
                        m, centred at com; 0 0: none (docs/output.md, visualization) */
} fmb_body_desc_t;

/* Elastic beam body: planar Euler-Bernoulli elements along the body x axis (axial +
 * bending, consistent mass), in the carrier-frame formulation (docs/theory.md 7). */
typedef enum fmb_beam_reference {
    FMB_BEAM_SIMPLY_SUPPORTED = 0, /* v = 0 at both end nodes, u = 0 at the first */
    FMB_BEAM_CANTILEVER,           /* u = v = phi = 0 at the first node */
    FMB_BEAM_REFERENCE_COUNT
} fmb_beam_reference;

/* Beam kinematics inside the body frame (docs/theory.md 7): linear (small deflections,
 * constant stiffness) or co-rotational (large deflections, small strains). */
typedef enum fmb_beam_geometry {
    FMB_BEAM_LINEAR = 0,
    FMB_BEAM_NONLINEAR,
    FMB_BEAM_GEOMETRY_COUNT
} fmb_beam_geometry;

/* Range of the linear beam model: deflections up to this fraction of the beam's length
 * (docs/theory.md section 7); `flexmb run` warns beyond it. */
#define FMB_BEAM_LINEAR_RANGE 0.05

typedef struct fmb_beam_desc {
    const char *name;
    double E;            /* Young's modulus, Pa */
    double rho;          /* density, kg/m^3 */
    double area;         /* cross-section area A, m^2 */
    double inertia;      /* second moment of area I, m^4 */
    double fibre;        /* c: distance from the neutral axis to the extreme fibre, m (> 0); 0:
                            not known (no bending stress) */
    double yield_stress; /* yield stress of the material, Pa (> 0); 0: not given */
    int nnodes;          /* node count (>= 2) */
    const double *x;     /* node positions along the body x axis, increasing, m */
    fmb_beam_reference reference;
    int rotary_inertia;                 /* add rho I to the mass (0: Euler-Bernoulli without it) */
    double damping_alpha, damping_beta; /* Rayleigh damping alpha Muu + beta K (0, 0) */
    fmb_beam_geometry geometry;         /* FMB_BEAM_LINEAR (0) unless set */
    double pose[3]; /* initial x, y, angle of the body frame (first node at x[0]) */
    double vel[3];  /* initial xdot, ydot of the origin, angular velocity */
    int vel_given;  /* as for fmb_body_desc_t */
    int line;
} fmb_beam_desc_t;

/* Add a beam body; returns its index or a negative status. */
int fmb_model_add_beam(fmb_model_t *model, const fmb_beam_desc_t *desc);
/* Beam queries (negative / 0 for rigid bodies). */
int fmb_model_body_is_beam(const fmb_model_t *model, int body);
int fmb_model_beam_num_nodes(const fmb_model_t *model, int body);
double fmb_model_beam_node_x(const fmb_model_t *model, int body, int node);
/* FMB_BEAM_LINEAR or FMB_BEAM_NONLINEAR (negative for rigid bodies). */
int fmb_model_beam_geometry(const fmb_model_t *model, int body);
/* Mode k (1-based) of the beam under its reference conditions as nodal values: shape
 * (3 per node: u, v, phi; 3 * nnodes values) scaled so that its largest nodal |v| is 1
 * and positive (|u| for an axial mode); its frequency in *omega (rad/s) if non-NULL.
 * Returns 0 or a negative status. */
int fmb_model_beam_mode_shape(fmb_model_t *model, int body, int k, double *shape, double *omega);
/* Initial elastic state of a beam (body frame, 3 per node: u, v, phi and their rates;
 * NULL = zero). The start keeps the elastic velocities exactly and corrects the
 * displacements only where joints demand it. Values on coordinates the reference
 * condition removes must be 0. Returns 0 or a negative status. */
int fmb_model_set_beam_initial(fmb_model_t *model, int body, const double *U, const double *Ud);
/* Natural frequencies (rad/s, ascending) of a beam body under its reference conditions:
 * K phi = omega^2 Muu phi. Writes up to nmax values; returns the count or negative. */
int fmb_model_beam_modes(fmb_model_t *model, int body, double *omega, int nmax);

/* Material and section of a beam body: E (Pa), rho (kg/m^3), area A (m^2), second moment
 * I (m^4), extreme-fibre distance c (m; 0 when not known), yield stress (Pa; 0 when not
 * given) and length (m, first to last node). */
typedef struct fmb_beam_props {
    double E, rho, A, I, c, yield_stress, length;
} fmb_beam_props_t;
/* Fills *props; returns 0 or FMB_ERR_ARG for a body that is not a beam. */
int fmb_model_beam_props(const fmb_model_t *model, int body, fmb_beam_props_t *props);

/* Friction in a translational joint (seed 000): a slider block of half-length a and
 * half-width b in its guide; corner normal forces F1+, F2+ (lower face), F1-, F2- (upper
 * face) from a linear complementarity problem in every Newton iteration. */
typedef struct fmb_friction_desc {
    /* the friction model by name, resolved through the friction registry: "lugre" (LuGre:
     * bristle state z, Stribeck curve), "coulomb" (Coulomb with static friction: stick
     * through complementarity); NULL or "none": frictionless */
    const char *model;
    double a, b;    /* block half-length (along the guide) and half-width, m */
    double mu, mu0; /* kinetic and static coefficients */
    double sigma0;  /* LuGre bristle stiffness, 1/m (per unit normal force) */
    double sigma1;  /* LuGre bristle damping, s/m */
    double sigma2;  /* LuGre viscous coefficient, s/m */
    double vs;      /* Stribeck velocity, m/s */
    double gamma;   /* Stribeck exponent */
    double vd;      /* LuGre: sigma1 decays as exp(-(v/vd)^2) (Canudas de Wit et al. 1995);
                       0 = constant sigma1 (seed 000) */
    double v_stick; /* |v| below which the slider counts as sticking, m/s; 0: the model's
                       default FMB_V_STICK_COULOMB / FMB_V_STICK_LUGRE. Used for the static
                       coefficient of the next step (coulomb), the breakaway step control
                       (lugre), the start (rest or sliding) and the output flag `stick` */
} fmb_friction_desc_t;

/* Default stick velocities (docs/case-format.md, "Stick velocity"), m/s (rad/s for a
 * rotational element). Set-valued Coulomb friction (slider `coulomb`, `dry_friction`
 * coulomb, `screw`) sticks at v = 0 to rounding, so its threshold only tells rest from
 * motion and is small: the static level holds until |v| exceeds it. LuGre friction (slider
 * and `dry_friction` lugre) creeps in presliding: its threshold tells presliding creep from
 * sliding, a fraction of the Stribeck velocity (seed 000: vs = 9e-4 m/s). */
#define FMB_V_STICK_COULOMB 1e-6
#define FMB_V_STICK_LUGRE 1e-4

#define FMB_JOINT_PARAMS 8
typedef struct fmb_joint_desc {
    const char *name;
    /* the joint class by name, resolved through the joint registry (docs/extending.md):
     * "revolute", "prismatic", "weld", "driver_angle" (theta_1 - theta_2 = f(t), body 2 may
     * be ground), "driver_x" / "driver_y" (x or y of point_1, inertial, = f(t)),
     * "slider_beam" (point_1 of body 1 slides along the elastic beam body 2), "gear" (a
     * gear pair: r1 theta_1 +- r2 theta_2 = phase);
     * `flexmb keys joints` lists the case-file types */
    const char *type;
    int body[2];        /* body indices; FMB_GROUND allowed for either */
    double point[2][2]; /* joint point in each body's frame, m (ground: inertial) */
    double axis[2];     /* prismatic: guide direction in body[1]'s frame (need not be unit);
                           (0, 0) means the x axis */
    double angle;       /* prismatic, weld: locked relative angle theta_1 - theta_2 (rad) */
    fmb_friction_desc_t friction; /* prismatic, slider_beam: model NULL = frictionless */
    const char *expr;             /* drivers: f(t) as an expression of t and the model parameters */
    int line;                     /* source line for messages */
    double param[FMB_JOINT_PARAMS]; /* storage of the class's own keys: set them by name with
                                       fmb_joint_desc_set / fmb_joint_desc_choose */
} fmb_joint_desc_t;

/* Revolute joint with clearance (seed 002; docs/theory.md "Revolute joints with clearance"):
 * a journal of radius R_J = bearing_radius - clearance centred at point[0] of body[0]
 * inside a bearing of radius bearing_radius centred at point[1] of body[1]. */
typedef enum fmb_clearance_law {
    FMB_CLEARANCE_WANG2016 = 0, /* seed eq 8: Liu's law x axial length + step-function damping */
    FMB_CLEARANCE_LANKARANI,    /* Lankarani-Nikravesh: K delta^n (1 + 3(1-e^2)/4 dd/dd-) */
    FMB_CLEARANCE_LINEAR,       /* linear viscoelastic: K delta + viscous ddelta (clamp >= 0
                                   unless unclamped) */
    FMB_CLEARANCE_LAW_COUNT
} fmb_clearance_law;

/* Damping of the normal force (the elastic part F_K from the law, K_N = dF_K/ddelta):
 *   STEP    F_K + STEP(delta, 0, 0, d_max, eta K_N) ddelta (seed eqs 9-10)
 *   LN      F_K (1 + 3 (1 - e^2) / 4 ddelta / v_imp)      (Lankarani & Nikravesh 1990)
 *   FLORES  F_K (1 + 8 (1 - e) / (5 e) ddelta / v_imp)    (Flores et al. 2011, any e)
 * (v_imp: normal rate before the impact, e: restitution); DEFAULT = the law's own: STEP for
 * WANG2016, LN for LANKARANI. */
typedef enum fmb_clearance_damping {
    FMB_CLEARANCE_DAMPING_DEFAULT = 0,
    FMB_CLEARANCE_DAMPING_STEP,
    FMB_CLEARANCE_DAMPING_LN,
    FMB_CLEARANCE_DAMPING_FLORES,
    FMB_CLEARANCE_DAMPING_COUNT
} fmb_clearance_damping;

typedef struct fmb_clearance_desc {
    fmb_clearance_law law;
    double clearance;      /* radial clearance c = R_B - R_J, m > 0 */
    double bearing_radius; /* R_B, m > clearance */
    double length;         /* axial length L, m > 0 (law WANG2016) */
    double modulus;        /* equivalent modulus E* = 1/((1-nu1^2)/E1 + (1-nu2^2)/E2), Pa */
    fmb_clearance_damping damping;
    double eta;         /* STEP damping: D_max = eta K_N (seed eq 10), s >= 0 */
    double d_max;       /* STEP damping: penetration of full damping (seed eq 9), m > 0 */
    double stiffness;   /* LANKARANI: K, N/m^n (0: Hertz (4/3) E* sqrt(R_B R_J / c));
                           LINEAR: K, N/m > 0 */
    double exponent;    /* LANKARANI: n > 0 (1.5) */
    double restitution; /* LN, FLORES damping: e in (0, 1] */
    double v_min;       /* LN, FLORES damping: floor of the impact velocity, m/s > 0 */
    double mu_s, mu_d;  /* friction (seed eq 13): static and dynamic coefficients >= 0 */
    double v_s, v_d;    /* threshold velocities, 0 < v_s < v_d, m/s */
    double viscous;     /* LINEAR: damping coefficient c, N s/m >= 0 */
    int unclamped;      /* LINEAR: 1 lets K delta + c ddelta pull (< 0) while separating */
} fmb_clearance_desc_t;

typedef struct fmb_force_desc {
    const char *name;
    /* the force class by name, resolved through the force registry (docs/extending.md):
     * "point" (fx(t), fy(t) in inertial axes at a body point), "torque" (tz(t) on a body),
     * "spring" (spring-damper between two points), "torsion" (between two bodies' angles),
     * "clearance" (revolute joint with radial clearance), and the switching elements of
     * docs/switching.md: "gap" (backlash), "dry_friction" (stick/slip), "ratchet" (one-way
     * drive), "screw" (lead screw with thread friction) */
    const char *type;
    int body[2];         /* point, torque: body[0]; spring: both */
    double point[2][2];  /* points in body frames */
    const char *expr[2]; /* point force: fx, fy; torque: expr[0]; expressions of t */
    double stiffness;    /* spring, N/m >= 0 */
    double damping;      /* spring, N s/m >= 0 */
    double rest_length;  /* spring, m >= 0; torsion: rest relative angle, rad; screw: rest
                            thread deflection L theta0 - s0 (m) */
    /* switching elements (docs/switching.md): relative coordinate x = theta0 - theta1
     * (FMB_REL_ROTATION) or x = e . (r_P0 - r_P1) along the inertial unit axis e
     * (FMB_REL_DIRECTION); the screw's nut moves along axis. */
    fmb_clearance_desc_t clearance; /* clearance joint: body[0] journal, body[1] bearing */
    int coordinate;
    double axis[2];
    double param[6]; /* storage of the class's own keys (docs/switching.md): set them by name
                        with fmb_force_desc_set / fmb_force_desc_choose */
    /* dry_friction: model "coulomb" (NULL means "coulomb": set-valued) or "lugre", with sigma0
     * (N/m or N m/rad), sigma1, sigma2 (N s/m or N m s/rad), vs (m/s or rad/s), gamma, vd
     * in the element's units; its Stribeck levels are its keys static, kinetic (mu, mu0,
     * a, b unused) */
    fmb_friction_desc_t friction;
    int line;
} fmb_force_desc_t;

/* Relative coordinate of a switching element. */
enum { FMB_REL_ROTATION = 0, FMB_REL_DIRECTION = 1 };

/* Create an empty model holding only the ground (body index 0, name "ground"). */
fmb_model_t *fmb_model_create(void);
void fmb_model_destroy(fmb_model_t **model);

/* Named parameter usable in every time expression (t is reserved). Setting an
 * existing name overrides its value. */
int fmb_model_set_param(fmb_model_t *model, const char *name, double value);
/* Gravity in inertial axes, m/s^2 (default 0, 0). */
void fmb_model_set_gravity(fmb_model_t *model, double gx, double gy);
/* Optional name shown in messages (e.g. the case file path). */
void fmb_model_set_source(fmb_model_t *model, const char *source);

/* Add items; return the new index (>= 0) or a negative fmb_status with the
 * message in fmb_model_last_error(). Body indices start at 1 (0 is ground). */
int fmb_model_add_body(fmb_model_t *model, const fmb_body_desc_t *desc);
int fmb_model_add_joint(fmb_model_t *model, const fmb_joint_desc_t *desc);
int fmb_model_add_force(fmb_model_t *model, const fmb_force_desc_t *desc);
/* A class's own keys by their case-file names (docs/case-format.md; `flexmb keys`), for the
 * description's type (set desc->type first): a number (n = 1) or a vector of n components,
 * or an enumeration by the name of its choice. They store the value where the case loader
 * would (the class's parameter storage, param[], included). 0, FMB_ERR_NOTFOUND for an
 * unknown type or key, FMB_ERR_ARG for a key of another kind, a wrong count or an unknown
 * choice. The values are checked against the key's bounds when the item is added. */
int fmb_joint_desc_set(fmb_joint_desc_t *desc, const char *key, const double *values, int n);
int fmb_joint_desc_choose(fmb_joint_desc_t *desc, const char *key, const char *choice);
int fmb_force_desc_set(fmb_force_desc_t *desc, const char *key, const double *values, int n);
int fmb_force_desc_choose(fmb_force_desc_t *desc, const char *key, const char *choice);

/* Lookup by name: index or FMB_ERR_NOTFOUND. */
int fmb_model_find_body(const fmb_model_t *model, const char *name);
int fmb_model_find_joint(const fmb_model_t *model, const char *name);

int fmb_model_num_bodies(const fmb_model_t *model); /* including ground */
int fmb_model_num_joints(const fmb_model_t *model);
int fmb_model_num_forces(const fmb_model_t *model);
int fmb_model_num_coords(const fmb_model_t *model);      /* generalized coordinates */
int fmb_model_num_constraints(const fmb_model_t *model); /* constraint equations */
const char *fmb_model_body_name(const fmb_model_t *model, int body);
const char *fmb_model_joint_name(const fmb_model_t *model, int joint);
const char *fmb_model_joint_type_name(const fmb_model_t *model, int joint);
int fmb_model_joint_rows(const fmb_model_t *model, int joint);
/* Bodies of a joint (for drawing and output). */
void fmb_model_joint_bodies(const fmb_model_t *model, int joint, int body[2]);
/* Named points of a body, body-frame coordinates (for drawing). */
int fmb_model_add_body_point(fmb_model_t *model, int body, const char *name, double x, double y);
int fmb_model_body_num_points(const fmb_model_t *model, int body);
int fmb_model_find_body_point(const fmb_model_t *model, int body, const char *name, double xy[2]);
void fmb_model_body_point(const fmb_model_t *model, int body, int k, double xy[2]);
const char *fmb_model_body_point_name(const fmb_model_t *model, int body, int k);
/* First coordinate index of a body and its coordinate count (3 for rigid). */
int fmb_model_body_offset(const fmb_model_t *model, int body);
int fmb_model_body_ndof(const fmb_model_t *model, int body);
/* A body's mass (kg) and its moment of inertia about its centre of mass (kg m^2); 0 for
 * ground or an invalid index. */
double fmb_model_body_mass(const fmb_model_t *model, int body);
double fmb_model_body_inertia(const fmb_model_t *model, int body);
/* A force's name and type ("point", "spring", ... from its class table), NULL for an
 * invalid index; its bodies (body[1] = -1 for a force that acts on one body). */
const char *fmb_model_force_name(const fmb_model_t *model, int force);
const char *fmb_model_force_type_name(const fmb_model_t *model, int force);
void fmb_model_force_bodies(const fmb_model_t *model, int force, int body[2]);

const char *fmb_model_last_error(const fmb_model_t *model);

/* ---------------------------------------------------------------- analysis */

typedef struct fmb_check_report {
    int num_coords;
    int num_constraints;
    int jacobian_rank;      /* at the assembled initial configuration */
    int dof;                /* num_coords - rank */
    int num_redundant;      /* num_constraints - rank */
    int redundant_rows[64]; /* first redundant constraint rows (global row index) */
    double max_violation;   /* after assembly */
} fmb_check_report_t;

/* Assemble the initial configuration and analyse the constraint Jacobian. */
int fmb_model_check(fmb_model_t *model, fmb_check_report_t *report);
/* Joint owning a global constraint row, and the row inside it. */
int fmb_model_row_joint(const fmb_model_t *model, int row, int *local_row);

/* ---------------------------------------------------------------- simulation */

typedef enum fmb_integrator {
    FMB_HHT = 0,              /* HHT-alpha (default) */
    FMB_NEWMARK = 1,          /* plain Newmark (beta, gamma) */
    FMB_GENERALIZED_ALPHA = 2 /* Chung-Hulbert generalized-alpha (rho_inf) */
} fmb_integrator;

/* Fill-reducing ordering of the sparse KKT factorization (UMFPACK). */
typedef enum fmb_ordering {
    FMB_ORDERING_AMD = 0, /* AMD/COLAMD (default; best for small mechanisms) */
    FMB_ORDERING_METIS,   /* METIS nested dissection (large meshes) */
    FMB_ORDERING_BEST     /* let UMFPACK try several and keep the best */
} fmb_ordering;

/* Sparse factorization of the KKT matrix (docs/performance.md). */
typedef enum fmb_linear_solver {
    FMB_LINEAR_KLU = 0, /* KLU: one analysis per run, refactorization in the loop (default) */
    FMB_LINEAR_UMFPACK  /* UMFPACK (uses `ordering`) */
} fmb_linear_solver;

/* How the run starts (docs/theory.md, "Consistent start"; docs/case-format.md). */
typedef enum fmb_start {
    FMB_START_RIGID = 0, /* elastic coordinates as given (default: undeformed and at rest
                            relative to the carrier frames) */
    FMB_START_STATIC     /* quasi-static: elastic coordinates in equilibrium with the
                            initial loads and the inertia of the initial rigid motion */
} fmb_start;

typedef struct fmb_sim_options {
    fmb_integrator integrator; /* default FMB_HHT */
    double alpha;              /* HHT alpha in [-1/3, 0]; default -0.05. Ignored by NEWMARK */
    double beta, gamma;        /* NEWMARK only; default 0.25, 0.5 */
    double rho_inf;            /* GENERALIZED_ALPHA spectral radius at infinity, [0, 1]; 0.8 */
    double h;                  /* time step, s; default 1e-3 */
    double t_end;              /* end time, s; default 1 */
    int output_every;          /* record every k-th step; default 1 */
    int max_newton;            /* default 25 */
    double rtol, atol;         /* Newton increment tolerances on q; default 1e-10, 1e-12 */
    double phi_tol;            /* constraint violation tolerance, m or rad; default 1e-11 */
    int halving;               /* max step halvings on Newton failure; default 4 (0: none) */
    fmb_ordering ordering;     /* default FMB_ORDERING_AMD (UMFPACK only; KLU uses AMD) */
    fmb_linear_solver linear_solver; /* default FMB_LINEAR_KLU */
    int reuse_jacobian;              /* 1: modified Newton within a step while it contracts fast
                                        (about 2x faster on beams; the multipliers then converge
                                        linearly, ~1e-7 relative); default 0: full Newton */
    /* Step-size control (docs/theory.md, "Local error estimate and step control"). The
     * local error estimate of every step is compared with rtol_step, atol_step in both
     * modes: adaptive runs choose h from it, fixed-step runs report the worst excess
     * (fmb_sim_step_warning). Records are at k * h * output_every in both modes, or at
     * k * output_dt when that is given. */
    int adaptive;     /* 1: choose the step from the error estimate; default 0 */
    double rtol_step; /* relative tolerance of the error estimate; default 1e-3 */
    double atol_step; /* absolute tolerance, m or rad; default 1e-6 */
    double h_min;     /* smallest step before failing (adaptive); 0: 1e-12 t_end */
    double h_max;     /* largest step (adaptive); 0: the record interval */
    int viz_every;    /* visualization frame every k-th record (docs/output.md);
                         default 0: automatic, at most viz_frames frames */
    int viz_frames;   /* frame budget of the automatic spacing; default 1000;
                         0: no visualization output (no /viz, no .xmf) */
    fmb_start start;  /* default FMB_START_RIGID */
    double output_dt; /* record interval in time, s (> 0): records at t0 + k output_dt
                         whatever the steps (fixed steps end on them as well;
                         adaptive steps stay <= h_max, or h when h_max is 0);
                         default 0: records by output_every */
    int compress;     /* results datasets: 1 compressed losslessly (byte shuffle + deflate), 0
                         uncompressed, -1 (default) compressed when the run's results would
                         take more than FMB_COMPRESS_AUTO_BYTES uncompressed */
} fmb_sim_options_t;
/* compress -1: the uncompressed size (estimated) above which results are compressed: a
 * small file gains little and compression costs CPU at every record (docs/output.md) */
#define FMB_COMPRESS_AUTO_BYTES (64.0 * 1024 * 1024)

void fmb_sim_options_default(fmb_sim_options_t *opts);

typedef struct fmb_sim fmb_sim_t;

typedef struct fmb_sim_stats {
    long steps;             /* accepted steps */
    long newton_iterations; /* total */
    long factorizations;    /* numeric factorizations */
    long symbolic;          /* symbolic analyses */
    long halvings;          /* step halvings (failed tries: Newton, singular, non-finite) */
    double max_violation;   /* over all accepted steps */
    long rejected_error;    /* steps rejected by the error estimate (adaptive) */
    long rejected_event;    /* steps rejected by an element's step control */
    double h_min_used;      /* smallest accepted step (0 before the first) */
    double h_max_used;      /* largest accepted step */
    double max_error;       /* largest error-estimate ratio of an accepted step (1: at the
                               tolerance); adaptive runs: of the steps accepted on it
                               (<= 1), not of those the jump rule accepted (below) */
    double max_error_time;  /* end time of that step */
    int max_error_coord;    /* global coordinate where it was largest (-1: none) */
    long restarts;          /* restarts at constraint kinks (adaptive; a slider crossing a
                               guide element's end) and after located switches of
                               switching elements (fixed and adaptive; docs/switching.md) */
    /* Adaptive: steps accepted with a ratio above 1 under the jump rule (an acceleration
     * jump: the ratio fell only like h on rejection; docs/theory.md "Local error estimate
     * and step control"): their number, the largest one-time error r h / t_span in units of
     * the tolerance (<= 1 by the rule), that step's ratio r, end time and coordinate. */
    long jump_steps;
    double jump_error;
    double jump_ratio;
    double jump_time;
    int jump_coord; /* -1: none */
    /* Sum over the accepted steps of the step's largest ratio times h / t_span: the local
     * errors accumulated over the run in units of the tolerance (a bound of the global error
     * while the dynamics do not amplify it; the fixed-step warning's criterion). */
    double error_sum;
} fmb_sim_stats_t;

/* The simulation holds a pointer to the model, which must outlive it. */
fmb_sim_t *fmb_sim_create(fmb_model_t *model, const fmb_sim_options_t *opts);
void fmb_sim_destroy(fmb_sim_t **sim);
/* Consistent start: assemble poses on Phi = 0, project velocities, solve for
 * accelerations and multipliers. */
int fmb_sim_initialize(fmb_sim_t *sim);
/* After the start: how much the projection changed a body's given initial velocity
 * (inertial xdot, ydot of the origin, angular velocity: projected minus given). Returns 1
 * for a body whose velocity the case gave, 0 otherwise (dv zero), negative if invalid. */
int fmb_sim_start_velocity_change(const fmb_sim_t *sim, int body, double dv[3]);
/* Modes of the mechanism linearized at the current state (initializes the simulation when
 * needed): K dq = omega^2 M dq restricted to Phi_q dq = 0, with K = d(M qdd + F)/dq at the
 * frozen velocities, accelerations and multipliers (docs/theory.md, "Mechanism modes").
 * Up to nmax angular frequencies (rad/s, ascending; -sqrt(-lambda) for an unstable
 * direction) into omega; when shapes is non-NULL, the mode shapes as its columns
 * (fmb_model_num_coords rows, column-major, unit modal mass); when share is non-NULL, each
 * body's share of the modal kinetic energy (fmb_model_num_bodies rows per mode, ground 0,
 * summing to 1). *asym (may be NULL): relative asymmetry of K, zero for a conservative
 * system at rest. Returns the number of modes or a negative status (message in
 * fmb_sim_last_error). */
int fmb_sim_modes(fmb_sim_t *sim, int nmax, double *omega, double *shapes, double *share,
                  double *asym);
/* Fastest mode of the same linearized system (initializes the simulation when needed):
 * the largest omega (rad/s) of K x = omega^2 M x on Phi_q x = 0 by power iteration with the
 * sparse mass matrix (docs/theory.md, "Fastest mode"), without the dense solve of
 * fmb_sim_modes; *coordinate (may be NULL): the coordinate with the largest share of that
 * mode's kinetic energy (fmb_sim_coord_name names it); *iterations (may be NULL). Returns 0
 * or a negative status. The failure message of a step that cannot be completed quotes it. */
int fmb_sim_fastest_mode(fmb_sim_t *sim, double *omega_max, int *coordinate, int *iterations);
/* Write n modes (from fmb_sim_modes, shapes required) as a results file that ParaView
 * opens like a run (docs/output.md, "Mode files"): record k (time = k, the mode number) is
 * the configuration displaced by mode k scaled so that its largest coordinate change is
 * `amplitude` times the mechanism's size (the largest |rbar|, at least 1 m); /modes holds
 * omega (rad/s), shapes [n x ncoords] (unit modal mass) and energy_share [n x nbodies]. */
int fmb_sim_write_modes(fmb_sim_t *sim, const char *path, int n, const double *omega,
                        const double *shapes, const double *share, double amplitude, char *err,
                        size_t errlen);
/* Fixed-step runs whose error estimate exceeded the tolerance: writes a warning naming
 * the worst time and coordinate and a step that meets the tolerance, returns 1; 0 when
 * the estimate stayed within the tolerance. Adaptive runs of at least 10,000 steps whose
 * mean step was below 1e-3 of the largest allowed (h_max): writes advice naming the
 * coordinate that limited most of the steps the error estimate sized or rejected (a
 * lightly damped vibration followed in phase) and the remedies, returns 1; else 0. */
int fmb_sim_step_warning(const fmb_sim_t *sim, char *msg, size_t len);
/* Name of global coordinate i, e.g. "body 'crank' angle" (buf of len bytes). */
const char *fmb_sim_coord_name(const fmb_sim_t *sim, int i, char *buf, size_t len);
/* Advance one step of size opts.h (with internal halving if allowed). */
int fmb_sim_step(fmb_sim_t *sim);
const char *fmb_sim_last_error(const fmb_sim_t *sim);
/* Case-file line of the joint the last error is about (0 if none). */
int fmb_sim_last_error_line(const fmb_sim_t *sim);
void fmb_sim_get_stats(const fmb_sim_t *sim, fmb_sim_stats_t *stats);
const fmb_sim_options_t *fmb_sim_options(const fmb_sim_t *sim);
fmb_model_t *fmb_sim_model(const fmb_sim_t *sim);
/* The coefficients of the integrator's update formulas, from the options (docs/theory.md
 * section 4): alpha_m, alpha_f, beta and gamma of the generalized-alpha family
 * (Chung-Hulbert form; HHT: alpha_m = 0, alpha_f = -alpha; Newmark: alpha_m = alpha_f = 0). */
void fmb_sim_integrator_coefficients(const fmb_sim_t *sim, double *am, double *af, double *beta,
                                     double *gamma);

/* State access (valid after initialize). Arrays of num_coords / num_constraints. */
double fmb_sim_time(const fmb_sim_t *sim);
const double *fmb_sim_q(const fmb_sim_t *sim);
const double *fmb_sim_qd(const fmb_sim_t *sim);
const double *fmb_sim_qdd(const fmb_sim_t *sim);
const double *fmb_sim_lambda(const fmb_sim_t *sim);
int fmb_sim_last_newton_iterations(const fmb_sim_t *sim);
/* Inertial x, y, angle of a body frame. */
void fmb_sim_body_pose(const fmb_sim_t *sim, int body, double pose[3]);
/* Inertial position of a body-frame point. */
void fmb_sim_body_point(const fmb_sim_t *sim, int body, const double u[2], double r[2]);
/* Reaction of a joint: Fx, Fy, Mz on body[0], then on body[1]; inertial axes, at the
 * joint point of each body. Joint indices are range-checked: an invalid one gives NaN
 * (reaction, violation), 0 outputs and NULL names. */
void fmb_sim_joint_reaction(const fmb_sim_t *sim, int joint, double out[6]);
/* The same reaction in other axes: FMB_AXES_JOINT, both in the joint frame (the axes of the
 * joint's first body, inertial when that is the ground); FMB_AXES_BODY, each on its own
 * body's axes (seed 003's "joint (body) axes"). Moments are unchanged (planar). */
typedef enum fmb_axes { FMB_AXES_INERTIAL, FMB_AXES_JOINT, FMB_AXES_BODY } fmb_axes;
void fmb_sim_joint_reaction_axes(const fmb_sim_t *sim, int joint, fmb_axes axes, double out[6]);
/* The same from the joint's inertial reaction `in` already at hand (fmb_sim_joint_reaction
 * at the current state): out = fmb_sim_joint_reaction_axes's values bitwise without
 * evaluating the joint again (in and out may be the same array). */
void fmb_sim_reaction_in_axes(const fmb_sim_t *sim, int joint, fmb_axes axes, const double in[6],
                              double out[6]);
/* Drivers: the name of the generalized force the driver applies ("drive_torque" for an
 * angle driver, "drive_force" for x/y drivers) and its column in the reaction (the
 * component on the driven body 1), or NULL for joints that drive nothing. */
const char *fmb_model_joint_drive(const fmb_model_t *model, int joint, int *column);
/* Drivers: the prescribed function's rate f'(t) and acceleration f''(t) at time t (rad/s
 * and rad/s^2 for angle drivers, m/s and m/s^2 for x / y drivers). Returns 0, or
 * FMB_ERR_ARG for a joint that is not a driver. */
int fmb_model_joint_drive_rate(const fmb_model_t *model, int joint, double t, double *rate,
                               double *accel);
/* Max |Phi| over the joint's rows at the current state. */
double fmb_sim_joint_violation(const fmb_sim_t *sim, int joint);
/* Beam nodes: inertial x, y and the transverse elastic displacement v of each node
 * (nnodes entries each). */
void fmb_sim_beam_state(const fmb_sim_t *sim, int body, double *x, double *y, double *v);
/* Section forces and stresses at a beam's nodes at the current state (docs/theory.md
 * section 7, "Section forces and stress"): axial force N (N, tension positive) and bending
 * moment M (N m, positive when the axis curves towards the body's +y), one per node
 * (nnodes entries each), and when stress is non-NULL 3 per node: axial stress N/A, bending
 * stress M c/I (the -y fibre's share; the +y fibre has -M c/I) and the combined stress
 * |N/A| + |M| c/I, the largest |sigma| of the two extreme fibres (Pa). Each node takes the
 * end of its adjacent element with the larger combined stress (larger |M| when c is not
 * known; then bending and combined are NaN). Any output may be NULL. Returns 0 or
 * FMB_ERR_ARG for a body that is not a beam. */
int fmb_sim_beam_stress(const fmb_sim_t *sim, int body, double *N, double *M, double *stress);
/* Extra joint outputs (e.g. a slider's axial position s and element index): count, the
 * output group ("sliders") and names; values at the current state. */
int fmb_model_joint_num_outputs(const fmb_model_t *model, int joint);
const char *fmb_model_joint_output_group(const fmb_model_t *model, int joint);
const char *fmb_model_joint_output_name(const fmb_model_t *model, int joint, int k);
void fmb_sim_joint_outputs(const fmb_sim_t *sim, int joint, double *values);
/* Extra outputs of forces by index (0 .. fmb_model_num_forces - 1) (clearance joints: eccentricity
 * [2], penetration, normal_force, friction_force, contact; docs/output.md). The group is the HDF5
 * path without the leading '/' (e.g. "joints/B/clearance"); output k has width columns. */
int fmb_model_force_num_outputs(const fmb_model_t *model, int force);
int fmb_model_force_output_group(const fmb_model_t *model, int force, char *buf, size_t len);
const char *fmb_model_force_output_name(const fmb_model_t *model, int force, int k);
int fmb_model_force_output_width(const fmb_model_t *model, int force, int k);
/* All outputs of the force in order (sum of the widths values). */
void fmb_sim_force_outputs(const fmb_sim_t *sim, int force, double *values);

/* Frictional sliding joint state (FMB_ERR_NOTFOUND for a joint without friction):
 * corner normal forces F1+, F2+, F1-, F2- (N, >= 0), the friction force magnitude carried
 * by each corner (mu F_k, N; sign: positive opposes positive sliding), contact mode
 * (0 none, 1 single point, 2 single face, 3 diagonal), LuGre bristle state z and the
 * sliding velocity of the slider relative to the guide (m/s). Any pointer may be NULL. */
int fmb_sim_contact_state(const fmb_sim_t *sim, int joint, double normal[4], double friction[4],
                          int *mode, double *z, double *v);
int fmb_model_joint_has_friction(const fmb_model_t *model, int joint);

/* Switching elements (gap, dry_friction, ratchet, screw forces; docs/switching.md): is
 * force f one (1/0), the name of its mode code (NULL if out of range), and its state after
 * the start or the last step: mode code, force along its coordinate (N or N m; screw:
 * axial thread force on the nut) and relative velocity (m/s or rad/s; screw: sliding
 * velocity along the helix). FMB_ERR_NOTFOUND for another force. */
int fmb_model_force_is_switching(const fmb_model_t *model, int force);
const char *fmb_model_force_mode_name(const fmb_model_t *model, int force, int mode);
int fmb_sim_switch_state(const fmb_sim_t *sim, int force, int *mode, double *force_along,
                         double *vrel);

/* kinetic, potential, work of applied forces and drivers, total = T + V - W */
#define FMB_ENERGY_COLUMNS 4
void fmb_sim_energy(const fmb_sim_t *sim, double e[FMB_ENERGY_COLUMNS]);

/* Run to opts.t_end, calling observer after initialization and after every
 * recorded step; a non-zero return from observer stops the run with that code.
 * *stop, when non-NULL, is polled every step (set it from a signal handler). */
typedef int (*fmb_observer_fn)(fmb_sim_t *sim, void *user);
int fmb_sim_run(fmb_sim_t *sim, fmb_observer_fn observer, void *user, volatile const int *stop);

/* ---------------------------------------------------------------- case files */

typedef struct fmb_case fmb_case_t;

/* Load a YAML case file. overrides: "name=value" strings replacing parameters
 * (n may be 0). On failure returns NULL and, if err is non-NULL, writes a message
 * "FILE:LINE:COL: problem" into err (errlen bytes). */
fmb_case_t *fmb_case_load(const char *path, const char *const *overrides, int n, char *err,
                          size_t errlen);
/* The same from a case text held in memory (len bytes); name stands for
 * the file in messages, and relative paths in the case (meshes, outputs) are taken
 * relative to its directory. */
fmb_case_t *fmb_case_load_text(const char *name, const char *text, size_t len,
                               const char *const *overrides, int n, char *err, size_t errlen);
void fmb_case_destroy(fmb_case_t **c);
fmb_model_t *fmb_case_model(fmb_case_t *c);
const fmb_sim_options_t *fmb_case_options(const fmb_case_t *c);
const char *fmb_case_text(const fmb_case_t *c); /* the whole case file text */
const char *fmb_case_path(const fmb_case_t *c);
/* Output file named in the case (may be NULL), relative to the working directory; `flexmb
 * run` refuses it when it is an input or a file flexmb did not write (docs/output.md). */
const char *fmb_case_output(const fmb_case_t *c);
/* The files the case read: k = 0 the case file itself, then every mesh (paths as opened). */
int fmb_case_num_inputs(const fmb_case_t *c);
const char *fmb_case_input(const fmb_case_t *c, int k);
/* The case's parameters after overrides, in the file's order: count, k-th name, value by
 * name (0 and *value set, or FMB_ERR_NOTFOUND). */
int fmb_case_num_params(const fmb_case_t *c);
const char *fmb_case_param_name(const fmb_case_t *c, int k);
int fmb_case_param(const fmb_case_t *c, const char *name, double *value);
/* The case's variant groups (section `variants`: named sets of parameter values, chosen
 * with an override GROUP=NAME; docs/case-format.md): count, k-th group's name, and a
 * group's variant names, comma-separated in the file's order (NULL: no such group). */
int fmb_case_num_variant_groups(const fmb_case_t *c);
const char *fmb_case_variant_group(const fmb_case_t *c, int k);
const char *fmb_case_variants(const fmb_case_t *c, const char *group);

/* The case keys of the item types, from their classes' tables (docs/extending.md; `flexmb
 * keys`): section "joints", "forces" or "friction" (friction models); type NULL lists the
 * section's types, one per line; else one line per key, tab-separated:
 *   key, kind, unit, required | default X | optional, bounds or choices, description.
 * Writes at most len bytes of the text (NUL-terminated when len > 0) and returns the length
 * of the whole text (as snprintf), FMB_ERR_NOTFOUND for an unknown section or type. */
int fmb_case_keys(const char *section, const char *type, char *buf, size_t len);

/* ---------------------------------------------------------------- output */

typedef struct fmb_writer fmb_writer_t;

/* Create an HDF5 results file (and the XDMF sidecar path with .xmf); case_text
 * may be NULL. Writes the static layout; records nothing yet. */
fmb_writer_t *fmb_writer_create(const char *h5path, const fmb_sim_t *sim, const char *case_text,
                                char *err, size_t errlen);
/* Append the current state of sim as one time record; flushes every few records. */
int fmb_writer_append(fmb_writer_t *w, const fmb_sim_t *sim);
/* Flush the HDF5 file and rewrite the XDMF sidecar for the records so far. */
int fmb_writer_flush(fmb_writer_t *w);
/* Flush, write the XDMF sidecar, close. Accepts NULL. */
void fmb_writer_destroy(fmb_writer_t **w);
long fmb_writer_records(const fmb_writer_t *w);
/* The /energy row of the last record appended (kinetic, potential, work, total); 0, or
 * FMB_ERR_ARG before the first record. */
int fmb_writer_last_energy(const fmb_writer_t *w, double e[FMB_ENERGY_COLUMNS]);
/* Message of the writer's last failure ("" if none). */
const char *fmb_writer_last_error(const fmb_writer_t *w);
/* Before a run: is there disk room for nrecords records (with a margin for HDF5's
 * chunk and metadata overhead)? 0, or FMB_ERR_IO with the sizes in the message. */
int fmb_writer_check_room(fmb_writer_t *w, double nrecords);
/* Provenance: the case's evaluated parameters (/parameters: one attribute per parameter,
 * and `_names`, their names in the file's order) and the command-line overrides
 * "NAME=VALUE" (/parameters@_overrides, empty when none), the case path (root attribute
 * `case_path`). */
int fmb_writer_provenance(fmb_writer_t *w, const fmb_case_t *c, const char *const *overrides,
                          int noverrides);
/* Run statistics as attributes of /solver/statistics (steps, newton_iterations,
 * factorizations, symbolic, halvings, max_violation, wall_time, records, status: "complete",
 * "interrupted" or "failed"); call before fmb_writer_destroy. */
int fmb_writer_statistics(fmb_writer_t *w, const fmb_sim_t *sim, double wall_time,
                          const char *status);
/* Is path an HDF5 file written by flexmb (root attribute creator = "flexmb")? 1 yes, 0 no
 * (another file), -1 it does not exist. */
int fmb_results_file_kind(const char *path);
/* A 2-D dataset name [rows x cols] of doubles (row-major) under group (created if needed),
 * for results that are not time series (mode shapes). */
int fmb_writer_matrix(fmb_writer_t *w, const char *group, const char *name, const double *v,
                      long rows, long cols);

#ifdef __cplusplus
}
#endif
#endif

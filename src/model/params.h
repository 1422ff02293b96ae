/*
 * Parameter descriptors: how a joint, force or friction-model class describes its own case
 * keys (docs/extending.md). A class lists its keys in a const table of
 * fmb_param_t; the case loader (src/io/case_class.c) walks the table for every item:
 *
 *   1. the mapping may hold only the common keys (name, type, the body keys the class's
 *      item flags ask for, its variant key) and the table's keys; an unknown key is an
 *      error naming the keys the class accepts, the nearest one, and the types it
 *      belongs to if it is another type's key;
 *   2. each key is read by kind into the item's description (fmb_joint_desc_t,
 *      fmb_force_desc_t or fmb_friction_desc_t) at `offset`, or gets its default, and is
 *      checked against its bounds at the key (message "FILE:LINE:COL: ctx: 'key' must be
 *      > 0, got -1");
 *   3. the class's prepare(env, desc) runs: cross-key rules and defaults that need the
 *      initial poses (a rest length, a locked angle). It blames a key with
 *      fmb_item_fail(env, "key", ...) and the loader reports that key's line.
 *
 * The model-level check of the class (k->check in model.h) still validates what library
 * users pass to fmb_model_add_*, and fmb_model_add_* then apply the table's bounds too
 * (model/params_check.c: a field left 0 is a default); prepare is the case-file layer
 * (defaults, key-level messages). Both must accept every description the other accepts.
 */
#ifndef FMB_MODEL_PARAMS_H
#define FMB_MODEL_PARAMS_H

#include <stddef.h>
#include <string.h>

#include "flexmb/flexmb.h"

typedef enum fmb_param_kind {
    FMB_PARAM_END = 0,  /* terminates a table ({0}) */
    FMB_PARAM_NUMBER,   /* double: a number or an expression of the case parameters */
    FMB_PARAM_VECTOR,   /* double[n] */
    FMB_PARAM_EXPR,     /* const char *: a time expression f(t, parameters), checked */
    FMB_PARAM_ENUM,     /* int (or double with FMB_PARAM_IN_DOUBLE): index in choices[] */
    FMB_PARAM_FRICTION, /* fmb_friction_desc_t: a mapping read by a friction-model class */
    FMB_PARAM_POINT     /* double[2]: a point name of the item's first body or [x, y] */
} fmb_param_kind;

enum fmb_param_flags {
    FMB_PARAM_REQUIRED = 1u << 0,
    FMB_PARAM_MIN = 1u << 1,       /* value >= lo (each component of a vector) */
    FMB_PARAM_MIN_OPEN = 1u << 2,  /* value > lo */
    FMB_PARAM_MAX = 1u << 3,       /* value <= hi */
    FMB_PARAM_MAX_OPEN = 1u << 4,  /* value < hi */
    FMB_PARAM_NONZERO = 1u << 5,   /* vector: not the zero vector */
    FMB_PARAM_UNIT = 1u << 6,      /* vector: normalized after reading */
    FMB_PARAM_IN_DOUBLE = 1u << 7, /* enum: the index is stored as a double */
    FMB_PARAM_DERIVED = 1u << 8,   /* the default is computed by prepare() (doc says how) */
    FMB_PARAM_NAME = 1u << 9       /* enum: the choice's name is stored (const char *) */
};

typedef struct fmb_param {
    const char *key;
    fmb_param_kind kind;
    unsigned flags;
    size_t offset;              /* field in the description (offsetof) */
    int n;                      /* VECTOR: number of components */
    double lo, hi;              /* bounds, as the flags say */
    double dflt[2];             /* NUMBER / VECTOR: value when the key is absent */
    const char *dflt_text;      /* EXPR: expression when absent; ENUM: choice when absent */
    const char *const *choices; /* ENUM: NULL-terminated names */
    const int *values;          /* ENUM: value stored for each choice (NULL: its index) */
    const char *unit;           /* SI unit for docs and messages ("m", "N/m", "rad", "-") */
    const char *doc;            /* one line for docs/case-format.md and `flexmb keys` */
} fmb_param_t;

/* Item flags: which body keys an item has (joint and force classes). */
enum fmb_item_flags {
    FMB_ITEM_BODIES = 1u << 0,     /* 'bodies: [b0, b1]' (b1 may be left out: ground when
                                      FMB_ITEM_ONE_OR_TWO) */
    FMB_ITEM_ONE_OR_TWO = 1u << 1, /* 'bodies' may hold one name (the other is ground) */
    FMB_ITEM_POINTS = 1u << 2,     /* 'points: [p0, p1]' (default [0, 0] each) */
    FMB_ITEM_BODY = 1u << 3,       /* 'body: b' (a single body; body[1] = body[0]) */
    FMB_ITEM_DISTINCT = 1u << 4,   /* the two bodies differ ("zero-length link" etc.) */
    FMB_ITEM_NOT_GROUND0 = 1u << 5, /* the first body is not the ground */
    FMB_ITEM_IN_JOINTS = 1u << 6    /* a force class also accepted under `joints:` (the
                                       clearance joint): built as a force */
};

/* What prepare() sees: the item's bodies as the case placed them, which keys were given,
 * and room for a failure. */
typedef struct fmb_item_env {
    const fmb_model_t *model;
    const char *name; /* the item's name */
    const char *ctx;  /* "joint 'name'" for messages */
    int body[2];      /* model body indices (FMB_GROUND = 0) */
    const char *body_name[2];
    double pose[2][3]; /* initial poses x, y, theta (ground: 0) */
    int beam[2];       /* 0 rigid body or ground, 1 elastic beam, 2 beam built rigid */
    const fmb_param_t *params;
    unsigned long long given; /* bit k: params[k] was in the case */
    /* failure (set by fmb_item_fail) */
    const char *fail_key; /* key to blame ("bodies", "points" or a table key), NULL: item */
    int fail_index;       /* entry of a sequence key (bodies, points), -1: the key */
    char msg[512];
} fmb_item_env_t;

/* 1 when the table key was given in the case. */
int fmb_item_given(const fmb_item_env_t *env, const char *key);
/* Record a failure blamed on key (entry index of a sequence key, or -1) and return
 * FMB_ERR_MODEL. The message should not repeat the item's context. */
int fmb_item_fail(fmb_item_env_t *env, const char *key, int index, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Inertial position of body b's point u at the initial pose. */
void fmb_item_point0(const fmb_item_env_t *env, int b, const double u[2], double r[2]);

/* Index of key in a table, or -1. */
int fmb_param_find(const fmb_param_t *params, const char *key);

/* ---- friction models (the 'friction' section of a sliding joint) ----------------------
 * One class per model (contact/friction_*.c), found by name; registry in
 * contact/friction_registry.c. The solver's contacts (contact/friction.h, fmb_contact_t;
 * solve/contact_step.c) walk the solver members and never test the model. */
struct fmb_contact; /* contact/friction.h */
struct fmb_joint;   /* model/model.h (params.h is included by it) */
struct fmb_bodyview;

/* The friction-model part of a contact LCP (solve/contact_step.c; docs/theory.md section 9).
 * Unknowns u of all contacts; this contact's start at u0 with its two upper-face corner
 * forces F1-, F2-, then its extra unknowns. Corner forces F+ of contact ic are
 * F+_l = sum_c P[2 ic + l + nf c] u_c + p0[2 ic + l]; the sliding velocity at the end of the
 * step is v = sum_c vrow[c] u_c + v0. lcp_rows fills the rows u0 + 2 .. of w = M z + q
 * (M nu x nu, column-major). */
typedef struct fmb_friction_lcp {
    int ic, u0, nu, nf;
    const double *P, *p0;
    const double *vrow;
    double v0;
    double *M, *q;
} fmb_friction_lcp_t;

typedef struct fmb_friction_class {
    const char *name; /* "lugre", "coulomb", "none": fmb_friction_desc_t.model */
    double v_stick; /* default stick velocity (v_stick = 0; flexmb.h FMB_V_STICK_*), m/s */
    const fmb_param_t *params; /* keys besides 'model' */
    /* Cross-key rules of the case layer (may be NULL). */
    int (*prepare)(fmb_item_env_t *env, fmb_friction_desc_t *f);
    /* Model-level validation (library users too): 0 or a negative status. */
    int (*check)(const fmb_friction_desc_t *f, char *msg, size_t len);
    /* ---- solver part (all optional) */
    /* State at the start (sliding velocity v), at the start of a step, and at every Newton
     * iterate (v over the step h): the friction coefficient mu (and dmu/dv) that the
     * corner columns carry. */
    void (*start)(struct fmb_contact *c, double v);
    void (*begin_step)(struct fmb_contact *c);
    void (*update)(struct fmb_contact *c, double v, double h);
    /* Set-valued friction solved in the LCP: extra force columns besides the 4 corner
     * forces (ncols_extra, filled by extra_columns over the two-body block), the unknown
     * (offset from u0) each column carries, extra unknowns per contact and their rows. */
    int ncols_extra, nunknowns_extra;
    const int *col_unknown;
    void (*extra_columns)(const struct fmb_contact *c, const struct fmb_joint *j,
                          const struct fmb_bodyview *v, double *cols);
    void (*lcp_rows)(const struct fmb_contact *c, const fmb_friction_lcp_t *lcp);
    /* The contact's unknowns after the LCP (u: from u0). */
    void (*decode)(struct fmb_contact *c, const double *u);
    /* Set-valued levels decided on the LCP's own solution (Coulomb: the static level holds a
     * slider at rest, a slider that slides has the kinetic level; docs/theory.md section 9):
     * pass 0 sets the level of the step's state before the first solve; pass > 0 looks at
     * the solution (u: the contact's unknowns from u0, v: the sliding velocity at the end of
     * the step) and returns 1 when it changed the level (the LCP is then solved again). */
    int (*level)(struct fmb_contact *c, int pass, const double *u, double v);
    /* An accepted state (after the step's last LCP): the model's state for the next step. */
    void (*accept)(struct fmb_contact *c);
    /* Friction force on the slider along e at face f (0 lower, 1 upper) of normal force Nf. */
    double (*face_force)(const struct fmb_contact *c, int face, double Nf);
    /* 1: a smooth law with a steep Stribeck slope around v = 0: the Newton increment is cut
     * at a reversal of the sliding velocity and adaptive runs control the breakaway. */
    int smooth;
    /* 1: a set-valued law whose stops inside a step are located (contact_stepctl.c
     * fmb_sim_contact_stop_control); its start and accept keep the contact's last accepted
     * sliding velocities (fmb_contact_t vh, hh, nvh) and its stuck flag. */
    int stops;
} fmb_friction_class_t;

/* The class of a model name (NULL, "" and "none": the "none" class), NULL if unknown. */
const fmb_friction_class_t *fmb_friction_class_for(const char *model);
/* 1 when the description names a friction model (not NULL, "" or "none"). */
static inline int fmb_friction_on(const fmb_friction_desc_t *d)
{
    return d->model && *d->model && strcmp(d->model, "none") != 0;
}
/* The stick velocity of a friction description: v_stick, or its model's default when 0. */
double fmb_friction_stick_velocity(const fmb_friction_desc_t *d);
/* k-th registered friction class (0 ..), NULL past the end. */
const fmb_friction_class_t *fmb_friction_class_at(int k);

#endif

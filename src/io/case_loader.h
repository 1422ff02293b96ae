/* Private interface of the YAML case loader, split by concern: case.c (document level,
 * public fmb_case_* accessors), case_yaml.c (YAML nodes, key checks, typed getters),
 * case_expr.c (expression checking and evaluation), case_params.c (parameters, solver),
 * case_bodies.c (bodies, points, beams), case_items.c (joints, forces), case_class.c (an
 * item's keys from its class's parameter table, model/params.h). */
#ifndef FMB_IO_CASE_LOADER_H
#define FMB_IO_CASE_LOADER_H

#include <stddef.h>

#include <yaml.h>

#include "io/case.h"
#include "model/params.h"

#define FMB_CASE_MAX_INPUTS 64
/* Parameters of a case (docs/case-format.md, "Limits"): their name lookups are linear, so
 * the load time grows with the square of the count (10,000: about 1 s). */
#define FMB_CASE_MAX_PARAMS 10000

#if defined(__GNUC__)
#define FMB_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define FMB_PRINTF(f, a)
#endif

struct fmb_case {
    char *path;
    char *text;
    char *title;
    char *output;
    fmb_model_t *model;
    fmb_sim_options_t opts;
    int nparam;
    char **pname; /* pool strings */
    double *pval;
    int nbodies, njoints, nforces;
    fmb_body_desc_t *bodies;
    fmb_joint_desc_t *joints;
    fmb_force_desc_t *forces;
    fmb_beam_desc_t *beams; /* per body (index body - 1); used when beam_kind != 0 */
    int *beam_kind;         /* per body: 0 rigid body, 1 beam, 2 beam built rigid */
    double **xs;            /* node position arrays owned by the case */
    int nxs;
    const char *inputs[FMB_CASE_MAX_INPUTS]; /* files read besides the case (pool strings) */
    int ninputs;
    int nvgroup;   /* variant groups (section variants) */
    char **vgroup; /* their names (pool strings) */
    char **vlist;  /* and their variants, comma-separated (pool strings) */
    char **pool; /* every string the case owns besides path/text */
    int npool, cappool;
};

typedef struct point {
    const char *name;
    double xy[2];
} point_t;

typedef struct body_info {
    const char *name;
    int index; /* model index */
    double pose[3];
    point_t *pts;
    int npts, cap_pts;
    int beam; /* 0 rigid body, 1 beam, 2 beam built as a rigid bar */
} body_info_t;

typedef struct loader {
    fmb_case_t *c;
    yaml_document_t doc;
    int have_doc;
    char *err;
    size_t errlen;
    int failed;
    body_info_t *binfo; /* [0] is ground */
    int nb;
    const yaml_node_t *params; /* the parameters mapping, NULL if none */
    const char *set_integrator, *set_ordering; /* --set integrator=NAME / ordering=NAME */
    const char *set_step;                      /* --set step=adaptive|fixed */
    const char *set_start;                     /* --set start=rigid|static */
    const yaml_node_t *variants;               /* the variants mapping, NULL if none */
    const char **xov;                          /* the overrides, variants expanded */
} loader_t;

/* ---- case_yaml.c */
/* Check that map is a mapping whose keys are scalars from allowed (NULL-terminated; NULL:
 * any key) and appear once. An unknown key's message lists the allowed ones and the
 * nearest. */
/* An unknown key of a {...} map that is the remnant of an earlier value cut at a comma
 * (an unquoted `tz: if(t < 1, T0, 0)`: YAML splits it into `tz: if(t < 1`, `T0`, `0)`):
 * 1 and a message naming the cut value and the remedy (quote it) in msg, else 0. */
int case_comma_cut(loader_t *L, const yaml_node_t *map, const yaml_node_t *key, char *msg,
                   size_t len);
int case_check_keys(loader_t *L, const yaml_node_t *map, const char *ctx,
                    const char *const allowed[]);
/* The candidate (NULL-terminated list) within typo distance of s, or NULL. */
const char *case_nearest(const char *s, const char *const *cands);
int case_fail(loader_t *L, const yaml_node_t *at, const char *fmt, ...) FMB_PRINTF(3, 4);
/* Value of key in a checked mapping; NULL if absent or null. */
yaml_node_t *case_get(loader_t *L, const yaml_node_t *map, const char *key);
/* true/false (also yes/no, on/off, 1/0), or an expression of the parameters (non-zero:
 * true). */
int case_get_bool(loader_t *L, const yaml_node_t *map, const char *key, const char *ctx, int *out);
int case_get_int(loader_t *L, const yaml_node_t *map, const char *key, const char *ctx, int min,
                 int *out);
/* Magnitudes of physical quantities (masses, inertias, stiffnesses, damping, lengths, ...):
 * 0 or between FMB_CASE_MAG_MIN and FMB_CASE_MAG_MAX in SI units, so that an absurd value
 * (1e308, 1e-300) is refused at its line instead of failing later for a wrong cause. */
#define FMB_CASE_MAG_MIN 1e-30
#define FMB_CASE_MAG_MAX 1e30
/* 0, or a message at v naming key and its value x when |x| is outside that range. */
int case_check_magnitude(loader_t *L, const yaml_node_t *v, const char *ctx, const char *key,
                         double x);
/* A positive number (required when `required`), within the magnitudes above. */
int case_get_positive(loader_t *L, const yaml_node_t *map, const char *key, const char *ctx,
                      int required, double *out, int *given);
int case_get_string(loader_t *L, const yaml_node_t *map, const char *key, const char *ctx,
                    int required, const char **out);
int case_is_ident(const char *s);
int case_is_null(const yaml_node_t *n);
const char *case_kind(const yaml_node_t *n);
/* A library error from fmb_model_add_*: prefixed with the item unless the model's
 * message already names it. */
int case_lib_fail(loader_t *L, const yaml_node_t *at, const char *ctx, const char *name);
/* Append ", name" entries to buf (bounded). */
void case_list_add(char *buf, size_t len, const char *name);
yaml_node_t *case_node_at(loader_t *L, int idx);
int case_nomem(loader_t *L, const yaml_node_t *at);
/* Copy s into the case's string pool; NULL on allocation failure. */
const char *case_pool_str(fmb_case_t *c, const char *s);
yaml_node_t *case_seq_item(loader_t *L, const yaml_node_t *n, int k);
int case_seq_len(const yaml_node_t *n);
const char *case_sval(const yaml_node_t *n);
char *case_xstrdup(const char *s);

/* ---- case_expr.c */
/* Evaluate text with the first nvis parameters. */
int case_eval_text(loader_t *L, const yaml_node_t *at, const char *ctx, const char *text, int nvis,
                   double *out);
int case_find_param(const fmb_case_t *c, const char *name);
/* Optional number; *out unchanged when absent. *given set when present. */
int case_get_num(loader_t *L, const yaml_node_t *map, const char *key, const char *ctx, double *out,
                 int *given);
int case_get_vec(loader_t *L, const yaml_node_t *map, const char *key, const char *ctx, int n,
                 double *out, int *given);
/* A constant or function name of the expressions cannot be a parameter. */
int case_reserved_name(const char *name);
/* A time expression f(t, parameters): checked, copied into the pool. */
int case_time_expr(loader_t *L, const yaml_node_t *map, const char *key, const char *ctx,
                   int required, const char *dflt, const char **out);
int case_vec_node(loader_t *L, const yaml_node_t *v, const char *ctx, const char *key, int n,
                  double *out);

/* ---- case_variants.c */
/* Check the variants section sec (NULL: none) against the parameters mapping and expand
 * the overrides ov: GROUP=NAME becomes the variant's PARAMETER=VALUE overrides in place.
 * *out (malloc'ed array, strings owned by ov or the case; NULL when sec is NULL) holds
 * *nout overrides. An unknown variant is an error naming the group's variants. */
int case_expand_variants(loader_t *L, const yaml_node_t *sec, const yaml_node_t *params,
                         const char *const *ov, int nov, const char ***out, int *nout);

/* ---- case_params.c */
int case_load_parameters(loader_t *L, const yaml_node_t *sec, const char *const *ov, int nov);
int case_load_solver(loader_t *L, const yaml_node_t *sec);

/* ---- case_bodies.c */
int case_find_body(loader_t *L, const char *name);
int case_load_body(loader_t *L, const yaml_node_t *m);

/* ---- case_beam_init.c */
/* The 'initial' mapping of a beam (modes and nodes) for model body `body` of nn nodes. */
int case_load_beam_initial(loader_t *L, const yaml_node_t *ini, const char *bctx, int body, int nn);

/* ---- case_class.c: items read from their class's parameter table (model/params.h) */
typedef struct case_item_class {
    const char *case_type, *variant_key, *variant;
    unsigned flags; /* FMB_ITEM_* */
    const fmb_param_t *params;
    const void *klass; /* the class table */
} case_item_class_t;
/* Read an item of one of the classes all[0..nall): its name (unique: exists() is 0), type
 * and variant, keys (only the chosen class's), bodies and points (into body, point; model
 * indices) and the table's keys into desc. env receives the item's bodies, poses and the
 * given keys for the class's prepare(). ctx: "what 'name'". */
int case_item_read(loader_t *L, const yaml_node_t *m, const char *what,
                   const case_item_class_t *all, int nall,
                   int (*exists)(const fmb_case_t *, const char *), const char **name, char *ctx,
                   size_t ctxlen, const case_item_class_t **chosen, int body[2], double point[2][2],
                   void *desc, fmb_item_env_t *env);
/* Read the keys of a parameter table from m into desc (bit k of *given: params[k] given). */
int case_read_params(loader_t *L, const yaml_node_t *m, const char *ctx, const fmb_param_t *params,
                     void *desc, int bi0, const fmb_item_env_t *env, unsigned long long *given);
/* Report the failure recorded by a prepare() at the node it blames. */
int case_item_fail(loader_t *L, const yaml_node_t *m, const char *ctx, const fmb_item_env_t *env);

/* ---- case_items.c */
/* Body named by scalar node n (loader index into *bi); point of loader body bi (a name or
 * [x, y]). */
int case_body_ref(loader_t *L, const yaml_node_t *n, const char *ctx, int *bi);
int case_point_ref(loader_t *L, const yaml_node_t *n, const char *ctx, int bi, double xy[2]);
int case_load_force(loader_t *L, const yaml_node_t *m);
/* Two bodies and their points ('bodies', 'points'; at least min_n bodies). */
int case_body_pair(loader_t *L, const yaml_node_t *m, const char *ctx, int min_n, int bi[2],
                   double pt[2][2]);
int case_load_joint(loader_t *L, const yaml_node_t *m);
/* A list section: sequence of mappings (absent or null: empty). */
int case_load_list(loader_t *L, const yaml_node_t *sec, const char *key,
                   int (*item)(loader_t *, const yaml_node_t *));

#endif

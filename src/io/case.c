/*
 * YAML case files: fmb_case_load and friends. Schema: docs/case-format.md.
 *
 * The file is read whole, parsed with the libyaml document API (nodes keep their
 * line/column for messages) and turned into fmb_model_add_* calls. Numeric values
 * are expressions of the parameters, evaluated here with libmatheval; time
 * expressions (driver functions, forces) are checked here and compiled by the model.
 * The loader stops at the first error, writes "PATH:LINE:COL: message" and frees
 * everything.
 */
#include "io/case_loader.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "io/mesh.h"

/* Case files are regular files of at most this size (a case is a few kB; a mesh or a table
 * holds large data). */
#define FMB_CASE_MAX_BYTES ((size_t)16 << 20)
#define FMB_CASE_MAX_TEXT "16 MB"

static int yaml_failure(loader_t *L, const yaml_parser_t *p)
{
    yaml_node_t at;
    memset(&at, 0, sizeof at);
    const char *problem = p->problem ? p->problem : "unknown problem";
    if (p->error == YAML_MEMORY_ERROR) return case_nomem(L, NULL);
    if (p->error == YAML_READER_ERROR) {
        /* only a byte offset is known: locate it in the text */
        size_t off = p->problem_offset;
        const char *t = L->c->text;
        size_t line = 0, col = 0;
        for (size_t i = 0; i < off && t[i]; i++) {
            if (t[i] == '\n') {
                line++;
                col = 0;
            } else {
                col++;
            }
        }
        at.start_mark.line = line;
        at.start_mark.column = col;
        return case_fail(L, &at, "YAML error: %s", problem);
    }
    at.start_mark = p->problem_mark;
    if (p->context)
        return case_fail(L, &at, "YAML syntax error: %s %s (line %d)", problem, p->context,
                         (int)p->context_mark.line + 1);
    return case_fail(L, &at, "YAML syntax error: %s", problem);
}

/* Nesting depth of flow collections ([ ], { }) outside quotes and comments: libyaml's
 * scanner is quadratic in it (a 200 KB file of brackets took minutes), and no case needs
 * more than a few levels. Returns 0, or the 1-based line and column where FMB_CASE_MAX_DEPTH
 * is exceeded. */
#define FMB_CASE_MAX_DEPTH 64
static int too_deep(const char *text, size_t len, int *line, int *col)
{
    int depth = 0, ln = 1, cl = 0;
    char quote = 0;
    int comment = 0;
    for (size_t i = 0; i < len; i++) {
        const char ch = text[i];
        cl++;
        if (ch == '\n') {
            ln++, cl = 0, comment = 0;
            continue;
        }
        if (comment) continue;
        if (quote) {
            if (ch == quote) quote = 0;
            continue;
        }
        if (ch == '"' || ch == '\'') quote = ch;
        else if (ch == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t')) comment = 1;
        else if (ch == '[' || ch == '{') {
            if (++depth > FMB_CASE_MAX_DEPTH) {
                *line = ln, *col = cl;
                return 1;
            }
        } else if ((ch == ']' || ch == '}') && depth > 0)
            depth--;
    }
    return 0;
}

static int load_doc(loader_t *L, const char *const *ov, int nov)
{
    static const char *const keys[] = {"title",  "parameters", "variants", "gravity",
                                       "solver", "output",     "bodies",   "joints",
                                       "forces", NULL};
    fmb_case_t *c = L->c;
    yaml_node_t *root = yaml_document_get_root_node(&L->doc);
    if (!root) return case_fail(L, NULL, "empty case file");
    int rc = case_check_keys(L, root, "the case file", keys);
    if (rc) return rc;
    c->model = fmb_model_create();
    if (!c->model) return case_nomem(L, root);
    fmb_model_set_source(c->model, c->path);

    const char *s;
    if ((rc = case_get_string(L, root, "title", "case", 0, &s))) return rc;
    if (s && !(c->title = case_xstrdup(s))) return case_nomem(L, root);
    if ((rc = case_get_string(L, root, "output", "case", 0, &s))) return rc;
    if (s && !(c->output = case_xstrdup(s))) return case_nomem(L, root);

    /* named variants: --set GROUP=NAME stands for the variant's parameter values */
    L->variants = case_get(L, root, "variants");
    int nx = 0;
    if ((rc = case_expand_variants(L, L->variants, case_get(L, root, "parameters"), ov, nov,
                                   &L->xov, &nx)))
        return rc;
    if (L->xov) ov = L->xov, nov = nx;
    if ((rc = case_load_parameters(L, case_get(L, root, "parameters"), ov, nov))) return rc;
    double g[2] = {0, 0};
    if ((rc = case_get_vec(L, root, "gravity", "case", 2, g, NULL))) return rc;
    fmb_model_set_gravity(c->model, g[0], g[1]);
    yaml_node_t *solver = case_get(L, root, "solver");
    if ((solver || L->set_integrator || L->set_ordering || L->set_step || L->set_start) &&
        (rc = case_load_solver(L, solver)))
        return rc;

    /* room for every list item (upper bounds) */
    yaml_node_t *secs[3] = {case_get(L, root, "bodies"), case_get(L, root, "joints"),
                            case_get(L, root, "forces")};
    int cnt[3];
    for (int k = 0; k < 3; k++)
        cnt[k] = secs[k] && secs[k]->type == YAML_SEQUENCE_NODE ? case_seq_len(secs[k]) : 0;
    L->binfo = calloc((size_t)cnt[0] + 1, sizeof *L->binfo);
    c->bodies = calloc((size_t)cnt[0] + 1, sizeof *c->bodies);
    c->joints = calloc((size_t)cnt[1] + 1, sizeof *c->joints);
    c->forces = calloc((size_t)cnt[2] + 1, sizeof *c->forces);
    c->beams = calloc((size_t)cnt[0] + 1, sizeof *c->beams);
    c->beam_kind = calloc((size_t)cnt[0] + 1, sizeof *c->beam_kind);
    if (!L->binfo || !c->bodies || !c->joints || !c->forces || !c->beams || !c->beam_kind)
        return case_nomem(L, root);
    L->binfo[0].name = "ground";
    L->binfo[0].index = FMB_GROUND;
    L->nb = 1;

    if ((rc = case_load_list(L, secs[0], "bodies", case_load_body)) ||
        (rc = case_load_list(L, secs[1], "joints", case_load_joint)) ||
        (rc = case_load_list(L, secs[2], "forces", case_load_force)))
        return rc;
    return 0;
}

/* Start a case named path (the file, or a name standing for it): checked arguments,
 * defaults. NULL with the message in err on failure. */
static fmb_case_t *case_new(const char *path, const char *const *overrides, int n, char *err,
                            size_t errlen, const char *fn)
{
    if (err && errlen) err[0] = '\0';
    if (!path || n < 0 || (n > 0 && !overrides)) {
        if (err && errlen)
            snprintf(err, errlen, "%s: invalid argument to %s", path ? path : "(null)", fn);
        return NULL;
    }
    fmb_case_t *c = calloc(1, sizeof *c);
    if (!c || !(c->path = case_xstrdup(path))) {
        if (err && errlen) snprintf(err, errlen, "%s: out of memory", path);
        free(c);
        return NULL;
    }
    fmb_sim_options_default(&c->opts);
    return c;
}

static fmb_case_t *case_parse(fmb_case_t *c, size_t len, const char *const *overrides, int n,
                              char *err, size_t errlen);

fmb_case_t *fmb_case_load(const char *path, const char *const *overrides, int n, char *err,
                          size_t errlen)
{
    fmb_case_t *c = case_new(path, overrides, n, err, errlen, "fmb_case_load");
    if (!c) return NULL;
    size_t len = 0;
    const char *why = NULL;
    int e = fmb_read_file(path, FMB_CASE_MAX_BYTES, &c->text, &len, &why);
    if (e) {
        if (err && errlen)
            snprintf(err, errlen, "%s: cannot open: %s%s", path, why ? why : strerror(e),
                     why && e == EINVAL && strstr(why, "limit") ? " (" FMB_CASE_MAX_TEXT ")" : "");
        fmb_case_destroy(&c);
        return NULL;
    }
    return case_parse(c, len, overrides, n, err, errlen);
}

fmb_case_t *fmb_case_load_text(const char *name, const char *text, size_t len,
                               const char *const *overrides, int n, char *err, size_t errlen)
{
    fmb_case_t *c = case_new(name, overrides, n, err, errlen, "fmb_case_load_text");
    if (!c) return NULL;
    if (!text) {
        if (err && errlen) snprintf(err, errlen, "%s: invalid argument", name);
        fmb_case_destroy(&c);
        return NULL;
    }
    if (!(c->text = malloc(len + 1))) {
        if (err && errlen) snprintf(err, errlen, "%s: out of memory", name);
        fmb_case_destroy(&c);
        return NULL;
    }
    memcpy(c->text, text, len);
    c->text[len] = '\0';
    return case_parse(c, len, overrides, n, err, errlen);
}

/* Parse c->text (len bytes) into the model; frees c and returns NULL on failure. */
static fmb_case_t *case_parse(fmb_case_t *c, size_t len, const char *const *overrides, int n,
                              char *err, size_t errlen)
{
    const char *path = c->path;
    loader_t L;
    memset(&L, 0, sizeof L);
    L.c = c;
    L.err = err;
    L.errlen = errlen;
    yaml_parser_t parser;
    int rc = 0, dline, dcol;
    if (too_deep(c->text, len, &dline, &dcol)) {
        if (err && errlen)
            snprintf(err, errlen,
                     "%s:%d:%d: brackets nested deeper than %d levels (a case needs a few)",
                     path, dline, dcol, FMB_CASE_MAX_DEPTH);
        fmb_case_destroy(&c);
        return NULL;
    }
    if (!yaml_parser_initialize(&parser)) {
        rc = case_nomem(&L, NULL);
    } else {
        yaml_parser_set_input_string(&parser, (const unsigned char *)c->text, len);
        if (!yaml_parser_load(&parser, &L.doc)) {
            rc = yaml_failure(&L, &parser);
        } else {
            L.have_doc = 1;
            /* a second document is a mistake, not something to ignore */
            yaml_document_t extra;
            if (!yaml_parser_load(&parser, &extra)) {
                rc = yaml_failure(&L, &parser);
            } else {
                yaml_node_t *r2 = yaml_document_get_root_node(&extra);
                if (r2)
                    rc = case_fail(&L, r2, "a case file holds one YAML document, found another");
                yaml_document_delete(&extra);
            }
        }
        yaml_parser_delete(&parser);
    }
    if (!rc) rc = load_doc(&L, overrides, n);
    free(L.xov);
    if (L.have_doc) yaml_document_delete(&L.doc);
    for (int k = 0; k < L.nb; k++)
        free(L.binfo ? L.binfo[k].pts : NULL);
    free(L.binfo);
    if (rc || L.failed) {
        fmb_case_destroy(&c);
        return NULL;
    }
    return c;
}

void fmb_case_destroy(fmb_case_t **cp)
{
    if (!cp || !*cp) return;
    fmb_case_t *c = *cp;
    fmb_model_destroy(&c->model);
    for (int k = 0; k < c->npool; k++)
        free(c->pool[k]);
    free(c->pool);
    free(c->pname);
    free(c->pval);
    free(c->vgroup);
    free(c->vlist);
    free(c->bodies);
    free(c->joints);
    free(c->forces);
    free(c->beams);
    free(c->beam_kind);
    for (int k = 0; k < c->nxs; k++)
        free(c->xs[k]);
    free(c->xs);
    free(c->title);
    free(c->output);
    free(c->text);
    free(c->path);
    free(c);
    *cp = NULL;
}

fmb_model_t *fmb_case_model(fmb_case_t *c)
{
    return c ? c->model : NULL;
}

const fmb_sim_options_t *fmb_case_options(const fmb_case_t *c)
{
    return c ? &c->opts : NULL;
}

const char *fmb_case_text(const fmb_case_t *c)
{
    return c ? c->text : NULL;
}

const char *fmb_case_path(const fmb_case_t *c)
{
    return c ? c->path : NULL;
}

const char *fmb_case_output(const fmb_case_t *c)
{
    return c ? c->output : NULL;
}

int fmb_case_num_inputs(const fmb_case_t *c)
{
    return c ? 1 + c->ninputs : 0;
}

const char *fmb_case_input(const fmb_case_t *c, int k)
{
    if (!c || k < 0 || k > c->ninputs) return NULL;
    return k == 0 ? c->path : c->inputs[k - 1];
}

/* ------------------------------------------------------------------ private accessors */

const char *fmb_case_title(const fmb_case_t *c)
{
    return c ? c->title : NULL;
}

int fmb_case_num_params(const fmb_case_t *c)
{
    return c ? c->nparam : 0;
}

const char *fmb_case_param_name(const fmb_case_t *c, int k)
{
    return c && k >= 0 && k < c->nparam ? c->pname[k] : NULL;
}

int fmb_case_param(const fmb_case_t *c, const char *name, double *value)
{
    int k = c && name ? case_find_param(c, name) : -1;
    if (k < 0) return FMB_ERR_NOTFOUND;
    if (value) *value = c->pval[k];
    return 0;
}

int fmb_case_num_variant_groups(const fmb_case_t *c)
{
    return c ? c->nvgroup : 0;
}

const char *fmb_case_variant_group(const fmb_case_t *c, int k)
{
    return c && k >= 0 && k < c->nvgroup ? c->vgroup[k] : NULL;
}

const char *fmb_case_variants(const fmb_case_t *c, const char *group)
{
    for (int k = 0; c && group && k < c->nvgroup; k++)
        if (!strcmp(c->vgroup[k], group)) return c->vlist[k];
    return NULL;
}

int fmb_case_num_bodies(const fmb_case_t *c)
{
    return c ? c->nbodies : 0;
}

const fmb_body_desc_t *fmb_case_body_desc(const fmb_case_t *c, int body)
{
    return c && body >= 1 && body <= c->nbodies ? &c->bodies[body - 1] : NULL;
}

const fmb_beam_desc_t *fmb_case_beam_desc(const fmb_case_t *c, int body)
{
    return c && body >= 1 && body <= c->nbodies && c->beam_kind[body - 1] ? &c->beams[body - 1]
                                                                          : NULL;
}

int fmb_case_beam_is_rigid(const fmb_case_t *c, int body)
{
    return c && body >= 1 && body <= c->nbodies && c->beam_kind[body - 1] == 2;
}

int fmb_case_num_joints(const fmb_case_t *c)
{
    return c ? c->njoints : 0;
}

const fmb_joint_desc_t *fmb_case_joint_desc(const fmb_case_t *c, int joint)
{
    return c && joint >= 0 && joint < c->njoints ? &c->joints[joint] : NULL;
}

int fmb_case_num_forces(const fmb_case_t *c)
{
    return c ? c->nforces : 0;
}

const fmb_force_desc_t *fmb_case_force_desc(const fmb_case_t *c, int force)
{
    return c && force >= 0 && force < c->nforces ? &c->forces[force] : NULL;
}

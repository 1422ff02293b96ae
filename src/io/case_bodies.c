/* The bodies section: rigid bodies, their points, and beam bodies (sections, meshes). */
#include "io/case_loader.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/mesh.h"

int case_find_body(loader_t *L, const char *name)
{
    for (int k = 0; k < L->nb; k++)
        if (!strcmp(L->binfo[k].name, name)) return k;
    return -1;
}

/* Append point name at (x, y) to b; unless unique (names the loader generates, such as
 * a beam's n0 .. nN, are distinct by construction), refuse a name b already has. */
static int append_point(loader_t *L, body_info_t *b, const yaml_node_t *at, const char *name,
                        double x, double y, const char *origin, int unique)
{
    if (!unique)
        for (int k = 0; k < b->npts; k++)
            if (!strcmp(b->pts[k].name, name))
                return case_fail(L, at, "body '%s': duplicate point '%s'%s", b->name, name,
                                 origin);
    if (b->npts == b->cap_pts) {
        int cap = b->cap_pts ? 2 * b->cap_pts : 8;
        point_t *p = realloc(b->pts, (size_t)cap * sizeof *p);
        if (!p) return case_nomem(L, at);
        b->pts = p;
        b->cap_pts = cap;
    }
    point_t *p = &b->pts[b->npts];
    p->name = case_pool_str(L->c, name);
    if (!p->name) return case_nomem(L, at);
    p->xy[0] = x;
    p->xy[1] = y;
    b->npts++;
    return 0;
}

static int add_point(loader_t *L, body_info_t *b, const yaml_node_t *at, const char *name, double x,
                     double y, const char *origin)
{
    return append_point(L, b, at, name, x, y, origin, 0);
}

/* The 'points' mapping of a body: name: [x, y] appended to bi. note: added to the
 * duplicate message when the name is one the loader defines itself. */
static int user_points(loader_t *L, const yaml_node_t *m, const char *ctx, body_info_t *bi,
                       const char *note)
{
    yaml_node_t *pts = case_get(L, m, "points");
    if (!pts) return 0;
    if (pts->type != YAML_MAPPING_NODE)
        return case_fail(L, pts, "%s: 'points' must be a mapping of name: [x, y], not %s", ctx,
                         case_kind(pts));
    for (yaml_node_pair_t *p = pts->data.mapping.pairs.start; p < pts->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = case_node_at(L, p->key);
        if (k->type != YAML_SCALAR_NODE || !*case_sval(k))
            return case_fail(L, k, "%s: point names must be non-empty scalars", ctx);
        int own = 0;
        for (int j = 0; j < bi->npts; j++)
            if (!strcmp(bi->pts[j].name, case_sval(k))) own = 1;
        double xy[2];
        int rc;
        if ((rc = case_vec_node(L, case_node_at(L, p->value), ctx, case_sval(k), 2, xy)) ||
            (rc = add_point(L, bi, k, case_sval(k), xy[0], xy[1], own ? note : "")))
            return rc;
    }
    return 0;
}

/* Pass the points of bi from index `from` on to the model. */
static int register_points(loader_t *L, const yaml_node_t *m, const char *ctx,
                           const body_info_t *bi, int from)
{
    for (int k = from; k < bi->npts; k++) {
        int r = fmb_model_add_body_point(L->c->model, bi->index, bi->pts[k].name, bi->pts[k].xy[0],
                                         bi->pts[k].xy[1]);
        if (r < 0)
            return case_fail(L, m, "%s: point '%s': %s", ctx, bi->pts[k].name,
                             fmb_model_last_error(L->c->model));
    }
    return 0;
}

/* section: {circle: d} | {rectangle: [b, h]} | {A: .., I: ..} -> A, I. */
static int beam_section(loader_t *L, const yaml_node_t *sec, const char *ctx, double *A, double *I)
{
    static const char *const keys[] = {"circle", "rectangle", "A", "I", NULL};
    static const char *const forms =
        "{circle: d}, {rectangle: [b, h]} or {A: area, I: second moment}";
    char sctx[256];
    snprintf(sctx, sizeof sctx, "%s: beam section", ctx);
    if (sec->type != YAML_MAPPING_NODE)
        return case_fail(L, sec, "%s must be a mapping, one of %s, not %s", sctx, forms,
                         case_kind(sec));
    int rc = case_check_keys(L, sec, sctx, keys);
    if (rc) return rc;
    yaml_node_t *ci = case_get(L, sec, "circle"), *re = case_get(L, sec, "rectangle");
    yaml_node_t *a = case_get(L, sec, "A"), *in = case_get(L, sec, "I");
    int forms_given = (ci != NULL) + (re != NULL) + (a || in);
    if (forms_given != 1)
        return case_fail(L, sec, "%s: give exactly one of %s%s", sctx, forms,
                         forms_given ? "" : " (none given)");
    const double pi = 3.14159265358979323846;
    if (ci) {
        double d;
        if ((rc = case_get_positive(L, sec, "circle", sctx, 1, &d, NULL))) return rc;
        *A = pi * d * d / 4;
        *I = pi * d * d * d * d / 64;
        return 0;
    }
    if (re) {
        double bh[2];
        if ((rc = case_vec_node(L, re, sctx, "rectangle", 2, bh))) return rc;
        if (!(bh[0] > 0) || !(bh[1] > 0))
            return case_fail(L, re, "%s: rectangle [b, h] needs positive sides, got [%g, %g]", sctx,
                             bh[0], bh[1]);
        *A = bh[0] * bh[1];
        *I = bh[0] * bh[1] * bh[1] * bh[1] / 12;
        return 0;
    }
    if (!a || !in)
        return case_fail(L, sec, "%s: {A: ..., I: ...} needs both A and I (missing '%s')", sctx,
                         a ? "I" : "A");
    if ((rc = case_get_positive(L, sec, "A", sctx, 1, A, NULL)) ||
        (rc = case_get_positive(L, sec, "I", sctx, 1, I, NULL)))
        return rc;
    return 0;
}

/* Directory part of path (with the trailing '/'), "" when none. */
static size_t dir_len(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? (size_t)(s - path + 1) : 0;
}

static int keep_array(loader_t *L, const yaml_node_t *at, double *x)
{
    fmb_case_t *c = L->c;
    double **p = realloc(c->xs, (size_t)(c->nxs + 1) * sizeof *p);
    if (!p) {
        free(x);
        return case_nomem(L, at);
    }
    c->xs = p;
    c->xs[c->nxs++] = x;
    return 0;
}

/* Rayleigh coefficients from a damping ratio: `ratio: z, at: [w1, w2]` gives z at both
 * frequencies (alpha = 2 z w1 w2 / (w1 + w2), beta = 2 z / (w1 + w2)); `at: w` gives z at w
 * with stiffness-proportional damping (alpha = 0, beta = 2 z / w). */
static int rayleigh_from_ratio(loader_t *L, const yaml_node_t *damp, const char *dctx,
                               int has_ratio, int has_ab, double z, double *alpha, double *beta)
{
    const yaml_node_t *at = case_get(L, damp, "at");
    if (!has_ratio && !at) return 0;
    if (has_ab) return case_fail(L, damp, "%s: give either alpha/beta or ratio/at, not both", dctx);
    if (!has_ratio || !at)
        return case_fail(L, damp, "%s: `ratio` and `at` (rad/s) go together", dctx);
    if (!(z >= 0 && z < 1))
        return case_fail(L, damp, "%s: ratio must be in [0, 1), got %g", dctx, z);
    double w[2];
    int rc, nw = at->type == YAML_SEQUENCE_NODE ? 2 : 1;
    if ((rc = nw == 2 ? case_vec_node(L, at, dctx, "at", 2, w)
                      : case_get_num(L, damp, "at", dctx, &w[0], NULL)))
        return rc;
    if (!(w[0] > 0) || (nw == 2 && !(w[1] > w[0])))
        return case_fail(L, at,
                         "%s: `at` must be a frequency > 0 or two increasing frequencies "
                         "[w1, w2] in rad/s",
                         dctx);
    if (nw == 1) {
        *alpha = 0.0;
        *beta = 2.0 * z / w[0];
    } else {
        *alpha = 2.0 * z * w[0] * w[1] / (w[0] + w[1]);
        *beta = 2.0 * z / (w[0] + w[1]);
    }
    return 0;
}

/* A body with a 'beam' mapping: an elastic beam, or its rigid equivalent when 'rigid' is
 * non-zero. */
static int load_beam_body(loader_t *L, const yaml_node_t *m, const char *name, const char *ctx)
{
    static const char *const rigid_keys[] = {"mass", "inertia", "com", "bar", NULL};
    static const char *const bkeys[] = {"E",        "rho",   "section",   "length",
                                        "elements", "mesh",  "reference", "rotary_inertia",
                                        "damping",  "rigid", "geometry", "initial", NULL};
    fmb_case_t *c = L->c;
    int rc;
    for (int k = 0; rigid_keys[k]; k++) {
        /* present even when empty */
        for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top;
             p++) {
            yaml_node_t *key = case_node_at(L, p->key);
            if (!strcmp(case_sval(key), rigid_keys[k]))
                return case_fail(L, key,
                                 "%s: '%s' cannot be mixed with 'beam' (a beam's mass and "
                                 "inertia come from E, rho, section and length; to build it rigid "
                                 "set 'rigid' in the beam)",
                                 ctx, rigid_keys[k]);
        }
    }
    yaml_node_t *bm = case_get(L, m, "beam");
    char bctx[200];
    snprintf(bctx, sizeof bctx, "beam '%s'", name);
    if ((rc = case_check_keys(L, bm, bctx, bkeys))) return rc;
    fmb_beam_desc_t d;
    memset(&d, 0, sizeof d);
    d.line = (int)m->start_mark.line + 1;
    if ((rc = case_get_positive(L, bm, "E", bctx, 1, &d.E, NULL)) ||
        (rc = case_get_positive(L, bm, "rho", bctx, 1, &d.rho, NULL)))
        return rc;
    yaml_node_t *sec = case_get(L, bm, "section");
    if (!sec) return case_fail(L, bm, "%s: missing required key 'section'", bctx);
    if ((rc = beam_section(L, sec, bctx, &d.area, &d.inertia))) return rc;

    /* nodes: length + elements, or mesh */
    yaml_node_t *mesh = case_get(L, bm, "mesh"), *elems = case_get(L, bm, "elements");
    double len = 0;
    int has_len;
    if ((rc = case_get_positive(L, bm, "length", bctx, 0, &len, &has_len))) return rc;
    double *x = NULL;
    int nn = 0;
    if (mesh && elems)
        return case_fail(L, elems, "%s: give either 'mesh' or 'elements' (with 'length'), not both",
                         bctx);
    if (mesh) {
        const char *mp;
        if ((rc = case_get_string(L, bm, "mesh", bctx, 1, &mp))) return rc;
        size_t dl = mp[0] == '/' ? 0 : dir_len(c->path);
        size_t need = dl + strlen(mp) + 1;
        char *full = malloc(need);
        if (!full) return case_nomem(L, mesh);
        snprintf(full, need, "%.*s%s", (int)dl, c->path, mp);
        char merr[600];
        rc = fmb_mesh_read_line(full, &x, &nn, merr, sizeof merr);
        if (rc == 0 && c->ninputs < FMB_CASE_MAX_INPUTS) {
            const char *kept = case_pool_str(c, full);
            if (kept) c->inputs[c->ninputs++] = kept;
        }
        free(full);
        if (rc) return case_fail(L, mesh, "%s: mesh: %s", bctx, merr);
        if ((rc = keep_array(L, mesh, x))) return rc;
        if (has_len && fabs(x[nn - 1] - len) > 1e-6 * len)
            return case_fail(L, case_get(L, bm, "length"),
                             "%s: 'length' %g does not match the mesh "
                             "length %.9g",
                             bctx, len, x[nn - 1]);
    } else {
        if (!elems)
            return case_fail(L, bm,
                             "%s: give the nodes: 'length' and 'elements' (uniform), or "
                             "'mesh' (a Gmsh file)",
                             bctx);
        if (!has_len) return case_fail(L, bm, "%s: 'elements' needs 'length'", bctx);
        int ne = 0;
        if ((rc = case_get_int(L, bm, "elements", bctx, 1, &ne))) return rc;
        if (ne > 100000)
            return case_fail(L, elems, "%s: 'elements' %d is too many (at most 100000)", bctx, ne);
        nn = ne + 1;
        x = malloc((size_t)nn * sizeof *x);
        if (!x) return case_nomem(L, elems);
        for (int k = 0; k < nn; k++)
            x[k] = len * k / ne;
        x[ne] = len;
        if ((rc = keep_array(L, elems, x))) return rc;
    }
    d.nnodes = nn;
    d.x = x;
    const double L0 = x[nn - 1] - x[0];

    const char *ref;
    if ((rc = case_get_string(L, bm, "reference", bctx, 0, &ref))) return rc;
    d.reference = FMB_BEAM_SIMPLY_SUPPORTED;
    if (ref) {
        if (!strcmp(ref, "simply_supported"))
            d.reference = FMB_BEAM_SIMPLY_SUPPORTED;
        else if (!strcmp(ref, "cantilever"))
            d.reference = FMB_BEAM_CANTILEVER;
        else
            return case_fail(L, case_get(L, bm, "reference"),
                             "%s: unknown reference '%s' (allowed: "
                             "simply_supported, cantilever)",
                             bctx, ref);
    }
    const char *geo;
    if ((rc = case_get_string(L, bm, "geometry", bctx, 0, &geo))) return rc;
    d.geometry = FMB_BEAM_LINEAR;
    if (geo) {
        if (!strcmp(geo, "linear"))
            d.geometry = FMB_BEAM_LINEAR;
        else if (!strcmp(geo, "nonlinear"))
            d.geometry = FMB_BEAM_NONLINEAR;
        else { /* an expression of the parameters: 0 linear, 1 nonlinear */
            double gv = 0.0;
            if ((rc = case_get_num(L, bm, "geometry", bctx, &gv, NULL))) {
                /* the expression's own message, then what is allowed */
                const size_t n = L->err ? strlen(L->err) : 0;
                if (L->err && n + 1 < L->errlen)
                    snprintf(L->err + n, L->errlen - n,
                             "; geometry must be linear, nonlinear or an expression giving 0 "
                             "(linear) or 1 (nonlinear)");
                return rc;
            }
            if (gv != 0.0 && gv != 1.0)
                return case_fail(L, case_get(L, bm, "geometry"),
                                 "%s: geometry '%s' = %g; an expression must give 0 (linear) "
                                 "or 1 (nonlinear)",
                                 bctx, geo, gv);
            d.geometry = gv == 1.0 ? FMB_BEAM_NONLINEAR : FMB_BEAM_LINEAR;
        }
    }
    if ((rc = case_get_bool(L, bm, "rotary_inertia", bctx, &d.rotary_inertia))) return rc;
    yaml_node_t *damp = case_get(L, bm, "damping");
    if (damp) {
        static const char *const dkeys[] = {"alpha", "beta", "ratio", "at", NULL};
        char dctx[256];
        snprintf(dctx, sizeof dctx, "%s: damping", bctx);
        int has_ratio = 0, has_a = 0, has_b = 0;
        double ratio = 0.0;
        if ((rc = case_check_keys(L, damp, dctx, dkeys)) ||
            (rc = case_get_num(L, damp, "alpha", dctx, &d.damping_alpha, &has_a)) ||
            (rc = case_get_num(L, damp, "beta", dctx, &d.damping_beta, &has_b)) ||
            (rc = case_get_num(L, damp, "ratio", dctx, &ratio, &has_ratio)))
            return rc;
        if ((rc = rayleigh_from_ratio(L, damp, dctx, has_ratio, has_a || has_b, ratio,
                                      &d.damping_alpha, &d.damping_beta)))
            return rc;
        if (d.damping_alpha < 0 || d.damping_beta < 0)
            return case_fail(L, damp, "%s: alpha and beta must be >= 0, got %g and %g", dctx,
                             d.damping_alpha, d.damping_beta);
        if ((rc = case_check_magnitude(L, has_a ? case_get(L, damp, "alpha") : damp, dctx, "alpha",
                                       d.damping_alpha)) ||
            (rc = case_check_magnitude(L, has_b ? case_get(L, damp, "beta") : damp, dctx, "beta",
                                       d.damping_beta)))
            return rc;
    }
    double rigid = 0;
    if ((rc = case_get_num(L, bm, "rigid", bctx, &rigid, NULL))) return rc;
    if ((rc = case_get_vec(L, m, "pose", ctx, 3, d.pose, NULL)) ||
        (rc = case_get_vec(L, m, "velocity", ctx, 3, d.vel, &d.vel_given)))
        return rc;
    d.name = case_pool_str(c, name);
    if (!d.name) return case_nomem(L, m);

    body_info_t *bi = &L->binfo[L->nb];
    memset(bi, 0, sizeof *bi);
    bi->name = d.name;
    bi->beam = rigid != 0 ? 2 : 1;
    memcpy(bi->pose, d.pose, sizeof bi->pose);
    L->nb++; /* owns bi->pts from here on */
    /* node points n0 .. n{N} (the model adds them to a beam itself), start, end */
    for (int k = 0; k < nn; k++) {
        char pn[32];
        snprintf(pn, sizeof pn, "n%d", k);
        if ((rc = append_point(L, bi, m, pn, x[k], 0, "", 1))) return rc;
    }
    const int model_has = bi->beam == 1 ? nn : 0;
    if ((rc = add_point(L, bi, m, "start", x[0], 0, "")) ||
        (rc = add_point(L, bi, m, "end", x[nn - 1], 0, "")))
        return rc;
    if ((rc = user_points(L, m, ctx, bi, " (a beam defines n0, n1, ..., start and end)")))
        return rc;

    fmb_body_desc_t bd;
    memset(&bd, 0, sizeof bd);
    bd.name = d.name;
    bd.mass = d.rho * d.area * L0;
    memcpy(bd.pose, d.pose, sizeof bd.pose);
    memcpy(bd.vel, d.vel, sizeof bd.vel);
    bd.vel_given = d.vel_given;
    bd.line = d.line;
    /* the equivalent rigid uniform bar (built when rigid, kept for information else) */
    bd.inertia = bd.mass * L0 * L0 / 12;
    bd.com[0] = 0.5 * (x[0] + x[nn - 1]);
    bd.com[1] = 0;
    int idx;
    if (bi->beam == 2) {
        idx = fmb_model_add_body(c->model, &bd);
    } else {
        idx = fmb_model_add_beam(c->model, &d);
    }
    if (idx < 0) return case_lib_fail(L, m, ctx, name);
    bi->index = idx;
    /* the initial elastic state (ignored by the rigid equivalent, which has none) */
    yaml_node_t *ini = case_get(L, bm, "initial");
    if (ini && bi->beam == 1 && (rc = case_load_beam_initial(L, ini, bctx, idx, nn))) return rc;
    if ((rc = register_points(L, m, ctx, bi, model_has))) return rc;
    c->beams[c->nbodies] = d;
    c->beam_kind[c->nbodies] = bi->beam;
    c->bodies[c->nbodies++] = bd;
    return 0;
}

int case_load_body(loader_t *L, const yaml_node_t *m)
{
    static const char *const keys[] = {"name", "mass",     "inertia", "com",  "bar",
                                       "pose", "velocity", "points",  "beam", "block", NULL};
    fmb_case_t *c = L->c;
    int rc = case_check_keys(L, m, "body", keys);
    if (rc) return rc;
    const char *name;
    if ((rc = case_get_string(L, m, "name", "body", 1, &name))) return rc;
    char ctx[160];
    snprintf(ctx, sizeof ctx, "body '%s'", name);
    if (case_find_body(L, name) >= 0)
        return case_fail(L, case_get(L, m, "name"), "duplicate body name '%s'%s", name,
                         strcmp(name, "ground") ? "" : " ('ground' is body 0)");

    if (case_get(L, m, "beam")) return load_beam_body(L, m, name, ctx);

    fmb_body_desc_t d;
    memset(&d, 0, sizeof d);
    d.line = (int)m->start_mark.line + 1;
    int has_mass, has_inertia, has_com, has_bar;
    double bar = 0;
    if ((rc = case_get_num(L, m, "mass", ctx, &d.mass, &has_mass))) return rc;
    if (!has_mass) return case_fail(L, m, "%s: missing required key 'mass'", ctx);
    if (d.mass <= 0)
        return case_fail(L, case_get(L, m, "mass"), "%s: mass must be positive, got %g", ctx,
                         d.mass);
    if ((rc = case_check_magnitude(L, case_get(L, m, "mass"), ctx, "mass", d.mass))) return rc;
    if ((rc = case_get_num(L, m, "bar", ctx, &bar, &has_bar))) return rc;
    if (has_bar && bar <= 0)
        return case_fail(L, case_get(L, m, "bar"),
                         "%s: zero-length link: bar length must be > 0, got %g", ctx, bar);
    if (has_bar && (rc = case_check_magnitude(L, case_get(L, m, "bar"), ctx, "bar", bar)))
        return rc;
    int has_block;
    if ((rc = case_get_vec(L, m, "block", ctx, 2, d.block, &has_block))) return rc;
    if (has_block && (!(d.block[0] > 0) || !(d.block[1] > 0)))
        return case_fail(L, case_get(L, m, "block"),
                         "%s: block [length, width] must both be > 0, got [%g, %g]", ctx,
                         d.block[0], d.block[1]);
    if ((rc = case_get_num(L, m, "inertia", ctx, &d.inertia, &has_inertia))) return rc;
    if (!has_inertia) {
        if (!has_bar && !has_block)
            return case_fail(L, m, "%s: missing required key 'inertia' (or give 'bar' or 'block')",
                             ctx);
        /* uniform bar about its centre, or uniform rectangle L x W about its centre */
        d.inertia = has_bar ? d.mass * bar * bar / 12.0
                            : d.mass * (d.block[0] * d.block[0] + d.block[1] * d.block[1]) / 12.0;
    }
    if (d.inertia <= 0)
        return case_fail(L, case_get(L, m, "inertia"), "%s: inertia must be positive, got %g", ctx,
                         d.inertia);
    const char *ikey = has_inertia ? "inertia"
                       : has_bar   ? "bar"
                                   : "block"; /* where it comes from */
    if ((rc = case_check_magnitude(L, case_get(L, m, ikey), ctx,
                                   has_inertia ? "inertia" : "inertia (from its size)", d.inertia)))
        return rc;
    if (has_bar) {
        d.com[0] = bar / 2;
        d.com[1] = 0;
    }
    if ((rc = case_get_vec(L, m, "com", ctx, 2, d.com, &has_com)) ||
        (rc = case_get_vec(L, m, "pose", ctx, 3, d.pose, NULL)) ||
        (rc = case_get_vec(L, m, "velocity", ctx, 3, d.vel, &d.vel_given)))
        return rc;
    d.name = case_pool_str(c, name);
    if (!d.name) return case_nomem(L, m);

    body_info_t *bi = &L->binfo[L->nb];
    memset(bi, 0, sizeof *bi);
    bi->name = d.name;
    memcpy(bi->pose, d.pose, sizeof bi->pose);
    L->nb++; /* owns bi->pts from here on */
    if (has_bar) {
        if ((rc = add_point(L, bi, m, "start", 0, 0, "")) ||
            (rc = add_point(L, bi, m, "end", bar, 0, "")))
            return rc;
    }
    if ((rc = user_points(L, m, ctx, bi, has_bar ? " ('bar' defines 'start' and 'end')" : "")))
        return rc;

    int idx = fmb_model_add_body(c->model, &d);
    if (idx < 0) return case_lib_fail(L, m, ctx, name);
    bi->index = idx;
    if ((rc = register_points(L, m, ctx, bi, 0))) return rc;
    c->bodies[c->nbodies++] = d;
    return 0;
}

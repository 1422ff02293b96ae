/* A beam's initial elastic state in the case file (beam: initial: modes / nodes;
 * docs/case-format.md "Initial elastic state"). */
#include <stdlib.h>
#include <string.h>

#include "io/case_loader.h"

/* modes: [{mode: k, amplitude: a, rate: adot}, ...] added as a Phi_k, adot Phi_k. */
static int add_modes(loader_t *L, const yaml_node_t *seq, const char *ctx, int body, int nn,
                     double *U, double *Ud)
{
    static const char *const keys[] = {"mode", "amplitude", "rate", NULL};
    fmb_model_t *m = L->c->model;
    if (seq->type != YAML_SEQUENCE_NODE)
        return case_fail(L, seq, "%s: 'modes' must be a sequence of {mode, amplitude, rate}, not %s",
                         ctx, case_kind(seq));
    double *shape = malloc(3 * (size_t)nn * sizeof *shape);
    if (!shape) return case_nomem(L, seq);
    int rc = 0;
    for (int k = 0; k < case_seq_len(seq) && !rc; k++) {
        const yaml_node_t *it = case_seq_item(L, seq, k);
        char ictx[300];
        snprintf(ictx, sizeof ictx, "%s: modes[%d]", ctx, k);
        int mode = 0, has_a = 0, has_r = 0;
        double a = 0, r = 0;
        if ((rc = case_check_keys(L, it, ictx, keys)) ||
            (rc = case_get_int(L, it, "mode", ictx, 1, &mode)) ||
            (rc = case_get_num(L, it, "amplitude", ictx, &a, &has_a)) ||
            (rc = case_get_num(L, it, "rate", ictx, &r, &has_r)))
            break;
        if (!case_get(L, it, "mode")) {
            rc = case_fail(L, it, "%s: missing required key 'mode' (1 = lowest)", ictx);
            break;
        }
        if (!has_a && !has_r) {
            rc = case_fail(L, it, "%s: give 'amplitude' (m) and/or 'rate' (m/s)", ictx);
            break;
        }
        if (fmb_model_beam_mode_shape(m, body, mode, shape, NULL)) {
            rc = case_fail(L, case_get(L, it, "mode"), "%s: %s", ictx, fmb_model_last_error(m));
            break;
        }
        for (int i = 0; i < 3 * nn; i++)
            U[i] += a * shape[i], Ud[i] += r * shape[i];
    }
    free(shape);
    return rc;
}

/* nodes: [{node: n, u, v, phi, u_rate, v_rate, phi_rate}, ...] added to the state. */
static int add_nodes(loader_t *L, const yaml_node_t *seq, const char *ctx, int nn, double *U,
                     double *Ud)
{
    static const char *const keys[] = {"node", "u", "v", "phi", "u_rate", "v_rate", "phi_rate",
                                       NULL};
    if (seq->type != YAML_SEQUENCE_NODE)
        return case_fail(L, seq, "%s: 'nodes' must be a sequence of {node, u, v, phi, ...}, not %s",
                         ctx, case_kind(seq));
    for (int k = 0; k < case_seq_len(seq); k++) {
        const yaml_node_t *it = case_seq_item(L, seq, k);
        char ictx[300];
        snprintf(ictx, sizeof ictx, "%s: nodes[%d]", ctx, k);
        int node = -1, rc;
        if ((rc = case_check_keys(L, it, ictx, keys)) ||
            (rc = case_get_int(L, it, "node", ictx, 0, &node)))
            return rc;
        if (!case_get(L, it, "node"))
            return case_fail(L, it, "%s: missing required key 'node' (0 .. %d)", ictx, nn - 1);
        if (node >= nn)
            return case_fail(L, case_get(L, it, "node"), "%s: node %d out of range 0 .. %d", ictx,
                             node, nn - 1);
        for (int c = 0; c < 3; c++) {
            double x = 0, xd = 0;
            if ((rc = case_get_num(L, it, keys[1 + c], ictx, &x, NULL)) ||
                (rc = case_get_num(L, it, keys[4 + c], ictx, &xd, NULL)))
                return rc;
            U[3 * node + c] += x, Ud[3 * node + c] += xd;
        }
    }
    return 0;
}

int case_load_beam_initial(loader_t *L, const yaml_node_t *ini, const char *bctx, int body, int nn)
{
    static const char *const keys[] = {"modes", "nodes", NULL};
    char ctx[256];
    snprintf(ctx, sizeof ctx, "%s: initial", bctx);
    int rc = case_check_keys(L, ini, ctx, keys);
    if (rc) return rc;
    double *U = calloc(6 * (size_t)nn, sizeof *U), *Ud = U ? U + 3 * (size_t)nn : NULL;
    if (!U) return case_nomem(L, ini);
    const yaml_node_t *modes = case_get(L, ini, "modes"), *nodes = case_get(L, ini, "nodes");
    if (modes) rc = add_modes(L, modes, ctx, body, nn, U, Ud);
    if (!rc && nodes) rc = add_nodes(L, nodes, ctx, nn, U, Ud);
    if (!rc && fmb_model_set_beam_initial(L->c->model, body, U, Ud))
        rc = case_fail(L, ini, "%s", fmb_model_last_error(L->c->model));
    free(U);
    return rc;
}

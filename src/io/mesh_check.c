/* Checks of a read Gmsh bar mesh (the list and order in io/mesh.h) and the node positions
 * along the bar: duplicate tags and positions, one chain of line elements in file order,
 * collinear nodes with increasing positions. */
#include "io/mesh.h"
#include "io/mesh_reader.h"

#include "flexmb/flexmb.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_tag(const void *a, const void *b)
{
    long x = ((const mnode_t *)a)->tag, y = ((const mnode_t *)b)->tag;
    return (x > y) - (x < y);
}

static int find_node(const rd_t *r, long tag)
{
    int lo = 0, hi = r->nn - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (r->nodes[mid].tag == tag) return mid;
        if (r->nodes[mid].tag < tag)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

typedef struct xidx {
    double x;
    int i;
} xidx_t;

static int cmp_x(const void *a, const void *b)
{
    double x = ((const xidx_t *)a)->x, y = ((const xidx_t *)b)->x;
    return (x > y) - (x < y);
}

static int uf_find(int *parent, int i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

int fmb_mesh_check_and_build(rd_t *r, double **xout, int *nout)
{
    if (r->ne == 0)
        return fmb_mesh_fail(r, r->elements_line, FMB_ERR_PARSE,
                             "no line elements (type 1): the bar needs at least one");
    /* node tags: sort by tag (stable information: the line) and look for repeats */
    if (r->nn == 0)
        return fmb_mesh_fail(r, r->elements_line, FMB_ERR_PARSE, "the mesh has no nodes");
    qsort(r->nodes, (size_t)r->nn, sizeof *r->nodes, cmp_tag);
    for (int k = 1; k < r->nn; k++)
        if (r->nodes[k].tag == r->nodes[k - 1].tag) {
            const mnode_t *a = &r->nodes[k - 1], *b = &r->nodes[k];
            const mnode_t *later = a->line > b->line ? a : b, *first = later == a ? b : a;
            return fmb_mesh_fail(r, later->line, FMB_ERR_PARSE,
                                 "node tag %ld defined twice (first at line %ld)", later->tag,
                                 first->line);
        }
    /* size of the mesh, for tolerances */
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int k = 0; k < r->nn; k++)
        for (int d = 0; d < 3; d++) {
            lo[d] = fmin(lo[d], r->nodes[k].p[d]);
            hi[d] = fmax(hi[d], r->nodes[k].p[d]);
        }
    const double diag = r->nn ? hypot(hypot(hi[0] - lo[0], hi[1] - lo[1]), hi[2] - lo[2]) : 0;
    /* duplicate positions: sort by x, compare neighbours within the tolerance */
    const double dtol = 1e-9 * diag;
    xidx_t *xs = malloc((size_t)(r->nn ? r->nn : 1) * sizeof *xs);
    if (!xs) return fmb_mesh_fail(r, 0, FMB_ERR_NOMEM, "out of memory");
    for (int k = 0; k < r->nn; k++)
        xs[k].x = r->nodes[k].p[0], xs[k].i = k;
    qsort(xs, (size_t)r->nn, sizeof *xs, cmp_x);
    int dup_a = -1, dup_b = -1;
    for (int k = 0; k < r->nn; k++)
        for (int j = k + 1; j < r->nn && xs[j].x - xs[k].x <= dtol; j++) {
            const mnode_t *a = &r->nodes[xs[k].i], *b = &r->nodes[xs[j].i];
            double d = hypot(hypot(a->p[0] - b->p[0], a->p[1] - b->p[1]), a->p[2] - b->p[2]);
            if (d <= dtol) {
                /* report the pair whose later node comes first in the file */
                int later = a->line > b->line ? xs[k].i : xs[j].i;
                int first = later == xs[k].i ? xs[j].i : xs[k].i;
                if (dup_b < 0 || r->nodes[later].line < r->nodes[dup_b].line)
                    dup_a = first, dup_b = later;
            }
        }
    free(xs);
    if (dup_b >= 0)
        return fmb_mesh_fail(r, r->nodes[dup_b].line, FMB_ERR_PARSE,
                             "duplicate node %ld (same position as node %ld)", r->nodes[dup_b].tag,
                             r->nodes[dup_a].tag);
    /* element nodes exist, degree <= 2 */
    int *deg = calloc((size_t)r->nn + 1, sizeof *deg);
    int *parent = malloc(((size_t)r->nn + 1) * sizeof *parent);
    if (!deg || !parent) {
        free(deg), free(parent);
        return fmb_mesh_fail(r, 0, FMB_ERR_NOMEM, "out of memory");
    }
    int rc = 0;
    for (int k = 0; k < r->nn; k++)
        parent[k] = k;
    for (int k = 0; k < r->ne && !rc; k++) {
        melem_t *e = &r->el[k];
        e->a = find_node(r, e->n[0]);
        e->b = find_node(r, e->n[1]);
        if (e->a < 0 || e->b < 0) {
            rc = fmb_mesh_fail(r, e->line, FMB_ERR_PARSE,
                               "element %ld uses node %ld, which is not "
                               "defined",
                               e->tag, e->a < 0 ? e->n[0] : e->n[1]);
            break;
        }
        if (e->a == e->b) {
            rc = fmb_mesh_fail(r, e->line, FMB_ERR_PARSE, "element %ld connects node %ld to itself",
                               e->tag, e->n[0]);
            break;
        }
        for (int s = 0; s < 2; s++) {
            int i = s ? e->b : e->a;
            if (++deg[i] > 2) {
                rc = fmb_mesh_fail(
                    r, e->line, FMB_ERR_PARSE,
                    "branch at node %ld: element %ld is its third line element (a bar "
                    "is one chain)",
                    r->nodes[i].tag, e->tag);
                break;
            }
        }
        if (!rc) parent[uf_find(parent, e->a)] = uf_find(parent, e->b);
    }
    /* one connected piece */
    for (int k = 1; k < r->ne && !rc; k++) {
        const melem_t *e = &r->el[k];
        if (uf_find(parent, e->a) != uf_find(parent, r->el[0].a)) {
            /* the free ends near the gap: the end of the previous element if free */
            rc = fmb_mesh_fail(r, e->line, FMB_ERR_PARSE,
                               "disconnected bar: element %ld (nodes %ld-%ld) is not connected to "
                               "element %ld (gap in the chain of line elements)",
                               e->tag, e->n[0], e->n[1], r->el[0].tag);
        }
    }
    /* in order: each element starts where the previous one ended; not closed */
    for (int k = 1; k < r->ne && !rc; k++) {
        const melem_t *e = &r->el[k], *p = &r->el[k - 1];
        if (e->a != p->b)
            rc = fmb_mesh_fail(r, e->line, FMB_ERR_PARSE,
                               "elements not ordered end-to-start: element %ld starts at node %ld, "
                               "but the previous element %ld ends at node %ld",
                               e->tag, e->n[0], p->tag, p->n[1]);
    }
    if (!rc && r->ne > 1 && r->el[r->ne - 1].b == r->el[0].a)
        rc = fmb_mesh_fail(r, r->el[r->ne - 1].line, FMB_ERR_PARSE,
                           "the line elements form a closed loop, not a bar");
    free(deg), free(parent);
    if (rc) return rc;
    /* positions along the axis from the first to the last chain node */
    const int n = r->ne + 1;
    int *chain = malloc((size_t)n * sizeof *chain);
    double *x = malloc((size_t)n * sizeof *x);
    if (!chain || !x) {
        free(chain), free(x);
        return fmb_mesh_fail(r, 0, FMB_ERR_NOMEM, "out of memory");
    }
    chain[0] = r->el[0].a;
    for (int k = 0; k < r->ne; k++)
        chain[k + 1] = r->el[k].b;
    const double *p0 = r->nodes[chain[0]].p, *p1 = r->nodes[chain[n - 1]].p;
    double ax[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
    const double len = hypot(hypot(ax[0], ax[1]), ax[2]);
    if (!(len > 0)) {
        free(chain), free(x);
        return fmb_mesh_fail(r, r->el[r->ne - 1].line, FMB_ERR_PARSE, "the bar has zero length");
    }
    for (int d = 0; d < 3; d++)
        ax[d] /= len;
    const double ctol = 1e-6 * len;
    for (int k = 0; k < n && !rc; k++) {
        const mnode_t *nd = &r->nodes[chain[k]];
        double d[3] = {nd->p[0] - p0[0], nd->p[1] - p0[1], nd->p[2] - p0[2]};
        double s = d[0] * ax[0] + d[1] * ax[1] + d[2] * ax[2];
        double off = hypot(hypot(d[0] - s * ax[0], d[1] - s * ax[1]), d[2] - s * ax[2]);
        if (off > ctol) {
            rc = fmb_mesh_fail(
                r, nd->line, FMB_ERR_PARSE,
                "node %ld is not collinear: %.6g m off the bar axis from node %ld to "
                "node %ld (tolerance %.3g m, 1e-6 of the length)",
                nd->tag, off, r->nodes[chain[0]].tag, r->nodes[chain[n - 1]].tag, ctol);
            break;
        }
        if (k > 0 && !(s > x[k - 1] + dtol)) {
            rc =
                fmb_mesh_fail(r, nd->line, FMB_ERR_PARSE,
                              "node %ld (at %.6g m along the bar) does not come after node %ld (at "
                              "%.6g m): the chain folds back",
                              nd->tag, s, r->nodes[chain[k - 1]].tag, x[k - 1]);
            break;
        }
        x[k] = k == 0 ? 0.0 : k == n - 1 ? len : s;
    }
    free(chain);
    if (rc) {
        free(x);
        return rc;
    }
    *xout = x;
    *nout = n;
    return 0;
}

/* XDMF 2 sidecar for the HDF5 results: one temporal collection per grid of the
 * visualization (src/io/viz.c), each frame reading its geometry and fields through
 * hyperslabs of the /viz datasets. */
#include "io/xdmf.h"

#include "flexmb/flexmb.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <math.h>

static const char xdmf_footer[] = " </Domain>\n</Xdmf>\n";

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

char *fmb_xdmf_path_for(const char *h5path)
{
    static const char *const exts[] = {".h5", ".hdf5", ".hdf"};
    size_t n = strlen(h5path);
    size_t keep = n;
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        size_t e = strlen(exts[i]);
        if (n > e && strcmp(h5path + n - e, exts[i]) == 0) {
            keep = n - e;
            break;
        }
    }
    char *p = malloc(keep + 5);
    if (!p) return NULL;
    memcpy(p, h5path, keep);
    memcpy(p + keep, ".xmf", 5);
    return p;
}

/* Write s with the XML special characters escaped. */
static void put_escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&apos;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}

static void put_header(FILE *f)
{
    fputs("<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
          "<Xdmf Version=\"2.0\">\n <Domain>\n",
          f);
}

/* A DataItem of n rows of ncomp values (ncomp 1: [n]): frame i of the dataset
 * [nframes x n (x ncomp)] through a hyperslab, or the static dataset [n (x ncomp)]. */
static void put_data(FILE *f, const fmb_xdmf_t *x, long i, long nframes, int n, int ncomp,
                     int is_int, int is_static, const char *dataset)
{
    const char *type =
        is_int ? "NumberType=\"Int\" Precision=\"4\"" : "NumberType=\"Float\" Precision=\"8\"";
    char dims[64];
    if (ncomp > 1)
        snprintf(dims, sizeof dims, "%d %d", n, ncomp);
    else
        snprintf(dims, sizeof dims, "%d", n);
    if (is_static) {
        fprintf(f, "<DataItem Dimensions=\"%s\" %s Format=\"HDF\">", dims, type);
    } else {
        fprintf(f, "<DataItem ItemType=\"HyperSlab\" Dimensions=\"%s\">", dims);
        if (ncomp > 1)
            fprintf(f,
                    "<DataItem Dimensions=\"3 3\" Format=\"XML\">%ld 0 0 1 1 1 1 %d %d</DataItem>"
                    "<DataItem Dimensions=\"%ld %d %d\" %s Format=\"HDF\">",
                    i, n, ncomp, nframes, n, ncomp, type);
        else
            fprintf(f,
                    "<DataItem Dimensions=\"3 2\" Format=\"XML\">%ld 0 1 1 1 %d</DataItem>"
                    "<DataItem Dimensions=\"%ld %d\" %s Format=\"HDF\">",
                    i, n, nframes, n, type);
    }
    put_escaped(f, x->h5name);
    fputc(':', f);
    put_escaped(f, dataset);
    fputs(is_static ? "</DataItem>" : "</DataItem></DataItem>", f);
}

/* Frame i (time t) of grid g in a file holding nframes frames.
 * The cells take the grid's points in order (polyline segments 2 by 2, quadrilaterals 4
 * by 4, vertices 1 by 1): the topology deliberately has no connectivity DataItem, and the
 * reader generates 0 .. n-1. ParaView's XDMF 2 reader caches a grid's dataset keyed on
 * the text of the first DataItem of its Topology and Geometry; without a topology
 * DataItem it skips that cache, which would otherwise either freeze the animation or
 * print "no caching possible" errors for hyperslab geometry. */
static void put_frame(FILE *f, const fmb_xdmf_t *x, const fmb_xdmf_grid_t *g, long i, double t,
                      long nframes)
{
    fputs("   <Grid Name=\"", f);
    put_escaped(f, g->name);
    fprintf(f,
            "\" GridType=\"Uniform\"><Time Value=\"%.17g\"/><Topology TopologyType=\"%s\" "
            "NumberOfElements=\"%d\" NodesPerElement=\"%d\"/><Geometry GeometryType=\"XYZ\">",
            t, g->topology, g->ncells, g->nodes_per_cell);
    put_data(f, x, i, nframes, g->npoints, 3, 0, g->is_static, g->dataset);
    fputs("</Geometry>\n", f);
    for (int a = 0; a < g->nattrs; a++) {
        const fmb_xdmf_attr_t *at = &g->attrs[a];
        fputs("    <Attribute Name=\"", f);
        put_escaped(f, at->name);
        fprintf(f, "\" AttributeType=\"%s\" Center=\"%s\">", at->ncomp == 3 ? "Vector" : "Scalar",
                at->cell ? "Cell" : "Node");
        put_data(f, x, i, nframes, at->cell ? g->ncells : g->npoints, at->ncomp, at->is_int,
                 at->is_static, at->dataset);
        fputs("</Attribute>\n", f);
    }
    fputs("   </Grid>\n", f);
}

size_t fmb_xdmf_frame_bytes(const fmb_xdmf_t *x, long nframes)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return 0;
    const long i = nframes > 1 ? nframes - 1 : 0;
    for (int k = 0; k < x->ngrids; k++) /* the longest time text %.17g gives */
        if (x->grids[k].npoints > 0)
            put_frame(f, x, &x->grids[k], i, -1.2345678901234567e-300, nframes > 1 ? nframes : 1);
    fclose(f);
    free(buf);
    return len;
}

static int xdmf_error(char *err, size_t errlen, const char *path, const char *what)
{
    if (err && errlen) snprintf(err, errlen, "%s: cannot %s: %s", path, what, strerror(errno));
    return FMB_ERR_IO;
}

static int xdmf_rewrite(fmb_xdmf_t *x, const double *t, long nrec, char *err, size_t errlen)
{
    size_t n = strlen(x->path);
    char *tmp = malloc(n + 5);
    if (!tmp) return FMB_ERR_NOMEM;
    memcpy(tmp, x->path, n);
    memcpy(tmp + n, ".tmp", 5);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        int st = xdmf_error(err, errlen, tmp, "create");
        free(tmp);
        return st;
    }
    put_header(f);
    for (int k = 0; k < x->ngrids; k++) {
        const fmb_xdmf_grid_t *g = &x->grids[k];
        if (g->npoints <= 0) continue;
        fputs("  <Grid Name=\"", f);
        put_escaped(f, g->name);
        fputs("\" GridType=\"Collection\" CollectionType=\"Temporal\">\n", f);
        for (long i = 0; i < nrec; i++)
            put_frame(f, x, g, i, t[i], nrec);
        fputs("  </Grid>\n", f);
    }
    fputs(xdmf_footer, f);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, x->path) != 0) {
        int st = xdmf_error(err, errlen, x->path, "write");
        remove(tmp);
        free(tmp);
        return st;
    }
    free(tmp);
    x->done = nrec;
    return 0;
}

int fmb_xdmf_update(fmb_xdmf_t *x, const double *t, long nframes, int full, char *err,
                    size_t errlen)
{
    if (!full && nframes == x->done) return 0;
    /* The whole file is rewritten (one temporal collection per grid: every grid keeps its
     * name in ParaView at every time step); between full updates at most once per
     * second and per 20 rewrite times, so that a long run spends < 5 % on it. */
    const double now = wall_now();
    if (!full && x->done > 0 && now - x->last < fmax(1.0, 20 * x->cost)) return 0;
    int st = xdmf_rewrite(x, t, nframes, err, errlen);
    const double after = wall_now();
    x->cost = after - now;
    x->last = after;
    return st;
}

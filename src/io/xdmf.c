/* XDMF 2 sidecar for the HDF5 results: a temporal collection of spatial collections,
 * one per record, whose geometry is read through hyperslabs of the HDF5 datasets. */
#include "io/writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char xdmf_footer[] = "  </Grid>\n </Domain>\n</Xdmf>\n";

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
          "<Xdmf Version=\"2.0\">\n <Domain>\n"
          "  <Grid Name=\"mechanism\" GridType=\"Collection\" CollectionType=\"Temporal\">\n",
          f);
}

/* Record i (time t) of a file holding nrec records.
 * Each body is one polyline cell through its points in order (one point: a vertex).
 * The topology deliberately has no connectivity DataItem (the reader generates
 * 0 .. n-1): ParaView's XDMF 2 reader caches a grid's dataset keyed on the text of the
 * first DataItem of its Topology and Geometry, and without a topology DataItem it
 * skips that cache, which would otherwise either freeze the animation or print
 * "no caching possible" errors for hyperslab geometry. */
static void put_record(FILE *f, const fmb_xdmf_t *x, long i, double t, long nrec)
{
    fprintf(f,
            "   <Grid Name=\"record%ld\" GridType=\"Collection\" CollectionType=\"Spatial\">\n"
            "    <Time Value=\"%.17g\"/>\n",
            i, t);
    for (int k = 0; k < x->nitems; k++) {
        const fmb_xdmf_item_t *it = &x->items[k];
        int np = it->npoints;
        fputs("    <Grid Name=\"", f);
        put_escaped(f, it->name);
        fprintf(f,
                "\" GridType=\"Uniform\">\n"
                "     <Topology TopologyType=\"%s\" NumberOfElements=\"1\" "
                "NodesPerElement=\"%d\"/>\n"
                "     <Geometry GeometryType=\"%s\">\n",
                np >= 2 ? "Polyline" : "Polyvertex", np,
                it->rank == 3 && it->ncols == 3 ? "XYZ" : "XY");
        if (it->rank == 2)
            fprintf(f,
                    "      <DataItem ItemType=\"HyperSlab\" Dimensions=\"1 2\" "
                    "Type=\"HyperSlab\">\n"
                    "       <DataItem Dimensions=\"3 2\" Format=\"XML\">%ld 0 1 1 1 2"
                    "</DataItem>\n"
                    "       <DataItem Dimensions=\"%ld %d\" NumberType=\"Float\" "
                    "Precision=\"8\" Format=\"HDF\">",
                    i, nrec, it->ncols);
        else
            fprintf(f,
                    "      <DataItem ItemType=\"HyperSlab\" Dimensions=\"1 %d %d\" "
                    "Type=\"HyperSlab\">\n"
                    "       <DataItem Dimensions=\"3 3\" Format=\"XML\">%ld 0 0 1 1 1 1 %d %d"
                    "</DataItem>\n"
                    "       <DataItem Dimensions=\"%ld %d %d\" NumberType=\"Float\" "
                    "Precision=\"8\" Format=\"HDF\">",
                    np, it->ncols, i, np, it->ncols, nrec, np, it->ncols);
        put_escaped(f, x->h5name);
        fputc(':', f);
        put_escaped(f, it->dataset);
        fputs("</DataItem>\n      </DataItem>\n     </Geometry>\n", f);
        if (it->attr_name && it->attr_dataset) {
            /* Point data, read through a hyperslab too (the reader does not cache
             * attributes, so the values follow the time step). */
            fputs("     <Attribute Name=\"", f);
            put_escaped(f, it->attr_name);
            if (it->attr_1d)
                fprintf(f,
                        "\" AttributeType=\"Scalar\" Center=\"Node\">\n"
                        "      <DataItem ItemType=\"HyperSlab\" Dimensions=\"1\" "
                        "Type=\"HyperSlab\">\n"
                        "       <DataItem Dimensions=\"3 1\" Format=\"XML\">%ld 1 1"
                        "</DataItem>\n"
                        "       <DataItem Dimensions=\"%ld\" NumberType=\"Float\" "
                        "Precision=\"8\" Format=\"HDF\">",
                        i, nrec);
            else
                fprintf(f,
                        "\" AttributeType=\"Scalar\" Center=\"Node\">\n"
                        "      <DataItem ItemType=\"HyperSlab\" Dimensions=\"1 %d\" "
                        "Type=\"HyperSlab\">\n"
                        "       <DataItem Dimensions=\"3 2\" Format=\"XML\">%ld 0 1 1 1 %d"
                        "</DataItem>\n"
                        "       <DataItem Dimensions=\"%ld %d\" NumberType=\"Float\" "
                        "Precision=\"8\" Format=\"HDF\">",
                        np, i, np, nrec, np);
            put_escaped(f, x->h5name);
            fputc(':', f);
            put_escaped(f, it->attr_dataset);
            fputs("</DataItem>\n      </DataItem>\n     </Attribute>\n", f);
        }
        fputs("    </Grid>\n", f);
    }
    fputs("   </Grid>\n", f);
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
    for (long i = 0; i < nrec; i++)
        put_record(f, x, i, t[i], nrec);
    long footer = ftell(f);
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
    x->footer = footer;
    return 0;
}

int fmb_xdmf_update(fmb_xdmf_t *x, const double *t, long nrec, int full, char *err, size_t errlen)
{
    if (full || x->footer <= 0 || nrec < x->done) return xdmf_rewrite(x, t, nrec, err, errlen);
    if (nrec == x->done) return 0;
    /* Overwrite the closing tags with the new records and close again: the file only
     * grows, so nothing is left over. */
    FILE *f = fopen(x->path, "r+");
    if (!f) return xdmf_rewrite(x, t, nrec, err, errlen);
    if (fseek(f, x->footer, SEEK_SET) != 0) {
        fclose(f);
        return xdmf_rewrite(x, t, nrec, err, errlen);
    }
    for (long i = x->done; i < nrec; i++)
        put_record(f, x, i, t[i], nrec);
    long footer = ftell(f);
    fputs(xdmf_footer, f);
    int bad = ferror(f) || fflush(f) != 0;
    if (bad) {
        /* disk full: cut back to the records described before and close the XML again,
         * so the sidecar stays valid (the footer fits where the new records began) */
        const int e = errno;
        fclose(f); /* drops what stdio could not write */
        int fd = open(x->path, O_WRONLY);
        if (fd >= 0) {
            const size_t len = strlen(xdmf_footer);
            if (ftruncate(fd, x->footer) != 0 ||
                pwrite(fd, xdmf_footer, len, x->footer) != (ssize_t)len)
                (void)0; /* nothing more can be done on a full disk */
            close(fd);
        }
        errno = e ? e : ENOSPC;
        return xdmf_error(err, errlen, x->path, "write");
    }
    if (fclose(f) != 0) return xdmf_error(err, errlen, x->path, "write");
    x->done = nrec;
    x->footer = footer;
    return 0;
}

/*
 * Gmsh ASCII mesh reader for straight bars (formats 2.2 and 4.1). See io/mesh.h.
 *
 * The file is read line by line (every message names PATH:LINE). Only $MeshFormat,
 * $Nodes and $Elements are interpreted; other sections ($PhysicalNames, $Entities,
 * $NodeData, ...) are skipped up to their $End line. Nodes keep the line of their
 * coordinates, line elements the line they are defined on. After reading, the checks
 * run in the order of mesh.h, so that a duplicated node is reported as such rather than
 * as the gap in the chain it causes.
 */
#include "io/mesh.h"
#include "io/mesh_reader.h"
#include "core/file.h"

#include "flexmb/flexmb.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int fmb_mesh_fail(rd_t *r, long line, int code, const char *fmt, ...)
{
    if (r->failed) return code;
    r->failed = 1;
    if (!r->err || !r->errlen) return code;
    int n = snprintf(r->err, r->errlen, "%s:%ld: ", r->path, line);
    if (n >= 0 && (size_t)n < r->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return code;
}

/* Next line into r->buf without its line end: 1, or 0 at end of file, or < 0. */
/* Limit on a mesh file's size (docs/case-format.md): a bar mesh of a million elements is
 * about 60 MB. */
#define FMB_MESH_MAX_MB 256
#define FMB_MESH_MAX_BYTES ((off_t)FMB_MESH_MAX_MB * 1024 * 1024)
#define FMB_STR2(x) #x
#define FMB_STR(x) FMB_STR2(x)

static int rd_next(rd_t *r)
{
    errno = 0;
    ssize_t got = getline(&r->buf, &r->cap, r->f);
    if (got < 0) {
        if (ferror(r->f))
            return fmb_mesh_fail(r, r->line, FMB_ERR_IO, "read error: %s",
                                 strerror(errno ? errno : EIO));
        if (!r->buf && errno == ENOMEM)
            return fmb_mesh_fail(r, r->line, FMB_ERR_NOMEM, "out of memory");
        return 0;
    }
    r->line++;
    while (got > 0 && (r->buf[got - 1] == '\n' || r->buf[got - 1] == '\r'))
        r->buf[--got] = '\0';
    return 1;
}

static int blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t') return 0;
    return 1;
}

/* Next non-blank line; end of file is an error naming what was expected. */
static int rd_expect(rd_t *r, const char *what)
{
    for (;;) {
        int rc = rd_next(r);
        if (rc < 0) return rc;
        if (rc == 0)
            return fmb_mesh_fail(r, r->line, FMB_ERR_PARSE, "unexpected end of file, expected %s",
                                 what);
        if (!blank(r->buf)) return 0;
    }
}

/* Split the current line into numbers; *count tokens. A token that is not a number is
 * an error naming what the line should hold. */
static int rd_numbers(rd_t *r, const char *what, double *v, int *count)
{
    char *s = r->buf;
    int n = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s) break;
        if (n == MAX_TOKENS)
            return fmb_mesh_fail(r, r->line, FMB_ERR_PARSE, "too many values on the line (%s)",
                                 what);
        char *end;
        errno = 0;
        double x = strtod(s, &end);
        if (end == s || (*end && *end != ' ' && *end != '\t') || !isfinite(x)) {
            size_t len = strcspn(s, " \t");
            return fmb_mesh_fail(r, r->line, FMB_ERR_PARSE, "expected %s, found '%.*s'", what,
                                 (int)(len > 40 ? 40 : len), s);
        }
        v[n++] = x;
        s = end;
    }
    *count = n;
    return 0;
}

/* The current line holds exactly `want` integers (want < 0: at least -want). */
static int rd_ints(rd_t *r, const char *what, int want, long *out, double *raw, int *count)
{
    double v[MAX_TOKENS];
    int n, rc = rd_numbers(r, what, v, &n);
    if (rc) return rc;
    if ((want >= 0 && n != want) || (want < 0 && n < -want))
        return fmb_mesh_fail(r, r->line, FMB_ERR_PARSE,
                             "expected %s (%s%d values), found %d values", what,
                             want < 0 ? "at least " : "", want < 0 ? -want : want, n);
    for (int k = 0; k < n; k++) {
        if (raw) raw[k] = v[k];
        if (out) {
            if (v[k] != floor(v[k]) || fabs(v[k]) > 1e15)
                return fmb_mesh_fail(r, r->line, FMB_ERR_PARSE,
                                     "expected %s, found %g (not an "
                                     "integer)",
                                     what, v[k]);
            out[k] = (long)v[k];
        }
    }
    if (count) *count = n;
    return 0;
}

static int rd_end(rd_t *r, const char *section)
{
    int rc = rd_expect(r, section);
    if (rc) return rc;
    const char *s = r->buf;
    while (*s == ' ' || *s == '\t')
        s++;
    size_t len = strlen(section);
    if (strncmp(s, section, len) || !blank(s + len))
        return fmb_mesh_fail(r, r->line, FMB_ERR_PARSE, "expected %s, found '%.40s'", section, s);
    return 0;
}

static int add_node(rd_t *r, long tag, const double *p)
{
    if (r->nn == r->capn) {
        int cap = r->capn ? 2 * r->capn : 64;
        mnode_t *q = realloc(r->nodes, (size_t)cap * sizeof *q);
        if (!q) return fmb_mesh_fail(r, r->line, FMB_ERR_NOMEM, "out of memory");
        r->nodes = q;
        r->capn = cap;
    }
    mnode_t *d = &r->nodes[r->nn++];
    d->tag = tag;
    d->p[0] = p[0], d->p[1] = p[1], d->p[2] = p[2];
    d->line = r->line;
    return 0;
}

/* An element of Gmsh type `type` with its node tags; lines are kept, points dropped. */
static int add_element(rd_t *r, long tag, long type, const long *nodes, int nnodes)
{
    if (type == 15) return 0;
    if (type != 1)
        return fmb_mesh_fail(
            r, r->line, FMB_ERR_PARSE,
            "element %ld has type %ld: only 2-node lines (type 1) and points (type "
            "15) are supported (mesh the bar with first-order line elements)",
            tag, type);
    if (nnodes != 2)
        return fmb_mesh_fail(r, r->line, FMB_ERR_PARSE, "line element %ld needs 2 nodes, has %d",
                             tag, nnodes);
    if (r->ne == r->cape) {
        int cap = r->cape ? 2 * r->cape : 64;
        melem_t *q = realloc(r->el, (size_t)cap * sizeof *q);
        if (!q) return fmb_mesh_fail(r, r->line, FMB_ERR_NOMEM, "out of memory");
        r->el = q;
        r->cape = cap;
    }
    melem_t *e = &r->el[r->ne++];
    e->tag = tag;
    e->n[0] = nodes[0], e->n[1] = nodes[1];
    e->line = r->line;
    e->a = e->b = -1;
    return 0;
}

static int count_ok(rd_t *r, long n, const char *what)
{
    if (n < 0 || n > 100000000)
        return fmb_mesh_fail(r, r->line, FMB_ERR_PARSE, "invalid %s count %ld", what, n);
    return 0;
}

static int read_format(rd_t *r)
{
    int rc = rd_expect(r, "the format line 'version file-type data-size'");
    if (rc) return rc;
    double v[MAX_TOKENS];
    int n;
    if ((rc = rd_numbers(r, "the format line 'version file-type data-size'", v, &n))) return rc;
    if (n != 3)
        return fmb_mesh_fail(r, r->line, FMB_ERR_PARSE,
                             "expected the format line 'version file-type data-size', found %d "
                             "values",
                             n);
    if (fabs(v[0] - 2.2) < 1e-9)
        r->version = 22;
    else if (fabs(v[0] - 4.1) < 1e-9)
        r->version = 41;
    else
        return fmb_mesh_fail(r, r->line, FMB_ERR_PARSE,
                             "unsupported mesh format version %g (supported: 2.2, 4.1; save with "
                             "gmsh -format msh22 or msh41)",
                             v[0]);
    if (v[1] != 0)
        return fmb_mesh_fail(r, r->line, FMB_ERR_PARSE,
                             "binary mesh files are not supported (file-type %g; save as ASCII)",
                             v[1]);
    return rd_end(r, "$EndMeshFormat");
}

static int read_nodes22(rd_t *r)
{
    long cnt;
    int rc = rd_expect(r, "the node count");
    if (rc || (rc = rd_ints(r, "the node count", 1, &cnt, NULL, NULL)) ||
        (rc = count_ok(r, cnt, "node")))
        return rc;
    for (long k = 0; k < cnt; k++) {
        double raw[MAX_TOKENS];
        if ((rc = rd_expect(r, "a node 'tag x y z'")) ||
            (rc = rd_ints(r, "a node 'tag x y z'", 4, NULL, raw, NULL)))
            return rc;
        if (raw[0] != floor(raw[0]) || raw[0] < 1 || raw[0] > 1e15)
            return fmb_mesh_fail(r, r->line, FMB_ERR_PARSE, "invalid node tag %g", raw[0]);
        if ((rc = add_node(r, (long)raw[0], raw + 1))) return rc;
    }
    return rd_end(r, "$EndNodes");
}

static int read_nodes41(rd_t *r)
{
    long h[4];
    int rc = rd_expect(r, "the nodes header");
    if (rc ||
        (rc = rd_ints(r,
                      "the nodes header 'numEntityBlocks numNodes minNodeTag "
                      "maxNodeTag'",
                      4, h, NULL, NULL)) ||
        (rc = count_ok(r, h[0], "node block")) || (rc = count_ok(r, h[1], "node")))
        return rc;
    long total = 0;
    for (long b = 0; b < h[0]; b++) {
        long bh[4];
        if ((rc = rd_expect(r, "a node block header")) ||
            (rc = rd_ints(r,
                          "a node block header 'entityDim entityTag parametric "
                          "numNodesInBlock'",
                          4, bh, NULL, NULL)) ||
            (rc = count_ok(r, bh[3], "node")))
            return rc;
        if (bh[0] < 0 || bh[0] > 3)
            return fmb_mesh_fail(r, r->line, FMB_ERR_PARSE, "invalid entity dimension %ld", bh[0]);
        int extra = bh[2] ? (int)bh[0] : 0; /* parametric coordinates per node */
        long first = r->nn;
        for (long k = 0; k < bh[3]; k++) {
            long tag;
            if ((rc = rd_expect(r, "a node tag")) ||
                (rc = rd_ints(r, "a node tag", 1, &tag, NULL, NULL)))
                return rc;
            if (tag < 1)
                return fmb_mesh_fail(r, r->line, FMB_ERR_PARSE, "invalid node tag %ld", tag);
            double zero[3] = {0, 0, 0};
            if ((rc = add_node(r, tag, zero))) return rc;
        }
        for (long k = 0; k < bh[3]; k++) {
            double raw[MAX_TOKENS];
            char what[64];
            snprintf(what, sizeof what, "node coordinates 'x y z%s'",
                     extra == 0   ? ""
                     : extra == 1 ? " u"
                                  : " u v");
            if ((rc = rd_expect(r, what)) || (rc = rd_ints(r, what, 3 + extra, NULL, raw, NULL)))
                return rc;
            mnode_t *d = &r->nodes[first + k];
            d->p[0] = raw[0], d->p[1] = raw[1], d->p[2] = raw[2];
            d->line = r->line;
        }
        total += bh[3];
    }
    if (total != h[1])
        return fmb_mesh_fail(r, r->line, FMB_ERR_PARSE,
                             "the node blocks hold %ld nodes, the header "
                             "announced %ld",
                             total, h[1]);
    return rd_end(r, "$EndNodes");
}

static int type_nodes(long type)
{
    return type == 1 ? 2 : type == 15 ? 1 : -1;
}

static int read_elements22(rd_t *r)
{
    long cnt;
    int rc = rd_expect(r, "the element count");
    if (rc || (rc = rd_ints(r, "the element count", 1, &cnt, NULL, NULL)) ||
        (rc = count_ok(r, cnt, "element")))
        return rc;
    for (long k = 0; k < cnt; k++) {
        long v[MAX_TOKENS];
        int n;
        const char *what = "an element 'tag type numTags tags... nodes...'";
        if ((rc = rd_expect(r, what)) || (rc = rd_ints(r, what, -3, v, NULL, &n))) return rc;
        if (v[2] < 0 || v[2] > n - 3)
            return fmb_mesh_fail(r, r->line, FMB_ERR_PARSE, "element %ld: invalid tag count %ld",
                                 v[0], v[2]);
        int nt = (int)v[2];
        if (3 + nt > n)
            return fmb_mesh_fail(r, r->line, FMB_ERR_PARSE, "element %ld: invalid tag count %ld",
                                 v[0], v[2]);
        int nn = n - 3 - nt, want = type_nodes(v[1]);
        if (want > 0 && nn != want)
            return fmb_mesh_fail(r, r->line, FMB_ERR_PARSE,
                                 "element %ld of type %ld needs %d nodes, has %d", v[0], v[1], want,
                                 nn);
        if ((rc = add_element(r, v[0], v[1], v + 3 + nt, nn))) return rc;
    }
    return rd_end(r, "$EndElements");
}

static int read_elements41(rd_t *r)
{
    long h[4];
    int rc = rd_expect(r, "the elements header");
    if (rc ||
        (rc = rd_ints(r,
                      "the elements header 'numEntityBlocks numElements "
                      "minElementTag maxElementTag'",
                      4, h, NULL, NULL)) ||
        (rc = count_ok(r, h[0], "element block")) || (rc = count_ok(r, h[1], "element")))
        return rc;
    long total = 0;
    for (long b = 0; b < h[0]; b++) {
        long bh[4];
        if ((rc = rd_expect(r, "an element block header")) ||
            (rc = rd_ints(r,
                          "an element block header 'entityDim entityTag elementType "
                          "numElementsInBlock'",
                          4, bh, NULL, NULL)) ||
            (rc = count_ok(r, bh[3], "element")))
            return rc;
        int want = type_nodes(bh[2]);
        for (long k = 0; k < bh[3]; k++) {
            long v[MAX_TOKENS];
            int n;
            const char *what = "an element 'tag nodes...'";
            if ((rc = rd_expect(r, what)) || (rc = rd_ints(r, what, -2, v, NULL, &n))) return rc;
            if (want > 0 && n - 1 != want)
                return fmb_mesh_fail(r, r->line, FMB_ERR_PARSE,
                                     "element %ld of type %ld needs %d nodes, has %d", v[0], bh[2],
                                     want, n - 1);
            if ((rc = add_element(r, v[0], bh[2], v + 1, n - 1))) return rc;
        }
        total += bh[3];
    }
    if (total != h[1])
        return fmb_mesh_fail(r, r->line, FMB_ERR_PARSE,
                             "the element blocks hold %ld elements, the "
                             "header announced %ld",
                             total, h[1]);
    return rd_end(r, "$EndElements");
}

/* Skip a section up to $End<name>. */
static int skip_section(rd_t *r, const char *section)
{
    long start = r->line;
    char name[64], end[128];
    /* the name points into the line buffer, which the next reads reallocate: copy it */
    snprintf(name, sizeof name, "%s", section);
    snprintf(end, sizeof end, "$End%s", name);
    for (;;) {
        int rc = rd_next(r);
        if (rc < 0) return rc;
        if (rc == 0)
            return fmb_mesh_fail(r, start, FMB_ERR_PARSE, "section $%s is not closed by %s", name,
                                 end);
        const char *s = r->buf;
        while (*s == ' ' || *s == '\t')
            s++;
        if (!strncmp(s, end, strlen(end)) && blank(s + strlen(end))) return 0;
    }
}

static int read_all(rd_t *r)
{
    int have_format = 0;
    for (;;) {
        int rc = rd_next(r);
        if (rc < 0) return rc;
        if (rc == 0) break;
        if (blank(r->buf)) continue;
        char *s = r->buf;
        while (*s == ' ' || *s == '\t')
            s++;
        char *e = s + strlen(s);
        while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
            *--e = '\0';
        if (*s != '$')
            return fmb_mesh_fail(r, r->line, FMB_ERR_PARSE, "expected a section header ($Name)%s",
                                 have_format ? "" : ": not a Gmsh mesh file");
        const char *name = s + 1;
        if (!strcmp(name, "MeshFormat")) {
            if (have_format)
                return fmb_mesh_fail(r, r->line, FMB_ERR_PARSE, "second $MeshFormat section");
            if ((rc = read_format(r))) return rc;
            have_format = 1;
            continue;
        }
        if (!have_format)
            return fmb_mesh_fail(r, r->line, FMB_ERR_PARSE,
                                 "section $%s before $MeshFormat (not a Gmsh mesh?)", name);
        if (!strcmp(name, "Nodes")) {
            if (r->nodes_line)
                return fmb_mesh_fail(r, r->line, FMB_ERR_PARSE,
                                     "second $Nodes section (first at "
                                     "line %ld)",
                                     r->nodes_line);
            r->nodes_line = r->line;
            rc = r->version == 22 ? read_nodes22(r) : read_nodes41(r);
        } else if (!strcmp(name, "Elements")) {
            if (r->elements_line)
                return fmb_mesh_fail(r, r->line, FMB_ERR_PARSE,
                                     "second $Elements section (first "
                                     "at line %ld)",
                                     r->elements_line);
            if (!r->nodes_line)
                return fmb_mesh_fail(r, r->line, FMB_ERR_PARSE, "$Elements before $Nodes");
            r->elements_line = r->line;
            rc = r->version == 22 ? read_elements22(r) : read_elements41(r);
        } else if (!strncmp(name, "End", 3)) {
            return fmb_mesh_fail(r, r->line, FMB_ERR_PARSE, "$%s without its section", name);
        } else {
            rc = skip_section(r, name);
        }
        if (rc) return rc;
    }
    if (!have_format)
        return fmb_mesh_fail(r, r->line ? r->line : 1, FMB_ERR_PARSE,
                             "not a Gmsh mesh: no $MeshFormat section");
    if (!r->elements_line)
        return fmb_mesh_fail(r, r->line ? r->line : 1, FMB_ERR_PARSE,
                             "no $Elements section: the bar needs at least one line element");
    return 0;
}

/* Read from an open stream (the file or a memory buffer) and free the reader. */
static int read_stream(rd_t *r, double **x, int *n)
{
    int rc = read_all(r);
    if (!rc) rc = fmb_mesh_check_and_build(r, x, n);
    fclose(r->f);
    free(r->buf);
    free(r->nodes);
    free(r->el);
    return rc;
}

static int reader_init(rd_t *r, const char *path, double **x, int *n, char *err, size_t errlen)
{
    if (err && errlen) err[0] = '\0';
    if (!path || !x || !n) {
        if (err && errlen) snprintf(err, errlen, "%s: invalid argument", path ? path : "(null)");
        return FMB_ERR_ARG;
    }
    *x = NULL;
    *n = 0;
    memset(r, 0, sizeof *r);
    r->path = path;
    r->err = err;
    r->errlen = errlen;
    return 0;
}

int fmb_mesh_read_line(const char *path, double **x, int *n, char *err, size_t errlen)
{
    rd_t r;
    int rc = reader_init(&r, path, x, n, err, errlen);
    if (rc) return rc;
    /* a mesh is a regular file of bounded size (not /dev/zero, a FIFO or a directory) */
    int e = 0;
    const char *why = NULL;
    r.f = fmb_open_regular(path, (size_t)FMB_MESH_MAX_BYTES, &e, &why);
    if (!r.f) {
        const char *limit = "larger than the mesh size limit (" FMB_STR(FMB_MESH_MAX_MB) " MB)";
        if (err && errlen)
            snprintf(err, errlen, "%s: %s%s", path, why ? "" : "cannot open: ",
                     !why                   ? strerror(e)
                     : strstr(why, "limit") ? limit
                                            : why);
        return FMB_ERR_IO;
    }
    return read_stream(&r, x, n);
}

int fmb_mesh_read_line_buffer(const char *name, const char *buf, size_t len, double **x, int *n,
                              char *err, size_t errlen)
{
    rd_t r;
    int rc = reader_init(&r, name, x, n, err, errlen);
    if (rc) return rc;
    if (!buf || (off_t)len > FMB_MESH_MAX_BYTES) {
        if (err && errlen)
            snprintf(err, errlen, "%s: %s", name,
                     !buf ? "invalid argument"
                          : "larger than the mesh size limit (" FMB_STR(FMB_MESH_MAX_MB) " MB)");
        return !buf ? FMB_ERR_ARG : FMB_ERR_IO;
    }
    /* fmemopen of a zero-length buffer fails on some C libraries: read an empty file then */
    static const char empty[1] = {0};
    r.f = fmemopen(len ? (void *)buf : (void *)empty, len ? len : 1, "r");
    if (!r.f) {
        if (err && errlen) snprintf(err, errlen, "%s: cannot open: %s", name, strerror(errno));
        return FMB_ERR_IO;
    }
    if (!len) fgetc(r.f); /* at end of the one-byte stand-in */
    return read_stream(&r, x, n);
}

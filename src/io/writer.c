/* HDF5 results writer (layout: docs/output.md).
 *
 * Every time-dependent dataset is chunked with an unlimited first dimension. Records
 * are buffered in memory and written in batches: at the latest every WRITER_BATCH
 * records or after WRITER_FLUSH_SECONDS of wall time, each batch extending all
 * datasets together, followed by H5Fflush and an update of the XDMF sidecar (whose
 * frames, a bounded subset of the records, are written by src/io/viz.c). So the
 * file on disk always holds a whole number of records, the same in every dataset, and
 * fmb_writer_destroy leaves exactly the records appended. */
#include "io/writer.h"

#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "bodies/beam.h"
#include "io/viz.h"
#include "io/xdmf.h"
#include "model/model.h"
#include "model/table.h"
#include "solve/sim.h"

#define WRITER_BATCH 256         /* records per batch, also the chunk length */
#define WRITER_FLUSH_SECONDS 1.0 /* wall time between flushes, at most */
#define WRITER_MAX_RANK 3

typedef struct wds {
    hid_t id;
    hid_t mtype;  /* memory type */
    size_t esize; /* element size in memory */
    int rank;
    hsize_t tail[WRITER_MAX_RANK]; /* dims after the first */
    size_t rowlen;                 /* elements per record */
    unsigned char *buf;            /* WRITER_BATCH * rowlen elements */
} wds_t;

typedef struct wbody {
    int b, offset, ndof, npoints;
    double *u; /* 2 * npoints body-frame points */
    int ds_q, ds_qd, ds_qdd, ds_pose, ds_points;
    int nnodes;                          /* beam bodies: node count (0 for rigid bodies) */
    double *bx, *by;                     /* beam node scratch: inertial x, y (nnodes each) */
    int ds_bpoints, ds_bdefl, ds_bslope; /* /beams/<body>/points, deflection, slope */
    int *slope_col; /* beam: column of node k's rotation in the body's q, -1 if held */
} wbody_t;

#define WRITER_MAX_OUTPUTS 16 /* extra outputs per joint written */

typedef struct wjoint {
    int j;
    int body; /* body whose joint point gives the position (ground: inertial) */
    double u[2];
    int ds_reaction, ds_violation, ds_position;
    int ds_reaction_joint, ds_reaction_body, ds_force; /* other axes, |F| */
    int ds_drive, drive_column;                        /* drivers: drive torque/force */
    int noutputs;                                      /* extra outputs (/<group>/<joint>/<name>) */
    int ds_out[WRITER_MAX_OUTPUTS];
    int contact;    /* frictional sliding joint: /contacts/<joint> */
    double v_stick; /* |v| below which the stick flag is set */
    int ds_normal, ds_friction, ds_ftotal, ds_mode, ds_stick, ds_z, ds_v;
} wjoint_t;

/* A force with extra outputs (clearance joints: /joints/<name>/clearance/...). */
typedef struct wforce {
    int f, n, total;                /* force index, outputs, values (sum of the widths) */
    int ds[WRITER_MAX_OUTPUTS];
    int width[WRITER_MAX_OUTPUTS];
} wforce_t;

struct fmb_writer {
    hid_t file;
    wforce_t *forces;
    int nforces;
    char *h5path;            /* the results file's final name (messages) */
    char *stage, *stage_xmf; /* where the file and its sidecar are written until the end */
    char *final_xmf;
    const fmb_model_t *model;
    wds_t *ds;
    int nds, capds;
    wbody_t *bodies;
    int nbodies;
    wjoint_t *joints;
    int njoints;
    int ds_time, ds_energy, ds_newton;
    struct wswitch { /* /switches/<force>: mode, force, relative_velocity */
        int f, ds_mode, ds_force, ds_v;
    } *sws;
    int nsws;
    long nrec;     /* records in the file */
    int nbuf;      /* records buffered */
    double last_flush;
    fmb_viz_t *viz; /* /viz and the .xmf sidecar (NULL: --no-viz) */
    long viz_every; /* records per visualization frame */
    int failed; /* sticky status after an HDF5 failure */
    char err[512];
};

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int werr(fmb_writer_t *w, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int werr(fmb_writer_t *w, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->err, sizeof w->err, fmt, ap);
    va_end(ap);
    if (status == FMB_ERR_HDF5 || status == FMB_ERR_IO) w->failed = status;
    return status;
}

static char *dupstr(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

/* HDF5 link name for a body or joint name: '/' is not allowed, "." is reserved. */
static void link_name(const char *name, char *out, size_t len)
{
    snprintf(out, len, "%s", (name && *name) ? name : "unnamed");
    for (char *p = out; *p; p++)
        if (*p == '/') *p = '_';
    if (strcmp(out, ".") == 0) out[0] = '_';
}

/* ---------------------------------------------------------------- attributes */

static int attr_string(hid_t loc, const char *name, const char *value)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t attr = -1;
    herr_t st = -1;
    if (type >= 0 && space >= 0 && H5Tset_size(type, H5T_VARIABLE) >= 0 &&
        H5Tset_cset(type, H5T_CSET_UTF8) >= 0) {
        attr = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
        if (attr >= 0) st = H5Awrite(attr, type, &value);
    }
    if (attr >= 0) H5Aclose(attr);
    if (space >= 0) H5Sclose(space);
    if (type >= 0) H5Tclose(type);
    return st < 0 ? -1 : 0;
}

/* Scalar attribute stored as file_type from a value in memory of mem_type. */
static int attr_scalar(hid_t loc, const char *name, hid_t file_type, hid_t mem_type,
                       const void *value)
{
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t attr = -1;
    herr_t st = -1;
    if (space >= 0) {
        attr = H5Acreate2(loc, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT);
        if (attr >= 0) st = H5Awrite(attr, mem_type, value);
    }
    if (attr >= 0) H5Aclose(attr);
    if (space >= 0) H5Sclose(space);
    return st < 0 ? -1 : 0;
}

static int attr_double(hid_t loc, const char *name, double value)
{
    return attr_scalar(loc, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
}

static int attr_int(hid_t loc, const char *name, int value)
{
    return attr_scalar(loc, name, H5T_STD_I32LE, H5T_NATIVE_INT, &value);
}

/* A 1-D array of variable-length UTF-8 strings (n may be 0): a static dataset, or with
 * as_attr an attribute of loc. */
static int strings_put(hid_t loc, const char *name, const char *const *values, hsize_t n,
                       int as_attr)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    hid_t space = H5Screate_simple(1, &n, NULL);
    hid_t obj = -1;
    herr_t st = -1;
    if (type >= 0 && space >= 0 && H5Tset_size(type, H5T_VARIABLE) >= 0 &&
        H5Tset_cset(type, H5T_CSET_UTF8) >= 0) {
        obj = as_attr ? H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT)
                      : H5Dcreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (obj >= 0 && n)
            st = as_attr ? H5Awrite(obj, type, values)
                         : H5Dwrite(obj, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values);
        else if (obj >= 0)
            st = 0;
    }
    if (obj >= 0) as_attr ? H5Aclose(obj) : H5Dclose(obj);
    if (space >= 0) H5Sclose(space);
    if (type >= 0) H5Tclose(type);
    return st < 0 ? -1 : 0;
}

static int string_list(hid_t loc, const char *name, const char *const *values, hsize_t n)
{
    return strings_put(loc, name, values, n, 0);
}

static int attr_strings(hid_t loc, const char *name, const char *const *values, hsize_t n)
{
    return strings_put(loc, name, values, n, 1);
}

/* Static 1-D dataset of doubles. */
static int double_list(hid_t loc, const char *name, const double *values, hsize_t n)
{
    hid_t space = H5Screate_simple(1, &n, NULL);
    hid_t ds = -1;
    herr_t st = -1;
    if (space >= 0) {
        ds = H5Dcreate2(loc, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (ds >= 0)
            st = n ? H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) : 0;
    }
    if (ds >= 0) H5Dclose(ds);
    if (space >= 0) H5Sclose(space);
    return st < 0 ? -1 : 0;
}

/* Open the group loc/name, creating it if needed (negative on failure). */
static hid_t group_open_create(hid_t loc, const char *name)
{
    htri_t ex = H5Lexists(loc, name, H5P_DEFAULT);
    if (ex > 0) return H5Gopen2(loc, name, H5P_DEFAULT);
    if (ex < 0) return -1;
    return H5Gcreate2(loc, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
}

/* ---------------------------------------------------------------- datasets */

/* Create an extendible dataset [0 x tail...]; returns its index or a negative status. */
static int wds_create(fmb_writer_t *w, hid_t loc, const char *name, int is_int, int rank,
                      const hsize_t *tail, const char *columns)
{
    if (w->nds == w->capds) {
        int cap = w->capds ? 2 * w->capds : 32;
        wds_t *p = realloc(w->ds, (size_t)cap * sizeof *p);
        if (!p) return werr(w, FMB_ERR_NOMEM, "out of memory");
        w->ds = p;
        w->capds = cap;
    }
    wds_t *d = &w->ds[w->nds];
    memset(d, 0, sizeof *d);
    d->id = -1;
    d->rank = rank;
    d->mtype = is_int ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE;
    d->esize = is_int ? sizeof(int) : sizeof(double);
    d->rowlen = 1;
    hsize_t dims[WRITER_MAX_RANK] = {0}, maxdims[WRITER_MAX_RANK], chunk[WRITER_MAX_RANK];
    maxdims[0] = H5S_UNLIMITED;
    chunk[0] = WRITER_BATCH;
    for (int i = 1; i < rank; i++) {
        d->tail[i - 1] = dims[i] = maxdims[i] = chunk[i] = tail[i - 1];
        d->rowlen *= (size_t)tail[i - 1];
    }
    d->buf = malloc(WRITER_BATCH * d->rowlen * d->esize);
    if (!d->buf) return werr(w, FMB_ERR_NOMEM, "out of memory");
    hid_t space = H5Screate_simple(rank, dims, maxdims);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (space >= 0 && dcpl >= 0 && H5Pset_chunk(dcpl, rank, chunk) >= 0)
        d->id = H5Dcreate2(loc, name, is_int ? H5T_STD_I32LE : H5T_IEEE_F64LE, space, H5P_DEFAULT,
                           dcpl, H5P_DEFAULT);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (space >= 0) H5Sclose(space);
    w->nds++; /* owned from now on, released by destroy */
    if (d->id < 0 || (columns && attr_string(d->id, "columns", columns) < 0))
        return werr(w, FMB_ERR_HDF5, "%s: cannot create dataset %s", w->h5path, name);
    return w->nds - 1;
}

static double *row_d(fmb_writer_t *w, int k)
{
    wds_t *d = &w->ds[k];
    return (double *)(void *)d->buf + (size_t)w->nbuf * d->rowlen;
}

/* Write the buffered records: extend every dataset, then write them. */
/* Free space on the results' file system against what the next batch needs: HDF5 has no
 * journal, so a write that fills the disk can leave the file unreadable. Stopping first
 * keeps every record written so far readable. */
/* Bytes free for the results file's directory, or a negative value when unknown. */
static double free_bytes(const fmb_writer_t *w)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", w->h5path);
    char *slash = strrchr(dir, '/');
    if (slash)
        slash == dir ? (void)(dir[1] = '\0') : (void)(*slash = '\0');
    else
        snprintf(dir, sizeof dir, ".");
    struct statvfs vs;
    if (statvfs(dir, &vs) != 0) return -1; /* cannot tell */
    return (double)vs.f_bavail * (double)vs.f_frsize;
}

/* Bytes of one record in the datasets (time series only). */
static double record_bytes(const fmb_writer_t *w)
{
    double b = 0;
    for (int k = 0; k < w->nds; k++)
        b += (double)w->ds[k].rowlen * (double)w->ds[k].esize;
    return b;
}

static int disk_room(fmb_writer_t *w)
{
    double need = (double)w->nbuf * record_bytes(w) + (double)fmb_viz_pending_bytes(w->viz);
    need = need + need / 4 + 256 * 1024; /* chunk and metadata overhead, the sidecar */
    const double avail = free_bytes(w);
    if (avail < 0 || avail >= need) return 0; /* room, or cannot tell: try */
    return werr(w, FMB_ERR_IO,
                "%s: disk almost full (%.0f kB free, the next %d records and frames need about %.0f kB): "
                "stopped before writing them, so that the %ld records so far stay readable",
                w->h5path, avail / 1024, w->nbuf, need / 1024, w->nrec);
}

int fmb_writer_check_room(fmb_writer_t *w, double nrecords)
{
    if (!w) return FMB_ERR_ARG;
    const double rec = record_bytes(w);
    const double need = nrecords * rec * 1.25 + 256 * 1024;
    const double avail = free_bytes(w);
    if (avail < 0 || avail >= need) return 0;
    return werr(w, FMB_ERR_IO,
                "%s: the run would write %.0f records of %.3g kB, about %.3g GB, but the disk has "
                "%.3g GB free: raise output_every, shorten t_end or write elsewhere (-o)",
                w->h5path, nrecords, rec / 1024, need / 1e9, avail / 1e9);
}

static int write_batch(fmb_writer_t *w)
{
    if (w->failed) return w->failed;
    if (w->nbuf == 0) return 0;
    int room = disk_room(w);
    if (room < 0) return w->failed = room;
    hsize_t n0 = (hsize_t)w->nrec, n = (hsize_t)w->nbuf;
    int k;
    for (k = 0; k < w->nds; k++) {
        wds_t *d = &w->ds[k];
        hsize_t dims[WRITER_MAX_RANK];
        dims[0] = n0 + n;
        for (int i = 1; i < d->rank; i++)
            dims[i] = d->tail[i - 1];
        if (H5Dset_extent(d->id, dims) < 0) break;
    }
    if (k < w->nds) {
        /* Keep the lengths consistent: shrink back what was extended. */
        for (int i = 0; i < k; i++) {
            hsize_t dims[WRITER_MAX_RANK];
            dims[0] = n0;
            for (int r = 1; r < w->ds[i].rank; r++)
                dims[r] = w->ds[i].tail[r - 1];
            H5Dset_extent(w->ds[i].id, dims);
        }
        return werr(w, FMB_ERR_HDF5, "%s: cannot extend datasets", w->h5path);
    }
    for (k = 0; k < w->nds; k++) {
        wds_t *d = &w->ds[k];
        hsize_t start[WRITER_MAX_RANK] = {0}, count[WRITER_MAX_RANK];
        start[0] = n0;
        count[0] = n;
        for (int i = 1; i < d->rank; i++)
            count[i] = d->tail[i - 1];
        hid_t fspace = H5Dget_space(d->id);
        hid_t mspace = H5Screate_simple(d->rank, count, NULL);
        herr_t st = -1;
        if (fspace >= 0 && mspace >= 0 &&
            H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL) >= 0)
            st = H5Dwrite(d->id, d->mtype, mspace, fspace, H5P_DEFAULT, d->buf);
        if (mspace >= 0) H5Sclose(mspace);
        if (fspace >= 0) H5Sclose(fspace);
        if (st < 0) return werr(w, FMB_ERR_HDF5, "%s: cannot write records", w->h5path);
    }
    w->nrec += w->nbuf;
    w->nbuf = 0;
    return 0;
}

static int flush_all(fmb_writer_t *w, int full_xdmf)
{
    int st = write_batch(w);
    if (st < 0) return st;
    char vmsg[400];
    if (w->nbuf == 0 && fmb_viz_pending_bytes(w->viz) > 0 && (st = disk_room(w)) < 0)
        return w->failed = st;
    if (w->viz && (st = fmb_viz_sync(w->viz, vmsg, sizeof vmsg)) < 0)
        return w->failed = werr(w, st, "%s", vmsg);
    errno = 0;
    if (H5Fflush(w->file, H5F_SCOPE_GLOBAL) < 0)
        return werr(w, FMB_ERR_IO, "%s: cannot flush the results%s%s", w->h5path,
                    errno ? ": " : "", errno ? strerror(errno) : "");
    w->last_flush = wall_seconds();
    if (!w->viz) return 0;
    char msg[400];
    st = fmb_viz_update_sidecar(w->viz, full_xdmf, msg, sizeof msg);
    if (st < 0) return werr(w, st, "%s", msg);
    return 0;
}

/* ---------------------------------------------------------------- layout */

static const char *integrator_name(fmb_integrator it)
{
    return it == FMB_NEWMARK ? "newmark" : it == FMB_GENERALIZED_ALPHA ? "generalized_alpha" : "hht";
}

static int make_columns(int ndof, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < ndof; i++) {
        static const char *const carrier[3] = {"rbar_x", "rbar_y", "theta"};
        int n = i < 3 ? snprintf(out + used, len - used, "%s%s", i ? "," : "", carrier[i])
                      : snprintf(out + used, len - used, ",e%d", i - 2);
        if (n < 0 || (size_t)n >= len - used) return -1;
        used += (size_t)n;
    }
    return 0;
}

/* /beams/<body>/{x0, points, deflection} for every beam body. */
static int write_beams_layout(fmb_writer_t *w)
{
    const fmb_model_t *m = w->model;
    hid_t gbeams = -1;
    int st = 0;
    for (int i = 0; i < w->nbodies && st >= 0; i++) {
        wbody_t *wb = &w->bodies[i];
        wb->ds_bpoints = wb->ds_bdefl = wb->ds_bslope = -1;
        if (fmb_model_body_is_beam(m, wb->b) <= 0) continue;
        int nn = fmb_model_beam_num_nodes(m, wb->b);
        if (nn < 2) continue;
        if (gbeams < 0 &&
            (gbeams = H5Gcreate2(w->file, "beams", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0)
            return werr(w, FMB_ERR_HDF5, "%s: cannot create group /beams", w->h5path);
        wb->nnodes = nn;
        wb->bx = malloc(3 * (size_t)nn * sizeof *wb->bx);
        if (!wb->bx) {
            st = werr(w, FMB_ERR_NOMEM, "out of memory");
            break;
        }
        wb->by = wb->bx + nn;
        double *x0 = wb->bx + 2 * nn; /* scratch, also the node positions once */
        const fmb_beam_t *bm = m->bodies[wb->b].data;
        wb->slope_col = malloc((size_t)nn * sizeof *wb->slope_col);
        if (!wb->slope_col) {
            st = werr(w, FMB_ERR_NOMEM, "out of memory");
            break;
        }
        for (int k = 0; k < nn; k++)
            wb->slope_col[k] = bm->dof[3 * k + 2]; /* u, v, phi per node */
        for (int k = 0; k < nn; k++)
            x0[k] = fmb_model_beam_node_x(m, wb->b, k);
        char name[FMB_NAME_MAX + 8];
        link_name(fmb_model_body_name(m, wb->b), name, sizeof name);
        hid_t g = H5Gcreate2(gbeams, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (g < 0) {
            st = werr(w, FMB_ERR_HDF5, "%s: cannot create group /beams/%s", w->h5path, name);
            break;
        }
        const char *ref = bm->reference == FMB_BEAM_CANTILEVER ? "cantilever" : "simply_supported";
        if (double_list(g, "x0", x0, (hsize_t)nn) < 0 || attr_int(g, "index", wb->b) < 0 ||
            attr_int(g, "nnodes", nn) < 0 || attr_string(g, "reference", ref) < 0 ||
            attr_string(g, "geometry",
                        bm->geometry == FMB_BEAM_NONLINEAR ? "nonlinear" : "linear") < 0 ||
            attr_double(g, "E", bm->E) < 0 || attr_double(g, "A", bm->A) < 0 ||
            attr_double(g, "I", bm->I) < 0)
            st = werr(w, FMB_ERR_HDF5, "%s: cannot write /beams/%s/x0", w->h5path, name);
        hsize_t t2[2] = {(hsize_t)nn, 3}, t1[1] = {(hsize_t)nn};
        if (st >= 0) wb->ds_bpoints = st = wds_create(w, g, "points", 0, 3, t2, "x,y,z");
        if (st >= 0) wb->ds_bdefl = st = wds_create(w, g, "deflection", 0, 2, t1, NULL);
        if (st >= 0) wb->ds_bslope = st = wds_create(w, g, "slope", 0, 2, t1, NULL);
        H5Gclose(g);
    }
    if (gbeams >= 0) H5Gclose(gbeams);
    return st < 0 ? st : 0;
}

/* /<group>/<joint>/<name> for every joint with extra outputs (e.g. /sliders/D/s). */
static int write_outputs_layout(fmb_writer_t *w)
{
    const fmb_model_t *m = w->model;
    int st = 0;
    for (int i = 0; i < w->njoints && st >= 0; i++) {
        wjoint_t *wj = &w->joints[i];
        int n = fmb_model_joint_num_outputs(m, wj->j);
        const char *group = n > 0 ? fmb_model_joint_output_group(m, wj->j) : NULL;
        if (n <= 0 || !group || !*group) continue;
        if (n > WRITER_MAX_OUTPUTS) n = WRITER_MAX_OUTPUTS;
        char gname[FMB_NAME_MAX + 8], jname[FMB_NAME_MAX + 8];
        link_name(group, gname, sizeof gname);
        link_name(fmb_model_joint_name(m, wj->j), jname, sizeof jname);
        hid_t gg = group_open_create(w->file, gname);
        hid_t g = gg >= 0 ? H5Gcreate2(gg, jname, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
        if (g < 0)
            st = werr(w, FMB_ERR_HDF5, "%s: cannot create group /%s/%s", w->h5path, gname, jname);
        if (st >= 0) {
            const char *tn = fmb_model_joint_type_name(m, wj->j);
            if (attr_int(g, "joint_index", wj->j) < 0 || attr_string(g, "type", tn ? tn : "") < 0)
                st = werr(w, FMB_ERR_HDF5, "%s: cannot write /%s/%s attributes", w->h5path, gname,
                          jname);
        }
        for (int k = 0; k < n && st >= 0; k++) {
            char oname[FMB_NAME_MAX + 8];
            link_name(fmb_model_joint_output_name(m, wj->j, k), oname, sizeof oname);
            wj->ds_out[k] = st = wds_create(w, g, oname, 0, 1, NULL, NULL);
        }
        if (st >= 0) wj->noutputs = n;
        if (g >= 0) H5Gclose(g);
        if (gg >= 0) H5Gclose(gg);
    }
    return st < 0 ? st : 0;
}

/* Group at a relative path a/b/c below loc, created with its parents as needed. */
static hid_t path_open_create(hid_t loc, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    hid_t g = H5Gopen2(loc, ".", H5P_DEFAULT);
    for (char *p = strtok(buf, "/"); p && g >= 0; p = strtok(NULL, "/")) {
        hid_t c = group_open_create(g, p);
        H5Gclose(g);
        g = c;
    }
    return g;
}

/* /<group>/<name> for every force whose class has extra outputs (docs/output.md). */
static int write_force_outputs_layout(fmb_writer_t *w)
{
    const fmb_model_t *m = w->model;
    const int nf = fmb_model_num_forces(m);
    w->forces = calloc(nf > 0 ? (size_t)nf : 1, sizeof *w->forces);
    if (!w->forces) return werr(w, FMB_ERR_NOMEM, "out of memory");
    int st = 0;
    for (int i = 0; i < nf && st >= 0; i++) {
        int n = fmb_model_force_num_outputs(m, i);
        char group[256];
        if (n <= 0 || fmb_model_force_output_group(m, i, group, sizeof group)) continue;
        if (n > WRITER_MAX_OUTPUTS) n = WRITER_MAX_OUTPUTS;
        wforce_t *wf = &w->forces[w->nforces];
        hid_t g = path_open_create(w->file, group);
        if (g < 0) return werr(w, FMB_ERR_HDF5, "%s: cannot create group /%s", w->h5path, group);
        const char *tn = fmb_model_force_type_name(m, i);
        if (attr_int(g, "force_index", i) < 0 || attr_string(g, "type", tn ? tn : "") < 0)
            st = werr(w, FMB_ERR_HDF5, "%s: cannot write /%s attributes", w->h5path, group);
        wf->f = i;
        for (int k = 0; k < n && st >= 0; k++) {
            char oname[FMB_NAME_MAX + 8];
            link_name(fmb_model_force_output_name(m, i, k), oname, sizeof oname);
            const int width = fmb_model_force_output_width(m, i, k);
            hsize_t tail[1] = {(hsize_t)width};
            wf->ds[k] = st = width > 1 ? wds_create(w, g, oname, 0, 2, tail, width == 2 ? "x,y" : NULL)
                                       : wds_create(w, g, oname, 0, 1, NULL, NULL);
            wf->width[k] = width;
            wf->total += width;
        }
        H5Gclose(g);
        if (st >= 0) {
            wf->n = n;
            w->nforces++;
        }
    }
    return st < 0 ? st : 0;
}

/* /contacts/<joint>/... for every joint with friction (seed 000; docs/output.md). */
static int write_contacts_layout(fmb_writer_t *w)
{
    static const char *const model_names[FMB_FRICTION_MODEL_COUNT] = {"none", "lugre", "coulomb"};
    const fmb_model_t *m = w->model;
    int st = 0;
    hid_t gc = -1;
    for (int i = 0; i < w->njoints && st >= 0; i++) {
        wjoint_t *wj = &w->joints[i];
        if (!fmb_model_joint_has_friction(m, wj->j)) continue;
        const fmb_friction_desc_t *f = &m->joints[wj->j].friction;
        if (gc < 0 && (gc = group_open_create(w->file, "contacts")) < 0)
            return werr(w, FMB_ERR_HDF5, "%s: cannot create group /contacts", w->h5path);
        char name[FMB_NAME_MAX + 8];
        link_name(fmb_model_joint_name(m, wj->j), name, sizeof name);
        hid_t g = H5Gcreate2(gc, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (g < 0) {
            st = werr(w, FMB_ERR_HDF5, "%s: cannot create group /contacts/%s", w->h5path, name);
            break;
        }
        const int mi = (int)f->model;
        const char *mn = mi >= 0 && mi < FMB_FRICTION_MODEL_COUNT ? model_names[mi] : "unknown";
        int bad = attr_int(g, "joint_index", wj->j) | attr_string(g, "model", mn) |
                  attr_double(g, "a", f->a) | attr_double(g, "b", f->b) |
                  attr_double(g, "mu", f->mu) | attr_double(g, "mu0", f->mu0) |
                  attr_double(g, "v_stick", f->v_stick);
        if (f->model == FMB_FRICTION_LUGRE)
            bad |= attr_double(g, "sigma0", f->sigma0) | attr_double(g, "sigma1", f->sigma1) |
                   attr_double(g, "sigma2", f->sigma2) | attr_double(g, "vs", f->vs) |
                   attr_double(g, "gamma", f->gamma);
        if (bad)
            st = werr(w, FMB_ERR_HDF5, "%s: cannot write /contacts/%s attributes", w->h5path, name);
        hsize_t t4[1] = {4};
        const char *corners = "F1+,F2+,F1-,F2-";
        if (st >= 0 && (wj->ds_normal = st = wds_create(w, g, "normal", 0, 2, t4, corners)) >= 0 &&
            (wj->ds_friction = st = wds_create(w, g, "friction", 0, 2, t4, corners)) >= 0 &&
            (wj->ds_ftotal = st = wds_create(w, g, "friction_total", 0, 1, NULL, NULL)) >= 0 &&
            (wj->ds_mode = st = wds_create(w, g, "mode", 1, 1, NULL, NULL)) >= 0 &&
            (wj->ds_stick = st = wds_create(w, g, "stick", 1, 1, NULL, NULL)) >= 0 &&
            (wj->ds_z = st = wds_create(w, g, "z", 0, 1, NULL, NULL)) >= 0)
            wj->ds_v = st = wds_create(w, g, "v", 0, 1, NULL, NULL);
        if (st >= 0 && attr_string(w->ds[wj->ds_mode].id, "values",
                                   "0 none, 1 single point, 2 single face, 3 diagonal") < 0)
            st = werr(w, FMB_ERR_HDF5, "%s: cannot write /contacts/%s/mode attributes", w->h5path,
                      name);
        if (st >= 0) {
            wj->contact = 1;
            wj->v_stick = f->v_stick;
        }
        H5Gclose(g);
    }
    if (gc >= 0) H5Gclose(gc);
    return st < 0 ? st : 0;
}

/* The table files the expressions read: /solver@tables (paths as opened),
 * @table_kinds ("table" or "spline"), @table_sha256 (hex digests); absent when none. */
static int table_attrs(hid_t solver, const fmb_tableset_t *set)
{
    const int n = fmb_tableset_count(set);
    if (n == 0) return 0;
    const char **v = malloc(3 * (size_t)n * sizeof *v);
    if (!v) return -1;
    for (int k = 0; k < n; k++) {
        const fmb_table_t *tb = fmb_tableset_item(set, k);
        v[k] = fmb_table_path(tb);
        v[n + k] = fmb_table_is_spline(tb) ? "spline" : "table";
        v[2 * n + k] = fmb_table_sha256(tb);
    }
    int bad = attr_strings(solver, "tables", v, (hsize_t)n) < 0;
    bad |= attr_strings(solver, "table_kinds", v + n, (hsize_t)n) < 0;
    bad |= attr_strings(solver, "table_sha256", v + 2 * n, (hsize_t)n) < 0;
    free(v);
    return bad ? -1 : 0;
}

/* /switches/<force>/{mode, force, relative_velocity} for every switching element
 * (seed 004; docs/switching.md, docs/output.md). */
static int write_switches_layout(fmb_writer_t *w)
{
    const fmb_model_t *m = w->model;
    const int nf = fmb_model_num_forces(m);
    int n = 0, st = 0;
    for (int f = 0; f < nf; f++)
        n += fmb_model_force_is_switching(m, f);
    if (!n) return 0;
    if (!(w->sws = calloc((size_t)n, sizeof *w->sws))) return werr(w, FMB_ERR_NOMEM, "out of memory");
    hid_t gs = group_open_create(w->file, "switches");
    if (gs < 0) return werr(w, FMB_ERR_HDF5, "%s: cannot create group /switches", w->h5path);
    for (int f = 0; f < nf && st >= 0; f++) {
        if (!fmb_model_force_is_switching(m, f)) continue;
        char name[FMB_NAME_MAX + 8], modes[256] = "";
        link_name(fmb_model_force_name(m, f), name, sizeof name);
        hid_t g = H5Gcreate2(gs, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (g < 0) {
            st = werr(w, FMB_ERR_HDF5, "%s: cannot create group /switches/%s", w->h5path, name);
            break;
        }
        for (int k = 0; fmb_model_force_mode_name(m, f, k); k++) {
            size_t l = strlen(modes);
            snprintf(modes + l, sizeof modes - l, "%s%d %s", k ? ", " : "", k,
                     fmb_model_force_mode_name(m, f, k));
        }
        struct wswitch *sw = &w->sws[w->nsws];
        sw->f = f;
        const char *tn = fmb_model_force_type_name(m, f);
        if (attr_int(g, "force_index", f) < 0 || attr_string(g, "type", tn ? tn : "") < 0)
            st = werr(w, FMB_ERR_HDF5, "%s: cannot write /switches/%s attributes", w->h5path, name);
        if (st >= 0 && (sw->ds_mode = st = wds_create(w, g, "mode", 1, 1, NULL, NULL)) >= 0 &&
            (sw->ds_force = st = wds_create(w, g, "force", 0, 1, NULL, NULL)) >= 0)
            sw->ds_v = st = wds_create(w, g, "relative_velocity", 0, 1, NULL, NULL);
        if (st >= 0 && attr_string(w->ds[sw->ds_mode].id, "values", modes) < 0)
            st = werr(w, FMB_ERR_HDF5, "%s: cannot write /switches/%s/mode attributes", w->h5path,
                      name);
        if (st >= 0) w->nsws++;
        H5Gclose(g);
    }
    H5Gclose(gs);
    return st < 0 ? st : 0;
}

static int write_layout(fmb_writer_t *w, const fmb_sim_t *sim, const char *case_text)
{
    const fmb_model_t *m = w->model;
    hid_t root = w->file;
    if (attr_string(root, "creator", "flexmb") < 0 ||
        attr_string(root, "version", fmb_version()) < 0 || attr_string(root, "units", "SI") < 0 ||
        (case_text && attr_string(root, "case", case_text) < 0) ||
        attr_double(root, "gravity_x", m->g[0]) < 0 || attr_double(root, "gravity_y", m->g[1]) < 0 ||
        attr_int(root, "complete", 0) < 0) /* 1 once the run ended normally */
        return werr(w, FMB_ERR_HDF5, "%s: cannot write file attributes", w->h5path);

    hsize_t t1[1];
    if ((w->ds_time = wds_create(w, root, "time", 0, 1, NULL, NULL)) < 0) return w->ds_time;
    t1[0] = FMB_ENERGY_COLUMNS;
    if ((w->ds_energy = wds_create(w, root, "energy", 0, 2, t1, "kinetic,potential,work,total")) <
        0)
        return w->ds_energy;

    hid_t solver = H5Gcreate2(root, "solver", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (solver < 0) return werr(w, FMB_ERR_HDF5, "%s: cannot create group /solver", w->h5path);
    const fmb_sim_options_t *o = fmb_sim_options(sim);
    int bad = 0;
    if (o) {
        bad |= attr_string(solver, "integrator", integrator_name(o->integrator));
        bad |= attr_double(solver, "h", o->h);
        bad |= attr_double(solver, "t_end", o->t_end);
        /* the parameters as given (alpha: HHT, rho_inf: generalized-alpha) and the
         * coefficients the integrator used (beta and gamma are derived from them for hht
         * and generalized_alpha, given for newmark) */
        double am, af, beta, gamma;
        fmb_sim_integrator_coefficients(sim, &am, &af, &beta, &gamma);
        bad |= attr_double(solver, "alpha", o->alpha);
        bad |= attr_double(solver, "rho_inf", o->rho_inf);
        bad |= attr_double(solver, "alpha_m", am);
        bad |= attr_double(solver, "alpha_f", af);
        bad |= attr_double(solver, "beta", beta);
        bad |= attr_double(solver, "gamma", gamma);
        bad |= attr_int(solver, "output_every", o->output_every);
        bad |= attr_int(solver, "viz_frames", o->viz_frames);
        bad |= attr_int(solver, "max_newton", o->max_newton);
        bad |= attr_double(solver, "rtol", o->rtol);
        bad |= attr_double(solver, "atol", o->atol);
        bad |= attr_double(solver, "phi_tol", o->phi_tol);
        bad |= attr_string(solver, "step", o->adaptive ? "adaptive" : "fixed");
        bad |= attr_double(solver, "rtol_step", o->rtol_step);
        bad |= attr_double(solver, "atol_step", o->atol_step);
        bad |= attr_double(solver, "h_min", o->h_min);
        bad |= attr_double(solver, "h_max", o->h_max);
    }
    bad |= attr_int(solver, "num_coords", fmb_model_num_coords(m));
    bad |= attr_int(solver, "num_constraints", fmb_model_num_constraints(m));
    bad |= table_attrs(solver, m->params.tables);
    w->ds_newton = wds_create(w, solver, "newton_iterations", 1, 1, NULL, NULL);
    H5Gclose(solver);
    if (bad) return werr(w, FMB_ERR_HDF5, "%s: cannot write /solver attributes", w->h5path);
    if (w->ds_newton < 0) return w->ds_newton;

    /* Bodies (ground excluded). */
    int nb = fmb_model_num_bodies(m);
    w->bodies = calloc(nb > 1 ? (size_t)nb - 1 : 1, sizeof *w->bodies);
    if (!w->bodies) return werr(w, FMB_ERR_NOMEM, "out of memory");
    hid_t gb = H5Gcreate2(root, "bodies", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (gb < 0) return werr(w, FMB_ERR_HDF5, "%s: cannot create group /bodies", w->h5path);
    int st = 0;
    for (int b = 1; b < nb && st >= 0; b++) {
        wbody_t *wb = &w->bodies[w->nbodies++];
        wb->b = b;
        wb->offset = fmb_model_body_offset(m, b);
        wb->ndof = fmb_model_body_ndof(m, b);
        wb->npoints = fmb_model_body_num_points(m, b);
        wb->ds_points = wb->ds_bpoints = wb->ds_bdefl = -1;
        if (wb->npoints > 0) {
            wb->u = malloc(2 * (size_t)wb->npoints * sizeof *wb->u);
            if (!wb->u) {
                st = werr(w, FMB_ERR_NOMEM, "out of memory");
                break;
            }
            for (int k = 0; k < wb->npoints; k++)
                fmb_model_body_point(m, b, k, wb->u + 2 * k);
        }
        char name[FMB_NAME_MAX + 8], cols[256];
        link_name(fmb_model_body_name(m, b), name, sizeof name);
        hid_t g = H5Gcreate2(gb, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (g < 0) {
            st = werr(w, FMB_ERR_HDF5, "%s: cannot create group /bodies/%s", w->h5path, name);
            break;
        }
        if (make_columns(wb->ndof, cols, sizeof cols) < 0) cols[0] = '\0';
        t1[0] = (hsize_t)wb->ndof;
        if ((wb->ds_q = st = wds_create(w, g, "q", 0, 2, t1, cols)) >= 0 &&
            (wb->ds_qd = st = wds_create(w, g, "qd", 0, 2, t1, cols)) >= 0 &&
            (wb->ds_qdd = st = wds_create(w, g, "qdd", 0, 2, t1, cols)) >= 0) {
            t1[0] = 3;
            wb->ds_pose = st = wds_create(w, g, "pose", 0, 2, t1, "x,y,angle");
        }
        if (st >= 0 && wb->npoints > 0) {
            hsize_t t2[2] = {(hsize_t)wb->npoints, 2};
            wb->ds_points = st = wds_create(w, g, "points", 0, 3, t2, "x,y");
            const char **names = malloc((size_t)wb->npoints * sizeof *names);
            if (!names) {
                st = werr(w, FMB_ERR_NOMEM, "out of memory");
            } else if (st >= 0) {
                for (int k = 0; k < wb->npoints; k++)
                    names[k] = fmb_model_body_point_name(m, b, k);
                if (string_list(g, "point_names", names, (hsize_t)wb->npoints) < 0)
                    st = werr(w, FMB_ERR_HDF5, "%s: cannot write /bodies/%s/point_names", w->h5path,
                              name);
            }
            free(names);
        }
        const fmb_body_t *bd = &m->bodies[b];
        if (st >= 0 && (attr_int(g, "index", b) < 0 || attr_int(g, "offset", wb->offset) < 0 ||
                        attr_int(g, "ndof", wb->ndof) < 0 || attr_double(g, "mass", bd->mass) < 0 ||
                        attr_double(g, "inertia", bd->inertia_c) < 0 ||
                        attr_double(g, "com_x", bd->com[0]) < 0 ||
                        attr_double(g, "com_y", bd->com[1]) < 0 ||
                        (bd->block[0] > 0 && (attr_double(g, "block_length", bd->block[0]) < 0 ||
                                              attr_double(g, "block_width", bd->block[1]) < 0))))
            st = werr(w, FMB_ERR_HDF5, "%s: cannot write /bodies/%s attributes", w->h5path, name);
        H5Gclose(g);
    }
    H5Gclose(gb);
    if (st < 0) return st;
    if ((st = write_beams_layout(w)) < 0) return st;

    /* Joints. */
    int nj = fmb_model_num_joints(m);
    w->joints = calloc(nj > 0 ? (size_t)nj : 1, sizeof *w->joints);
    if (!w->joints) return werr(w, FMB_ERR_NOMEM, "out of memory");
    hid_t gj = H5Gcreate2(root, "joints", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (gj < 0) return werr(w, FMB_ERR_HDF5, "%s: cannot create group /joints", w->h5path);
    for (int j = 0; j < nj && st >= 0; j++) {
        wjoint_t *wj = &w->joints[w->njoints++];
        const fmb_joint_t *jt = &m->joints[j];
        wj->j = j;
        int side = jt->body[0] == FMB_GROUND ? 1 : 0;
        wj->body = jt->body[side];
        wj->u[0] = jt->point[side][0];
        wj->u[1] = jt->point[side][1];
        char name[FMB_NAME_MAX + 8];
        link_name(fmb_model_joint_name(m, j), name, sizeof name);
        hid_t g = H5Gcreate2(gj, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (g < 0) {
            st = werr(w, FMB_ERR_HDF5, "%s: cannot create group /joints/%s", w->h5path, name);
            break;
        }
        t1[0] = 6;
        if ((wj->ds_reaction = st =
                 wds_create(w, g, "reaction", 0, 2, t1, "Fx1,Fy1,Mz1,Fx2,Fy2,Mz2")) >= 0 &&
            (wj->ds_reaction_joint = st =
                 wds_create(w, g, "reaction_joint", 0, 2, t1, "Fx1,Fy1,Mz1,Fx2,Fy2,Mz2")) >= 0 &&
            (wj->ds_reaction_body = st =
                 wds_create(w, g, "reaction_body", 0, 2, t1, "Fx1,Fy1,Mz1,Fx2,Fy2,Mz2")) >= 0 &&
            (wj->ds_force = st = wds_create(w, g, "force_magnitude", 0, 1, NULL, NULL)) >= 0 &&
            (wj->ds_violation = st = wds_create(w, g, "violation", 0, 1, NULL, NULL)) >= 0) {
            t1[0] = 2;
            wj->ds_position = st = wds_create(w, g, "position", 0, 2, t1, "x,y");
        }
        const char *drive = fmb_model_joint_drive(m, j, &wj->drive_column);
        wj->ds_drive = -1;
        if (st >= 0 && drive) wj->ds_drive = st = wds_create(w, g, drive, 0, 1, NULL, NULL);
        const char *b1 = fmb_model_body_name(m, jt->body[0]);
        const char *b2 = fmb_model_body_name(m, jt->body[1]);
        const char *tn = fmb_model_joint_type_name(m, j);
        if (st >= 0 && (attr_int(g, "index", j) < 0 || attr_string(g, "type", tn ? tn : "") < 0 ||
                        attr_string(g, "body1", b1 ? b1 : "") < 0 ||
                        attr_string(g, "body2", b2 ? b2 : "") < 0 ||
                        attr_int(g, "rows", fmb_model_joint_rows(m, j)) < 0))
            st = werr(w, FMB_ERR_HDF5, "%s: cannot write /joints/%s attributes", w->h5path, name);
        H5Gclose(g);
    }
    H5Gclose(gj);
    if (st < 0) return st;
    if ((st = write_outputs_layout(w)) < 0) return st;
    if ((st = write_force_outputs_layout(w)) < 0) return st;
    if ((st = write_contacts_layout(w)) < 0) return st;
    return write_switches_layout(w);
}

/* Visualization frames (/viz) and the sidecar, unless viz_frames is 0 (then a stale
 * sidecar of an earlier run is removed: it would point at datasets that no longer exist). */
static int setup_viz(fmb_writer_t *w, const fmb_sim_t *sim)
{
    const fmb_sim_options_t *o = fmb_sim_options(sim);
    if (o && o->viz_frames == 0) {
        remove(w->final_xmf);
        return 0;
    }
    long expected = 1;
    if (o && o->h > 0 && o->t_end > 0 && o->output_every > 0) {
        const double steps = ceil(o->t_end / o->h - 1e-9);
        expected = (long)fmin(ceil(steps / o->output_every) + 1, 1e15);
    }
    fmb_sim_options_t def;
    fmb_sim_options_default(&def);
    w->viz_every = fmb_viz_spacing(o ? o : &def, expected);
    char msg[400] = "";
    const char *slash = strrchr(w->h5path, '/');
    w->viz = fmb_viz_create(w->file, w->h5path, w->stage_xmf, slash ? slash + 1 : w->h5path, sim,
                            w->viz_every, msg, sizeof msg);
    if (!w->viz) return werr(w, FMB_ERR_HDF5, "%s", msg[0] ? msg : "cannot create /viz");
    return 0;
}

/* ---------------------------------------------------------------- public API */

void fmb_hdf5_init(void)
{
    /* HDF5 closes every file still open at exit; after a failed close (disk full) that
     * second close crashes inside HDF5 (SIGSEGV in H5F__close_cb): the writer closes its
     * files itself, so the library's exit handler is not installed. Must precede any other
     * HDF5 call; later calls are harmless no-ops. */
    static int done;
    if (!done) {
        done = 1;
        H5dont_atexit();
    }
}

/* Close everything; publish: move the staged file (and sidecar) to the final names, else
 * remove them (a writer that could not be created leaves an earlier output untouched). */
static void writer_free(fmb_writer_t *w, int publish)
{
    for (int k = 0; k < w->nds; k++) {
        if (w->ds[k].id >= 0) H5Dclose(w->ds[k].id);
        free(w->ds[k].buf);
    }
    free(w->ds);
    fmb_viz_destroy(&w->viz);
    if (w->file >= 0) H5Fclose(w->file);
    for (int i = 0; i < w->nbodies; i++) {
        free(w->bodies[i].u);
        free(w->bodies[i].bx);
        free(w->bodies[i].slope_col);
    }
    free(w->bodies);
    free(w->joints);
    free(w->forces);
    free(w->sws);
    if (w->stage) {
        if (publish) {
            if (rename(w->stage, w->h5path) != 0)
                fprintf(stderr, "flexmb: cannot rename %s to %s: %s\n", w->stage, w->h5path,
                        strerror(errno));
            if (access(w->stage_xmf, F_OK) == 0 && rename(w->stage_xmf, w->final_xmf) != 0)
                fprintf(stderr, "flexmb: cannot rename %s to %s: %s\n", w->stage_xmf,
                        w->final_xmf, strerror(errno));
        } else {
            remove(w->stage);
            remove(w->stage_xmf);
        }
    }
    free(w->stage);
    free(w->stage_xmf);
    free(w->final_xmf);
    free(w->h5path);
    free(w);
}

/* Staged names beside the final one: DIR/.NAME.partial and DIR/.NAME.partial.xmf. */
static int stage_paths(fmb_writer_t *w)
{
    const char *slash = strrchr(w->h5path, '/');
    const size_t dir = slash ? (size_t)(slash - w->h5path) + 1 : 0, n = strlen(w->h5path);
    w->stage = malloc(n + 16);
    w->stage_xmf = malloc(n + 20);
    w->final_xmf = fmb_xdmf_path_for(w->h5path);
    if (!w->stage || !w->stage_xmf || !w->final_xmf) return FMB_ERR_NOMEM;
    snprintf(w->stage, n + 16, "%.*s.%s.partial", (int)dir, w->h5path, w->h5path + dir);
    snprintf(w->stage_xmf, n + 20, "%s.xmf", w->stage);
    return 0;
}

fmb_writer_t *fmb_writer_create(const char *h5path, const fmb_sim_t *sim, const char *case_text,
                                char *err, size_t errlen)
{
    fmb_hdf5_init();
    if (err && errlen) err[0] = '\0';
    if (!h5path || !*h5path || !sim) {
        if (err && errlen)
            snprintf(err, errlen, "fmb_writer_create: missing output path or simulation");
        return NULL;
    }
    const fmb_model_t *m = sim ? fmb_sim_model(sim) : NULL;
    fmb_writer_t *w = calloc(1, sizeof *w);
    if (!w || !m || !(w->h5path = dupstr(h5path)) || stage_paths(w) < 0) {
        if (err && errlen)
            snprintf(err, errlen, "%s",
                     !m ? "fmb_writer_create: simulation has no model" : "out of memory");
        if (w) free(w->stage), free(w->stage_xmf), free(w->final_xmf), free(w->h5path);
        free(w);
        return NULL;
    }
    w->file = -1;
    w->model = m;
    w->ds_time = w->ds_energy = w->ds_newton = -1;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    errno = 0;
    /* written under a staged name, moved to h5path when the writer is destroyed (also
     * after a failure or an interrupt): an earlier output is replaced only as a whole */
    w->file = H5Fcreate(w->stage, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    int st;
    if (w->file < 0)
        st = werr(w, FMB_ERR_IO, "%s: cannot create HDF5 file%s%s", h5path, errno ? ": " : "",
                  errno ? strerror(errno) : "");
    else if ((st = write_layout(w, sim, case_text)) >= 0 && (st = setup_viz(w, sim)) >= 0)
        st = flush_all(w, 1);
    if (st < 0) {
        if (err && errlen) snprintf(err, errlen, "%s", w->err);
        writer_free(w, 0);
        return NULL;
    }
    return w;
}

int fmb_writer_append(fmb_writer_t *w, const fmb_sim_t *sim)
{
    if (!w || !sim) return FMB_ERR_ARG;
    if (w->failed) return w->failed;
    const double t = fmb_sim_time(sim);
    const double *q = fmb_sim_q(sim), *qd = fmb_sim_qd(sim), *qdd = fmb_sim_qdd(sim);
    *row_d(w, w->ds_time) = t;
    fmb_sim_energy(sim, row_d(w, w->ds_energy));
    ((int *)(void *)w->ds[w->ds_newton].buf)[w->nbuf] = fmb_sim_last_newton_iterations(sim);
    for (int i = 0; i < w->nbodies; i++) {
        const wbody_t *b = &w->bodies[i];
        size_t nb = (size_t)b->ndof * sizeof(double);
        memcpy(row_d(w, b->ds_q), q + b->offset, nb);
        memcpy(row_d(w, b->ds_qd), qd + b->offset, nb);
        memcpy(row_d(w, b->ds_qdd), qdd + b->offset, nb);
        fmb_sim_body_pose(sim, b->b, row_d(w, b->ds_pose));
        if (b->ds_points >= 0) {
            double *r = row_d(w, b->ds_points);
            for (int k = 0; k < b->npoints; k++)
                fmb_sim_body_point(sim, b->b, b->u + 2 * k, r + 2 * k);
        }
        if (b->ds_bpoints >= 0) {
            double *r = row_d(w, b->ds_bpoints);
            fmb_sim_beam_state(sim, b->b, b->bx, b->by, row_d(w, b->ds_bdefl));
            double *sl = row_d(w, b->ds_bslope);
            for (int k = 0; k < b->nnodes; k++) {
                r[3 * k + 0] = b->bx[k];
                r[3 * k + 1] = b->by[k];
                r[3 * k + 2] = 0.0;
                sl[k] = b->slope_col[k] >= 0 ? q[b->offset + b->slope_col[k]] : 0.0;
            }
        }
    }
    for (int i = 0; i < w->njoints; i++) {
        const wjoint_t *j = &w->joints[i];
        double *re = row_d(w, j->ds_reaction);
        fmb_sim_joint_reaction(sim, j->j, re);
        fmb_sim_joint_reaction_axes(sim, j->j, FMB_AXES_JOINT, row_d(w, j->ds_reaction_joint));
        fmb_sim_joint_reaction_axes(sim, j->j, FMB_AXES_BODY, row_d(w, j->ds_reaction_body));
        *row_d(w, j->ds_force) = hypot(re[0], re[1]);
        if (j->ds_drive >= 0) *row_d(w, j->ds_drive) = re[j->drive_column];
        *row_d(w, j->ds_violation) = fmb_sim_joint_violation(sim, j->j);
        double *r = row_d(w, j->ds_position);
        if (j->body == FMB_GROUND) {
            r[0] = j->u[0];
            r[1] = j->u[1];
        } else {
            fmb_sim_body_point(sim, j->body, j->u, r);
        }
        if (j->noutputs > 0) {
            double val[WRITER_MAX_OUTPUTS + 64];
            int n = fmb_model_joint_num_outputs(w->model, j->j);
            if (n <= (int)(sizeof val / sizeof val[0])) {
                fmb_sim_joint_outputs(sim, j->j, val);
                for (int k = 0; k < j->noutputs; k++)
                    *row_d(w, j->ds_out[k]) = val[k];
            }
        }
        if (j->contact) {
            double *nf = row_d(w, j->ds_normal), *ff = row_d(w, j->ds_friction);
            double z = 0.0, v = 0.0;
            int mode = 0;
            if (fmb_sim_contact_state(sim, j->j, nf, ff, &mode, &z, &v) < 0) {
                memset(nf, 0, 4 * sizeof *nf);
                memset(ff, 0, 4 * sizeof *ff);
            }
            *row_d(w, j->ds_ftotal) = ff[0] + ff[1] + ff[2] + ff[3];
            ((int *)(void *)w->ds[j->ds_mode].buf)[w->nbuf] = mode;
            ((int *)(void *)w->ds[j->ds_stick].buf)[w->nbuf] = fabs(v) < j->v_stick;
            *row_d(w, j->ds_z) = z;
            *row_d(w, j->ds_v) = v;
        }
    }
    for (int i = 0; i < w->nforces; i++) {
        const wforce_t *wf = &w->forces[i];
        double val[64];
        if (wf->total > 64) continue;
        fmb_sim_force_outputs(sim, wf->f, val);
        for (int k = 0, o = 0; k < wf->n; o += wf->width[k], k++)
            memcpy(row_d(w, wf->ds[k]), val + o, (size_t)wf->width[k] * sizeof(double));
    }
    for (int i = 0; i < w->nsws; i++) {
        const struct wswitch *sw = &w->sws[i];
        int mode = -1;
        double fo = NAN, vr = NAN;
        fmb_sim_switch_state(sim, sw->f, &mode, &fo, &vr);
        ((int *)(void *)w->ds[sw->ds_mode].buf)[w->nbuf] = mode;
        *row_d(w, sw->ds_force) = fo;
        *row_d(w, sw->ds_v) = vr;
    }
    if (w->viz) {
        char msg[400];
        int st = fmb_viz_record(w->viz, sim, w->nrec + w->nbuf, msg, sizeof msg);
        if (st < 0) return w->failed = werr(w, st, "%s", msg);
    }
    w->nbuf++;
    if (w->nbuf == WRITER_BATCH || wall_seconds() - w->last_flush >= WRITER_FLUSH_SECONDS)
        return flush_all(w, 0);
    return 0;
}

int fmb_writer_flush(fmb_writer_t *w)
{
    if (!w) return FMB_ERR_ARG;
    return flush_all(w, 0);
}

void fmb_writer_destroy(fmb_writer_t **pw)
{
    if (!pw || !*pw) return;
    fmb_writer_t *w = *pw;
    if (!w->failed) {
        char msg[400];
        int st = w->viz ? fmb_viz_finish(w->viz, msg, sizeof msg) : 0;
        if (st < 0)
            w->failed = werr(w, st, "%s", msg);
        else
            flush_all(w, 1);
    }
    writer_free(w, 1);
    *pw = NULL;
}

int fmb_writer_provenance(fmb_writer_t *w, const fmb_case_t *c, const char *const *overrides,
                          int noverrides)
{
    if (!w || w->file < 0 || !c) return FMB_ERR_ARG;
    const int np = fmb_case_num_params(c);
    const char **names = calloc((size_t)np + 1, sizeof *names);
    double *values = calloc((size_t)np + 1, sizeof *values);
    hid_t g = -1;
    int st = 0;
    if (!names || !values) {
        st = werr(w, FMB_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int k = 0; k < np; k++) {
        names[k] = fmb_case_param_name(c, k);
        fmb_case_param(c, names[k], &values[k]);
    }
    g = group_open_create(w->file, "parameters");
    if (g < 0 || attr_strings(g, "_names", names, (hsize_t)np) < 0 ||
        attr_strings(g, "_overrides", overrides, (hsize_t)(noverrides > 0 ? noverrides : 0)) < 0) {
        st = werr(w, FMB_ERR_HDF5, "%s: cannot write /parameters", w->h5path);
        goto done;
    }
    for (int k = 0; k < np; k++)
        if (attr_double(g, names[k], values[k]) < 0) {
            st = werr(w, FMB_ERR_HDF5, "%s: cannot write parameter %s", w->h5path, names[k]);
            goto done;
        }
    hid_t root = H5Gopen2(w->file, "/", H5P_DEFAULT);
    if (root < 0 || attr_string(root, "case_path", fmb_case_path(c) ? fmb_case_path(c) : "") < 0)
        st = werr(w, FMB_ERR_HDF5, "%s: cannot write the case path", w->h5path);
    if (root >= 0) H5Gclose(root);
done:
    if (g >= 0) H5Gclose(g);
    free(names), free(values);
    return st;
}

int fmb_writer_statistics(fmb_writer_t *w, const fmb_sim_t *sim, double wall_time,
                          const char *status)
{
    if (!w || w->file < 0 || !sim) return FMB_ERR_ARG;
    fmb_sim_stats_t s;
    fmb_sim_get_stats(sim, &s);
    hid_t g = group_open_create(w->file, "solver/statistics");
    int st = 0;
    char max_err_where[160];
    fmb_sim_coord_name(sim, s.max_error_coord, max_err_where, sizeof max_err_where);
    if (g < 0 || attr_int(g, "steps", (int)s.steps) < 0 ||
        attr_double(g, "newton_iterations", (double)s.newton_iterations) < 0 ||
        attr_double(g, "factorizations", (double)s.factorizations) < 0 ||
        attr_double(g, "symbolic", (double)s.symbolic) < 0 ||
        attr_double(g, "halvings", (double)s.halvings) < 0 ||
        attr_double(g, "max_violation", s.max_violation) < 0 ||
        attr_double(g, "rejected_error", (double)s.rejected_error) < 0 ||
        attr_double(g, "rejected_event", (double)s.rejected_event) < 0 ||
        attr_double(g, "h_min", s.h_min_used) < 0 || attr_double(g, "h_max", s.h_max_used) < 0 ||
        attr_double(g, "max_error", s.max_error) < 0 ||
        attr_double(g, "max_error_time", s.max_error_time) < 0 ||
        attr_string(g, "max_error_coordinate", max_err_where) < 0 ||
        attr_double(g, "wall_time", wall_time) < 0 ||
        attr_double(g, "records", (double)fmb_writer_records(w)) < 0 ||
        attr_double(g, "t_final", fmb_sim_time(sim)) < 0 ||
        attr_string(g, "status", status ? status : "") < 0)
        st = werr(w, FMB_ERR_HDF5, "%s: cannot write /solver/statistics", w->h5path);
    const int complete = status && strcmp(status, "complete") == 0;
    if (st == 0 && (H5Adelete(w->file, "complete") < 0 || attr_int(w->file, "complete", complete) < 0))
        st = werr(w, FMB_ERR_HDF5, "%s: cannot write the complete flag", w->h5path);
    if (g >= 0) H5Gclose(g);
    return st;
}

int fmb_writer_matrix(fmb_writer_t *w, const char *group, const char *name, const double *v,
                      long rows, long cols)
{
    if (!w || w->file < 0 || !group || !name || rows < 0 || cols < 1) return FMB_ERR_ARG;
    hid_t g = group_open_create(w->file, group);
    hsize_t dims[2] = {(hsize_t)rows, (hsize_t)cols};
    hid_t sp = g >= 0 ? H5Screate_simple(2, dims, NULL) : -1;
    hid_t ds = sp >= 0
                   ? H5Dcreate2(g, name, H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)
                   : -1;
    herr_t st = ds >= 0
                    ? (rows ? H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) : 0)
                    : -1;
    if (ds >= 0) H5Dclose(ds);
    if (sp >= 0) H5Sclose(sp);
    if (g >= 0) H5Gclose(g);
    return st < 0 ? werr(w, FMB_ERR_HDF5, "%s: cannot write /%s/%s", w->h5path, group, name) : 0;
}

int fmb_results_file_kind(const char *path)
{
    struct stat st;
    fmb_hdf5_init();
    if (!path || stat(path, &st) != 0) return -1;
    if (!S_ISREG(st.st_mode)) return 0;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (H5Fis_hdf5(path) <= 0) return 0;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return 0;
    int kind = 0;
    if (H5Aexists(f, "creator") > 0) {
        hid_t a = H5Aopen(f, "creator", H5P_DEFAULT), t = a >= 0 ? H5Aget_type(a) : -1;
        if (t >= 0 && H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) > 0) {
            char *s = NULL;
            hid_t mt = H5Tcopy(t);
            if (H5Aread(a, mt, &s) >= 0 && s) {
                kind = strcmp(s, "flexmb") == 0;
                H5free_memory(s);
            }
            H5Tclose(mt);
        }
        if (t >= 0) H5Tclose(t);
        if (a >= 0) H5Aclose(a);
    }
    H5Fclose(f);
    return kind;
}

long fmb_writer_records(const fmb_writer_t *w)
{
    return w ? w->nrec + w->nbuf : 0;
}

const char *fmb_writer_last_error(const fmb_writer_t *w)
{
    return w ? w->err : "";
}


/* HDF5 results writer (layout: docs/output.md).
 *
 * Every time-dependent dataset is chunked with an unlimited first dimension. Records
 * are buffered in memory and written in batches of WRITER_BATCH records, each batch
 * extending all datasets together. At least every WRITER_FLUSH_SECONDS of wall time
 * (and at the end) the records written are committed (commit() below: H5Fflush, sync,
 * then the root attribute committed_records, flushed again) and the XDMF sidecar is
 * brought up to date (its frames, a bounded subset of the records, are written by
 * src/io/viz.c). HDF5 1.10 writes the metadata of a flush in no guaranteed order and
 * may evict a dataset's header (with its new length) before a flush, so after a kill the
 * datasets' lengths can differ: committed_records is what a reader may use, and every
 * dataset holds at least that many complete rows. fmb_writer_destroy leaves exactly the
 * records appended, committed. */
#include "io/writer_impl.h"

#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "bodies/beam.h"
#include "io/h5util.h"
#include "io/viz.h"
#include "io/xdmf.h"
#include "model/model.h"
#include "model/table.h"
#include "solve/sim.h"

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int fmb_writer_err(fmb_writer_t *w, int status, const char *fmt, ...)
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

/* Create an extendible dataset [0 x tail...]; returns its index or a negative status. */
int fmb_writer_ds_create(fmb_writer_t *w, hid_t loc, const char *name, int is_int, int rank,
                         const hsize_t *tail, const char *columns)
{
    if (w->nds == w->capds) {
        int cap = w->capds ? 2 * w->capds : 32;
        wds_t *p = realloc(w->ds, (size_t)cap * sizeof *p);
        if (!p) return fmb_writer_err(w, FMB_ERR_NOMEM, "out of memory");
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
    for (int i = 1; i < rank; i++) {
        d->tail[i - 1] = dims[i] = maxdims[i] = chunk[i] = tail[i - 1];
        d->rowlen *= (size_t)tail[i - 1];
    }
    /* a chunk is allocated and written whole: WRITER_BATCH records, but at most
     * WRITER_CHUNK_BYTES (at least one record), so that a long row (a 10,000-element beam's
     * coordinates, 240 kB) does not make every file hold 61 MB chunks per dataset */
    const size_t rowbytes = d->rowlen * d->esize;
    chunk[0] = rowbytes * WRITER_BATCH <= WRITER_CHUNK_BYTES ? WRITER_BATCH
               : rowbytes >= WRITER_CHUNK_BYTES             ? 1
                                                            : WRITER_CHUNK_BYTES / rowbytes;
    d->buf = malloc(WRITER_BATCH * d->rowlen * d->esize);
    if (!d->buf) return fmb_writer_err(w, FMB_ERR_NOMEM, "out of memory");
    hid_t space = H5Screate_simple(rank, dims, maxdims);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    /* Rows never written (beyond the committed records of a killed run) read as NaN or
     * INT32_MIN, never as plausible zeros. */
    const double fill_d = NAN;
    const int fill_i = INT32_MIN;
    if (space >= 0 && dcpl >= 0 && H5Pset_chunk(dcpl, rank, chunk) >= 0 &&
        H5Pset_fill_value(dcpl, d->mtype, is_int ? (const void *)&fill_i : (const void *)&fill_d) >=
            0)
        d->id = H5Dcreate2(loc, name, is_int ? H5T_STD_I32LE : H5T_IEEE_F64LE, space, H5P_DEFAULT,
                           dcpl, H5P_DEFAULT);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (space >= 0) H5Sclose(space);
    w->nds++; /* owned from now on, released by destroy */
    if (d->id < 0 || (columns && fmb_h5_attr_string(d->id, "columns", columns) < 0))
        return fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot create dataset %s", w->h5path, name);
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
    return fmb_writer_err(
        w, FMB_ERR_IO,
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
    return fmb_writer_err(
        w, FMB_ERR_IO,
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
        return fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot extend datasets", w->h5path);
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
        if (st < 0) return fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot write records", w->h5path);
    }
    w->nrec += w->nbuf;
    w->nbuf = 0;
    return 0;
}

/* Push what HDF5 has written so far to the disk (an ordering barrier against power loss;
 * a killed process loses nothing the kernel already has). */
static int sync_to_disk(fmb_writer_t *w)
{
    void *handle = NULL;
    if (H5Fget_vfd_handle(w->file, H5P_DEFAULT, &handle) < 0 || !handle) return 0; /* not sec2 */
    const int fd = *(int *)handle;
    if (fdatasync(fd) == 0 || errno == EINVAL || errno == EROFS) return 0; /* cannot: no sync */
    return -1;
}

/* Commit the records written: the file-level marker of docs/output.md ("Records and crash
 * safety"). Order: (1) extend and write every dataset, (2) H5Fflush, so that every byte of
 * records [0, nrec) is in the file, whatever order HDF5 wrote its metadata in, (3) sync,
 * (4) set the root attributes committed_records = nrec and committed_frames, (5) H5Fflush
 * again (only the root object header is dirty then). A kill at any moment leaves the
 * marker at the previous commit or at this one: every dataset holds at least that many
 * complete rows; rows beyond it (a dataset extended or evicted ahead of the others) are
 * not results. */
static int commit(fmb_writer_t *w)
{
    const char *what = "flush the results";
    errno = 0;
    if (H5Fflush(w->file, H5F_SCOPE_GLOBAL) < 0) goto fail;
    what = "sync the results to disk";
    if (sync_to_disk(w) < 0) goto fail;
    what = "write the committed_records marker";
    if (fmb_h5_attr_put_long(w->file, "committed_records", w->nrec) < 0 ||
        fmb_h5_attr_put_long(w->file, "committed_frames", fmb_viz_frames(w->viz)) < 0)
        goto fail;
    what = "flush the committed_records marker";
    if (H5Fflush(w->file, H5F_SCOPE_GLOBAL) < 0) goto fail;
    return 0;
fail:
    return fmb_writer_err(w, FMB_ERR_IO, "%s: cannot %s%s%s", w->h5path, what, errno ? ": " : "",
                          errno ? strerror(errno) : "");
}

/* HDF5 may write a dirty metadata entry (a dataset's header with its new length, a chunk
 * index node) whenever its metadata cache evicts it to make room, that is between two
 * commits. Evictions are turned off (resizing must be off too), so that the file on disk
 * changes its metadata only during the flushes of commit(); the cache then holds every
 * metadata entry touched. Past WRITER_MDC_MAX bytes evictions are turned back on (the
 * default behaviour) and the run goes on with that window open: the cache grows by about
 * 4 % of the records' bytes (measured: 25 MB more resident memory for a 0.7 GB file), so
 * the limit is reached by files of about 7 GB. */
#define WRITER_MDC_MAX (256.0 * 1024 * 1024)
/* Hold: evictions and resizing off (the configuration before is kept in w->mdc_default);
 * release: back to that configuration (HDF5's adaptive cache). 0 or -1. */
static int hold_cache(fmb_writer_t *w)
{
    memset(&w->mdc_default, 0, sizeof w->mdc_default);
    w->mdc_default.version = H5AC__CURR_CACHE_CONFIG_VERSION;
    if (H5Fget_mdc_config(w->file, &w->mdc_default) < 0) return -1;
    H5AC_cache_config_t cfg = w->mdc_default;
    cfg.incr_mode = H5C_incr__off;
    cfg.flash_incr_mode = H5C_flash_incr__off;
    cfg.decr_mode = H5C_decr__off;
    cfg.evictions_enabled = 0;
    return H5Fset_mdc_config(w->file, &cfg) < 0 ? -1 : 0;
}

static void bound_cache(fmb_writer_t *w)
{
    size_t max = 0, min_clean = 0, cur = 0;
    int n = 0;
    if (!w->mdc_held || H5Fget_mdc_size(w->file, &max, &min_clean, &cur, &n) < 0) return;
    if ((double)cur > WRITER_MDC_MAX && H5Fset_mdc_config(w->file, &w->mdc_default) >= 0)
        w->mdc_held = 0;
}

static int flush_all(fmb_writer_t *w, int full_xdmf)
{
    int st = write_batch(w);
    if (st < 0) return st;
    char vmsg[400];
    if (w->nbuf == 0 && fmb_viz_pending_bytes(w->viz) > 0 && (st = disk_room(w)) < 0)
        return w->failed = st;
    if (w->viz && (st = fmb_viz_sync(w->viz, vmsg, sizeof vmsg)) < 0)
        return w->failed = fmb_writer_err(w, st, "%s", vmsg);
    if ((st = commit(w)) < 0) return st;
    bound_cache(w);
    w->last_flush = wall_seconds();
    if (!w->viz) return 0;
    char msg[400];
    st = fmb_viz_update_sidecar(w->viz, full_xdmf, msg, sizeof msg);
    if (st < 0) return fmb_writer_err(w, st, "%s", msg);
    return 0;
}

/* ---------------------------------------------------------------- layout */

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
    if (!w->viz) return fmb_writer_err(w, FMB_ERR_HDF5, "%s", msg[0] ? msg : "cannot create /viz");
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
                fprintf(stderr, "flexmb: cannot rename %s to %s: %s\n", w->stage_xmf, w->final_xmf,
                        strerror(errno));
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
     * after a failure or an interrupt): an earlier output is replaced only as a whole.
     * The staged name appears once the layout is committed (a kill before leaves only
     * DIR/.NAME.partial.new, no results), so a staged file always opens. */
    char newname[4200];
    snprintf(newname, sizeof newname, "%s.new", w->stage);
    w->file = H5Fcreate(newname, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    int st;
    if (w->file < 0)
        st = fmb_writer_err(w, FMB_ERR_IO, "%s: cannot create HDF5 file%s%s", h5path,
                            errno ? ": " : "", errno ? strerror(errno) : "");
    else if ((st = fmb_writer_layout(w, sim, case_text)) >= 0 && (st = setup_viz(w, sim)) >= 0 &&
             (st = flush_all(w, 1)) >= 0 && rename(newname, w->stage) != 0)
        st = fmb_writer_err(w, FMB_ERR_IO, "%s: cannot rename %s to %s: %s", h5path, newname,
                            w->stage, strerror(errno));
    if (st < 0) {
        if (err && errlen) snprintf(err, errlen, "%s", w->err);
        writer_free(w, 0);
        remove(newname);
        return NULL;
    }
    w->mdc_held = hold_cache(w) == 0;
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
        /* the other axes from this reaction (one joint evaluation, not three) */
        fmb_sim_reaction_in_axes(sim, j->j, FMB_AXES_JOINT, re, row_d(w, j->ds_reaction_joint));
        fmb_sim_reaction_in_axes(sim, j->j, FMB_AXES_BODY, re, row_d(w, j->ds_reaction_body));
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
        if (st < 0) return w->failed = fmb_writer_err(w, st, "%s", msg);
    }
    w->nbuf++;
    /* a full batch goes to HDF5 at once; a commit (flush, sync, marker) once per second */
    if (wall_seconds() - w->last_flush >= WRITER_FLUSH_SECONDS) return flush_all(w, 0);
    if (w->nbuf == WRITER_BATCH) return write_batch(w);
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
            w->failed = fmb_writer_err(w, st, "%s", msg);
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
        st = fmb_writer_err(w, FMB_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int k = 0; k < np; k++) {
        names[k] = fmb_case_param_name(c, k);
        fmb_case_param(c, names[k], &values[k]);
    }
    g = fmb_h5_group(w->file, "parameters");
    if (g < 0 || fmb_h5_attr_strings(g, "_names", names, (hsize_t)np) < 0 ||
        fmb_h5_attr_strings(g, "_overrides", overrides,
                            (hsize_t)(noverrides > 0 ? noverrides : 0)) < 0) {
        st = fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot write /parameters", w->h5path);
        goto done;
    }
    for (int k = 0; k < np; k++)
        if (fmb_h5_attr_double(g, names[k], values[k]) < 0) {
            st = fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot write parameter %s", w->h5path,
                                names[k]);
            goto done;
        }
    hid_t root = H5Gopen2(w->file, "/", H5P_DEFAULT);
    if (root < 0 ||
        fmb_h5_attr_string(root, "case_path", fmb_case_path(c) ? fmb_case_path(c) : "") < 0)
        st = fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot write the case path", w->h5path);
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
    hid_t g = fmb_h5_group(w->file, "solver/statistics");
    int st = 0;
    char max_err_where[160];
    fmb_sim_coord_name(sim, s.max_error_coord, max_err_where, sizeof max_err_where);
    if (g < 0 || fmb_h5_attr_int(g, "steps", (int)s.steps) < 0 ||
        fmb_h5_attr_double(g, "newton_iterations", (double)s.newton_iterations) < 0 ||
        fmb_h5_attr_double(g, "factorizations", (double)s.factorizations) < 0 ||
        fmb_h5_attr_double(g, "symbolic", (double)s.symbolic) < 0 ||
        fmb_h5_attr_double(g, "halvings", (double)s.halvings) < 0 ||
        fmb_h5_attr_double(g, "max_violation", s.max_violation) < 0 ||
        fmb_h5_attr_double(g, "rejected_error", (double)s.rejected_error) < 0 ||
        fmb_h5_attr_double(g, "rejected_event", (double)s.rejected_event) < 0 ||
        fmb_h5_attr_double(g, "restarts", (double)s.restarts) < 0 ||
        fmb_h5_attr_double(g, "h_min", s.h_min_used) < 0 ||
        fmb_h5_attr_double(g, "h_max", s.h_max_used) < 0 ||
        fmb_h5_attr_double(g, "max_error", s.max_error) < 0 ||
        fmb_h5_attr_double(g, "max_error_time", s.max_error_time) < 0 ||
        fmb_h5_attr_string(g, "max_error_coordinate", max_err_where) < 0 ||
        fmb_h5_attr_double(g, "wall_time", wall_time) < 0 ||
        fmb_h5_attr_double(g, "records", (double)fmb_writer_records(w)) < 0 ||
        fmb_h5_attr_double(g, "t_final", fmb_sim_time(sim)) < 0 ||
        fmb_h5_attr_string(g, "status", status ? status : "") < 0)
        st = fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot write /solver/statistics", w->h5path);
    const int complete = status && strcmp(status, "complete") == 0;
    if (st == 0 &&
        (H5Adelete(w->file, "complete") < 0 || fmb_h5_attr_int(w->file, "complete", complete) < 0))
        st = fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot write the complete flag", w->h5path);
    if (g >= 0) H5Gclose(g);
    return st;
}

int fmb_writer_matrix(fmb_writer_t *w, const char *group, const char *name, const double *v,
                      long rows, long cols)
{
    if (!w || w->file < 0 || !group || !name || rows < 0 || cols < 1) return FMB_ERR_ARG;
    hid_t g = fmb_h5_group(w->file, group);
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
    return st < 0
               ? fmb_writer_err(w, FMB_ERR_HDF5, "%s: cannot write /%s/%s", w->h5path, group, name)
               : 0;
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

/* HDF5 results writer: datasets, batches and commits (layout: docs/output.md).
 *
 * Every time-dependent dataset is chunked with an unlimited first dimension and its chunks
 * compressed (byte shuffle + deflate, lossless). Records are buffered in memory and
 * written in batches of w->batch records (WRITER_BATCH, fewer for long rows), each batch
 * extending all datasets together. At least every WRITER_FLUSH_SECONDS of wall time
 * (and at the end) the records written are committed (commit() below: H5Fflush, sync,
 * then the root attribute committed_records, flushed again) and the XDMF sidecar is
 * brought up to date (its frames, a bounded subset of the records, are written by
 * src/io/viz.c). HDF5 1.10 writes the metadata of a flush in no guaranteed order and
 * may evict a dataset's header (with its new length) before a flush, so after a kill the
 * datasets' lengths can differ: committed_records is what a reader may use, and every
 * dataset holds at least that many complete rows. fmb_writer_destroy leaves exactly the
 * records appended, committed. */
#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "io/h5util.h"
#include "io/viz.h"
#include "io/writer_impl.h"

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
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
    /* a chunk is allocated, compressed and written whole: w->chunk records (WRITER_BATCH, or
     * a short run's expected records), but at most
     * WRITER_CHUNK_BYTES (at least one record), so that a long row (a 10,000-element beam's
     * coordinates, 240 kB) does not make every file hold 61 MB chunks per dataset. The
     * batch (all datasets extend together) is WRITER_BATCH records, fewer when a row would
     * make a dataset's buffer exceed WRITER_BUF_BYTES (the buffers made before hold more:
     * the batch only shrinks, before the first record). Long chunks compress better: at
     * 256 records the seed 004 case's file is 35 % of its uncompressed size, at 4096 32 %. */
    const size_t rowbytes = d->rowlen * d->esize;
    if (rowbytes * (size_t)w->batch > WRITER_BUF_BYTES)
        w->batch = rowbytes >= WRITER_BUF_BYTES ? 1 : (int)(WRITER_BUF_BYTES / rowbytes);
    const size_t batch = (size_t)w->batch;
    const size_t cn = (size_t)w->chunk;
    chunk[0] = rowbytes * cn <= WRITER_CHUNK_BYTES ? cn
               : rowbytes >= WRITER_CHUNK_BYTES    ? 1
                                                   : WRITER_CHUNK_BYTES / rowbytes;
    d->buf = malloc(batch * d->rowlen * d->esize);
    if (!d->buf) return fmb_writer_err(w, FMB_ERR_NOMEM, "out of memory");
    hid_t space = H5Screate_simple(rank, dims, maxdims);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    /* Rows never written (beyond the committed records of a killed run) read as NaN or
     * INT32_MIN, never as plausible zeros. */
    const double fill_d = NAN;
    const int fill_i = INT32_MIN;
    /* lossless compression of each chunk: byte shuffle (the exponent and high mantissa
     * bytes of neighbouring records agree) then deflate (docs/output.md "Compression") */
    const int deflate =
        !w->plain && WRITER_DEFLATE_LEVEL > 0 && H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0;
    if (space >= 0 && dcpl >= 0 && H5Pset_chunk(dcpl, rank, chunk) >= 0 &&
        (!deflate || (H5Pset_shuffle(dcpl) >= 0 && H5Pset_deflate(dcpl, WRITER_DEFLATE_LEVEL) >= 0)) &&
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

/* Free space on the results' file system against what the next batch needs: HDF5 has no
 * journal, so a write that fills the disk can leave the file unreadable. Stopping first
 * keeps every record written so far readable. The bytes handed to HDF5 since the last
 * commit count as taken: HDF5 keeps them in its caches until the commit's flush (a short
 * run writes everything at its end), so the free space does not show them yet. */
static int disk_room(fmb_writer_t *w)
{
    double need = (double)w->nbuf * record_bytes(w) + (double)fmb_viz_pending_bytes(w->viz);
    need = need + need / 4 + 256 * 1024; /* chunk and metadata overhead, the sidecar */
    double avail = free_bytes(w);
    if (avail >= 0) avail = avail > 1.25 * w->unflushed ? avail - 1.25 * w->unflushed : 0.0;
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
    /* the /viz frames: one every viz_every records, and the last record's */
    const double frames =
        w->viz ? fmin(ceil(nrecords / (double)(w->viz_every > 0 ? w->viz_every : 1)) + 1, 1e15) : 0;
    double xmf = 0;
    const double viz = fmb_viz_estimate_bytes(w->viz, (long)frames, &xmf);
    const double need = (nrecords * rec + viz) * 1.25 + xmf + 256 * 1024;
    const double avail = free_bytes(w);
    if (avail < 0 || avail >= need) return 0;
    return fmb_writer_err(
        w, FMB_ERR_IO,
        "%s: the run would write %.0f records of %.3g kB and %.0f visualization frames (with "
        "the .xmf sidecar), about %.3g MB, but the disk has %.3g MB free: raise output_every, "
        "lower viz_frames, shorten t_end or write elsewhere (-o)",
        w->h5path, nrecords, rec / 1024, frames, need / 1e6, avail / 1e6);
}

/* Write the buffered records: extend every dataset, then write them. */
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
    w->unflushed += (double)w->nbuf * record_bytes(w);
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
    w->unflushed = 0.0;
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
int fmb_writer_hold_cache(fmb_writer_t *w)
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

int fmb_writer_flush_all(fmb_writer_t *w, int full_xdmf)
{
    int st = write_batch(w);
    if (st < 0) return st;
    char vmsg[400];
    if (w->nbuf == 0 && fmb_viz_pending_bytes(w->viz) > 0 && (st = disk_room(w)) < 0)
        return w->failed = st;
    w->unflushed += (double)fmb_viz_pending_bytes(w->viz);
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

int fmb_writer_record_done(fmb_writer_t *w)
{
    w->nbuf++;
    /* a full batch goes to HDF5 at once; a commit (flush, sync, marker) once per second */
    if (wall_seconds() - w->last_flush >= WRITER_FLUSH_SECONDS) return fmb_writer_flush_all(w, 0);
    if (w->nbuf == w->batch) return write_batch(w);
    return 0;
}

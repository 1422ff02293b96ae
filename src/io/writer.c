/* HDF5 results writer: its life (docs/output.md). fmb_writer_create writes the layout
 * (writer_layout.c) under a staged name, records go through writer_record.c into batches
 * that writer_commit.c writes and commits, writer_attrs.c adds the run-level attributes,
 * and fmb_writer_destroy commits the last records and moves the staged file (and its XDMF
 * sidecar) to the final name. */
#include "io/writer_impl.h"

#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/text.h"
#include "io/viz.h"
#include "io/xdmf.h"
#include "model/model.h"

int fmb_writer_err(fmb_writer_t *w, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fmb_vformat(w->err, sizeof w->err, fmt, ap); /* a long path leaves room for the cause */
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

/* The records a run of these options writes (1 when unknown). */
static long expected_records(const fmb_sim_options_t *o)
{
    long expected = 1;
    if (o && o->output_dt > 0 && o->t_end > 0) {
        expected = (long)fmin(ceil(o->t_end / o->output_dt - 1e-9) + 1, 1e15);
    } else if (o && o->h > 0 && o->t_end > 0 && o->output_every > 0) {
        const double steps = ceil(o->t_end / o->h - 1e-9);
        expected = (long)fmin(ceil(steps / o->output_every) + 1, 1e15);
    }
    return expected;
}

/* Whether the results datasets are written uncompressed: compress 0, or -1 (automatic)
 * with an estimated uncompressed size below FMB_COMPRESS_AUTO_BYTES (per record q, qd, qdd
 * and about as much again for joints, beams and energies: 6 doubles per coordinate). */
static int results_plain(const fmb_sim_options_t *o, const fmb_model_t *m, long nexp)
{
    if (!o || o->compress > 0) return 0;
    if (o->compress == 0) return 1;
    const double bytes = (double)nexp * 6.0 * 8.0 * (double)fmb_model_num_coords(m);
    return bytes < FMB_COMPRESS_AUTO_BYTES;
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
    const long expected = expected_records(o);
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
    /* a short run's chunks are no longer than its records (a chunk is compressed whole,
     * fill values included) */
    const long nexp = expected_records(fmb_sim_options(sim));
    w->batch = nexp > 0 && nexp < WRITER_BATCH ? (int)nexp : WRITER_BATCH;
    w->chunk = w->batch;
    w->plain = results_plain(fmb_sim_options(sim), m, nexp);
    w->ds_time = w->ds_energy = w->ds_newton = -1;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    errno = 0;
    /* written under a staged name, moved to h5path when the writer is destroyed (also
     * after a failure or an interrupt): an earlier output is replaced only as a whole.
     * The staged name appears once the layout is committed (a kill before leaves only
     * DIR/.NAME.partial.new, no results), so a staged file always opens. */
    char newname[4200];
    snprintf(newname, sizeof newname, "%s.new", w->stage);
    /* no free-space managers: a chunk rewritten between commits (the partly filled chunk
     * of the last commit) goes to new space, and the space it leaves is never reused, so
     * the chunk the committed index names keeps its bytes until the next commit */
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    if (fcpl >= 0) H5Pset_file_space_strategy(fcpl, H5F_FSPACE_STRATEGY_NONE, 0, 1);
    w->file = H5Fcreate(newname, H5F_ACC_TRUNC, fcpl >= 0 ? fcpl : H5P_DEFAULT, H5P_DEFAULT);
    if (fcpl >= 0) H5Pclose(fcpl);
    int st;
    if (w->file < 0)
        st = fmb_writer_err(w, FMB_ERR_IO, "%s: cannot create HDF5 file%s%s", h5path,
                            errno ? ": " : "", errno ? strerror(errno) : "");
    else if ((st = fmb_writer_layout(w, sim, case_text)) >= 0 && (st = setup_viz(w, sim)) >= 0 &&
             (st = fmb_writer_flush_all(w, 1)) >= 0 && rename(newname, w->stage) != 0)
        st = fmb_writer_err(w, FMB_ERR_IO, "%s: cannot rename %s to %s: %s", h5path, newname,
                            w->stage, strerror(errno));
    if (st < 0) {
        if (err && errlen) snprintf(err, errlen, "%s", w->err);
        writer_free(w, 0);
        remove(newname);
        return NULL;
    }
    w->mdc_held = fmb_writer_hold_cache(w) == 0;
    return w;
}

int fmb_writer_flush(fmb_writer_t *w)
{
    if (!w) return FMB_ERR_ARG;
    return fmb_writer_flush_all(w, 0);
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
            fmb_writer_flush_all(w, 1);
    }
    writer_free(w, 1);
    *pw = NULL;
}

long fmb_writer_records(const fmb_writer_t *w)
{
    return w ? w->nrec + w->nbuf : 0;
}

int fmb_writer_last_energy(const fmb_writer_t *w, double e[FMB_ENERGY_COLUMNS])
{
    if (!w || !w->has_energy) return FMB_ERR_ARG;
    memcpy(e, w->last_energy, sizeof w->last_energy);
    return 0;
}

const char *fmb_writer_last_error(const fmb_writer_t *w)
{
    return w ? w->err : "";
}

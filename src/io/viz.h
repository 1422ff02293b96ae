/* Visualization output (src/io/viz.c): the mechanism as drawn shapes, written as a
 * bounded number of frames under /viz in the results file and described for ParaView by
 * the XDMF sidecar (src/io/xdmf.c). Layout and conventions: docs/output.md,
 * "Visualization". */
#ifndef FMB_IO_VIZ_H
#define FMB_IO_VIZ_H

#include <hdf5.h>
#include <stddef.h>

#include "flexmb/flexmb.h"

typedef struct fmb_viz fmb_viz_t;

/* Frame spacing: every viz_every records, or (viz_every 0) the smallest spacing that keeps
 * the expected records within viz_frames frames, the last record included. */
long fmb_viz_spacing(const fmb_sim_options_t *o, long expected_records);

/* Create /viz in file for the simulation's model. h5path names the results in messages,
 * xmf_path is where the sidecar is written and h5name the results file as the sidecar
 * references it (its final name, relative to the sidecar). every: records per frame
 * (>= 1). Returns NULL with a message in err on failure. */
fmb_viz_t *fmb_viz_create(hid_t file, const char *h5path, const char *xmf_path,
                          const char *h5name, const fmb_sim_t *sim, long every, char *err,
                          size_t errlen);
/* Record number rec (0, 1, ...) of the results: computes its frame; kept (written at the
 * next sync) when rec is a multiple of the spacing, else held as the pending last frame.
 * 0 or a negative status. */
int fmb_viz_record(fmb_viz_t *v, const fmb_sim_t *sim, long rec, char *err, size_t errlen);
/* At the end of a run: write the pending frame if the last record was not one. */
int fmb_viz_finish(fmb_viz_t *v, char *err, size_t errlen);
/* Before the results file is flushed: write the frames kept since the last sync and the
 * static data that grows with the run (ground guides long enough for the travel so far). */
int fmb_viz_sync(fmb_viz_t *v, char *err, size_t errlen);
/* After the flush: bring the sidecar up to date (full: rewrite it). */
int fmb_viz_update_sidecar(fmb_viz_t *v, int full, char *err, size_t errlen);
/* Frames in the file, and the bytes of those waiting for the next sync. */
long fmb_viz_frames(const fmb_viz_t *v);
size_t fmb_viz_pending_bytes(const fmb_viz_t *v);
/* Bytes a run of nframes frames writes in the /viz datasets (without HDF5's overhead);
 * *sidecar: the sidecar's at its largest (the old file and its rewrite side by side). */
double fmb_viz_estimate_bytes(const fmb_viz_t *v, long nframes, double *sidecar);
void fmb_viz_destroy(fmb_viz_t **pv);

#endif

#include "nk_eighth_job.h"
#include "nk_jpeg_eighth.h"

#include <stdlib.h>

/*
 * The job's steps: the scan's (nk_eighth_parallel.c: the runs, then for a split without
 * restart markers the shares), then one that turns the planes into RGBA rows, a band per
 * slice. When a split scan fails, the scan is decoded again in one slice before the job gives up.
 */
struct nk_eighth_job {
    nk_eighth_plan plan;
    nk_eighth_stream stream;
    uint8_t *pixels;
    size_t bytes_per_row;
    nk_eighth_scan *scan;    /* the scan's decode under way, or NULL */
    int slices;              /* of the scan's decode, then of the RGBA step */
    int writing;             /* the RGBA step is under way */
    int finished;
    int result;
};

nk_eighth_job *nk_eighth_job_create(const struct jpeg_decompress_struct *cinfo, uint8_t *pixels, size_t bytes_per_row,
                                    int slices) {
    if (cinfo == NULL || cinfo->src == NULL || pixels == NULL || bytes_per_row < (size_t)cinfo->output_width * 4) {
        return NULL;
    }
    nk_eighth_job *job = calloc(1, sizeof(*job));
    if (job == NULL) return NULL;
    job->pixels = pixels;
    job->bytes_per_row = bytes_per_row;
    if (nk_eighth_plan_make(cinfo, &job->plan) != 0 ||
        nk_eighth_stream_make(&job->plan, cinfo->src->next_input_byte, cinfo->src->bytes_in_buffer, &job->stream) != 0) {
        nk_eighth_job_destroy(job);
        return NULL;
    }
    if (slices > NK_EIGHTH_MAX_SLICES) slices = NK_EIGHTH_MAX_SLICES;
    if (job->stream.segment_count > 1 && (size_t)slices > job->stream.segment_count) slices = (int)job->stream.segment_count;
    job->slices = slices < 1 ? 1 : slices;
    return job;
}

static int nk_job_finish(nk_eighth_job *job, int result) {
    job->finished = 1;
    job->result = result;
    return 0;
}

int nk_eighth_job_next_step(nk_eighth_job *job) {
    while (!job->finished) {
        if (job->writing) return nk_job_finish(job, job->slices);
        if (job->scan == NULL) {
            job->scan = nk_eighth_scan_create(&job->plan, &job->stream, job->slices);
        }
        int next = job->scan != NULL ? nk_eighth_scan_next_step(job->scan) : -1;
        if (next > 0) return next;
        nk_eighth_scan_destroy(job->scan);
        job->scan = NULL;
        if (next == 0) {
            job->writing = 1;
            return job->slices;
        }
        if (job->slices == 1) return nk_job_finish(job, 0);
        job->slices = 1; /* the split failed (or memory ran out): once more in one slice */
    }
    return 0;
}

void nk_eighth_job_run_slice(nk_eighth_job *job, int index) {
    if (job->finished || index < 0 || index >= job->slices) return;
    if (job->writing) {
        size_t height = job->plan.height, slices = (size_t)job->slices;
        nk_eighth_write_rgba(&job->plan, job->pixels, job->bytes_per_row, height * (size_t)index / slices,
                             height * (size_t)(index + 1) / slices);
    } else if (job->scan != NULL) {
        nk_eighth_scan_run_slice(job->scan, index);
    }
}

int nk_eighth_job_result(const nk_eighth_job *job) {
    return job->finished ? job->result : 0;
}

void nk_eighth_job_destroy(nk_eighth_job *job) {
    if (job == NULL) return;
    nk_eighth_scan_destroy(job->scan);
    nk_eighth_stream_free(&job->stream);
    nk_eighth_plan_free(&job->plan);
    free(job);
}

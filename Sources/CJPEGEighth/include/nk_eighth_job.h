#ifndef NK_EIGHTH_JOB_H
#define NK_EIGHTH_JOB_H

/*
 * A 1/8-scale decode of a baseline (Huffman, 8-bit, gray, YCbCr or RGB) JPEG into RGBA with
 * the same bytes as libjpeg-turbo, skipping the AC coefficients that 1/8 scale does not need.
 *
 * The work comes in steps, each split into slices that may run at the same time; this code
 * starts no thread. The caller runs every slice of each step, on threads of its choosing:
 *
 *     job = nk_eighth_job_create(cinfo, pixels, bytes_per_row, slices);
 *     while ((count = nk_eighth_job_next_step(job)) > 0)
 *         run nk_eighth_job_run_slice(job, i) once for each i in 0 ..< count, then wait for all;
 *     used = nk_eighth_job_result(job);
 *     nk_eighth_job_destroy(job);
 *
 * The job reads libjpeg's state and the file's bytes (through cinfo->src) and writes only
 * `pixels` and memory of its own: the libjpeg decoder is left untouched, so the caller can
 * still decode the file with libjpeg when the job declines or fails. Every input is checked:
 * a corrupt or unusual file makes the job decline or fail, never read out of bounds.
 */

#include <stddef.h>
#include <stdint.h>

/* libjpeg's decompressor (jpeglib.h), after jpeg_read_header and jpeg_calc_output_dimensions. */
struct jpeg_decompress_struct;

/* The most slices a step is split into. */
#define NK_EIGHTH_MAX_SLICES 8

typedef struct nk_eighth_job nk_eighth_job;

/*
 * A job for the file whose header `cinfo` has read, with a 1/8 scale and RGBA output chosen
 * and the output size calculated. It writes `cinfo->output_height` rows of `bytes_per_row`
 * (at least 4 * output_width) bytes at `pixels`, which must stay valid until the job is
 * destroyed. The scan is split into `slices` slices, clamped to 1...NK_EIGHTH_MAX_SLICES and
 * to the number of restart intervals when there are several. NULL when the file is outside
 * what this decoder handles, its scan looks corrupt, or memory ran out: then nothing was written.
 */
nk_eighth_job *nk_eighth_job_create(const struct jpeg_decompress_struct *cinfo, uint8_t *pixels, size_t bytes_per_row,
                                    int slices);

/*
 * Finishes the step whose slices have run and begins the next: the number of slices of the
 * next step (1...NK_EIGHTH_MAX_SLICES), or 0 when the job is over. Call it from one thread at
 * a time, never while a slice runs.
 */
int nk_eighth_job_next_step(nk_eighth_job *job);

/*
 * Runs slice `index` of the current step. The slices of one step touch disjoint memory and
 * may run on different threads at the same time, in any order; an index outside the step's
 * slices does nothing.
 */
void nk_eighth_job_run_slice(nk_eighth_job *job, int index);

/*
 * Once nk_eighth_job_next_step has returned 0: into how many slices the scan was split (1
 * when splitting failed and one slice decoded it), with `pixels` holding the image; or 0
 * when the scan turned out corrupt, with `pixels` holding nothing of use.
 */
int nk_eighth_job_result(const nk_eighth_job *job);

void nk_eighth_job_destroy(nk_eighth_job *job);

#endif

#include "nk_jpeg.h"
#include "nk_jpeg_eighth.h"
#include "nk_threads.h"

#include <stdlib.h>

/* Rows of RGBA for one thread. */
typedef struct {
    const nk_eighth_plan *plan;
    uint8_t *pixels;
    size_t bytes_per_row;
    int threads;
} nk_eighth_output;

static void nk_output_work(int index, void *context) {
    const nk_eighth_output *output = context;
    size_t height = output->plan->height, threads = (size_t)output->threads;
    nk_eighth_write_rgba(output->plan, output->pixels, output->bytes_per_row, height * (size_t)index / threads,
                         height * (size_t)(index + 1) / threads);
}

int nk_jpeg_decode_eighth(nk_jpeg_decoder *decoder, uint8_t *pixels, size_t bytes_per_row, int threads) {
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    if (cinfo->src == NULL || bytes_per_row < (size_t)cinfo->output_width * 4) return 0;
    nk_eighth_plan *plan = malloc(sizeof(*plan));
    if (plan == NULL) return 0;
    int used = 0;
    if (nk_eighth_plan_make(cinfo, plan) == 0) {
        nk_eighth_stream stream;
        if (nk_eighth_stream_make(plan, cinfo->src->next_input_byte, cinfo->src->bytes_in_buffer, &stream) == 0) {
            used = nk_eighth_decode_scan(plan, &stream, threads);
        }
        if (used > 0) {
            nk_eighth_output output = {plan, pixels, bytes_per_row, used};
            nk_parallel_for(used, nk_output_work, &output);
        }
        nk_eighth_stream_free(&stream);
    }
    nk_eighth_plan_free(plan);
    free(plan);
    return used;
}

#include "nk_jpeg_eighth.h"

#include <pthread.h>
#include <stdlib.h>

/*
 * Planes to RGBA, as libjpeg does after its 1/8-scale inverse DCT: chroma replicated by the
 * plane's expansion (libjpeg's plain upsampling, which it uses at this scale), then YCbCr to
 * RGB in 16-bit fixed point with libjpeg's tables (jdcolor.c), so the bytes match libjpeg's.
 */

#define NK_SCALE_BITS 16
#define NK_FIX(x) ((int32_t)((x) * (1L << NK_SCALE_BITS) + 0.5))

static inline uint8_t nk_clamp(int value) {
    return (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value);
}

/* libjpeg's conversion tables (build_ycc_rgb_table), indexed by the chroma sample. */
typedef struct {
    int red_from_cr[256];
    int blue_from_cb[256];
    int32_t green_from_cr[256];
    int32_t green_from_cb[256]; /* includes the rounding half */
} nk_ycc_tables;

static nk_ycc_tables nk_ycc;
static pthread_once_t nk_ycc_once = PTHREAD_ONCE_INIT;

static void nk_ycc_build(void) {
    const int32_t half = 1 << (NK_SCALE_BITS - 1);
    for (int i = 0; i < 256; i++) {
        int32_t x = i - 128;
        nk_ycc.red_from_cr[i] = (NK_FIX(1.40200) * x + half) >> NK_SCALE_BITS;
        nk_ycc.blue_from_cb[i] = (NK_FIX(1.77200) * x + half) >> NK_SCALE_BITS;
        nk_ycc.green_from_cr[i] = -NK_FIX(0.71414) * x;
        nk_ycc.green_from_cb[i] = -NK_FIX(0.34414) * x + half;
    }
}

/* One row of YCbCr (or RGB) planes, each sample repeated `expand` times across, to RGBA. */
static void nk_row_to_rgba(const nk_eighth_plan *plan, const uint8_t *rows[3], uint8_t *out) {
    int shift1 = plan->planes[1].expand_x == 2, shift2 = plan->planes[2].expand_x == 2;
    int simple = plan->planes[0].expand_x == 1 && plan->planes[1].expand_x <= 2 && plan->planes[2].expand_x <= 2;
    for (size_t x = 0; x < plan->width; x++, out += 4) {
        int first, second, third;
        if (simple) {
            first = rows[0][x];
            second = rows[1][x >> shift1];
            third = rows[2][x >> shift2];
        } else {
            first = rows[0][x / (size_t)plan->planes[0].expand_x];
            second = rows[1][x / (size_t)plan->planes[1].expand_x];
            third = rows[2][x / (size_t)plan->planes[2].expand_x];
        }
        if (plan->color_space == JCS_RGB) {
            out[0] = (uint8_t)first;
            out[1] = (uint8_t)second;
            out[2] = (uint8_t)third;
        } else {
            out[0] = nk_clamp(first + nk_ycc.red_from_cr[third]);
            out[1] = nk_clamp(first + ((nk_ycc.green_from_cb[second] + nk_ycc.green_from_cr[third]) >> NK_SCALE_BITS));
            out[2] = nk_clamp(first + nk_ycc.blue_from_cb[second]);
        }
        out[3] = 0xFF;
    }
}

void nk_eighth_write_rgba(const nk_eighth_plan *plan, uint8_t *pixels, size_t bytes_per_row, size_t first_row, size_t end_row) {
    pthread_once(&nk_ycc_once, nk_ycc_build);
    for (size_t y = first_row; y < end_row && y < plan->height; y++) {
        const uint8_t *rows[3] = {NULL, NULL, NULL};
        for (int c = 0; c < plan->components; c++) {
            const nk_eighth_plane *plane = &plan->planes[c];
            rows[c] = plane->samples + (y / (size_t)plane->expand_y) * plane->stride;
        }
        uint8_t *out = pixels + y * bytes_per_row;
        if (plan->components == 3) {
            nk_row_to_rgba(plan, rows, out);
            continue;
        }
        for (size_t x = 0; x < plan->width; x++, out += 4) {
            out[0] = out[1] = out[2] = rows[0][x];
            out[3] = 0xFF;
        }
    }
}

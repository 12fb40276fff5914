#include "nk_png_stream.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * nk_png_stream_append sets `jump` before it calls libpng and returns -1 right after a longjmp
 * without reading a local changed after its setjmp; the callbacks below run inside that call.
 */
struct nk_png_stream {
    png_structp png;
    png_infop info;
    jmp_buf jump;
    char message[256];
    int failed;
    uint64_t pixel_limit;
    int have_header;
    int over_limit;
    uint32_t width;
    uint32_t height;
    int interlaced;
    uint8_t *pixels;
    int last_pass; /* the pass of the last row given, -1 before any */
    int ended;
};

static void nk_png_stream_fail(png_structp png, png_const_charp reason) {
    nk_png_stream *stream = png_get_error_ptr(png);
    snprintf(stream->message, sizeof(stream->message), "%s", reason);
    stream->failed = 1;
    longjmp(stream->jump, 1);
}

static void nk_png_stream_warning(png_structp png, png_const_charp reason) {
    (void)png;
    (void)reason;
}

/* The header: the limit, then the conversion to RGBA8 (as nk_png_reader_start), then the buffer. */
static void nk_png_stream_info(png_structp png, png_infop info) {
    nk_png_stream *stream = png_get_progressive_ptr(png);
    stream->width = png_get_image_width(png, info);
    stream->height = png_get_image_height(png, info);
    stream->interlaced = png_get_interlace_type(png, info) != PNG_INTERLACE_NONE;
    stream->have_header = 1;
    if ((uint64_t)stream->width * stream->height > stream->pixel_limit) {
        stream->over_limit = 1;
        png_error(png, "image over the pixel limit");
    }
    png_set_expand(png);
    png_set_scale_16(png);
    png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
    png_fixed_point file_gamma = 0;
    if (!png_get_valid(png, info, PNG_INFO_sRGB) && png_get_gAMA_fixed(png, info, &file_gamma)) {
        png_set_gamma_fixed(png, PNG_DEFAULT_sRGB, file_gamma);
    }
    (void)png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)stream->width * 4) {
        png_error(png, "unexpected row size after conversion to RGBA");
    }
    stream->pixels = calloc(stream->height, (size_t)stream->width * 4);
    if (stream->pixels == NULL) png_error(png, "out of memory");
}

static void nk_png_stream_row(png_structp png, png_bytep row, png_uint_32 number, int pass) {
    nk_png_stream *stream = png_get_progressive_ptr(png);
    if (number >= stream->height || stream->pixels == NULL) return;
    png_progressive_combine_row(png, stream->pixels + (size_t)number * stream->width * 4, row);
    if (pass > stream->last_pass) stream->last_pass = pass;
}

static void nk_png_stream_end(png_structp png, png_infop info) {
    (void)info;
    nk_png_stream *stream = png_get_progressive_ptr(png);
    stream->ended = 1;
}

nk_png_stream *nk_png_stream_create(uint64_t pixel_limit) {
    nk_png_stream *stream = calloc(1, sizeof(nk_png_stream));
    if (stream == NULL) return NULL;
    stream->pixel_limit = pixel_limit;
    stream->last_pass = -1;
    stream->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, stream, nk_png_stream_fail, nk_png_stream_warning);
    if (stream->png != NULL) stream->info = png_create_info_struct(stream->png);
    if (stream->info == NULL) {
        nk_png_stream_destroy(stream);
        return NULL;
    }
    png_set_progressive_read_fn(stream->png, stream, nk_png_stream_info, nk_png_stream_row, nk_png_stream_end);
    return stream;
}

void nk_png_stream_destroy(nk_png_stream *stream) {
    if (stream == NULL) return;
    if (stream->png != NULL) png_destroy_read_struct(&stream->png, stream->info ? &stream->info : NULL, NULL);
    free(stream->pixels);
    free(stream);
}

const char *nk_png_stream_message(const nk_png_stream *stream) {
    return stream->message;
}

int nk_png_stream_append(nk_png_stream *stream, const uint8_t *data, size_t size) {
    if (stream->failed) return -1;
    if (stream->ended || size == 0) return 0;
    if (setjmp(stream->jump)) return -1;
    png_process_data(stream->png, stream->info, (png_bytep)data, size);
    return 0;
}

int nk_png_stream_header(const nk_png_stream *stream, uint32_t *width, uint32_t *height, int *interlaced, int *over_limit) {
    if (!stream->have_header) return 0;
    *width = stream->width;
    *height = stream->height;
    *interlaced = stream->interlaced;
    *over_limit = stream->over_limit;
    return 1;
}

int nk_png_stream_passes_done(const nk_png_stream *stream) {
    if (stream->ended) return 7;
    return stream->last_pass < 0 ? 0 : stream->last_pass;
}

const uint8_t *nk_png_stream_pixels(const nk_png_stream *stream) {
    return stream->pixels;
}

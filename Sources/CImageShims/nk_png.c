#include "nk_png.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A reader over the caller's bytes. Every call below sets `jump` before it calls libpng, and
 * returns -1 right after a longjmp without reading a local changed after its setjmp, so no local
 * needs to be volatile; state that outlives a call lives in the reader.
 */
struct nk_png_reader {
    png_structp png;
    png_infop info;
    const uint8_t *data;
    size_t size;
    size_t offset;
    jmp_buf jump;
    int failed;
    uint32_t width;
    uint32_t height;
    uint32_t rows_read;
    int interlaced;
    char message[256];
};

static void nk_png_read(png_structp png, png_bytep out, png_size_t length) {
    nk_png_reader *reader = png_get_io_ptr(png);
    if (length > reader->size - reader->offset) {
        png_error(png, "truncated PNG data");
    }
    memcpy(out, reader->data + reader->offset, length);
    reader->offset += length;
}

static void nk_png_fail(png_structp png, png_const_charp reason) {
    nk_png_reader *reader = png_get_error_ptr(png);
    snprintf(reader->message, sizeof(reader->message), "%s", reason);
    reader->failed = 1;
    longjmp(reader->jump, 1);
}

static void nk_png_ignore_warning(png_structp png, png_const_charp reason) {
    (void)png;
    (void)reason;
}

/* A failure of the reader's own: the message, and no further calls. */
static int nk_png_refuse(nk_png_reader *reader, const char *reason) {
    snprintf(reader->message, sizeof(reader->message), "%s", reason);
    reader->failed = 1;
    return -1;
}

nk_png_reader *nk_png_reader_create(const uint8_t *data, size_t size) {
    nk_png_reader *reader = calloc(1, sizeof(nk_png_reader));
    if (reader == NULL) return NULL;
    reader->data = data;
    reader->size = size;
    reader->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, reader, nk_png_fail, nk_png_ignore_warning);
    if (reader->png != NULL) reader->info = png_create_info_struct(reader->png);
    if (reader->info == NULL) {
        nk_png_reader_destroy(reader);
        return NULL;
    }
    png_set_read_fn(reader->png, reader, nk_png_read);
    return reader;
}

void nk_png_reader_destroy(nk_png_reader *reader) {
    if (reader == NULL) return;
    if (reader->png != NULL) png_destroy_read_struct(&reader->png, reader->info ? &reader->info : NULL, NULL);
    free(reader);
}

const char *nk_png_reader_message(const nk_png_reader *reader) {
    return reader->message;
}

int nk_png_reader_start(nk_png_reader *reader, uint32_t *width, uint32_t *height, int *interlaced) {
    if (reader->failed) return -1;
    if (setjmp(reader->jump)) return -1;
    png_structp png = reader->png;
    png_infop info = reader->info;
    png_read_info(png, info);
    png_set_expand(png);
    png_set_scale_16(png);
    png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
    /* Output sRGB. libpng's file gamma argument replaces the gAMA chunk, so pass the chunk's own
     * value; an sRGB chunk, or no chunk at all, means the samples are sRGB already. */
    png_fixed_point file_gamma = 0;
    if (!png_get_valid(png, info, PNG_INFO_sRGB) && png_get_gAMA_fixed(png, info, &file_gamma)) {
        png_set_gamma_fixed(png, PNG_DEFAULT_sRGB, file_gamma);
    }
    reader->interlaced = png_set_interlace_handling(png) > 1;
    png_read_update_info(png, info);
    reader->width = png_get_image_width(png, info);
    reader->height = png_get_image_height(png, info);
    if (png_get_rowbytes(png, info) != (size_t)reader->width * 4) {
        return nk_png_refuse(reader, "unexpected row size after conversion to RGBA");
    }
    *width = reader->width;
    *height = reader->height;
    *interlaced = reader->interlaced;
    return 0;
}

int nk_png_reader_read_rows(nk_png_reader *reader, uint8_t *rows, size_t stride, uint32_t count) {
    if (reader->failed) return -1;
    if (reader->width == 0 || reader->interlaced || stride < (size_t)reader->width * 4 ||
        count > reader->height - reader->rows_read) {
        return nk_png_refuse(reader, "rows asked for out of order or beyond the image");
    }
    if (setjmp(reader->jump)) return -1;
    for (uint32_t i = 0; i < count; i++) {
        png_read_row(reader->png, rows + (size_t)i * stride, NULL);
        reader->rows_read++;
    }
    return 0;
}

int nk_png_reader_read_image(nk_png_reader *reader, uint8_t *rgba, size_t stride) {
    if (reader->failed) return -1;
    if (reader->width == 0 || reader->rows_read != 0 || stride < (size_t)reader->width * 4) {
        return nk_png_refuse(reader, "the image was asked for in parts, or before the header");
    }
    png_bytep *rows = malloc(sizeof(png_bytep) * reader->height);
    if (rows == NULL) return nk_png_refuse(reader, "out of memory");
    for (uint32_t y = 0; y < reader->height; y++) {
        rows[y] = rgba + (size_t)y * stride;
    }
    /* `rows` is not changed after setjmp, so it may be freed after a longjmp. */
    if (setjmp(reader->jump)) {
        free(rows);
        return -1;
    }
    png_read_image(reader->png, rows);
    free(rows);
    reader->rows_read = reader->height;
    return 0;
}

int nk_png_reader_finish(nk_png_reader *reader) {
    if (reader->failed) return -1;
    if (reader->rows_read != reader->height) return nk_png_refuse(reader, "finished before the last row");
    if (setjmp(reader->jump)) return -1;
    png_read_end(reader->png, NULL);
    return 0;
}

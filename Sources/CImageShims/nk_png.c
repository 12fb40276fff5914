#include "nk_png.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where libpng reads from: the caller's bytes. */
typedef struct {
    const uint8_t *data;
    size_t size;
    size_t offset;
} nk_png_source;

/* Where libpng's errors go: the message, then a jump back to nk_png_decode_rgba. */
typedef struct {
    jmp_buf jump;
    char *message;
    size_t message_size;
} nk_png_failure;

static void nk_png_read(png_structp png, png_bytep out, png_size_t length) {
    nk_png_source *source = png_get_io_ptr(png);
    if (length > source->size - source->offset) {
        png_error(png, "truncated PNG data");
    }
    memcpy(out, source->data + source->offset, length);
    source->offset += length;
}

static void nk_png_fail(png_structp png, png_const_charp reason) {
    nk_png_failure *failure = png_get_error_ptr(png);
    snprintf(failure->message, failure->message_size, "%s", reason);
    longjmp(failure->jump, 1);
}

static void nk_png_ignore_warning(png_structp png, png_const_charp reason) {
    (void)png;
    (void)reason;
}

int nk_png_decode_rgba(const uint8_t *data, size_t size, uint8_t *rgba, size_t stride,
                       uint32_t width, uint32_t height, char *message, size_t message_size) {
    nk_png_source source = {data, size, 0};
    nk_png_failure failure;
    failure.message = message;
    failure.message_size = message_size;
    if (message_size > 0) {
        message[0] = 0;
    }
    /* Changed after setjmp, read after longjmp: volatile. */
    png_structp volatile png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &failure, nk_png_fail,
                                                      nk_png_ignore_warning);
    png_infop volatile info = NULL;
    png_bytep *volatile rows = NULL;
    if (png == NULL) {
        snprintf(message, message_size, "out of memory");
        return -1;
    }
    if (setjmp(failure.jump)) {
        png_structp failed_png = png;
        png_infop failed_info = info;
        free(rows);
        png_destroy_read_struct(&failed_png, failed_info ? &failed_info : NULL, NULL);
        return -1;
    }
    info = png_create_info_struct(png);
    if (info == NULL) {
        png_error(png, "out of memory");
    }
    png_set_read_fn(png, &source, nk_png_read);
    png_read_info(png, info);
    if (png_get_image_width(png, info) != width || png_get_image_height(png, info) != height) {
        png_error(png, "image size differs from the header read before");
    }
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
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)width * 4 || stride < (size_t)width * 4) {
        png_error(png, "unexpected row size after conversion to RGBA");
    }
    rows = malloc(sizeof(png_bytep) * (height ? height : 1));
    if (rows == NULL) {
        png_error(png, "out of memory");
    }
    for (uint32_t y = 0; y < height; y++) {
        rows[y] = rgba + (size_t)y * stride;
    }
    png_read_image(png, rows);
    png_read_end(png, NULL);
    free(rows);
    rows = NULL;
    png_structp done_png = png;
    png_infop done_info = info;
    png_destroy_read_struct(&done_png, &done_info, NULL);
    return 0;
}

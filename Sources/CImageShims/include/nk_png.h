#ifndef NK_PNG_H
#define NK_PNG_H

/*
 * PNG through libpng's classic API: row by row, for thumbnails that never hold the whole
 * image, and whole, for the files the simplified API gets wrong (libpng 1.6.39 returns wrong
 * samples on every other row of Adam7-interlaced 16-bit files, with or without a gAMA chunk).
 * libpng reports errors by longjmp, so setjmp stays on this side and every error becomes a
 * return code and a message. Pixels are written into caller-owned memory.
 *
 * Transformations match the simplified API's PNG_FORMAT_RGBA: palettes and tRNS expanded, gray
 * copied to RGB, 16-bit samples scaled to 8 bits, a gAMA chunk applied so the result is
 * sRGB-encoded, no chunk at all taken as sRGB. Output is 8-bit RGBA, non-premultiplied.
 */

#include <stddef.h>
#include <stdint.h>

typedef struct nk_png_reader nk_png_reader;

/* A reader of data[0..<size] (which must outlive it), or NULL when out of memory. */
nk_png_reader *nk_png_reader_create(const uint8_t *data, size_t size);
void nk_png_reader_destroy(nk_png_reader *reader);

/* The reason of the last failure, NUL-terminated ("" if none). */
const char *nk_png_reader_message(const nk_png_reader *reader);

/*
 * Reads the chunks up to the image data and sets up the conversion to RGBA8. Fills the size and
 * whether the image is Adam7-interlaced. 0, or -1 (as is every later call once one failed).
 */
int nk_png_reader_start(nk_png_reader *reader, uint32_t *width, uint32_t *height, int *interlaced);

/* Decodes the next `count` rows of a non-interlaced image into `rows` (`stride` bytes apart). 0 or -1. */
int nk_png_reader_read_rows(nk_png_reader *reader, uint8_t *rows, size_t stride, uint32_t count);

/* Decodes the whole image, interlaced or not, into `rgba` (`height` rows of `stride` bytes). 0 or -1. */
int nk_png_reader_read_image(nk_png_reader *reader, uint8_t *rgba, size_t stride);

/* After the last row: reads the rest of the file, checking the chunks that follow the image. 0 or -1. */
int nk_png_reader_finish(nk_png_reader *reader);

#endif

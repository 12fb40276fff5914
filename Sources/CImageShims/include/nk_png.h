#ifndef NK_PNG_H
#define NK_PNG_H

/*
 * PNG through libpng's classic API, for the files its simplified API gets wrong
 * (libpng 1.6.39 returns wrong samples on every other row of Adam7-interlaced 16-bit files,
 * with or without a gAMA chunk). libpng reports errors by longjmp, so setjmp stays on this side and every
 * error becomes a return code and a message. Pixels are written into caller-owned memory.
 */

#include <stddef.h>
#include <stdint.h>

/*
 * Decodes the PNG in data[0..<size] to 8-bit RGBA, non-premultiplied, into `rgba` (`height`
 * rows of `stride` bytes). Transformations match the simplified API's PNG_FORMAT_RGBA: palettes
 * and tRNS expanded, gray copied to RGB, 16-bit samples scaled to 8 bits, a gAMA chunk applied
 * so the result is sRGB-encoded, no chunk at all taken as sRGB.
 * `width` and `height` are what the caller allocated for; a header that disagrees is an error.
 * Returns 0, or -1 with a NUL-terminated reason in `message`.
 */
int nk_png_decode_rgba(const uint8_t *data, size_t size, uint8_t *rgba, size_t stride,
                       uint32_t width, uint32_t height, char *message, size_t message_size);

#endif

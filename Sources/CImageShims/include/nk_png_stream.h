#ifndef NK_PNG_STREAM_H
#define NK_PNG_STREAM_H

/*
 * A PNG read as its bytes arrive, through libpng's progressive reader (png_process_data), for
 * the previews of an Adam7-interlaced file: the rows of each pass are combined into an RGBA8
 * image of the whole size, set up as nk_png_reader_start sets up its conversion (nk_png.h).
 * libpng reports errors by longjmp: setjmp stays on this side and every error becomes -1 and a
 * message. The image buffer is allocated only once the header's size passed the pixel limit.
 */

#include <stddef.h>
#include <stdint.h>

typedef struct nk_png_stream nk_png_stream;

/* A stream that refuses images of more than `pixel_limit` pixels, or NULL when out of memory. */
nk_png_stream *nk_png_stream_create(uint64_t pixel_limit);
void nk_png_stream_destroy(nk_png_stream *stream);

/* The reason of the last failure ("" if none). */
const char *nk_png_stream_message(const nk_png_stream *stream);

/* Feeds the next bytes. 0, or -1 (as is every later call once one failed). */
int nk_png_stream_append(nk_png_stream *stream, const uint8_t *data, size_t size);

/*
 * The header's size and whether the image is interlaced: 1 once the header was read (also when
 * it failed the pixel limit: `over_limit` is then 1), else 0.
 */
int nk_png_stream_header(const nk_png_stream *stream, uint32_t *width, uint32_t *height, int *interlaced, int *over_limit);

/* How many Adam7 passes are complete (0 to 7); 7 once the image data ended. */
int nk_png_stream_passes_done(const nk_png_stream *stream);

/* The combined rows (height rows of width * 4 bytes), or NULL before the header. */
const uint8_t *nk_png_stream_pixels(const nk_png_stream *stream);

#endif

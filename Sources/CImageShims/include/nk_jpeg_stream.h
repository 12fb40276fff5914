#ifndef NK_JPEG_STREAM_H
#define NK_JPEG_STREAM_H

/*
 * A JPEG decoded as its bytes arrive: libjpeg reads from a suspending source, so every call
 * below decodes as far as the bytes appended so far allow and says whether it finished (1) or
 * needs more bytes (0); -1 is an error whose words nk_jpeg_message gives. Errors, warnings,
 * strict mode and the scan limit are those of nk_jpeg_create's decoder (nk_jpeg.h).
 *
 * The stream keeps only the bytes libjpeg has not consumed yet. Once nk_jpeg_stream_end says no
 * more bytes will come, running out of data is what it is for a whole file in memory: libjpeg's
 * "Premature end of JPEG file", an error.
 *
 * Two ways to decode: the normal mode (nk_jpeg_stream_start(stream, 0), then
 * nk_jpeg_stream_read_rows and nk_jpeg_stream_finish), whose rows come top-down as the data of a
 * sequential file arrives; and libjpeg's buffered-image mode (nk_jpeg_stream_start(stream, 1),
 * then nk_jpeg_stream_consume), which shows any completed scan of a progressive file
 * (nk_jpeg_stream_start_output, nk_jpeg_stream_read_strip, nk_jpeg_stream_finish_output).
 */

#include <stddef.h>
#include <stdint.h>
#include "nk_jpeg.h"

typedef struct nk_jpeg_stream nk_jpeg_stream;

/* A stream with its own decoder, or NULL when out of memory. Free with nk_jpeg_stream_destroy. */
nk_jpeg_stream *nk_jpeg_stream_create(void);
void nk_jpeg_stream_destroy(nk_jpeg_stream *stream);

/* The decoder inside: its message, warnings, strictness and nk_jpeg_set_scale. Valid as long as the stream. */
nk_jpeg_decoder *nk_jpeg_stream_decoder(nk_jpeg_stream *stream);

/*
 * Appends the next bytes of the file (copied). 0, or -1 when out of memory or when libjpeg left
 * more than NK_JPEG_STREAM_MAX_HELD bytes unconsumed (which no valid file needs).
 */
int nk_jpeg_stream_append(nk_jpeg_stream *stream, const uint8_t *data, size_t size);

/* The most bytes the stream keeps unconsumed between two appends. */
#define NK_JPEG_STREAM_MAX_HELD (4u << 20)

/* No more bytes will come. */
void nk_jpeg_stream_end(nk_jpeg_stream *stream);

/* The bytes held now: appended and not yet consumed by libjpeg. */
size_t nk_jpeg_stream_held(const nk_jpeg_stream *stream);

/* Reads the header and fills `info` as nk_jpeg_read_header does (the EXIF block is owned by the decoder). */
int nk_jpeg_stream_read_header(nk_jpeg_stream *stream, nk_jpeg_info *info);

/*
 * 1 when the header says the file is arithmetic-coded: libjpeg's arithmetic decoder cannot
 * suspend ("Suspension not allowed here"), so such a file must be decoded from all its bytes.
 */
int nk_jpeg_stream_is_arithmetic(nk_jpeg_stream *stream);

/*
 * Before nk_jpeg_stream_start: whether libjpeg estimates the AC coefficients a progressive file
 * has not sent yet from the neighbouring blocks (block smoothing, on by default). In buffered-image
 * mode, smoothing makes an output pass wait for input two block rows past it, so a pass over a
 * scan that no further scan follows yet cannot end.
 */
void nk_jpeg_stream_set_block_smoothing(nk_jpeg_stream *stream, int on);

/* Starts decompressing, in buffered-image mode when `buffered` is not 0; call once the header is read. */
int nk_jpeg_stream_start(nk_jpeg_stream *stream, int buffered);

/*
 * Normal mode: decodes the rows the data allows into `pixels` (the whole output image,
 * `bytes_per_row` apart), from the first row not decoded yet; `rows_done` is then how many rows
 * are decoded in all. 1 once every row is.
 */
int nk_jpeg_stream_read_rows(nk_jpeg_stream *stream, uint8_t *pixels, size_t bytes_per_row, uint32_t *rows_done);

/* Normal mode, after the last row: reads the rest of the file up to its end marker. */
int nk_jpeg_stream_finish(nk_jpeg_stream *stream);

/*
 * Buffered-image mode: consumes what the data allows; `completed_scans` is then how many scans
 * are complete. 1 once the end marker was read.
 */
int nk_jpeg_stream_consume(nk_jpeg_stream *stream, int *completed_scans);

/* Buffered-image mode: starts an output pass that shows the image as of scan `scan`. 1, or -1. */
int nk_jpeg_stream_start_output(nk_jpeg_stream *stream, int scan);

/*
 * Buffered-image mode: the next rows of the output pass, at most `max_rows` (up to 16), into
 * `rows` (`stride` apart). The count of rows written (0 once the pass is done), or -1.
 */
int nk_jpeg_stream_read_strip(nk_jpeg_stream *stream, uint8_t *rows, size_t stride, uint32_t max_rows);

/* Buffered-image mode: ends the output pass (it may need data to find the next scan's start). */
int nk_jpeg_stream_finish_output(nk_jpeg_stream *stream);

#endif

#ifndef NK_JPEG_H
#define NK_JPEG_H

/*
 * libjpeg reports errors by longjmp, which Swift cannot call across. These wrappers keep
 * setjmp on the C side and turn every libjpeg error into a return code and a message.
 * Pixels are written into caller-owned memory; nothing here allocates image buffers.
 */

#include <stddef.h>
#include <stdint.h>

typedef struct nk_jpeg_decoder nk_jpeg_decoder;

/* What the header says, and the output size after nk_jpeg_set_scale. */
typedef struct {
    int source_width;
    int source_height;
    int width;            /* output width after DCT scaling */
    int height;           /* output height after DCT scaling */
    int is_cmyk;          /* CMYK or YCCK source: pixels come out as 4-byte CMYK */
    int adobe_inverted;   /* an Adobe APP14 marker: CMYK values are stored inverted */
    int progressive;
    const uint8_t *exif;  /* APP1 "Exif\0\0" payload (owned by the decoder), or NULL */
    size_t exif_length;
} nk_jpeg_info;

/* A decoder, or NULL when out of memory. Free with nk_jpeg_destroy. */
nk_jpeg_decoder *nk_jpeg_create(void);
void nk_jpeg_destroy(nk_jpeg_decoder *decoder);

/* The message of the last failure ("" if none). */
const char *nk_jpeg_message(const nk_jpeg_decoder *decoder);

/*
 * Strict mode (off by default): libjpeg's warnings that pixel data is missing or damaged
 * ("Corrupt JPEG data: premature end of data segment", a bad Huffman code, a missing restart
 * marker) fail the decode with that message instead of letting libjpeg fill in gray.
 * A file that ends before its EOI marker fails in either mode.
 */
void nk_jpeg_set_strict(nk_jpeg_decoder *decoder, int strict);

/* 1 when libjpeg reported missing or damaged pixel data (in strict mode, the reason it failed). */
int nk_jpeg_is_incomplete(const nk_jpeg_decoder *decoder);

/* How many warnings libjpeg gave, and the text of the first few (NULL past those kept). */
int nk_jpeg_warning_count(const nk_jpeg_decoder *decoder);
const char *nk_jpeg_warning(const nk_jpeg_decoder *decoder, int index);

/* Reads the header of `data` (which must outlive the decoder). 0 on success, -1 on error. */
int nk_jpeg_read_header(nk_jpeg_decoder *decoder, const uint8_t *data, size_t size, nk_jpeg_info *info);

/* Chooses DCT scaling numerator/8 (1...8) and fills the output size. 0 or -1. */
int nk_jpeg_set_scale(nk_jpeg_decoder *decoder, unsigned numerator, nk_jpeg_info *info);

/*
 * For a progressive file at scale 1/8 (after nk_jpeg_set_scale(decoder, 1, ...)): makes the
 * decoder skip the scans that cannot change its output, the AC scans of every component that
 * 1/8 scaling decodes from its DC coefficient alone, so that nk_jpeg_decode gives the same bytes
 * as it would for the whole file. Returns 1 when scans will be skipped; 0 when the file is read
 * whole (not progressive, not 1/8, nothing to skip, or something libjpeg would report on its
 * own); -1 with a message when the file has more than 500 scans. Damage inside a skipped scan
 * is never read, so it gives no warning. Call before nk_jpeg_decode, at most once.
 */
int nk_jpeg_skip_unneeded_scans(nk_jpeg_decoder *decoder);

/*
 * Decodes into `pixels` (info->height rows of `bytes_per_row` >= 4 * info->width bytes):
 * RGBA, or CMYK for CMYK/YCCK sources. A file cut off before EOI is an error; damaged pixel
 * data is one only in strict mode (see nk_jpeg_set_strict). 0 or -1.
 */
int nk_jpeg_decode(nk_jpeg_decoder *decoder, uint8_t *pixels, size_t bytes_per_row);

/*
 * libjpeg's decompressor inside `decoder`, for code that reads the parsed header and the file
 * without changing them (CJPEGEighth's 1/8-scale job, after nk_jpeg_set_scale(decoder, 1, ...)).
 * Valid as long as the decoder.
 */
struct jpeg_decompress_struct;
const struct jpeg_decompress_struct *nk_jpeg_decompressor(const nk_jpeg_decoder *decoder);

#endif

#ifndef NK_JPEG_DECODER_H
#define NK_JPEG_DECODER_H

/* The decoder's layout, shared by the files of this target (not exported to Swift). */

#include <setjmp.h>
#include <stdio.h>
#include <jpeglib.h>
#include "nk_jpeg.h"

/* The warnings kept word for word; later ones are only counted. */
#define NK_JPEG_KEPT_WARNINGS 4

/*
 * A progressive file may have any number of scans, each a pass over the whole image: a few
 * kilobytes could keep the decoder busy for minutes. Real files have at most a few dozen.
 */
#define NK_JPEG_MAX_SCANS 500

/* A stretch of the file that libjpeg reads when some scans are skipped (nk_jpeg_scans.c). */
typedef struct {
    const JOCTET *start;
    size_t length;
} nk_jpeg_span;

/* libjpeg's state, its error manager, and where its errors jump to (see nk_jpeg.c). */
struct nk_jpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr error;
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    int created;
    int strict;       /* damage to the pixel data is an error, not a warning */
    int incomplete;   /* libjpeg warned that pixel data was missing or damaged */
    int warning_count;
    char warnings[NK_JPEG_KEPT_WARNINGS][JMSG_LENGTH_MAX];
    /* Set by nk_jpeg_skip_unneeded_scans: a source that reads spans[0..<span_count] in turn. */
    struct jpeg_source_mgr span_source;
    int span_count;
    int next_span;
    nk_jpeg_span spans[NK_JPEG_MAX_SCANS + 1]; /* each skipped scan splits the file once more */
};

/* Fills `info` from the header `cinfo` has just read (sizes, progressive, CMYK and Adobe
 * inversion, the EXIF block) and sets the output color space; the output size is the one the
 * current scale gives. Shared by the whole-body and the streaming decoders. */
void nk_jpeg_describe_header(struct jpeg_decompress_struct *cinfo, nk_jpeg_info *info);

#endif

#ifndef NK_JPEG_DECODER_H
#define NK_JPEG_DECODER_H

/* The decoder's layout, shared by the files of this target (not exported to Swift). */

#include <setjmp.h>
#include <stdio.h>
#include <jpeglib.h>

/* The warnings kept word for word; later ones are only counted. */
#define NK_JPEG_KEPT_WARNINGS 4

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
};

#endif

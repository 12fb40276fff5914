#ifndef NK_JPEG_DECODER_H
#define NK_JPEG_DECODER_H

/* The decoder's layout, shared by the files of this target (not exported to Swift). */

#include <setjmp.h>
#include <stdio.h>
#include <jpeglib.h>

/* libjpeg's state, its error manager, and where its errors jump to (see nk_jpeg.c). */
struct nk_jpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr error;
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    int created;
};

#endif

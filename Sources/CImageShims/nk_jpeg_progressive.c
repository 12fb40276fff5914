#include "nk_jpeg_stream.h"
#include "nk_jpeg_decoder.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <jerror.h>

/*
 * Every function below returns -1 right after a longjmp and reads no local that was changed
 * after its setjmp, so no local needs to be volatile. libjpeg backs up to the last point it can
 * resume from when the source runs dry, leaving next_input_byte on the first byte it still
 * needs: appending keeps the bytes from there on.
 */
struct nk_jpeg_stream {
    struct jpeg_source_mgr source; /* first: libjpeg's `src` points at it */
    nk_jpeg_decoder *decoder;
    JOCTET *buffer;
    size_t capacity;
    size_t skip_pending; /* bytes a marker skip still has to drop from data yet to come */
    int ended;
    int starting;        /* jpeg_start_decompress was called (and suspended, or returned) */
};

static const JOCTET nk_fake_eoi[2] = {0xFF, JPEG_EOI};

/*
 * Suspends while more bytes may come. At the end it does what jpeg_mem_src does when a file in
 * memory runs out: warns JWRN_JPEG_EOF (which the decoder's error manager makes an error) and
 * offers an end marker.
 */
static boolean nk_stream_fill(j_decompress_ptr cinfo) {
    nk_jpeg_stream *stream = (nk_jpeg_stream *)cinfo->src;
    if (!stream->ended) return FALSE;
    WARNMS(cinfo, JWRN_JPEG_EOF);
    stream->source.next_input_byte = nk_fake_eoi;
    stream->source.bytes_in_buffer = 2;
    return TRUE;
}

static void nk_stream_skip(j_decompress_ptr cinfo, long num_bytes) {
    nk_jpeg_stream *stream = (nk_jpeg_stream *)cinfo->src;
    if (num_bytes <= 0) return;
    size_t count = (size_t)num_bytes;
    while (count > stream->source.bytes_in_buffer) {
        count -= stream->source.bytes_in_buffer;
        stream->source.next_input_byte += stream->source.bytes_in_buffer;
        stream->source.bytes_in_buffer = 0;
        if (!stream->ended) {
            stream->skip_pending += count;
            return;
        }
        (void)nk_stream_fill(cinfo);
    }
    stream->source.next_input_byte += count;
    stream->source.bytes_in_buffer -= count;
}

static void nk_stream_nothing(j_decompress_ptr cinfo) {
    (void)cinfo;
}

nk_jpeg_stream *nk_jpeg_stream_create(void) {
    nk_jpeg_stream *stream = calloc(1, sizeof(nk_jpeg_stream));
    if (stream == NULL) return NULL;
    stream->decoder = nk_jpeg_create();
    if (stream->decoder == NULL) {
        free(stream);
        return NULL;
    }
    stream->source.init_source = nk_stream_nothing;
    stream->source.fill_input_buffer = nk_stream_fill;
    stream->source.skip_input_data = nk_stream_skip;
    stream->source.resync_to_restart = jpeg_resync_to_restart;
    stream->source.term_source = nk_stream_nothing;
    stream->decoder->cinfo.src = &stream->source;
    if (setjmp(stream->decoder->jump)) {
        nk_jpeg_stream_destroy(stream);
        return NULL;
    }
    jpeg_save_markers(&stream->decoder->cinfo, JPEG_APP0 + 1, 0xFFFF);
    return stream;
}

void nk_jpeg_stream_destroy(nk_jpeg_stream *stream) {
    if (stream == NULL) return;
    nk_jpeg_destroy(stream->decoder);
    free(stream->buffer);
    free(stream);
}

nk_jpeg_decoder *nk_jpeg_stream_decoder(nk_jpeg_stream *stream) {
    return stream->decoder;
}

static int nk_stream_refuse(nk_jpeg_stream *stream, const char *reason) {
    snprintf(stream->decoder->message, sizeof(stream->decoder->message), "%s", reason);
    return -1;
}

int nk_jpeg_stream_append(nk_jpeg_stream *stream, const uint8_t *data, size_t size) {
    if (stream->ended) return nk_stream_refuse(stream, "bytes appended after the end");
    size_t skipped = stream->skip_pending < size ? stream->skip_pending : size;
    stream->skip_pending -= skipped;
    data += skipped;
    size -= skipped;
    size_t held = stream->source.bytes_in_buffer;
    if (held > NK_JPEG_STREAM_MAX_HELD) {
        return nk_stream_refuse(stream, "the JPEG decoder left too many bytes unconsumed");
    }
    if (size == 0) return 0;
    if (held + size > stream->capacity) {
        size_t capacity = stream->capacity * 2 > held + size ? stream->capacity * 2 : held + size;
        JOCTET *buffer = malloc(capacity);
        if (buffer == NULL) return nk_stream_refuse(stream, "out of memory");
        if (held > 0) memcpy(buffer, stream->source.next_input_byte, held);
        free(stream->buffer);
        stream->buffer = buffer;
        stream->capacity = capacity;
    } else if (held > 0 && stream->source.next_input_byte != stream->buffer) {
        memmove(stream->buffer, stream->source.next_input_byte, held);
    }
    memcpy(stream->buffer + held, data, size);
    stream->source.next_input_byte = stream->buffer;
    stream->source.bytes_in_buffer = held + size;
    return 0;
}

void nk_jpeg_stream_end(nk_jpeg_stream *stream) {
    stream->ended = 1;
}

size_t nk_jpeg_stream_held(const nk_jpeg_stream *stream) {
    return stream->source.bytes_in_buffer;
}

int nk_jpeg_stream_read_header(nk_jpeg_stream *stream, nk_jpeg_info *info) {
    struct jpeg_decompress_struct *cinfo = &stream->decoder->cinfo;
    memset(info, 0, sizeof(*info));
    if (setjmp(stream->decoder->jump)) return -1;
    if (jpeg_read_header(cinfo, TRUE) == JPEG_SUSPENDED) return 0;

    nk_jpeg_describe_header(cinfo, info);
    return 1;
}

int nk_jpeg_stream_is_arithmetic(nk_jpeg_stream *stream) {
    return stream->decoder->cinfo.arith_code ? 1 : 0;
}

void nk_jpeg_stream_set_block_smoothing(nk_jpeg_stream *stream, int on) {
    stream->decoder->cinfo.do_block_smoothing = on ? TRUE : FALSE;
}

int nk_jpeg_stream_start(nk_jpeg_stream *stream, int buffered) {
    struct jpeg_decompress_struct *cinfo = &stream->decoder->cinfo;
    if (setjmp(stream->decoder->jump)) return -1;
    if (!stream->starting) cinfo->buffered_image = buffered ? TRUE : FALSE;
    stream->starting = 1;
    if (!jpeg_start_decompress(cinfo)) return 0;
    if (cinfo->output_components != 4) return nk_stream_refuse(stream, "unexpected JPEG output layout");
    return 1;
}

int nk_jpeg_stream_read_rows(nk_jpeg_stream *stream, uint8_t *pixels, size_t bytes_per_row, uint32_t *rows_done) {
    struct jpeg_decompress_struct *cinfo = &stream->decoder->cinfo;
    if (bytes_per_row < (size_t)cinfo->output_width * 4) return nk_stream_refuse(stream, "JPEG rows too short");
    if (setjmp(stream->decoder->jump)) return -1;
    JSAMPROW rows[16];
    while (cinfo->output_scanline < cinfo->output_height) {
        JDIMENSION first = cinfo->output_scanline;
        JDIMENSION count = cinfo->output_height - first;
        if (count > 16) count = 16;
        for (JDIMENSION i = 0; i < count; i++) {
            rows[i] = pixels + (size_t)(first + i) * bytes_per_row;
        }
        JDIMENSION read = jpeg_read_scanlines(cinfo, rows, count);
        *rows_done = cinfo->output_scanline;
        if (read == 0) return 0;
    }
    *rows_done = cinfo->output_height;
    return 1;
}

int nk_jpeg_stream_finish(nk_jpeg_stream *stream) {
    if (setjmp(stream->decoder->jump)) return -1;
    return jpeg_finish_decompress(&stream->decoder->cinfo) ? 1 : 0;
}

int nk_jpeg_stream_consume(nk_jpeg_stream *stream, int *completed_scans) {
    struct jpeg_decompress_struct *cinfo = &stream->decoder->cinfo;
    if (setjmp(stream->decoder->jump)) return -1;
    for (;;) {
        int status = jpeg_consume_input(cinfo);
        if (status == JPEG_SUSPENDED) return 0;
        if (status == JPEG_SCAN_COMPLETED) *completed_scans = cinfo->input_scan_number;
        if (status == JPEG_REACHED_EOI) {
            *completed_scans = cinfo->input_scan_number;
            return 1;
        }
    }
}

int nk_jpeg_stream_start_output(nk_jpeg_stream *stream, int scan) {
    if (setjmp(stream->decoder->jump)) return -1;
    if (!jpeg_start_output(&stream->decoder->cinfo, scan)) {
        return nk_stream_refuse(stream, "the JPEG output pass needs data it does not have");
    }
    return 1;
}

int nk_jpeg_stream_read_strip(nk_jpeg_stream *stream, uint8_t *rows, size_t stride, uint32_t max_rows) {
    struct jpeg_decompress_struct *cinfo = &stream->decoder->cinfo;
    if (stride < (size_t)cinfo->output_width * 4) return nk_stream_refuse(stream, "JPEG rows too short");
    if (setjmp(stream->decoder->jump)) return -1;
    JSAMPROW pointers[16];
    JDIMENSION count = cinfo->output_height - cinfo->output_scanline;
    if (count > max_rows) count = max_rows;
    if (count > 16) count = 16;
    for (JDIMENSION i = 0; i < count; i++) {
        pointers[i] = rows + (size_t)i * stride;
    }
    JDIMENSION read = count == 0 ? 0 : jpeg_read_scanlines(cinfo, pointers, count);
    if (read == 0 && count > 0) return nk_stream_refuse(stream, "the JPEG output pass made no progress");
    return (int)read;
}

int nk_jpeg_stream_finish_output(nk_jpeg_stream *stream) {
    if (setjmp(stream->decoder->jump)) return -1;
    return jpeg_finish_output(&stream->decoder->cinfo) ? 1 : 0;
}

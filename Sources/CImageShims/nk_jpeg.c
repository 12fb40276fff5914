#include "nk_jpeg.h"
#include "nk_jpeg_decoder.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jerror.h>

/*
 * Every function below returns -1 right after a longjmp and reads no local that was
 * changed after its setjmp, so no local needs to be volatile.
 */

/* Replaces libjpeg's error_exit, which prints and calls exit(). */
static void nk_error_exit(j_common_ptr cinfo) {
    nk_jpeg_decoder *decoder = (nk_jpeg_decoder *)cinfo->client_data;
    (*cinfo->err->format_message)(cinfo, decoder->message);
    longjmp(decoder->jump, 1);
}

/*
 * The warnings that mean pixels are missing or made up: libjpeg goes on, filling the rest of
 * the scan as if its coefficients were zero (a flat gray area).
 */
static int nk_is_damage(int code) {
    return code == JWRN_HIT_MARKER || code == JWRN_HUFF_BAD_CODE || code == JWRN_ARITH_BAD_CODE ||
           code == JWRN_MUST_RESYNC || code == JWRN_BOGUS_PROGRESSION || code == JWRN_JPEG_EOF;
}

/*
 * Warnings (level -1) are kept and counted. Running out of data is fatal: a file cut off before
 * its end marker is an error. Damage to the pixel data (above) is fatal in strict mode; otherwise
 * the decode goes on, as in browsers, and `incomplete` says so. Trace messages are ignored.
 */
static void nk_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;
    nk_jpeg_decoder *decoder = (nk_jpeg_decoder *)cinfo->client_data;
    int code = cinfo->err->msg_code;
    if (nk_is_damage(code)) decoder->incomplete = 1;
    if (code == JWRN_JPEG_EOF || (decoder->strict && nk_is_damage(code))) {
        nk_error_exit(cinfo);
    }
    if (decoder->warning_count < NK_JPEG_KEPT_WARNINGS) {
        (*cinfo->err->format_message)(cinfo, decoder->warnings[decoder->warning_count]);
    }
    decoder->warning_count++;
}

static void nk_progress_monitor(j_common_ptr cinfo) {
    const struct jpeg_decompress_struct *decompress = (const struct jpeg_decompress_struct *)cinfo;
    if (decompress->input_scan_number > NK_JPEG_MAX_SCANS) {
        nk_jpeg_decoder *decoder = (nk_jpeg_decoder *)cinfo->client_data;
        snprintf(decoder->message, sizeof(decoder->message), "more than %d scans", NK_JPEG_MAX_SCANS);
        longjmp(decoder->jump, 1);
    }
}

/* Never print to stderr. */
static void nk_output_message(j_common_ptr cinfo) {
    (void)cinfo;
}

nk_jpeg_decoder *nk_jpeg_create(void) {
    nk_jpeg_decoder *decoder = calloc(1, sizeof(nk_jpeg_decoder));
    if (decoder == NULL) return NULL;
    decoder->cinfo.err = jpeg_std_error(&decoder->error);
    decoder->error.error_exit = nk_error_exit;
    decoder->error.emit_message = nk_emit_message;
    decoder->error.output_message = nk_output_message;
    decoder->cinfo.client_data = decoder;
    if (setjmp(decoder->jump)) {
        free(decoder);
        return NULL;
    }
    jpeg_create_decompress(&decoder->cinfo);
    decoder->created = 1;
    decoder->progress.progress_monitor = nk_progress_monitor; /* after create, which clears the rest */
    decoder->cinfo.progress = &decoder->progress;
    return decoder;
}

void nk_jpeg_destroy(nk_jpeg_decoder *decoder) {
    if (decoder == NULL) return;
    if (decoder->created) jpeg_destroy_decompress(&decoder->cinfo);
    free(decoder);
}

const char *nk_jpeg_message(const nk_jpeg_decoder *decoder) {
    return decoder->message;
}

void nk_jpeg_set_strict(nk_jpeg_decoder *decoder, int strict) {
    decoder->strict = strict != 0;
}

int nk_jpeg_is_incomplete(const nk_jpeg_decoder *decoder) {
    return decoder->incomplete;
}

int nk_jpeg_warning_count(const nk_jpeg_decoder *decoder) {
    return decoder->warning_count;
}

const char *nk_jpeg_warning(const nk_jpeg_decoder *decoder, int index) {
    if (index < 0 || index >= decoder->warning_count || index >= NK_JPEG_KEPT_WARNINGS) return NULL;
    return decoder->warnings[index];
}

const struct jpeg_decompress_struct *nk_jpeg_decompressor(const nk_jpeg_decoder *decoder) {
    return &decoder->cinfo;
}

static void nk_fill_output_size(const struct jpeg_decompress_struct *cinfo, nk_jpeg_info *info) {
    info->width = (int)cinfo->output_width;
    info->height = (int)cinfo->output_height;
}

void nk_jpeg_describe_header(struct jpeg_decompress_struct *cinfo, nk_jpeg_info *info) {
    info->source_width = (int)cinfo->image_width;
    info->source_height = (int)cinfo->image_height;
    info->progressive = cinfo->progressive_mode;
    info->is_cmyk = cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK;
    info->adobe_inverted = cinfo->saw_Adobe_marker;
    cinfo->out_color_space = info->is_cmyk ? JCS_CMYK : JCS_EXT_RGBA;

    for (jpeg_saved_marker_ptr marker = cinfo->marker_list; marker != NULL; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 1 && marker->data_length >= 6 &&
            memcmp(marker->data, "Exif\0\0", 6) == 0) {
            info->exif = marker->data + 6;
            info->exif_length = marker->data_length - 6;
            break;
        }
    }
    jpeg_calc_output_dimensions(cinfo);
    nk_fill_output_size(cinfo, info);
}

int nk_jpeg_read_header(nk_jpeg_decoder *decoder, const uint8_t *data, size_t size, nk_jpeg_info *info) {
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    memset(info, 0, sizeof(*info));
    if (setjmp(decoder->jump)) return -1;
    jpeg_mem_src(cinfo, data, (unsigned long)size);
    jpeg_save_markers(cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(cinfo, TRUE);
    nk_jpeg_describe_header(cinfo, info);
    return 0;
}

int nk_jpeg_set_scale(nk_jpeg_decoder *decoder, unsigned numerator, nk_jpeg_info *info) {
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    if (setjmp(decoder->jump)) return -1;
    cinfo->scale_num = numerator < 1 ? 1 : numerator > 8 ? 8 : numerator;
    cinfo->scale_denom = 8;
    jpeg_calc_output_dimensions(cinfo);
    nk_fill_output_size(cinfo, info);
    return 0;
}

int nk_jpeg_decode(nk_jpeg_decoder *decoder, uint8_t *pixels, size_t bytes_per_row) {
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    if (setjmp(decoder->jump)) return -1;
    jpeg_start_decompress(cinfo);
    if (cinfo->output_components != 4 || bytes_per_row < (size_t)cinfo->output_width * 4) {
        strncpy(decoder->message, "unexpected JPEG output layout", sizeof(decoder->message) - 1);
        return -1;
    }
    JSAMPROW rows[16];
    while (cinfo->output_scanline < cinfo->output_height) {
        JDIMENSION first = cinfo->output_scanline;
        JDIMENSION count = cinfo->output_height - first;
        if (count > 16) count = 16;
        for (JDIMENSION i = 0; i < count; i++) {
            rows[i] = pixels + (size_t)(first + i) * bytes_per_row;
        }
        if (jpeg_read_scanlines(cinfo, rows, count) == 0) {
            strncpy(decoder->message, "JPEG decoder made no progress", sizeof(decoder->message) - 1);
            return -1;
        }
    }
    jpeg_finish_decompress(cinfo);
    return 0;
}

#include "nk_jpeg_eighth.h"

#include <stdlib.h>
#include <string.h>

/* Whether libjpeg would decode this header the way the 1/8 decoder does. */
static int nk_eighth_applies(const struct jpeg_decompress_struct *cinfo) {
    int components = cinfo->num_components;
    J_COLOR_SPACE space = cinfo->jpeg_color_space;
    if (cinfo->progressive_mode || cinfo->arith_code || cinfo->data_precision != 8) return 0;
    if (cinfo->CCIR601_sampling || cinfo->out_color_space != JCS_EXT_RGBA) return 0;
    if (cinfo->scale_num * 8 != cinfo->scale_denom || cinfo->min_DCT_scaled_size != 1) return 0;
    if (cinfo->comps_in_scan != components) return 0; /* one interleaved scan, or one gray scan */
    if (cinfo->Ss != 0 || cinfo->Se != DCTSIZE2 - 1 || cinfo->Ah != 0 || cinfo->Al != 0) return 0;
    if (!(components == 1 && space == JCS_GRAYSCALE) && !(components == 3 && (space == JCS_YCbCr || space == JCS_RGB))) {
        return 0;
    }
    if (cinfo->image_width == 0 || cinfo->image_height == 0) return 0;
    return cinfo->output_width == (cinfo->image_width + 7) / 8 && cinfo->output_height == (cinfo->image_height + 7) / 8;
}

/* Builds Huffman table `index` (0-3 DC, 4-7 AC) once. 0, or 1 when missing or invalid. */
static int nk_eighth_use_table(const struct jpeg_decompress_struct *cinfo, nk_eighth_plan *plan, int built[8], int index) {
    if (built[index]) return 0;
    int is_dc = index < 4;
    const JHUFF_TBL *table = is_dc ? cinfo->dc_huff_tbl_ptrs[index] : cinfo->ac_huff_tbl_ptrs[index - 4];
    if (table == NULL) return 1; /* libjpeg would substitute its standard tables: leave it to libjpeg */
    if (nk_huffman_build(&plan->tables[index], table->bits, table->huffval, is_dc) != 0) return 1;
    built[index] = 1;
    return 0;
}

/* Sets up the plane of `component` and appends its blocks to the MCU. 0, or 1 when unsupported. */
static int nk_eighth_add_component(const struct jpeg_decompress_struct *cinfo, nk_eighth_plan *plan,
                                   const jpeg_component_info *component, int built[8]) {
    int interleaved = cinfo->comps_in_scan > 1;
    int across = interleaved ? component->h_samp_factor : 1; /* blocks per MCU */
    int down = interleaved ? component->v_samp_factor : 1;
    int size = component->DCT_scaled_size; /* samples per block side, as libjpeg chose */
    int in_x = component->h_samp_factor * size, in_y = component->v_samp_factor * size;
    if (size != 1 && size != 2) return 1;
    if (cinfo->max_h_samp_factor % in_x != 0 || cinfo->max_v_samp_factor % in_y != 0) return 1;
    if (plan->slot_count + across * down > NK_MAX_BLOCKS_IN_MCU) return 1;
    if (component->component_index < 0 || component->component_index >= plan->components) return 1;
    if (component->dc_tbl_no < 0 || component->dc_tbl_no > 3 || component->ac_tbl_no < 0 || component->ac_tbl_no > 3) return 1;
    if (component->quant_tbl_no < 0 || component->quant_tbl_no >= NUM_QUANT_TBLS) return 1;
    const JQUANT_TBL *quant = cinfo->quant_tbl_ptrs[component->quant_tbl_no];
    if (quant == NULL) return 1;
    if (nk_eighth_use_table(cinfo, plan, built, component->dc_tbl_no) != 0) return 1;
    if (nk_eighth_use_table(cinfo, plan, built, 4 + component->ac_tbl_no) != 0) return 1;

    nk_eighth_plane *plane = &plan->planes[component->component_index];
    plane->stride = plan->mcus_per_row * (size_t)(across * size);
    plane->rows = plan->mcu_count / plan->mcus_per_row * (size_t)(down * size);
    plane->mcu_step = (size_t)(across * size);
    plane->mcu_row_step = plane->stride * (size_t)(down * size);
    plane->expand_x = cinfo->max_h_samp_factor / in_x;
    plane->expand_y = cinfo->max_v_samp_factor / in_y;
    for (int i = 0; i < DCTSIZE2; i++) {
        plane->quant[i] = (int16_t)quant->quantval[i]; /* libjpeg-turbo's SIMD builds multiply as 16-bit */
    }
    for (int y = 0; y < down; y++) {
        for (int x = 0; x < across; x++) {
            nk_eighth_slot *slot = &plan->slots[plan->slot_count++];
            slot->dc = &plan->tables[component->dc_tbl_no];
            slot->ac = &plan->tables[4 + component->ac_tbl_no];
            slot->component = component->component_index;
            slot->inverse_2x2 = size == 2;
            slot->part_index = size == 2 ? plan->part_slot_count++ : -1;
            slot->offset = (size_t)(y * size) * plane->stride + (size_t)(x * size);
        }
    }
    return 0;
}

int nk_eighth_plan_make(const struct jpeg_decompress_struct *cinfo, nk_eighth_plan *plan) {
    memset(plan, 0, sizeof(*plan));
    if (!nk_eighth_applies(cinfo)) return 1;
    plan->components = cinfo->num_components;
    plan->color_space = cinfo->jpeg_color_space;
    plan->width = cinfo->output_width;
    plan->height = cinfo->output_height;
    size_t mcu_rows;
    if (cinfo->comps_in_scan == 1) {
        plan->mcus_per_row = cinfo->cur_comp_info[0]->width_in_blocks;
        mcu_rows = cinfo->cur_comp_info[0]->height_in_blocks;
    } else {
        size_t mcu_width = (size_t)cinfo->max_h_samp_factor * DCTSIZE, mcu_height = (size_t)cinfo->max_v_samp_factor * DCTSIZE;
        plan->mcus_per_row = (cinfo->image_width + mcu_width - 1) / mcu_width;
        mcu_rows = (cinfo->image_height + mcu_height - 1) / mcu_height;
    }
    if (plan->mcus_per_row == 0 || mcu_rows == 0) return 1;
    plan->mcu_count = plan->mcus_per_row * mcu_rows;
    plan->segment_mcus = cinfo->restart_interval ? cinfo->restart_interval : plan->mcu_count;

    int built[8] = {0};
    for (int i = 0; i < cinfo->comps_in_scan; i++) {
        if (nk_eighth_add_component(cinfo, plan, cinfo->cur_comp_info[i], built) != 0) return 1;
    }
    size_t total = 0;
    for (int c = 0; c < plan->components; c++) {
        if (plan->planes[c].stride == 0) return 1; /* a component missing from the scan */
        total += plan->planes[c].stride * plan->planes[c].rows;
    }
    plan->sample_memory = malloc(total);
    if (plan->sample_memory == NULL) return -1;
    uint8_t *next = plan->sample_memory;
    for (int c = 0; c < plan->components; c++) {
        plan->planes[c].samples = next;
        next += plan->planes[c].stride * plan->planes[c].rows;
    }
    return 0;
}

void nk_eighth_plan_free(nk_eighth_plan *plan) {
    free(plan->sample_memory);
    plan->sample_memory = NULL;
}

/* Bytes after the data, so that the bit reader may run past the end of a corrupt scan by an MCU. */
#define NK_EIGHTH_PADDING 4096

/*
 * How far past the data the Huffman decoder can read. The runs (nk_eighth_parallel.c) check
 * the bit position only between MCUs and stop once it is past the data, so an MCU may start at
 * the data's last bit (a reader is placed at most at its end) and then decodes it whole:
 * - a code is at most 16 bits (nk_huffman_decode_long gives up after 16) and its magnitude at
 *   most 15 (a DC symbol is at most 15, nk_huffman_build refuses more; an AC magnitude is 4 bits);
 * - a block is one DC code and at most 63 AC codes, as each AC code that does not end the block
 *   moves the coefficient index, from 1, by at least one (nk_skip_ac's table entries only group
 *   such codes, up to NK_HUFF_SKIP_BITS at a time, each part within this bound);
 * - an MCU has at most NK_MAX_BLOCKS_IN_MCU blocks (nk_eighth_add_component).
 * Before each code, nk_bits_ensure refills when fewer than 32 bits are held, loading the 8 bytes
 * that start at the first byte not yet loaded: that byte is at most (32 - 1) / 8 + 1 bytes past
 * the bit being decoded. So the last byte read is below
 *   data end + NK_EIGHTH_MAX_MCU_BITS / 8 + 4 + 8
 * (10 × 64 × 31 = 19,840 bits: 2,480 + 12 = 2,492 bytes).
 */
#define NK_HUFF_MAX_CODE_BITS 16
#define NK_HUFF_MAX_MAGNITUDE_BITS 15
#define NK_EIGHTH_MAX_MCU_BITS (NK_MAX_BLOCKS_IN_MCU * DCTSIZE2 * (NK_HUFF_MAX_CODE_BITS + NK_HUFF_MAX_MAGNITUDE_BITS))
#define NK_EIGHTH_MAX_OVERREAD (NK_EIGHTH_MAX_MCU_BITS / 8 + (32 - 1) / 8 + 1 + 8)
_Static_assert(NK_EIGHTH_PADDING >= NK_EIGHTH_MAX_OVERREAD,
               "NK_EIGHTH_PADDING must cover the bytes one MCU's decoding can read past the data");

int nk_eighth_stream_make(const nk_eighth_plan *plan, const uint8_t *data, size_t size, nk_eighth_stream *stream) {
    memset(stream, 0, sizeof(*stream));
    size_t expected = (plan->mcu_count + plan->segment_mcus - 1) / plan->segment_mcus;
    stream->bytes = malloc(size + NK_EIGHTH_PADDING);
    stream->segment_starts = malloc(expected * sizeof(size_t));
    if (stream->bytes == NULL || stream->segment_starts == NULL) return -1;

    size_t in = 0, out = 0, segments = 1;
    int ended = 0; /* the scan ended at EOI; anything else is left to libjpeg to judge */
    stream->segment_starts[0] = 0;
    while (in < size) {
        const uint8_t *marker = memchr(data + in, 0xFF, size - in);
        size_t run = marker ? (size_t)(marker - (data + in)) : size - in;
        memcpy(stream->bytes + out, data + in, run);
        out += run;
        in += run;
        if (marker == NULL) break;
        size_t next = in + 1;
        while (next < size && data[next] == 0xFF) next++; /* fill bytes */
        if (next >= size) break;
        uint8_t code = data[next];
        if (code == 0x00) { /* a stuffed 0xFF data byte */
            stream->bytes[out++] = 0xFF;
        } else if (code >= 0xD0 && code <= 0xD7) { /* RSTn: the next restart interval */
            if (segments >= expected || (size_t)(code - 0xD0) != (segments - 1) % 8) return 1;
            stream->segment_starts[segments++] = out;
        } else {
            ended = code == 0xD9;
            break;
        }
        in = next + 1;
    }
    if (!ended || segments != expected) return 1;
    memset(stream->bytes + out, 0, NK_EIGHTH_PADDING);
    stream->length = out;
    stream->segment_count = segments;
    return 0;
}

void nk_eighth_stream_free(nk_eighth_stream *stream) {
    free(stream->bytes);
    free(stream->segment_starts);
    stream->bytes = NULL;
    stream->segment_starts = NULL;
}

#include "nk_jpeg_eighth.h"

#include <string.h>

/*
 * Entropy decoding at 1/8 scale. A block that libjpeg-turbo reduces to one sample needs
 * only its DC coefficient (jpeg_idct_1x1): its AC codes are skipped by their lengths,
 * several per table lookup. A chroma block that libjpeg scales to 2x2 instead of upsampling
 * (jpeg_idct_2x2) also needs the coefficients in rows and columns 1, 3, 5 and 7; what they
 * contribute is computed here, and the DC term is added once the predictors are known
 * (nk_eighth_samples.c). The arithmetic follows libjpeg's, so the samples are its bytes.
 */

/* Zigzag position -> natural position; past 63, libjpeg's guard entries send stray runs to 63. */
static const uint8_t nk_natural_order[DCTSIZE2 + 16] = {
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5,
    12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
    35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
    58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
    63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63,
};

/* Reads a DC difference. 0, or 1 on corrupt data. */
NK_INLINE int nk_decode_dc(const nk_huffman_table *table, nk_bit_reader *reader, int32_t *difference) {
    nk_bits_ensure(reader);
    int length;
    int magnitude = nk_huffman_decode(table, reader->bits, &length);
    if (magnitude < 0) return 1;
    nk_bits_drop(reader, (unsigned)length);
    *difference = 0;
    if (magnitude == 0) return 0;
    *difference = nk_huffman_extend((uint32_t)(reader->bits >> (64 - magnitude)), magnitude);
    nk_bits_drop(reader, (unsigned)magnitude);
    return 0;
}

/* Moves past a block's AC coefficients, several codes per lookup. 0, or 1 on corrupt data. */
NK_INLINE int nk_skip_ac(const nk_huffman_table *table, nk_bit_reader *reader) {
    for (unsigned k = 1; k < DCTSIZE2;) {
        nk_bits_ensure(reader);
        unsigned entry = table->skip[reader->bits >> (64 - NK_HUFF_SKIP_BITS)];
        unsigned advance = NK_HUFF_SKIP_ADVANCE(entry);
        if (entry != 0 && k + advance < DCTSIZE2) {
            nk_bits_drop(reader, NK_HUFF_SKIP_LENGTH(entry));
            if (entry & NK_HUFF_SKIP_END) break;
            k += advance;
            continue;
        }
        /* A long code, or a block that ends inside the window: one code at a time. */
        int length;
        int symbol = nk_huffman_decode(table, reader->bits, &length);
        if (symbol < 0) return 1;
        nk_bits_drop(reader, (unsigned)(length + (symbol & 15)));
        unsigned step = nk_huffman_ac_advance(symbol);
        if (step == 0) break;
        k += step;
    }
    return 0;
}

/*
 * libjpeg-turbo's reduced 2x2 inverse DCT (jsimd_idct_2x2: 13 fraction bits, 16-bit
 * dequantization, 32-bit sums that wrap, 16-bit saturation between the passes) uses only
 * rows and columns 0, 1, 3, 5 and 7. Pass 1 gives each used column an even sum (row 0,
 * times 2^15) and an odd sum (rows 1, 3, 5, 7, times the constants below); as sums of
 * products they can be gathered coefficient by coefficient while decoding, with no 8x8
 * block to clear and read back.
 */
typedef struct {
    uint32_t even[5]; /* by used column 0, 1, 3, 5, 7; even[0] would be the DC term, added later */
    uint32_t odd[5];
    int touched;
} nk_columns_2x2;

static const int8_t nk_used_column[DCTSIZE] = {0, 1, -1, 2, -1, 3, -1, 4};
static const int32_t nk_row_factor[DCTSIZE] = {1 << 15, 29692, 0, -10426, 0, 6967, 0, -5906};

NK_INLINE void nk_columns_add(nk_columns_2x2 *columns, int position, int coefficient, const int quant[DCTSIZE2]) {
    int column = nk_used_column[position & 7], factor = nk_row_factor[position >> 3];
    if (column < 0 || factor == 0) return;
    uint32_t product = (uint32_t)((int32_t)(int16_t)(coefficient * quant[position]) * factor);
    if (position < DCTSIZE) {
        columns->even[column] += product;
    } else {
        columns->odd[column] += product;
    }
    columns->touched = 1;
}

/* Reads a block's AC coefficients into the column sums. 0, or 1 on corrupt data. */
NK_INLINE int nk_read_ac(const nk_huffman_table *table, nk_bit_reader *reader, const int quant[DCTSIZE2],
                         nk_columns_2x2 *columns) {
    for (unsigned k = 1; k < DCTSIZE2;) {
        nk_bits_ensure(reader);
        int length;
        int symbol = nk_huffman_decode(table, reader->bits, &length);
        if (symbol < 0) return 1;
        nk_bits_drop(reader, (unsigned)length);
        unsigned step = nk_huffman_ac_advance(symbol);
        if (step == 0) break;
        k += step;
        int magnitude = symbol & 15;
        if (magnitude == 0) continue; /* sixteen zeros */
        uint32_t raw = (uint32_t)(reader->bits >> (64 - magnitude));
        nk_bits_drop(reader, (unsigned)magnitude);
        /* The coefficient is the last one passed. Each position is set at most once (k only
         * grows), so adding equals libjpeg's assignment. */
        nk_columns_add(columns, nk_natural_order[k - 1], (int16_t)nk_huffman_extend(raw, magnitude), quant);
    }
    return 0;
}

static int32_t nk_odd_sum(int32_t c1, int32_t c3, int32_t c5, int32_t c7) {
    uint32_t sum = (uint32_t)(c1 * 29692) + (uint32_t)(c3 * -10426) + (uint32_t)(c5 * 6967) + (uint32_t)(c7 * -5906);
    return (int32_t)sum;
}

static int32_t nk_saturate16(int32_t value) {
    return value < -32768 ? -32768 : value > 32767 ? 32767 : value;
}

/*
 * What of the 2x2 block does not depend on the DC coefficient: parts[0] is column 0's odd
 * sum; parts[1] and parts[2] are pass 2's odd sums for output rows 0 and 1, from the other
 * columns' pass-1 results. nk_eighth_samples.c adds the DC term.
 */
static void nk_parts_2x2(const nk_columns_2x2 *columns, int32_t parts[3]) {
    if (!columns->touched) {
        parts[0] = parts[1] = parts[2] = 0;
        return;
    }
    int32_t top[5], bottom[5];
    for (int i = 1; i < 5; i++) {
        top[i] = nk_saturate16((int32_t)(columns->even[i] + columns->odd[i] + 4096) >> 13);
        bottom[i] = nk_saturate16((int32_t)(columns->even[i] - columns->odd[i] + 4096) >> 13);
    }
    parts[0] = (int32_t)columns->odd[0];
    parts[1] = nk_odd_sum(top[1], top[2], top[3], top[4]);
    parts[2] = nk_odd_sum(bottom[1], bottom[2], bottom[3], bottom[4]);
}

int nk_eighth_decode_mcu(const nk_eighth_plan *plan, nk_bit_reader *reader, const nk_eighth_records *records, size_t index) {
    int32_t *differences = records->differences + index * (size_t)plan->slot_count;
    int32_t *parts = records->parts + index * (size_t)plan->part_slot_count * NK_EIGHTH_PARTS;
    nk_bit_reader local = *reader;
    for (int i = 0; i < plan->slot_count; i++) {
        const nk_eighth_slot *slot = &plan->slots[i];
        if (nk_decode_dc(slot->dc, &local, &differences[i]) != 0) return 1;
        if (!slot->inverse_2x2) {
            if (nk_skip_ac(slot->ac, &local) != 0) return 1;
            continue;
        }
        nk_columns_2x2 columns;
        memset(&columns, 0, sizeof(columns));
        if (nk_read_ac(slot->ac, &local, plan->planes[slot->component].quant, &columns) != 0) return 1;
        nk_parts_2x2(&columns, parts + slot->part_index * NK_EIGHTH_PARTS);
    }
    *reader = local;
    return 0;
}

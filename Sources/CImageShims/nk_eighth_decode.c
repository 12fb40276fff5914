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
        int magnitude = symbol & 15, run = symbol >> 4;
        nk_bits_drop(reader, (unsigned)(length + magnitude));
        if (magnitude == 0 && run != 15) break;
        k += (unsigned)run + 1;
    }
    return 0;
}

/* Reads a block's AC coefficients into `block` (natural order). 0, or 1 on corrupt data. */
NK_INLINE int nk_read_ac(const nk_huffman_table *table, nk_bit_reader *reader, int16_t block[DCTSIZE2]) {
    for (int k = 1; k < DCTSIZE2; k++) {
        nk_bits_ensure(reader);
        int length;
        int symbol = nk_huffman_decode(table, reader->bits, &length);
        if (symbol < 0) return 1;
        int run = symbol >> 4, magnitude = symbol & 15;
        nk_bits_drop(reader, (unsigned)length);
        if (magnitude == 0) {
            if (run != 15) break;
            k += 15;
            continue;
        }
        k += run;
        uint32_t raw = (uint32_t)(reader->bits >> (64 - magnitude));
        nk_bits_drop(reader, (unsigned)magnitude);
        block[nk_natural_order[k]] = (int16_t)nk_huffman_extend(raw, magnitude);
    }
    return 0;
}

/*
 * The part of libjpeg-turbo's reduced 2x2 inverse DCT (jsimd_idct_2x2: 13 fraction bits,
 * 16-bit dequantization, 32-bit sums, 16-bit saturation between the passes) that does not
 * depend on the DC coefficient: parts[0] is column 0's odd sum (rows 1, 3, 5, 7), parts[1]
 * and parts[2] are the odd sums of pass 2 for output rows 0 and 1. Columns 2, 4 and 6 do
 * not contribute. nk_eighth_samples.c adds the DC term.
 */
static int32_t nk_odd_sum(int32_t c1, int32_t c3, int32_t c5, int32_t c7) {
    uint32_t sum = (uint32_t)(c1 * 29692) + (uint32_t)(c3 * -10426) + (uint32_t)(c5 * 6967) + (uint32_t)(c7 * -5906);
    return (int32_t)sum; /* 32-bit lanes wrap */
}

static int32_t nk_saturate16(int32_t value) {
    return value < -32768 ? -32768 : value > 32767 ? 32767 : value;
}

static void nk_inverse_2x2_parts(const int16_t block[DCTSIZE2], const int quant[DCTSIZE2], int32_t parts[3]) {
    int32_t rows[2][DCTSIZE] = {{0}};
    static const int columns[5] = {0, 1, 3, 5, 7};
    for (int i = 0; i < 5; i++) {
        int c = columns[i];
#define NK_COEF(row) ((int32_t)(int16_t)(block[(row) * DCTSIZE + c] * quant[(row) * DCTSIZE + c]))
        int32_t odd = nk_odd_sum(NK_COEF(1), NK_COEF(3), NK_COEF(5), NK_COEF(7));
        if (i == 0) {
            parts[0] = odd;
            continue;
        }
        uint32_t even = (uint32_t)NK_COEF(0) << 15;
#undef NK_COEF
        rows[0][c] = nk_saturate16((int32_t)(even + (uint32_t)odd + 4096) >> 13);
        rows[1][c] = nk_saturate16((int32_t)(even - (uint32_t)odd + 4096) >> 13);
    }
    parts[1] = nk_odd_sum(rows[0][1], rows[0][3], rows[0][5], rows[0][7]);
    parts[2] = nk_odd_sum(rows[1][1], rows[1][3], rows[1][5], rows[1][7]);
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
        int16_t block[DCTSIZE2];
        memset(block, 0, sizeof(block));
        if (nk_read_ac(slot->ac, &local, block) != 0) return 1;
        nk_inverse_2x2_parts(block, plan->planes[slot->component].quant, parts + slot->part_index * NK_EIGHTH_PARTS);
    }
    *reader = local;
    return 0;
}

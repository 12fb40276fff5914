#include "nk_huffman.h"

#include <string.h>

#define DCT_COEFFICIENTS 64

/* Fills `skip`: the AC symbols wholly inside each NK_HUFF_SKIP_BITS-bit pattern, up to an EOB. */
static void nk_huffman_build_skip(nk_huffman_table *table) {
    for (unsigned pattern = 0; pattern < (1u << NK_HUFF_SKIP_BITS); pattern++) {
        unsigned used = 0, advance = 0, ended = 0;
        while (used < NK_HUFF_SKIP_BITS) {
            unsigned rest = NK_HUFF_SKIP_BITS - used;
            unsigned window = ((pattern << used) & ((1u << NK_HUFF_SKIP_BITS) - 1)) >> (NK_HUFF_SKIP_BITS - NK_HUFF_LOOKAHEAD);
            uint16_t entry = table->symbol[window];
            unsigned length = entry >> 8, symbol = entry & 0xFF;
            if (entry == 0 || length + (symbol & 15) > rest) break;
            used += length + (symbol & 15);
            unsigned step = nk_huffman_ac_advance((int)symbol);
            if (step == 0) {
                ended = 1;
                break;
            }
            advance += step;
            if (advance >= DCT_COEFFICIENTS) break;
        }
        table->skip[pattern] = (uint16_t)(used | (advance << 5) | (ended ? NK_HUFF_SKIP_END : 0));
    }
}

int nk_huffman_build(nk_huffman_table *table, const uint8_t bits[17], const uint8_t *values, int is_dc) {
    memset(table, 0, sizeof(*table));
    int32_t code = 0;
    int count = 0;
    for (int length = 1; length <= 16; length++) {
        int codes = bits[length];
        if (count + codes > 256) return -1;
        table->value_offset[length] = count - code;
        for (int i = 0; i < codes; i++, code++, count++) {
            uint8_t symbol = values[count];
            if (is_dc && symbol > 15) return -1;
            table->values[count] = symbol;
            if (length > NK_HUFF_LOOKAHEAD) continue;
            int spread = NK_HUFF_LOOKAHEAD - length;
            for (int fill = 0; fill < (1 << spread); fill++) {
                table->symbol[(code << spread) | fill] = (uint16_t)((length << 8) | symbol);
            }
        }
        /* As in libjpeg: the all-ones code of a length is reserved, so codes stay below it. */
        if (code >= (1 << length)) return -1;
        table->max_code[length] = codes > 0 ? code - 1 : -1;
        code <<= 1;
    }
    table->max_code[17] = INT32_MAX;
    if (!is_dc) nk_huffman_build_skip(table);
    return 0;
}

int nk_huffman_decode_long(const nk_huffman_table *table, uint64_t bits, int *length) {
    for (int l = NK_HUFF_LOOKAHEAD + 1; l <= 16; l++) {
        int32_t code = (int32_t)(bits >> (64 - l));
        if (code <= table->max_code[l]) {
            *length = l;
            return table->values[table->value_offset[l] + code];
        }
    }
    return -1;
}

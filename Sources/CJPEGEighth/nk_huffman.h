#ifndef NK_HUFFMAN_H
#define NK_HUFFMAN_H

/*
 * JPEG Huffman decoding over an unstuffed entropy-coded segment (0xFF00 already turned
 * into 0xFF), for the 1/8-scale decoder (nk_eighth_decode.c). Codes up to NK_HUFF_LOOKAHEAD
 * bits are found with one table lookup; longer ones by the canonical code ranges.
 */

#include <stddef.h>
#include <stdint.h>

#define NK_HUFF_LOOKAHEAD 10
#define NK_HUFF_SKIP_BITS 14
#define NK_HUFF_SKIP_LENGTH(entry) ((entry) & 31u)
#define NK_HUFF_SKIP_ADVANCE(entry) (((entry) >> 5) & 127u)
#define NK_HUFF_SKIP_END 0x1000u

/* The decoding loop is fast only when the bit reader lives in registers: inline it all. */
#define NK_INLINE static inline __attribute__((always_inline))

typedef struct {
    /* (code length << 8) | symbol for every bit pattern starting with a short code; 0 otherwise. */
    uint16_t symbol[1 << NK_HUFF_LOOKAHEAD];
    /*
     * For skipping AC coefficients without their values: every complete code and magnitude
     * that fits in the next NK_HUFF_SKIP_BITS bits, taken together. Bits 0-4: bits used;
     * bits 5-11: how far the coefficient index moves; bit 12: the block ended (EOB).
     * 0: not even one code fits, decode it with `symbol`.
     */
    uint16_t skip[1 << NK_HUFF_SKIP_BITS];
    int32_t max_code[18];   /* the largest code of each length, -1 when there is none */
    int32_t value_offset[17];
    uint8_t values[256];
} nk_huffman_table;

/*
 * Builds a table from a DHT segment's counts (`bits[1...16]`) and symbols. Returns 0, or
 * -1 when the definition is impossible (too many codes, or a DC symbol above 15).
 */
int nk_huffman_build(nk_huffman_table *table, const uint8_t bits[17], const uint8_t *values, int is_dc);

/* Reads 64 bits big-endian from `p` (which needs 8 readable bytes). */
NK_INLINE uint64_t nk_load_be64(const uint8_t *p) {
    uint64_t value;
    __builtin_memcpy(&value, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return value;
#else
    return __builtin_bswap64(value);
#endif
}

/*
 * A bit reader over unstuffed data followed by at least 8 bytes of padding: `bits` holds
 * `count` unread bits at its top. After nk_bits_refill there are at least 56.
 */
typedef struct {
    const uint8_t *base;
    const uint8_t *next;
    uint64_t bits;
    unsigned count;
} nk_bit_reader;

NK_INLINE void nk_bits_refill(nk_bit_reader *reader) {
    reader->bits |= nk_load_be64(reader->next) >> reader->count;
    reader->next += (63 - reader->count) >> 3;
    reader->count |= 56;
}

/* A reader at bit `position` of `data`. */
NK_INLINE nk_bit_reader nk_bits_at(const uint8_t *data, size_t position) {
    nk_bit_reader reader = {data, data + (position >> 3), 0, 0};
    nk_bits_refill(&reader);
    reader.bits <<= position & 7;
    reader.count -= position & 7;
    return reader;
}

/* Refills only when fewer than 32 bits are left: enough for any one code and its magnitude. */
NK_INLINE void nk_bits_ensure(nk_bit_reader *reader) {
    if (reader->count < 32) nk_bits_refill(reader);
}

NK_INLINE void nk_bits_drop(nk_bit_reader *reader, unsigned count) {
    reader->bits <<= count;
    reader->count -= count;
}

/* How many bits have been read from the start of the data. */
NK_INLINE size_t nk_bits_position(const nk_bit_reader *reader) {
    return (size_t)(reader->next - reader->base) * 8 - reader->count;
}

/*
 * Decodes the code at the top of `bits` for a code longer than the lookahead. Returns the
 * symbol and sets `*length`, or -1 when no code matches (corrupt data).
 */
int nk_huffman_decode_long(const nk_huffman_table *table, uint64_t bits, int *length);

/* The symbol at the top of `bits`, setting `*length`, or -1 when corrupt. */
NK_INLINE int nk_huffman_decode(const nk_huffman_table *table, uint64_t bits, int *length) {
    uint16_t entry = table->symbol[bits >> (64 - NK_HUFF_LOOKAHEAD)];
    if (entry != 0) {
        *length = entry >> 8;
        return entry & 0xFF;
    }
    return nk_huffman_decode_long(table, bits, length);
}

/*
 * How an AC symbol moves the coefficient index: run + 1 past a coefficient, 16 for ZRL,
 * 0 when the block ends (like libjpeg, at any other zero-magnitude symbol).
 */
NK_INLINE unsigned nk_huffman_ac_advance(int symbol) {
    int run = symbol >> 4, magnitude = symbol & 15;
    if (magnitude != 0) return (unsigned)run + 1;
    return run == 15 ? 16 : 0;
}

/* JPEG's EXTEND: the signed value of `magnitude` bits `raw` (F.2.2.1). */
NK_INLINE int nk_huffman_extend(uint32_t raw, int magnitude) {
    return raw < (1u << (magnitude - 1)) ? (int)raw - (int)(1u << magnitude) + 1 : (int)raw;
}

#endif

#include "nk_jpeg_eighth.h"

#include <limits.h>

/* libjpeg's post-IDCT range limit: the value wraps at 10 bits, then is centred and clamped. */
static inline uint8_t nk_idct_limit(long value) {
    int wrapped = (int)(value & 1023);
    int centred = (wrapped >= 512 ? wrapped - 1024 : wrapped) + 128;
    return (uint8_t)(centred < 0 ? 0 : centred > 255 ? 255 : centred);
}

static inline long nk_descale(long value, int bits) {
    return (value + (1L << (bits - 1))) >> bits;
}

/* Adds a DC difference to its predictor, refusing to leave int's range as libjpeg-turbo does. 0 or 1. */
static inline int nk_predict(int64_t *predictor, int32_t difference) {
    *predictor += difference;
    return *predictor > INT_MAX || *predictor < INT_MIN;
}

/*
 * Adds the DC term to a 2x2 block's parts (nk_eighth_decode.c) as jsimd_idct_2x2 does:
 * 16-bit dequantization, 32-bit lanes that wrap, and output saturated to 0...255.
 */
static void nk_finish_2x2(int64_t predictor, int quant, const int32_t parts[3], uint8_t *out, size_t stride) {
    uint32_t even = (uint32_t)(int32_t)(int16_t)((int16_t)predictor * quant) << 15;
    for (int row = 0; row < 2; row++) {
        uint32_t odd = row == 0 ? (uint32_t)parts[0] : 0u - (uint32_t)parts[0];
        uint32_t column0 = (uint32_t)((int32_t)(even + odd + 4096) >> 13) << 15;
        uint32_t odd2 = (uint32_t)parts[1 + row];
        int32_t left = (int32_t)(column0 + odd2 + (1u << 19)) >> 20;
        int32_t right = (int32_t)(column0 - odd2 + (1u << 19)) >> 20;
        out[row * stride] = (uint8_t)((left < -128 ? -128 : left > 127 ? 127 : left) + 128);
        out[row * stride + 1] = (uint8_t)((right < -128 ? -128 : right > 127 ? 127 : right) + 128);
    }
}

/*
 * Carries the DC predictors through `count` MCUs of records from record `from` (MCU
 * `first_mcu` of the image), resetting them where a restart interval begins, and with
 * `write` set turns each block into its samples. 0, or 1 when a predictor leaves int's range.
 */
static inline int nk_apply_predictors(const nk_eighth_plan *plan, const nk_eighth_records *records, size_t from,
                                      size_t count, size_t first_mcu, int64_t predictors[3], int write) {
    size_t x = first_mcu % plan->mcus_per_row, y = first_mcu / plan->mcus_per_row;
    size_t in_segment = first_mcu % plan->segment_mcus;
    const int32_t *differences = records->differences + from * (size_t)plan->slot_count;
    const int32_t *parts = records->parts + from * (size_t)plan->part_slot_count * NK_EIGHTH_PARTS;
    for (size_t i = 0; i < count; i++) {
        if (in_segment == 0) predictors[0] = predictors[1] = predictors[2] = 0;
        if (++in_segment == plan->segment_mcus) in_segment = 0;
        for (int s = 0; s < plan->slot_count; s++) {
            const nk_eighth_slot *slot = &plan->slots[s];
            int64_t *predictor = &predictors[slot->component];
            if (nk_predict(predictor, differences[s]) != 0) return 1;
            if (!write) continue;
            const nk_eighth_plane *plane = &plan->planes[slot->component];
            uint8_t *out = plane->samples + y * plane->mcu_row_step + x * plane->mcu_step + slot->offset;
            if (!slot->inverse_2x2) { /* jpeg_idct_1x1, in C in libjpeg-turbo: int arithmetic, a 10-bit wrap */
                long dc = (long)(int16_t)*predictor * plane->quant[0];
                *out = nk_idct_limit(nk_descale(dc, 3));
                continue;
            }
            nk_finish_2x2(*predictor, plane->quant[0], parts + slot->part_index * NK_EIGHTH_PARTS, out, plane->stride);
        }
        differences += plan->slot_count;
        parts += plan->part_slot_count * NK_EIGHTH_PARTS;
        if (++x == plan->mcus_per_row) {
            x = 0;
            y++;
        }
    }
    return 0;
}

int nk_eighth_write_samples(const nk_eighth_plan *plan, const nk_eighth_records *records, size_t from, size_t count,
                            size_t first_mcu, int64_t predictors[3]) {
    return nk_apply_predictors(plan, records, from, count, first_mcu, predictors, 1);
}

int nk_eighth_sum_predictors(const nk_eighth_plan *plan, const nk_eighth_records *records, size_t from, size_t count,
                             size_t first_mcu, int64_t predictors[3]) {
    return nk_apply_predictors(plan, records, from, count, first_mcu, predictors, 0);
}

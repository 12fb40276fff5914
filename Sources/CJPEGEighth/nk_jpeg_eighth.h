#ifndef NK_JPEG_EIGHTH_H
#define NK_JPEG_EIGHTH_H

/*
 * The plan of a 1/8-scale decode of a baseline JPEG, taken from libjpeg's parsed header,
 * and the steps that carry it out, each in the nk_eighth_*.c file named at its declaration;
 * nk_jpeg_eighth.c runs them as a job (include/nk_eighth_job.h). Internal to CJPEGEighth.
 */

#include <stdio.h>
#include <jpeglib.h>

#include "nk_eighth_job.h"
#include "nk_huffman.h"

#define NK_MAX_BLOCKS_IN_MCU 10

/* One component's samples at 1/8 scale. */
typedef struct {
    uint8_t *samples;
    size_t stride;        /* samples per row */
    size_t mcu_step;      /* samples from one MCU to the next on its right */
    size_t mcu_row_step;  /* samples from one MCU row to the next */
    int quant[64];        /* dequantization factors, natural order, as libjpeg's 16-bit multipliers */
    int expand_x;         /* output pixels per sample across (libjpeg's box upsampling) */
    int expand_y;
    size_t rows;
} nk_eighth_plane;

/* One block of an MCU. */
typedef struct {
    const nk_huffman_table *dc;
    const nk_huffman_table *ac;
    int component;
    int inverse_2x2;      /* 1: a 2x2 sample block from the low coefficients; 0: one sample from DC */
    int part_index;       /* for a 2x2 block, which of the MCU's 2x2 blocks it is */
    size_t offset;        /* of the block's first sample from its MCU's first sample */
} nk_eighth_slot;

typedef struct {
    int components;
    nk_eighth_plane planes[3];
    nk_eighth_slot slots[NK_MAX_BLOCKS_IN_MCU];
    int slot_count;
    int part_slot_count;      /* 2x2 blocks per MCU */
    size_t mcus_per_row;
    size_t mcu_count;
    size_t segment_mcus;      /* MCUs per restart interval; without restart markers, all of them */
    J_COLOR_SPACE color_space;
    size_t width;             /* output size: the image size / 8, rounded up */
    size_t height;
    nk_huffman_table tables[8]; /* DC tables 0-3, then AC tables 0-3 */
    uint8_t *sample_memory;     /* the planes' samples, one allocation */
} nk_eighth_plan;

/* The entropy-coded data with stuffing removed, and where each restart interval begins. */
typedef struct {
    uint8_t *bytes;           /* `length` bytes, then zero padding for the bit reader */
    size_t length;
    size_t *segment_starts;   /* byte offsets of the restart intervals; the first is 0 */
    size_t segment_count;
} nk_eighth_stream;

/*
 * Fills the plan from libjpeg's state after jpeg_read_header and a 1/8 scale, allocating the
 * planes. 0; 1 when this decoder does not apply; -1 when out of memory. (nk_eighth_plan.c)
 */
int nk_eighth_plan_make(const struct jpeg_decompress_struct *cinfo, nk_eighth_plan *plan);
void nk_eighth_plan_free(nk_eighth_plan *plan);

/*
 * Unstuffs the scan at `data`. 0; 1 when the restart markers are not as the plan expects;
 * -1 when out of memory. (nk_eighth_plan.c)
 */
int nk_eighth_stream_make(const nk_eighth_plan *plan, const uint8_t *data, size_t size, nk_eighth_stream *stream);
void nk_eighth_stream_free(nk_eighth_stream *stream);

/*
 * What entropy decoding leaves for each MCU, before the DC predictors are known: each
 * block's DC difference, and for each 2x2 block the AC parts of its inverse DCT.
 */
#define NK_EIGHTH_PARTS 3
typedef struct {
    int32_t *differences;     /* slot_count per MCU */
    int32_t *parts;           /* NK_EIGHTH_PARTS per 2x2 block per MCU */
} nk_eighth_records;

/*
 * Decodes one MCU at the reader into `records` at MCU `index`. 0, or 1 on corrupt data.
 * (nk_eighth_decode.c)
 */
int nk_eighth_decode_mcu(const nk_eighth_plan *plan, nk_bit_reader *reader, const nk_eighth_records *records, size_t index);

/*
 * The scan's decode into the planes, split into `count` slices (1...NK_EIGHTH_MAX_SLICES)
 * and done in steps (nk_eighth_parallel.c): nk_eighth_scan_next_step gives the number of
 * slices of the next step, or 0 when the planes are filled, or -1 when the slices failed
 * (corrupt data, or runs that never met); between two calls, nk_eighth_scan_run_slice must
 * have run each slice of the step once, on any threads. Create gives NULL when out of memory.
 */
typedef struct nk_eighth_scan nk_eighth_scan;
nk_eighth_scan *nk_eighth_scan_create(const nk_eighth_plan *plan, const nk_eighth_stream *stream, int count);
int nk_eighth_scan_next_step(nk_eighth_scan *scan);
void nk_eighth_scan_run_slice(nk_eighth_scan *scan, int index);
void nk_eighth_scan_destroy(nk_eighth_scan *scan);

/*
 * Turns `count` MCUs of records, starting at record `from`, into samples of MCUs from
 * `first_mcu` on, carrying the DC predictors. 0, or 1 when a predictor leaves int's range.
 * (nk_eighth_samples.c)
 */
int nk_eighth_write_samples(const nk_eighth_plan *plan, const nk_eighth_records *records, size_t from, size_t count,
                            size_t first_mcu, int64_t predictors[3]);

/* The predictors after those MCUs, without writing samples. 0, or 1 as above. */
int nk_eighth_sum_predictors(const nk_eighth_plan *plan, const nk_eighth_records *records, size_t from, size_t count,
                             size_t first_mcu, int64_t predictors[3]);

/* Converts rows [first_row, end_row) of the planes to RGBA. (nk_eighth_rgba.c) */
void nk_eighth_write_rgba(const nk_eighth_plan *plan, uint8_t *pixels, size_t bytes_per_row, size_t first_row, size_t end_row);

#endif

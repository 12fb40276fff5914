#ifndef NK_BOX_H
#define NK_BOX_H

/*
 * The inner loops of the box filter that shrinks images (NetworkKitImage's BoxFilter, which
 * chooses the spans): in C so that thumbnails are quick in debug builds too, where a source of
 * 100 megapixels would otherwise take seconds in Swift.
 */

#include <stddef.h>
#include <stdint.h>

/*
 * Adds one row of RGBA8 pixels to `sums` (4 per output column: red, green and blue times
 * alpha, then alpha): output column x takes source columns starts[x] ..< ends[x].
 */
void nk_box_add_row(const uint8_t *row, size_t target_width, const size_t *starts, const size_t *ends, uint64_t *sums);

/*
 * Writes one output row of RGBA8 from `sums` that gathered `rows` source rows, then clears
 * them. Alpha is the plain average; colours the alpha-weighted one (0 where all is transparent).
 */
void nk_box_emit_row(uint64_t *sums, size_t target_width, const size_t *starts, const size_t *ends, size_t rows,
                     uint8_t *output);

#endif

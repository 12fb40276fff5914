#include "nk_box.h"

#include <string.h>

void nk_box_add_row(const uint8_t *row, size_t target_width, const size_t *starts, const size_t *ends, uint64_t *sums) {
    for (size_t x = 0; x < target_width; x++) {
        uint64_t red = 0, green = 0, blue = 0, alpha = 0;
        for (const uint8_t *pixel = row + starts[x] * 4, *end = row + ends[x] * 4; pixel < end; pixel += 4) {
            uint64_t weight = pixel[3];
            red += pixel[0] * weight;
            green += pixel[1] * weight;
            blue += pixel[2] * weight;
            alpha += weight;
        }
        sums[x * 4] += red;
        sums[x * 4 + 1] += green;
        sums[x * 4 + 2] += blue;
        sums[x * 4 + 3] += alpha;
    }
}

void nk_box_emit_row(uint64_t *sums, size_t target_width, const size_t *starts, const size_t *ends, size_t rows,
                     uint8_t *output) {
    for (size_t x = 0; x < target_width; x++) {
        uint64_t area = (ends[x] - starts[x]) * rows, alpha = sums[x * 4 + 3];
        for (int channel = 0; channel < 3; channel++) {
            /* Opaque blocks give the plain average: (Σc·255 + ⌊255·area/2⌋) / (255·area). */
            output[x * 4 + channel] = alpha == 0 ? 0 : (uint8_t)((sums[x * 4 + channel] + alpha / 2) / alpha);
        }
        output[x * 4 + 3] = (uint8_t)((alpha + area / 2) / area);
    }
    memset(sums, 0, target_width * 4 * sizeof(uint64_t));
}

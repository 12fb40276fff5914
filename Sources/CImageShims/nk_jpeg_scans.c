#include "nk_jpeg.h"
#include "nk_jpeg_decoder.h"

#include <string.h>
#include <jerror.h>

/*
 * A progressive file's thumbnail at 1/8 scale without the scans it does not need.
 *
 * At 1/8, libjpeg gives a component whose DCT_scaled_size is 1 a 1x1 inverse DCT, which reads
 * the DC coefficient alone: that component's AC scans cannot change the output, provided block
 * smoothing is off. Smoothing only runs when some component's first nine AC coefficients are
 * left imprecise at the end of the file (jdcoefct.c, smoothing_ok), and then it may change DC
 * too; so the scans are skipped only when the whole file codes those coefficients in full, and
 * the decode then runs with smoothing off. Components scaled by 2 or more (the chroma of 4:2:0
 * files) keep every scan. The output bytes are then libjpeg's for the whole file.
 *
 * The file is walked as libjpeg reads it: marker segments by their length, entropy-coded data up
 * to the first 0xFF that is followed by neither 0x00 nor a restart marker. Anything the walk does
 * not follow (a marker libjpeg would reject, a bad length, a file cut short, invalid scan
 * parameters or Huffman tables) leaves the decoder untouched, so libjpeg reads the whole file and
 * reports it. A scan is skipped only if libjpeg would start it without error (valid parameters,
 * its AC Huffman table defined and valid), so what fails the whole file fails the thumbnail too;
 * only the entropy-coded data of a skipped scan goes unread.
 */

/* How many of the coefficients (in zigzag order) block smoothing looks at: DC and nine AC. */
#define NK_SMOOTHED_COEFS 10

/* The marker at or after `p` as libjpeg's next_marker finds it (skipping other bytes, fill 0xFFs
 * and 0xFF 0x00 pairs): its code, the position of the 0xFF run before it, and the position after
 * the code. NULL when the data ends first. */
static const JOCTET *nk_next_marker(const JOCTET *p, const JOCTET *end, const JOCTET **start, int *code) {
    while (p < end) {
        const JOCTET *fill = memchr(p, 0xFF, (size_t)(end - p));
        if (fill == NULL) return NULL;
        const JOCTET *q = fill;
        while (q < end && *q == 0xFF) q++;
        if (q == end) return NULL;
        if (*q != 0) {
            *start = fill;
            *code = *q;
            return q + 1;
        }
        p = q + 1;
    }
    return NULL;
}

/* The end of entropy-coded data that starts at `p`: the 0xFF run before the first marker other
 * than a restart marker. NULL when the data ends first. */
static const JOCTET *nk_entropy_end(const JOCTET *p, const JOCTET *end) {
    const JOCTET *start;
    int code;
    while ((p = nk_next_marker(p, end, &start, &code)) != NULL) {
        if (code < JPEG_RST0 || code > JPEG_RST0 + 7) return start;
    }
    return NULL;
}

/* The markers the walk steps over by their length; libjpeg rejects the others or stops at them. */
static int nk_is_plain_segment(int code) {
    return code == 0xC4 || code == 0xCC || code == 0xDB || code == 0xDC || code == 0xDD || code == JPEG_COM ||
           (code >= JPEG_APP0 && code <= JPEG_APP0 + 15);
}

/* What the walk keeps track of. */
typedef struct {
    const struct jpeg_decompress_struct *cinfo;
    int bits[MAX_COMPONENTS][NK_SMOOTHED_COEFS]; /* libjpeg's coef_bits: -1 never coded, else Al */
    int ac_tables[NUM_HUFF_TBLS];                /* 1 defined and valid, -1 invalid, 0 undefined */
    int skipped;
} nk_scan_walk;

/* Whether code lengths `bits[1...16]` make a Huffman code that jpeg_make_d_derived_tbl accepts:
 * at most 256 symbols, and no length whose codes run out (the all-ones code is not allowed). */
static int nk_huffman_is_valid(const UINT8 *bits) {
    int symbols = 0, last = 0;
    for (int length = 1; length <= 16; length++) {
        symbols += bits[length];
        if (bits[length] != 0) last = length;
    }
    if (symbols > 256) return 0;
    long code = 0;
    for (int length = 1; length <= last; length++) {
        code += bits[length];
        if (code >= 1L << length) return 0;
        code <<= 1;
    }
    return 1;
}

/* Records the AC tables of a DHT segment's `length` bytes after its length field, as get_dht
 * reads them. 0, or -1 for a segment libjpeg would reject. */
static int nk_read_tables(nk_scan_walk *walk, const JOCTET *p, long length) {
    while (length > 16) {
        int index = p[0], count = 0;
        for (int i = 1; i <= 16; i++) count += p[i];
        length -= 17;
        if (count > 256 || count > length) return -1;
        int is_ac = (index & 0x10) != 0;
        if (is_ac) index -= 0x10;
        if (index >= NUM_HUFF_TBLS) return -1;
        if (is_ac) walk->ac_tables[index] = nk_huffman_is_valid(p) ? 1 : -1;
        p += 17 + count;
        length -= count;
    }
    return length == 0 ? 0 : -1;
}

/* Records a scan's progression as start_pass_phuff_decoder does; returns whether its scan may be
 * skipped, or -1 for parameters libjpeg would reject. `table` is the scan's AC table. Skipped:
 * an AC scan of a component scaled to 1x1, whose table libjpeg accepts, and whose DC scan came
 * before (a component's first scan latches its quantization table). */
static int nk_record_scan(nk_scan_walk *walk, const int *components, int count, int ss, int se, int ah, int al,
                          int table) {
    int bad = ss == 0 ? se != 0 : (ss > se || se > 63 || count != 1);
    if ((ah != 0 && al != ah - 1) || al > 13 || bad) return -1;
    int dc_seen = walk->bits[components[0]][0] >= 0;
    for (int i = 0; i < count; i++) {
        for (int k = ss; k <= se && k < NK_SMOOTHED_COEFS; k++) walk->bits[components[i]][k] = al;
    }
    int table_ok = walk->cinfo->arith_code || (table < NUM_HUFF_TBLS && walk->ac_tables[table] == 1);
    return ss > 0 && table_ok && dc_seen && walk->cinfo->comp_info[components[0]].DCT_scaled_size == 1;
}

/* Reads an SOS segment's parameters (`segment` after its length) and records the scan: 1 when
 * it may be skipped, 0 when kept, -1 when libjpeg would reject or read it otherwise. */
static int nk_read_scan(nk_scan_walk *walk, const JOCTET *segment, unsigned length) {
    const struct jpeg_decompress_struct *cinfo = walk->cinfo;
    if (length < 8u) return -1; /* the smallest SOS: one component; below it segment[0] may lie past the file */
    int count = segment[0], components[MAX_COMPS_IN_SCAN];
    if (count < 1 || count > MAX_COMPS_IN_SCAN || length != 6u + 2u * (unsigned)count) return -1;
    for (int i = 0; i < count; i++) {
        int id = segment[1 + 2 * i], found = -1;
        for (int c = 0; c < cinfo->num_components; c++) {
            if (cinfo->comp_info[c].component_id == id) found = c;
        }
        for (int j = 0; j < i; j++) {
            if (components[j] == found) found = -1; /* libjpeg renames repeated ids: not followed */
        }
        if (found < 0) return -1;
        components[i] = found;
    }
    const JOCTET *spectral = segment + 1 + 2 * count;
    return nk_record_scan(walk, components, count, spectral[0], spectral[1], spectral[2] >> 4, spectral[2] & 15,
                          segment[2] & 15);
}

/* Adds [from, to) to the spans libjpeg will read. */
static void nk_add_span(nk_jpeg_decoder *decoder, const JOCTET *from, const JOCTET *to) {
    if (to > from) decoder->spans[decoder->span_count++] = (nk_jpeg_span){from, (size_t)(to - from)};
}

/* Walks the file from libjpeg's position (in the first scan's data) to EOI, splitting it into
 * spans around the skipped scans. 1 when some scan may be skipped, 0 when none or when the walk
 * gives up, -1 past NK_JPEG_MAX_SCANS scans. */
static int nk_walk(nk_jpeg_decoder *decoder, nk_scan_walk *walk, const JOCTET *p, const JOCTET *end) {
    const JOCTET *kept = p, *start;
    int code, scans = 1;
    if ((p = nk_entropy_end(p, end)) == NULL) return 0;
    while ((p = nk_next_marker(p, end, &start, &code)) != NULL) {
        if (code == JPEG_EOI) {
            nk_add_span(decoder, kept, p);
            return walk->skipped > 0;
        }
        if ((code >= JPEG_RST0 && code <= JPEG_RST0 + 7) || code == 0x01) continue; /* no parameters */
        if (code != 0xDA && !nk_is_plain_segment(code)) return 0;
        if (end - p < 2) return 0;
        unsigned length = (unsigned)p[0] << 8 | p[1];
        if (length < 2 || length > (size_t)(end - p)) return 0;
        const JOCTET *segment_end = p + length;
        if (code == 0xC4 && nk_read_tables(walk, p + 2, (long)length - 2) != 0) return 0;
        if (code != 0xDA) {
            p = segment_end;
            continue;
        }
        if (++scans > NK_JPEG_MAX_SCANS) return -1;
        int skip = nk_read_scan(walk, p + 2, length);
        const JOCTET *scan_end = skip < 0 ? NULL : nk_entropy_end(segment_end, end);
        if (scan_end == NULL) return 0;
        if (skip) {
            nk_add_span(decoder, kept, start);
            kept = scan_end;
            walk->skipped++;
        }
        p = scan_end;
    }
    return 0;
}

/* Whether libjpeg would leave every component's first nine AC coefficients unsmoothed. */
static int nk_smoothing_is_idle(const nk_scan_walk *walk, int components) {
    for (int c = 0; c < components; c++) {
        for (int k = 1; k < NK_SMOOTHED_COEFS; k++) {
            if (walk->bits[c][k] != 0) return 0;
        }
    }
    return 1;
}

static void nk_span_init(j_decompress_ptr cinfo) {
    (void)cinfo;
}

/* The next span; past the last, libjpeg's "premature end" (an error, see nk_emit_message). */
static boolean nk_span_fill(j_decompress_ptr cinfo) {
    static const JOCTET eoi[2] = {0xFF, JPEG_EOI};
    nk_jpeg_decoder *decoder = (nk_jpeg_decoder *)cinfo->client_data;
    if (decoder->next_span < decoder->span_count) {
        const nk_jpeg_span *span = &decoder->spans[decoder->next_span++];
        cinfo->src->next_input_byte = span->start;
        cinfo->src->bytes_in_buffer = span->length;
        return TRUE;
    }
    WARNMS(cinfo, JWRN_JPEG_EOF);
    cinfo->src->next_input_byte = eoi;
    cinfo->src->bytes_in_buffer = 2;
    return TRUE;
}

static void nk_span_skip(j_decompress_ptr cinfo, long count) {
    struct jpeg_source_mgr *source = cinfo->src;
    if (count <= 0) return;
    while ((size_t)count > source->bytes_in_buffer) {
        count -= (long)source->bytes_in_buffer;
        (void)(*source->fill_input_buffer)(cinfo);
    }
    source->next_input_byte += count;
    source->bytes_in_buffer -= (size_t)count;
}

int nk_jpeg_skip_unneeded_scans(nk_jpeg_decoder *decoder) {
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    if (!cinfo->progressive_mode || cinfo->scale_num * 8 != cinfo->scale_denom || cinfo->src == NULL) return 0;
    if (cinfo->num_components < 1 || cinfo->num_components > MAX_COMPONENTS || decoder->span_count != 0) return 0;
    for (int c = 0; c < cinfo->num_components; c++) {
        for (int other = 0; other < c; other++) {
            if (cinfo->comp_info[c].component_id == cinfo->comp_info[other].component_id) return 0;
        }
    }
    nk_scan_walk walk = {.cinfo = cinfo};
    memset(walk.bits, 0xFF, sizeof(walk.bits)); /* -1 */
    for (int i = 0; i < NUM_HUFF_TBLS; i++) {
        const JHUFF_TBL *table = cinfo->ac_huff_tbl_ptrs[i];
        walk.ac_tables[i] = table == NULL ? 0 : nk_huffman_is_valid(table->bits) ? 1 : -1;
    }
    int first[MAX_COMPS_IN_SCAN];
    for (int i = 0; i < cinfo->comps_in_scan && i < MAX_COMPS_IN_SCAN; i++) {
        first[i] = cinfo->cur_comp_info[i]->component_index;
    }
    /* The first scan, whose header libjpeg has read, is always kept. */
    if (cinfo->comps_in_scan < 1 || cinfo->comps_in_scan > MAX_COMPS_IN_SCAN ||
        nk_record_scan(&walk, first, cinfo->comps_in_scan, cinfo->Ss, cinfo->Se, cinfo->Ah, cinfo->Al, 0) < 0) {
        return 0;
    }
    const JOCTET *here = cinfo->src->next_input_byte;
    int walked = nk_walk(decoder, &walk, here, here + cinfo->src->bytes_in_buffer);
    if (walked < 0) {
        snprintf(decoder->message, sizeof(decoder->message), "more than %d scans", NK_JPEG_MAX_SCANS);
    }
    if (walked <= 0 || !nk_smoothing_is_idle(&walk, cinfo->num_components)) {
        decoder->span_count = 0;
        return walked < 0 ? -1 : 0;
    }
    decoder->span_source = (struct jpeg_source_mgr){
        .next_input_byte = decoder->spans[0].start, .bytes_in_buffer = decoder->spans[0].length,
        .init_source = nk_span_init, .fill_input_buffer = nk_span_fill, .skip_input_data = nk_span_skip,
        .resync_to_restart = jpeg_resync_to_restart, .term_source = nk_span_init,
    };
    decoder->next_span = 1;
    cinfo->src = &decoder->span_source;
    cinfo->do_block_smoothing = FALSE;
    return 1;
}

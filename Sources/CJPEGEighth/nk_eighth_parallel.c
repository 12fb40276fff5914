#include "nk_jpeg_eighth.h"

#include <stdlib.h>
#include <string.h>

/*
 * Splitting the scan into runs. With restart markers, each run takes whole restart
 * intervals, which start at known places. Without them, run t > 0 starts at the t-th
 * fraction of the bits as if an MCU began there. Huffman codes resynchronise
 * within a few codes, so after a short stretch of garbage such a run decodes the true MCU
 * sequence. Where the run before it, continuing past its own share, reaches an MCU start
 * at the same bit position as one of this run's MCU starts, both are at the same decoder
 * state, and everything this run decoded from there on is right. DC predictors are applied
 * afterwards, in order (nk_eighth_samples.c). If the runs never meet, the caller decodes
 * the scan in one slice.
 *
 * Each run and each share is a slice: nk_eighth_scan_run_slice does one, and the slices of a
 * step touch disjoint memory, so the caller may run them on as many threads as it likes, in
 * any order, one after the other included. Nothing here starts a thread.
 */

typedef struct {
    const nk_eighth_plan *plan;
    const nk_eighth_stream *stream;
    nk_eighth_records records;
    size_t *mcu_starts;      /* bit position of each decoded MCU, then where the last one ended */
    size_t capacity;         /* MCUs the buffers hold */
    size_t count;            /* MCUs decoded */
    nk_bit_reader reader;    /* where decoding stopped */
    /* An exact run decodes restart intervals [first_segment, end_segment). */
    int exact;
    size_t first_segment, end_segment;
    /* A speculative run starts at bit `start` and decodes MCUs that start before `stop`. */
    size_t start, stop;
    int guessed_start;       /* `start` is a guess, not the scan's first bit */
    size_t valid_from, valid_to; /* the MCUs of this run that are right and are its share */
    int failed;
} nk_eighth_run;

static size_t nk_scan_bits(const nk_eighth_stream *stream) {
    return stream->length * 8;
}

/* Room for `capacity` MCUs of records, and for a speculative run, of their bit positions. */
static int nk_run_allocate(nk_eighth_run *run, size_t capacity) {
    const nk_eighth_plan *plan = run->plan;
    run->capacity = capacity;
    run->records.differences = malloc(capacity * (size_t)plan->slot_count * sizeof(int32_t));
    run->records.parts = malloc((capacity * (size_t)plan->part_slot_count * NK_EIGHTH_PARTS + 1) * sizeof(int32_t));
    if (!run->exact) run->mcu_starts = malloc((capacity + 1) * sizeof(size_t));
    return run->records.differences && run->records.parts && (run->exact || run->mcu_starts) ? 0 : 1;
}

static void nk_run_free(nk_eighth_run *run) {
    free(run->records.differences);
    free(run->records.parts);
    free(run->mcu_starts);
}

/* Decodes one MCU at the run's reader into record `index`, within `limit` bits. 0, or 1 on failure. */
static int nk_run_decode(nk_eighth_run *run, size_t index, size_t limit) {
    if (nk_eighth_decode_mcu(run->plan, &run->reader, &run->records, index) != 0) return 1;
    return nk_bits_position(&run->reader) > limit;
}

/* A speculative run's next MCU, as record `count`, noting where it starts and ends. 0, or 1 on failure. */
static int nk_run_step(nk_eighth_run *run, size_t limit) {
    if (run->count >= run->capacity) return 1;
    run->mcu_starts[run->count] = nk_bits_position(&run->reader);
    if (nk_run_decode(run, run->count, limit) != 0) return 1;
    run->count++;
    run->mcu_starts[run->count] = nk_bits_position(&run->reader);
    return 0;
}

/* MCUs an exact run decodes before turning them into samples, so that its records stay in cache. */
#define NK_EXACT_BATCH 256

/*
 * Decodes whole restart intervals (or the whole scan, which is one interval without them).
 * Their DC predictors are known as it goes, so samples are written every batch of MCUs.
 */
static void nk_run_exact(nk_eighth_run *run) {
    const nk_eighth_plan *plan = run->plan;
    const nk_eighth_stream *stream = run->stream;
    int64_t predictors[3] = {0, 0, 0};
    for (size_t segment = run->first_segment; segment < run->end_segment; segment++) {
        size_t first = segment * plan->segment_mcus;
        size_t end = first + plan->segment_mcus < plan->mcu_count ? first + plan->segment_mcus : plan->mcu_count;
        size_t stop = segment + 1 < stream->segment_count ? stream->segment_starts[segment + 1] * 8 : nk_scan_bits(stream);
        run->reader = nk_bits_at(stream->bytes, stream->segment_starts[segment] * 8);
        for (size_t batch = first; batch < end; batch += run->capacity) {
            size_t count = end - batch < run->capacity ? end - batch : run->capacity;
            for (size_t i = 0; i < count; i++) {
                if (nk_run_decode(run, i, stop) != 0) {
                    run->failed = 1;
                    return;
                }
            }
            if (nk_eighth_write_samples(plan, &run->records, 0, count, batch, predictors) != 0) {
                run->failed = 1;
                return;
            }
            run->count += count;
        }
    }
}

/* Decodes MCUs from a guessed boundary until one starts at or after `stop`. */
static void nk_run_speculative(nk_eighth_run *run) {
    size_t limit = nk_scan_bits(run->stream);
    run->reader = nk_bits_at(run->stream->bytes, run->start);
    while (nk_bits_position(&run->reader) < run->stop) {
        size_t at = nk_bits_position(&run->reader);
        if (nk_run_step(run, limit) == 0) continue;
        if (at + 8 > limit) break; /* only fill bits were left: the scan ended */
        if (!run->guessed_start) {
            run->failed = 1;
            return;
        }
        /* Garbage before resynchronising: start again at the next byte. */
        run->count = 0;
        run->reader = nk_bits_at(run->stream->bytes, (at / 8 + 1) * 8);
    }
}

static void nk_run_work(nk_eighth_run *run) {
    if (run->exact) {
        nk_run_exact(run);
    } else {
        nk_run_speculative(run);
    }
}

/* Continues `run` past its share until it meets an MCU start of `next`. 0, or 1 if they never meet. */
static int nk_run_meet(nk_eighth_run *run, nk_eighth_run *next) {
    size_t limit = nk_scan_bits(run->stream);
    size_t j = 0;
    for (;;) {
        size_t at = nk_bits_position(&run->reader);
        while (j < next->count && next->mcu_starts[j] < at) j++;
        if (j >= next->count) return 1;
        if (next->mcu_starts[j] == at) {
            run->valid_to = run->count;
            next->valid_from = j;
            return 0;
        }
        if (nk_run_step(run, limit) != 0) return 1;
    }
}

/*
 * Sets up `count` runs: with restart intervals (at least `count` of them), each run takes a
 * share of them; without, each takes a share of the bits, speculatively.
 */
static int nk_plan_runs(const nk_eighth_plan *plan, const nk_eighth_stream *stream, nk_eighth_run *runs, int count) {
    int exact = stream->segment_count > 1 || count == 1;
    size_t bits = nk_scan_bits(stream);
    for (int t = 0; t < count; t++) {
        nk_eighth_run *run = &runs[t];
        run->plan = plan;
        run->stream = stream;
        run->exact = exact;
        if (exact) {
            run->first_segment = stream->segment_count * (size_t)t / (size_t)count;
            run->end_segment = stream->segment_count * (size_t)(t + 1) / (size_t)count;
            if (nk_run_allocate(run, NK_EXACT_BATCH) != 0) return 1;
        } else {
            run->start = bits / 8 * (size_t)t / (size_t)count * 8;
            run->stop = t + 1 < count ? bits / 8 * (size_t)(t + 1) / (size_t)count * 8 : bits;
            run->guessed_start = t > 0;
            if (nk_run_allocate(run, plan->mcu_count) != 0) return 1;
        }
    }
    return 0;
}

/* Which decoded MCUs of a run make up its share of the image, and the state they start from. */
typedef struct {
    const nk_eighth_plan *plan;
    const nk_eighth_run *run;
    size_t from, count;      /* records of the run */
    size_t first_mcu;        /* the image's MCU index of the first one */
    int64_t predictors[3];   /* the DC predictors before it */
    int failed;
} nk_eighth_share;

/*
 * Finds the shares: meets the speculative runs, checks that the shares add up to the image,
 * and carries the DC predictors across them. 0, or 1 when they do not add up.
 */
static int nk_find_shares(const nk_eighth_plan *plan, nk_eighth_run *runs, nk_eighth_share *shares, int count) {
    for (int t = 0; t + 1 < count; t++) {
        if (nk_run_meet(&runs[t], &runs[t + 1]) != 0) return 1;
    }
    int64_t predictors[3] = {0, 0, 0};
    size_t done = 0;
    for (int t = 0; t < count; t++) {
        nk_eighth_run *run = &runs[t];
        if (run->failed) return 1;
        size_t from = run->valid_from, to = run->valid_to;
        if (t == count - 1) to = from + (plan->mcu_count - done);
        if (to < from || to > run->count || done + (to - from) > plan->mcu_count) return 1;
        nk_eighth_share *share = &shares[t];
        *share = (nk_eighth_share){plan, run, from, to - from, done, {predictors[0], predictors[1], predictors[2]}, 0};
        if (t + 1 < count && nk_eighth_sum_predictors(plan, &run->records, from, to - from, done, predictors) != 0) return 1;
        done += to - from;
    }
    return done == plan->mcu_count ? 0 : 1;
}

static void nk_share_work(nk_eighth_share *share) {
    share->failed = nk_eighth_write_samples(share->plan, &share->run->records, share->from, share->count,
                                            share->first_mcu, share->predictors);
}

/* Exact runs wrote their samples as they went: they only have to add up to the image. */
static int nk_check_exact_runs(const nk_eighth_plan *plan, const nk_eighth_run *runs, int count) {
    size_t done = 0;
    for (int t = 0; t < count; t++) {
        if (runs[t].failed) return 1;
        done += runs[t].count;
    }
    return done == plan->mcu_count ? 0 : 1;
}

/* The steps of a scan's decode; see nk_eighth_scan_next_step. */
enum { NK_SCAN_READY, NK_SCAN_RUNS, NK_SCAN_SHARES, NK_SCAN_FINISHED };

struct nk_eighth_scan {
    const nk_eighth_plan *plan;
    nk_eighth_run runs[NK_EIGHTH_MAX_SLICES];
    nk_eighth_share shares[NK_EIGHTH_MAX_SLICES];
    int count;
    int step;
    int result;              /* once finished: 0, or -1 when the runs failed or did not add up */
};

nk_eighth_scan *nk_eighth_scan_create(const nk_eighth_plan *plan, const nk_eighth_stream *stream, int count) {
    if (count < 1 || count > NK_EIGHTH_MAX_SLICES) return NULL;
    nk_eighth_scan *scan = calloc(1, sizeof(*scan));
    if (scan == NULL) return NULL;
    scan->plan = plan;
    scan->count = count;
    if (nk_plan_runs(plan, stream, scan->runs, count) != 0) {
        nk_eighth_scan_destroy(scan);
        return NULL;
    }
    return scan;
}

static int nk_scan_finish(nk_eighth_scan *scan, int failed) {
    scan->step = NK_SCAN_FINISHED;
    scan->result = failed ? -1 : 0;
    return scan->result;
}

int nk_eighth_scan_next_step(nk_eighth_scan *scan) {
    switch (scan->step) {
    case NK_SCAN_READY:
        scan->step = NK_SCAN_RUNS;
        return scan->count;
    case NK_SCAN_RUNS:
        if (scan->runs[0].exact) return nk_scan_finish(scan, nk_check_exact_runs(scan->plan, scan->runs, scan->count));
        if (nk_find_shares(scan->plan, scan->runs, scan->shares, scan->count) != 0) return nk_scan_finish(scan, 1);
        scan->step = NK_SCAN_SHARES;
        return scan->count;
    case NK_SCAN_SHARES: {
        int failed = 0;
        for (int t = 0; t < scan->count; t++) failed |= scan->shares[t].failed;
        return nk_scan_finish(scan, failed);
    }
    default:
        return scan->result;
    }
}

void nk_eighth_scan_run_slice(nk_eighth_scan *scan, int index) {
    if (index < 0 || index >= scan->count) return;
    if (scan->step == NK_SCAN_RUNS) {
        nk_run_work(&scan->runs[index]);
    } else if (scan->step == NK_SCAN_SHARES) {
        nk_share_work(&scan->shares[index]);
    }
}

void nk_eighth_scan_destroy(nk_eighth_scan *scan) {
    if (scan == NULL) return;
    for (int t = 0; t < scan->count; t++) nk_run_free(&scan->runs[t]);
    free(scan);
}

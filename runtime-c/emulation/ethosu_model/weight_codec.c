/* The Ethos-U55 weight stream format ("mlw", Vela's weight codec): a series of slices, each a
 * header and two interleaved Golomb-Rice coded symbol streams, weights and zero runs.
 *
 * Bits are read from bit 0 of byte 0 upwards, fields LSB first. A slice header:
 *   ZDIV 3      Rice parameter of the zero runs (0..3), 6: no zero runs, 7: end of stream
 *               (skip to the next byte; a further slice may follow, Vela pads with 0xFF)
 *   SLICELEN 15 weights in the slice, minus one
 *   WDIV 3      Rice parameter of the weights (0..5), 7: uncompressed
 *   WTRUNC 1    quotients are truncated unary (at most one "continue")
 *   NEWPAL 1    a palette follows (else the previous slice's stays):
 *               DIROFS 5, PALSIZE 5 (entries = value + 1, or none for 0), PALBITS 3 (+2),
 *               then the entries
 * A weight symbol s is palette[s] below the palette's size, else s - size + DIROFS; the
 * result is sign-magnitude with the sign in bit 0. With zero runs, run j follows weight j (and
 * a slice with a new palette starts with one more run, before its first weight).
 *
 * The symbols come in chunks. Each chunk reads, for the streams that are active: the weights'
 * 12 unary flags, the runs' unary field (12 bits, 8 for ZDIV 3), the weights' second unary
 * bits (one per set flag: "quotient continues"), and then the Rice remainders of the symbols
 * the *previous* chunk completed. The weight stream is active while it has symbols left and,
 * with zero runs, is fewer than 8 symbols ahead of the runs; the run stream while it has runs
 * left and is not ahead.
 *
 * Symbols complete in order in both streams, so the output is assembled through two short
 * queues, never more than a few chunks apart: the decoder holds no state sized by the stream. */
#include "model.h"

#include <string.h>

typedef struct {
    const uint8_t *data;
    uint64_t bits, pos;
    int over;
} reader_t;

static uint32_t get(reader_t *r, uint32_t n) {
    uint32_t v = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (r->pos >= r->bits) {
            r->over = 1;
            return v;
        }
        v |= (uint32_t)((r->data[r->pos >> 3] >> (r->pos & 7u)) & 1u) << i;
        r->pos++;
    }
    return v;
}

#define QUEUE 64u /* a power of two above the streams' largest lead (8 + two chunks of 12) */

typedef struct {
    uint32_t item[QUEUE];
    uint32_t head, tail;
} queue_t;

static int push(queue_t *q, uint32_t v) {
    if (q->tail - q->head >= QUEUE) {
        return 0;
    }
    q->item[q->tail++ % QUEUE] = v;
    return 1;
}

typedef struct {
    int16_t *out;
    uint64_t cap, count;
} sink_t;

static void emit(sink_t *s, int32_t v) {
    if (s->count < s->cap) {
        s->out[s->count] = (int16_t)v;
    }
    s->count++;
}

typedef struct {
    uint32_t palette[32];
    uint32_t palette_size, palette_bits, direct_offset;
    int have_palette;
} palette_t;

/* Moves completed symbols to the output in stream order: [run] weight run weight run ...
 * Returns 0 for a weight the NPU cannot hold. */
static int drain(queue_t *w, queue_t *z, int zero_runs, int *run_next, const palette_t *pal, sink_t *sink) {
    for (;;) {
        if (*run_next) {
            if (z->head == z->tail) {
                return 1;
            }
            uint32_t run = z->item[z->head++ % QUEUE];
            for (uint32_t k = 0; k < run && sink->count <= sink->cap; k++) {
                emit(sink, 0);
            }
            *run_next = 0;
            continue;
        }
        if (w->head == w->tail) {
            return 1;
        }
        uint32_t s = w->item[w->head++ % QUEUE];
        uint32_t u = s < pal->palette_size ? pal->palette[s] : s - pal->palette_size + pal->direct_offset;
        if ((u >> 1) > 255) {
            return 0;
        }
        emit(sink, (u & 1u) ? -(int32_t)(u >> 1) : (int32_t)(u >> 1));
        *run_next = zero_runs;
    }
}

static uint32_t ones(uint32_t v) {
    uint32_t n = 0;
    for (; v != 0; v &= v - 1) {
        n++;
    }
    return n;
}

/* One slice after its ZDIV; 0 for a malformed one. */
static int slice(reader_t *r, uint32_t zdiv, palette_t *pal, sink_t *sink) {
    uint32_t n = get(r, 15) + 1;
    uint32_t wdiv = get(r, 3), wtrunc = get(r, 1), new_palette = get(r, 1);
    if (new_palette) {
        pal->direct_offset = get(r, 5);
        uint32_t size = get(r, 5);
        pal->palette_size = size ? size + 1 : 0;
        pal->palette_bits = get(r, 3) + 2;
        for (uint32_t i = 0; i < pal->palette_size; i++) {
            pal->palette[i] = get(r, pal->palette_bits);
        }
        pal->have_palette = 1;
    }
    if (!pal->have_palette || wdiv == 6 || r->over) {
        return 0;
    }
    int uncompressed = wdiv == 7;
    if (uncompressed) {
        /* Plain fields: as wide as a palette index, or PALBITS without a palette. */
        wdiv = 0;
        if (pal->palette_size > 0) {
            while ((1u << wdiv) < pal->palette_size) {
                wdiv++;
            }
        } else {
            wdiv = pal->palette_bits;
        }
    }
    int zero_runs = zdiv != 6;
    uint32_t runs = n + (new_palette ? 1u : 0u);
    uint32_t zbits = zdiv < 3 ? 12 : 8;
    uint32_t wpos = 0, zpos = 0, wdone = 0, zdone = 0;
    uint32_t wcarry = 0, zcarry = 0;
    uint32_t prev_w[12], prev_z[12], prev_wn = 0, prev_zn = 0;
    int prev_w_on = 0, prev_z_on = 0;
    queue_t wq, zq;
    memset(&wq, 0, sizeof wq);
    memset(&zq, 0, sizeof zq);
    int run_next = zero_runs && new_palette;
    do {
        int32_t balance = zero_runs ? (int32_t)(wpos - zpos) : 0;
        int w_on = (balance < 8 || !zero_runs) && wpos < n;
        int z_on = balance >= 0 && zero_runs && zpos < runs;
        uint32_t cur_w[12], cur_z[12], cur_wn = 0, cur_zn = 0;
        uint32_t flags = 0;
        if (w_on && !uncompressed) {
            flags = get(r, 12);
        }
        if (z_on) {
            uint32_t field = get(r, zbits), count = zcarry;
            for (uint32_t i = 0; i < zbits; i++) {
                if ((field >> i) & 1u) {
                    count++;
                } else {
                    cur_z[cur_zn++] = count;
                    count = 0;
                }
            }
            zcarry = count;
            zpos += cur_zn;
        }
        if (w_on) {
            uint32_t slots = (uncompressed && wdiv > 5) ? 8 : 12;
            uint32_t mask = (1u << slots) - 1u;
            uint32_t more = get(r, ones(flags & mask)), count = wcarry;
            for (uint32_t i = 0; i < slots; i++) {
                uint32_t code = 0;
                if ((flags >> i) & 1u) {
                    code = 1 + (more & 1u);
                    more >>= 1;
                }
                count += code;
                if (code < 2 || wtrunc) {
                    cur_w[cur_wn++] = count;
                    count = 0;
                }
            }
            wcarry = count;
            wpos += cur_wn;
        }
        /* Vela caps weight quotients; a zero run's is bounded by the output it fills (a
         * pruned filter's run may be long), beyond which the stream is corrupt. */
        if (wcarry > 4096 || zcarry > sink->cap) {
            return 0;
        }
        for (uint32_t i = 0; prev_w_on && i < prev_wn && wdone < n; i++, wdone++) {
            if (!push(&wq, (prev_w[i] << wdiv) + get(r, wdiv))) {
                return 0;
            }
        }
        for (uint32_t i = 0; prev_z_on && i < prev_zn && zdone < runs; i++, zdone++) {
            if (prev_z[i] > sink->cap || !push(&zq, (prev_z[i] << zdiv) + get(r, zdiv))) {
                return 0;
            }
        }
        if (r->over || !drain(&wq, &zq, zero_runs, &run_next, pal, sink)) {
            return 0;
        }
        memcpy(prev_w, cur_w, sizeof cur_w);
        memcpy(prev_z, cur_z, sizeof cur_z);
        prev_wn = cur_wn;
        prev_zn = cur_zn;
        prev_w_on = w_on;
        prev_z_on = z_on;
    } while (prev_w_on || prev_z_on);
    return wdone == n && (!zero_runs || zdone == runs) && wq.head == wq.tail;
}

int64_t eu_mlw_decode(const uint8_t *data, uint64_t bytes, int16_t *out, uint64_t cap) {
    reader_t r = {data, bytes * 8u, 0, 0};
    palette_t pal;
    sink_t sink = {out, cap, 0};
    memset(&pal, 0, sizeof pal);
    while (r.bits - r.pos >= 3) {
        uint32_t zdiv = get(&r, 3);
        while (zdiv == 7) {
            /* The end of a stream: one that follows defines its palette anew. */
            pal.have_palette = 0;
            r.pos = (r.pos + 7u) & ~(uint64_t)7u;
            if (r.bits - r.pos < 3) {
                return (int64_t)sink.count;
            }
            zdiv = get(&r, 3);
        }
        if ((zdiv > 3 && zdiv != 6) || !slice(&r, zdiv, &pal, &sink)) {
            return -1;
        }
    }
    return (int64_t)sink.count;
}

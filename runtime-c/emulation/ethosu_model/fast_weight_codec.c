/* The Ethos-U85's fast weight format (FWD, WEIGHT_FORMAT bit 0), decoded.
 *
 * Bits are read from bit 0 of byte 0 upwards, fields LSB first. A 256-bit header:
 *   bit 0        raw mode: each weight is 8 bits
 *   bit 1        small table: each weight is a 2-bit index into the table
 *   bits 104-111 raw mode's offset (signed): a raw symbol s is the weight plus it
 *   bits 112-255 the table: 16 entries of 9 bits, |v| << 1 with the sign in bit 0
 * then the symbols: 8-bit raw (signed), 2-bit indices (small table) or 4-bit indices (the
 * table), and zeros up to the next multiple of 256 bits. */
#include "model.h"

static uint32_t bits_at(const uint8_t *data, uint64_t pos, uint32_t n) {
    uint32_t v = 0;
    for (uint32_t i = 0; i < n; i++, pos++) {
        v |= (uint32_t)((data[pos >> 3] >> (pos & 7u)) & 1u) << i;
    }
    return v;
}

int eu_fwd_decode(const uint8_t *data, uint64_t bytes, int16_t *out, uint64_t count) {
    const uint64_t header = 256u;
    if (bytes * 8u < header) {
        return 0;
    }
    const int raw = (int)bits_at(data, 0, 1), small = (int)bits_at(data, 1, 1);
    const uint32_t width = raw ? 8u : (small ? 2u : 4u);
    /* The symbols and the padding to 256 bits must be the stream: no more, no less (the
     * length register is rounded up to 16 bytes, which 256 bits already are). */
    const uint64_t used = header + count * width, padded = (used + 255u) / 256u * 256u;
    if (count > UINT64_MAX / 8u || padded != bytes * 8u) {
        return 0;
    }
    int16_t table[16];
    for (uint32_t e = 0; e < 16; e++) {
        uint32_t folded = bits_at(data, 112u + 9u * e, 9);
        table[e] = (int16_t)((folded & 1u) ? -(int32_t)(folded >> 1) : (int32_t)(folded >> 1));
    }
    const int32_t offset = (int8_t)(uint8_t)bits_at(data, 104, 8);
    for (uint64_t j = 0; j < count; j++) {
        uint32_t s = bits_at(data, header + j * width, width);
        out[j] = raw ? (int16_t)((int8_t)(uint8_t)s - offset) : table[s];
    }
    return 1;
}

/* The runtime's byte and string helpers, internal to csrc/. ap_rd32 is the one way the runtime
 * reads a little-endian field of a blob (Vela bin streams, Neutron payloads): byte by byte, so
 * any alignment and any host byte order read the same; the build's Rust readers read the same
 * fields the same way (`u32::from_le_bytes`). ap_same_str compares names and compile-spec keys
 * without libc, which bare-metal firmware does not link. */
#ifndef ARENAPLAN_CSRC_BYTES_H
#define ARENAPLAN_CSRC_BYTES_H

#include <stdint.h>

static inline uint32_t ap_rd32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* Whether two NUL-terminated strings are equal. */
static inline int ap_same_str(const char *a, const char *b) {
    while (*a != '\0' && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

#endif

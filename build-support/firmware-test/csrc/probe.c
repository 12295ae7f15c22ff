/* Reads the generated header and the symbols the Rust side defines, for the Rust tests. */
#include <stddef.h>
#include "firmware_test.h"

uint32_t probe_sram_size(void) { return FIRMWARE_TEST_ARENA_SRAM_SIZE; }
uint32_t probe_ddr_size(void) { return FIRMWARE_TEST_ARENA_DDR_SIZE; }
uint32_t probe_call0_scratch0_offset(void) { return FIRMWARE_TEST_CALL0_SCRATCH0_OFFSET; }
uint32_t probe_call3_scratch1_offset(void) { return FIRMWARE_TEST_CALL3_SCRATCH1_OFFSET; }
uint32_t probe_buffer_count(void) { return FIRMWARE_TEST_BUFFER_COUNT; }
const arenaplan_buffer_t *probe_buffer(uint32_t i) { return &firmware_test_buffers[i]; }
const uint8_t *probe_sram_arena(void) { return firmware_test_arena_sram; }

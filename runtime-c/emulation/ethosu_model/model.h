/* The functional Ethos-U model: executes a command stream as Vela writes it for an Ethos-U55 or
 * an Ethos-U85, on the regions the driver programmed, and computes what the NPU computes.
 * Private to the emulation. The two NPUs share their command encoding, most register numbers
 * and the arithmetic of their operations; they differ in the registers' fields, the weights'
 * order and formats, the scale entries and where LUTs live, and the Ethos-U85 adds chaining
 * (an operation's output fed to the next without memory), IFM broadcast and more rounding
 * modes. Each difference is decided in one place, keyed on `npu->u85`.
 *
 * One file per concern:
 *   stream.c             decoding: command words, the register file, DMA, dispatch, faults
 *   fmap.c               feature maps: NHWC and NHCWB16 addressing, tiles, chaining,
 *                        bounds-checked access
 *   output_stage.c       scaling with the NPUs' rounding modes, activations, LUTs, clamps
 *   kernel.c             the kernel registers and the 10-byte scale entries
 *   weights_u55.c        the Ethos-U55's weight order ("bricks")
 *   weights_u85.c        the Ethos-U85's weight order
 *   weight_codec.c       the standard weight stream format (Vela's weight codec), decoded
 *   fast_weight_codec.c  the Ethos-U85's fast weight format (FWD), decoded
 *   conv.c               NPU_OP_CONV and NPU_OP_DEPTHWISE
 *   pool.c               NPU_OP_POOL
 *   elementwise.c        NPU_OP_ELEMENTWISE
 *   sigmoid_table.c      the table behind the Ethos-U55's int16 TANH and SIGMOID
 *
 * The arithmetic follows the register definitions of Arm's driver (ethosu55_interface.h,
 * ethosu85_interface.h), what Vela programs into them, and the reference kernels the programs
 * are compared with (TFLite Micro's): the tests run every corpus model against TFLite Micro's
 * outputs. Anything the model does not know how to execute faults with the command named,
 * never computing a guess.
 *
 * Faults are sticky: the first one is recorded (what and the command's word offset), later
 * accesses read zero and write nothing, and the stream stops at the next command. */
#ifndef ARENAPLAN_ETHOSU_MODEL_H
#define ARENAPLAN_ETHOSU_MODEL_H

#include <stddef.h>
#include <stdint.h>

#define AP_EU_REGIONS 8
#define AP_EU_SHRAM_MAX (48u * 1024u)
/* The Ethos-U85's LUT memory (Vela's "lutram"): 2 KiB on every configuration. */
#define AP_EU_U85_LUT_BYTES 2048u

/* The decoded weights of one operation live in a fixed work area: a bound on what a command
 * stream can make the emulation hold, whatever its registers say. Enough for any layer a
 * microcontroller model has (a 1024x1024 fully connected layer takes 2 Mi elements: the
 * encoded order and the scattered copy). */
#ifndef AP_ETHOSU_WORK_ELEMENTS
#if defined(__arm__)
#define AP_ETHOSU_WORK_ELEMENTS (64u * 1024u)
#else
#define AP_ETHOSU_WORK_ELEMENTS (4u * 1024u * 1024u)
#endif
#endif

/* Chained outputs (Ethos-U85): an operation's OFM kept for the next operation instead of
 * written to memory. The hardware streams them through a small buffer block by block; the
 * model keeps a whole operation's box, bounded here (Vela's largest in the corpus: 40,960). */
#define AP_EU_CHAIN_BUFFERS 4u
#ifndef AP_ETHOSU_CHAIN_ELEMENTS
#if defined(__arm__)
#define AP_ETHOSU_CHAIN_ELEMENTS (1u * 1024u)
#else
#define AP_ETHOSU_CHAIN_ELEMENTS (64u * 1024u)
#endif
#endif

/* The most element-steps (a MAC, a pooled tap, an elementwise result) one job may take: a
 * real model's largest layer is a few hundred million; a stream whose registers ask for more
 * (zero strides over a huge box) faults instead of running for hours. */
#ifndef AP_ETHOSU_JOB_BUDGET
#define AP_ETHOSU_JOB_BUDGET (1ull << 33)
#endif

/* Region 0 holds the model's weights and constants, which may be in flash: Vela never writes
 * it, and the emulation refuses to. */
#define AP_EU_READ_ONLY_REGIONS 1u

/* cmd0 register writes are opcodes 256..399, cmd1 writes 0..255. */
#define AP_EU_CMD0_FIRST 256u
#define AP_EU_CMD0_COUNT 144u
#define AP_EU_CMD1_COUNT 256u

typedef struct eu_chain {
    int32_t value[AP_ETHOSU_CHAIN_ELEMENTS];
    uint32_t height, width, depth; /* the box written; 0: none yet */
} eu_chain_t;

typedef struct ap_eu {
    /* The NPU's configuration. */
    int u85;              /* an Ethos-U85 (else an Ethos-U55) */
    uint32_t macs;
    uint32_t shram_bytes; /* U55: SHRAM banks x 1 KiB; U85: the LUT memory's size */
    uint32_t lut_base;    /* U55: where LUT slot 0 is in SHRAM, or UINT32_MAX where unknown */
    uint32_t ofm_ublock;  /* U55: OFM micro-block depth: the weight order depends on it */
    /* The memory the driver programmed (BASEP0..7 and the sizes given with them). */
    uint8_t *region[AP_EU_REGIONS];
    uint64_t region_size[AP_EU_REGIONS];
    uint8_t shram[AP_EU_SHRAM_MAX]; /* U55: SHRAM (LUTs at lut_base); U85: the LUT memory */
    eu_chain_t chain[AP_EU_CHAIN_BUFFERS];
    /* The register file: cmd0 parameters, cmd1 payloads (and their first-word parameters). */
    uint16_t r0[AP_EU_CMD0_COUNT];
    uint32_t r1[AP_EU_CMD1_COUNT];
    uint16_t r1_param[AP_EU_CMD1_COUNT];
    /* The first fault: what went wrong (a static string), the opcode of the command and its
     * word offset in the stream. */
    const char *fault;
    uint32_t fault_opcode;
    uint32_t fault_word;
    uint32_t detail; /* a number the fault names (a mode, a size), or 0 */
    uint32_t at_word; /* the command being executed */
    uint32_t at_opcode;
    int at_cmd1;      /* ... a two-word command */
    int at_end;       /* past the stream's last word */
    int fault_cmd1;   /* the fault's command is a two-word one */
    int fault_at_end; /* the fault is the stream's end, no command */
    uint32_t ops;     /* operations executed */
    uint64_t budget;  /* element-steps left in this job (see AP_ETHOSU_JOB_BUDGET) */
} ap_eu_t;

/* Register opcodes: the NPU_SET_* and NPU_OP_* numbers of ethosu55_interface.h, the same in
 * ethosu85_interface.h except those marked U55 (gone on the U85, some numbers reused) and
 * the EU85_ ones (the U85's own). */
enum {
    EU_OP_STOP = 0,
    EU_OP_IRQ = 1,
    EU_OP_CONV = 2,
    EU_OP_DEPTHWISE = 3,
    EU_OP_POOL = 5,
    EU_OP_ELEMENTWISE = 6,
    EU85_OP_RESIZE = 7,
    EU_OP_DMA_START = 16,
    EU_OP_DMA_WAIT = 17,
    EU_OP_KERNEL_WAIT = 18,
    EU_OP_PMU_MASK = 19,

    EU_IFM_PAD_TOP = 256,
    EU_IFM_PAD_LEFT = 257,
    EU_IFM_PAD_RIGHT = 258,
    EU_IFM_PAD_BOTTOM = 259,
    EU_IFM_DEPTH_M1 = 260,
    EU_IFM_PRECISION = 261,
    EU_IFM_UPSCALE = 263,
    EU85_IFM_BROADCAST = 264,
    EU_IFM_ZERO_POINT = 265,
    EU_IFM_WIDTH0_M1 = 266,
    EU_IFM_HEIGHT0_M1 = 267,
    EU_IFM_HEIGHT1_M1 = 268,
    EU_IFM_IB_END = 269, /* U55 */
    EU_IFM_REGION = 271,
    EU_OFM_WIDTH_M1 = 273,
    EU_OFM_HEIGHT_M1 = 274,
    EU_OFM_DEPTH_M1 = 275,
    EU_OFM_PRECISION = 276,
    EU_OFM_BLK_WIDTH_M1 = 277,
    EU_OFM_BLK_HEIGHT_M1 = 278,
    EU_OFM_BLK_DEPTH_M1 = 279,
    EU_OFM_ZERO_POINT = 280,
    EU_OFM_WIDTH0_M1 = 282,
    EU_OFM_HEIGHT0_M1 = 283,
    EU_OFM_HEIGHT1_M1 = 284,
    EU_OFM_REGION = 287,
    EU_KERNEL_WIDTH_M1 = 288,
    EU_KERNEL_HEIGHT_M1 = 289,
    EU_KERNEL_STRIDE = 290,
    EU_ACC_FORMAT = 292,
    EU_ACTIVATION = 293,
    EU_ACTIVATION_MIN = 294,
    EU_ACTIVATION_MAX = 295,
    EU_WEIGHT_REGION = 296,
    EU_SCALE_REGION = 297,
    EU85_RESIZE_X_SCALE_N_M1 = 298,
    EU85_RESIZE_Y_SCALE_N_M1 = 299,
    EU85_RESIZE_X_OFFSET = 300,
    EU_AB_START = 301, /* U55; the U85's RESIZE_Y_OFFSET */
    EU85_RESIZE_Y_OFFSET = 301,
    EU85_WEIGHT_FORMAT = 302,
    EU_BLOCKDEP = 303,
    EU_DMA0_SRC_REGION = 304,
    EU_DMA0_DST_REGION = 305,
    EU_DMA0_SIZE0 = 306,
    EU_DMA0_SIZE1 = 307,
    EU85_DMA0_IDX_REGION = 308,
    EU_IFM2_BROADCAST = 384,
    EU_IFM2_SCALAR = 385, /* U55 */
    EU_IFM2_PRECISION = 389,
    EU_IFM2_ZERO_POINT = 393,
    EU_IFM2_WIDTH0_M1 = 394,
    EU_IFM2_HEIGHT0_M1 = 395,
    EU_IFM2_HEIGHT1_M1 = 396,
    EU_IFM2_IB_START = 397, /* U55 */
    EU_IFM2_REGION = 399,

    EU_IFM_BASE0 = 0,
    EU_IFM_STRIDE_X = 4,
    EU_IFM_STRIDE_Y = 5,
    EU_IFM_STRIDE_C = 6,
    EU_OFM_BASE0 = 16,
    EU_OFM_STRIDE_X = 20,
    EU_OFM_STRIDE_Y = 21,
    EU_OFM_STRIDE_C = 22,
    EU_WEIGHT_BASE = 32,
    EU_WEIGHT_LENGTH = 33,
    EU_SCALE_BASE = 34,
    EU_SCALE_LENGTH = 35,
    EU_OFM_SCALE = 36,
    EU_OPA_SCALE = 37, /* U55; the U85's IFM_SCALE */
    EU_OPB_SCALE = 38, /* U55; the U85's IFM2_SCALE */
    EU85_IFM_SCALE = 37,
    EU85_IFM2_SCALE = 38,
    EU85_OP_SCALAR = 39,
    EU_DMA0_SRC = 48,
    EU_DMA0_DST = 49,
    EU_DMA0_LEN = 50,
    EU_IFM2_BASE0 = 128,
    EU_IFM2_STRIDE_X = 132,
    EU_IFM2_STRIDE_Y = 133,
    EU_IFM2_STRIDE_C = 134,
    EU85_WEIGHT1_BASE = 144
};

/* Rounding, as the model applies it (each NPU's register values map here: eu_ofm_rounding,
 * eu_operand_rounding). For p = v * M and a shift S:
 *   U55_DBL            (p + 2^(S-1) + D) >> S, D = +-2^(P-1) by v's sign when S > P: the
 *                      Ethos-U55's double rounding (P the double-rounding point)
 *   DOUBLE_SYMMETRIC   the Ethos-U85's: p / 2^min(S, P) with halves up (TFLite's rounding
 *                      doubling high multiply), then by 2^(S-P) half away from zero when S > P
 *                      (its rounding shift): TFLite's arithmetic exactly
 *   SYMMETRIC          p / 2^S rounded half away from zero
 *   NATURAL            (p + 2^(S-1)) >> S, halves up
 *   TRUNCATE           towards zero
 *   TRUNCATE_TO_LOWER  >> S (floor)
 * >> is a floor shift. */
typedef enum {
    EU_ROUND_U55_DBL,
    EU_ROUND_DOUBLE_SYMMETRIC,
    EU_ROUND_SYMMETRIC,
    EU_ROUND_NATURAL,
    EU_ROUND_TRUNCATE,
    EU_ROUND_TRUNCATE_TO_LOWER,
    EU_ROUND_UNKNOWN
} eu_rounding_t;

static inline uint32_t eu_r0(const ap_eu_t *npu, uint32_t opcode) { return npu->r0[opcode - AP_EU_CMD0_FIRST]; }
static inline uint32_t eu_r1(const ap_eu_t *npu, uint32_t opcode) { return npu->r1[opcode]; }
static inline int32_t eu_s16(uint32_t v) { return (int32_t)(int16_t)(uint16_t)v; }

/* Records the first fault (later ones are consequences). */
void eu_fault(ap_eu_t *npu, const char *what, uint32_t detail);

/* Takes `steps` from the job's budget before an operation runs; 0 (and a fault) when the
 * operation would exceed it. */
int eu_spend(ap_eu_t *npu, uint64_t steps);

/* a * b, or UINT64_MAX where that overflows: step counts of hostile registers. */
static inline uint64_t eu_mul_sat(uint64_t a, uint64_t b) {
    return (a != 0 && b > UINT64_MAX / a) ? UINT64_MAX : a * b;
}

/* Sets up an Ethos-U55 (u85 = 0: 32, 64, 128 or 256 MACs) or Ethos-U85 (u85 = 1: 128 to 2048
 * MACs) with no regions and a cleared register file; 0 for another configuration. */
int eu_init(ap_eu_t *npu, int u85, uint32_t macs);

/* Runs `words` command words; 1 when the stream reached NPU_OP_STOP without a fault. */
int eu_execute(ap_eu_t *npu, const uint8_t *stream, uint32_t words);

/* A name for an opcode (the register or operation of the NPU's interface header), for
 * faults; NULL for one the NPU does not have. */
const char *eu_opcode_name(int u85, uint32_t opcode, int cmd1);

/* ---- Feature maps (fmap.c) ---------------------------------------------------------------- */

typedef struct eu_fmap {
    uint8_t *mem; /* the region's base, or NULL */
    uint64_t size;
    eu_chain_t *chain;  /* a chained map (U85): the chain buffer instead of memory */
    uint32_t transpose; /* an OFM's transpose (U85): where (y, x, c) is stored (fmap.c) */
    uint32_t bytes;    /* element size: 1, 2 or 4 */
    int is_signed;
    int brick;       /* NHCWB16 */
    int32_t zero_point;
    uint32_t base[4];
    uint32_t height0, height1, width0;
    int64_t stride_x, stride_y, stride_c;
} eu_fmap_t;

typedef enum { EU_IFM, EU_IFM2, EU_OFM } eu_fmap_kind_t;

/* The feature map the registers describe; faults on a precision or storage the model does not
 * have. `scalar`: the operand is a broadcast scalar (its type and zero point only). */
void eu_fmap(ap_eu_t *npu, eu_fmap_kind_t kind, int scalar, eu_fmap_t *fm);
/* Element (y, x, c), sign- or zero-extended, zero point not subtracted. */
int64_t eu_fmap_read(ap_eu_t *npu, const eu_fmap_t *fm, uint32_t y, uint32_t x, uint32_t c);
/* Checks before an operation writes anything that every element of a height x width x depth
 * box lies in the map's region (the address is affine within a tile and a brick, so the
 * boxes' corners and boundaries decide), or fits its chain buffer; faults with `what`
 * otherwise. */
int eu_fmap_check_box(ap_eu_t *npu, const eu_fmap_t *fm, uint32_t height, uint32_t width, uint32_t depth,
                      const char *what);
/* Faults when the OFM is chained into a chain buffer the operation also reads (`ifm`, or
 * `ifm2` when not NULL): the OFM's box would replace what the reads are checked against. */
void eu_fmap_check_chain(ap_eu_t *npu, const eu_fmap_t *ofm, const eu_fmap_t *ifm, const eu_fmap_t *ifm2);
/* Stores the low bits of v at (y, x, c). */
void eu_fmap_write(ap_eu_t *npu, const eu_fmap_t *fm, uint32_t y, uint32_t x, uint32_t c, int64_t v);

/* ---- The output stage (output_stage.c) ---------------------------------------------------- */

/* v * multiplier / 2^shift in the given rounding, `dbl_point` the double-rounding point.
 * Saturates to int64. */
int64_t eu_round_shift(int64_t v, uint32_t multiplier, uint32_t shift, eu_rounding_t rounding, uint32_t dbl_point);

/* Steps 2-5 of the output stage for a scaled value: OFM zero point, activation function
 * (TANH, SIGMOID, LUT), clamps, for an OFM described by fm. */
int64_t eu_activate(ap_eu_t *npu, const eu_fmap_t *ofm, int64_t scaled);

/* Checks before an operation's elements that the activation and rounding registers are ones
 * the model executes; faults naming them otherwise. */
void eu_check_activation(ap_eu_t *npu, const eu_fmap_t *ofm);

/* The global OFM scale (OFM_SCALE) of an operation reading `ifm`: multiplier, shift and the
 * double-rounding point (the multiplier 1 for a 32-bit IFM). */
void eu_ofm_scale(const ap_eu_t *npu, const eu_fmap_t *ifm, uint32_t *multiplier, uint32_t *shift, uint32_t *dbl_point);
eu_rounding_t eu_ofm_rounding(const ap_eu_t *npu);
/* Whether OFM_PRECISION asks for the global OFM_SCALE rather than per-channel entries. */
int eu_global_scale(const ap_eu_t *npu);

/* The int16 functions of the Ethos-U55's ACTIVATION 3 and 4, as TFLite's int16 TANH and
 * LOGISTIC compute them from their 256-entry sigmoid table. */
int64_t eu_tanh16(int64_t x);
int64_t eu_sigmoid16(int64_t x);
extern const uint16_t eu_sigmoid_table[256];

/* ---- Kernels, weights and scales (kernel.c, weights*.c, *_codec.c) ------------------------ */

typedef struct eu_kernel {
    uint32_t stride_x, stride_y, dilation_x, dilation_y;
    uint32_t width, height;                 /* taps */
    uint32_t dilated_width, dilated_height; /* extent in IFM elements */
    int part_kernel_first;
    uint32_t pad_top, pad_left, pad_bottom, pad_right;
    uint32_t ofm_height, ofm_width, ofm_depth, ifm_depth;
    int64_t ifm_height, ifm_width; /* derived from the OFM box, kernel and pads */
} eu_kernel_t;

void eu_kernel(const ap_eu_t *npu, eu_kernel_t *k);

/* Decodes the operation's weight stream into w[((o * height + ky) * width + kx) * in + i]
 * (in = 1 for depthwise), weights already less their zero point. Returns the array (in the
 * model's work area) or NULL after a fault. */
const int16_t *eu_weights(ap_eu_t *npu, const eu_kernel_t *k, int depthwise, uint32_t ifm_bytes);

/* Where each position of a decoded stream goes: with `to`, an order walk stores each stream
 * position's weight at its (o, ky, kx, i) (padding positions store nothing); without, it
 * counts the positions, stopping once there are more than the work area holds. */
typedef struct eu_scatter {
    const int16_t *stream;
    int16_t *w;
    uint32_t height, width, in;
} eu_scatter_t;

/* The weight orders (weights_u55.c, weights_u85.c): the number of stream positions
 * (UINT64_MAX: an order the NPU does not have). */
uint64_t eu_weight_order_u55(const ap_eu_t *npu, const eu_kernel_t *k, int depthwise, uint32_t ifm_bytes,
                             eu_scatter_t *to);
uint64_t eu_weight_order_u85(const ap_eu_t *npu, const eu_kernel_t *k, int depthwise, uint32_t ifm_bytes,
                             uint32_t core, eu_scatter_t *to);
/* The Ethos-U85's cores for a MAC count: 1, 2 or 4 (weights_u85.c). */
uint32_t eu_u85_cores(uint32_t macs);

/* The scale entry of OFM channel c: bias, multiplier, shift. 0 after a fault. */
int eu_scale_entry(ap_eu_t *npu, uint32_t c, int64_t *bias, uint32_t *multiplier, uint32_t *shift);

/* Decodes a standard weight stream into at most `cap` symbols; the number decoded, or -1 for a
 * stream that is not one (weight_codec.c). */
int64_t eu_mlw_decode(const uint8_t *data, uint64_t bytes, int16_t *out, uint64_t cap);

/* Decodes `count` symbols of a fast (FWD) weight stream of `bytes` bytes; 0 when the stream is
 * not `count` symbols' worth (fast_weight_codec.c). */
int eu_fwd_decode(const uint8_t *data, uint64_t bytes, int16_t *out, uint64_t count);

/* ---- Operations --------------------------------------------------------------------------- */

void eu_conv(ap_eu_t *npu, int depthwise);
void eu_pool(ap_eu_t *npu, uint32_t mode);
void eu_elementwise(ap_eu_t *npu, uint32_t mode);

#endif /* ARENAPLAN_ETHOSU_MODEL_H */

/* The functional Ethos-U55 model: executes a command stream as Vela writes it, on the regions
 * the driver programmed, and computes what the NPU computes. Private to the emulation.
 *
 * One file per concern:
 *   u55_stream.c      decoding: command words, the register file, DMA, dispatch, faults
 *   u55_fmap.c        feature maps: NHWC and NHCWB16 addressing, tiles, bounds-checked access
 *   u55_rounding.c    the output stage: scaling with the NPU's rounding modes, activations,
 *                     clamps
 *   u55_weights.c     the kernel, the weights' brick order and the 10-byte scale entries
 *   u55_mlw.c         the weight stream's compressed format (Vela's weight codec), decoded
 *   u55_conv.c        NPU_OP_CONV and NPU_OP_DEPTHWISE
 *   u55_pool.c        NPU_OP_POOL
 *   u55_elementwise.c NPU_OP_ELEMENTWISE
 *   u55_sigmoid.c     the table behind the int16 TANH and SIGMOID activations
 *
 * The arithmetic follows the register definitions of Arm's driver (ethosu55_interface.h), what
 * Vela programs into them, and the reference kernels the programs are compared with (TFLite
 * Micro's): the tests run every corpus model against TFLite Micro's outputs. Anything the model
 * does not know how to execute faults with the command named, never computing a guess.
 *
 * Faults are sticky: the first one is recorded (what and the command's word offset), later
 * accesses read zero and write nothing, and the stream stops at the next command. */
#ifndef ARENAPLAN_U55_H
#define ARENAPLAN_U55_H

#include <stddef.h>
#include <stdint.h>

#define AP_U55_REGIONS 8
#define AP_U55_SHRAM_MAX (48u * 1024u)

/* The decoded weights of one operation live in a fixed work area: a bound on what a command
 * stream can make the emulation hold, whatever its registers say. Enough for any layer a
 * microcontroller model has (a 1024x1024 fully connected layer takes 2 Mi elements: the
 * encoded order and the scattered copy). */
#ifndef AP_U55_WORK_ELEMENTS
#if defined(__arm__)
#define AP_U55_WORK_ELEMENTS (64u * 1024u)
#else
#define AP_U55_WORK_ELEMENTS (4u * 1024u * 1024u)
#endif
#endif

/* The most element-steps (a MAC, a pooled tap, an elementwise result) one job may take: a
 * real model's largest layer is a few hundred million; a stream whose registers ask for more
 * (zero strides over a huge box) faults instead of running for hours. */
#ifndef AP_U55_JOB_BUDGET
#define AP_U55_JOB_BUDGET (1ull << 33)
#endif

/* Region 0 holds the model's weights and constants, which may be in flash: Vela never writes
 * it, and the emulation refuses to. */
#define AP_U55_READ_ONLY_REGIONS 1u

/* cmd0 register writes are opcodes 256..399, cmd1 writes 0..255 (U55). */
#define AP_U55_CMD0_FIRST 256u
#define AP_U55_CMD0_COUNT 144u
#define AP_U55_CMD1_COUNT 256u

typedef struct ap_u55 {
    /* The NPU's configuration. */
    uint32_t shram_bytes; /* SHRAM banks x 1 KiB */
    uint32_t lut_base;    /* where LUT slot 0 is in SHRAM, or UINT32_MAX where unknown */
    uint32_t ofm_ublock;  /* OFM micro-block depth: the weight order depends on it */
    /* The memory the driver programmed (BASEP0..7 and the sizes given with them). */
    uint8_t *region[AP_U55_REGIONS];
    uint64_t region_size[AP_U55_REGIONS];
    uint8_t shram[AP_U55_SHRAM_MAX];
    /* The register file: cmd0 parameters, cmd1 payloads (and their first-word parameters). */
    uint16_t r0[AP_U55_CMD0_COUNT];
    uint32_t r1[AP_U55_CMD1_COUNT];
    uint16_t r1_param[AP_U55_CMD1_COUNT];
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
    uint64_t budget;  /* element-steps left in this job (see AP_U55_JOB_BUDGET) */
} ap_u55_t;

/* Register opcodes (the NPU_SET_* and NPU_OP_* numbers of ethosu55_interface.h). */
enum {
    U55_OP_STOP = 0,
    U55_OP_IRQ = 1,
    U55_OP_CONV = 2,
    U55_OP_DEPTHWISE = 3,
    U55_OP_POOL = 5,
    U55_OP_ELEMENTWISE = 6,
    U55_OP_DMA_START = 16,
    U55_OP_DMA_WAIT = 17,
    U55_OP_KERNEL_WAIT = 18,
    U55_OP_PMU_MASK = 19,

    U55_IFM_PAD_TOP = 256,
    U55_IFM_PAD_LEFT = 257,
    U55_IFM_PAD_RIGHT = 258,
    U55_IFM_PAD_BOTTOM = 259,
    U55_IFM_DEPTH_M1 = 260,
    U55_IFM_PRECISION = 261,
    U55_IFM_UPSCALE = 263,
    U55_IFM_ZERO_POINT = 265,
    U55_IFM_WIDTH0_M1 = 266,
    U55_IFM_HEIGHT0_M1 = 267,
    U55_IFM_HEIGHT1_M1 = 268,
    U55_IFM_IB_END = 269,
    U55_IFM_REGION = 271,
    U55_OFM_WIDTH_M1 = 273,
    U55_OFM_HEIGHT_M1 = 274,
    U55_OFM_DEPTH_M1 = 275,
    U55_OFM_PRECISION = 276,
    U55_OFM_BLK_WIDTH_M1 = 277,
    U55_OFM_BLK_HEIGHT_M1 = 278,
    U55_OFM_BLK_DEPTH_M1 = 279,
    U55_OFM_ZERO_POINT = 280,
    U55_OFM_WIDTH0_M1 = 282,
    U55_OFM_HEIGHT0_M1 = 283,
    U55_OFM_HEIGHT1_M1 = 284,
    U55_OFM_REGION = 287,
    U55_KERNEL_WIDTH_M1 = 288,
    U55_KERNEL_HEIGHT_M1 = 289,
    U55_KERNEL_STRIDE = 290,
    U55_ACC_FORMAT = 292,
    U55_ACTIVATION = 293,
    U55_ACTIVATION_MIN = 294,
    U55_ACTIVATION_MAX = 295,
    U55_WEIGHT_REGION = 296,
    U55_SCALE_REGION = 297,
    U55_AB_START = 301,
    U55_BLOCKDEP = 303,
    U55_DMA0_SRC_REGION = 304,
    U55_DMA0_DST_REGION = 305,
    U55_DMA0_SIZE0 = 306,
    U55_DMA0_SIZE1 = 307,
    U55_IFM2_BROADCAST = 384,
    U55_IFM2_SCALAR = 385,
    U55_IFM2_PRECISION = 389,
    U55_IFM2_ZERO_POINT = 393,
    U55_IFM2_WIDTH0_M1 = 394,
    U55_IFM2_HEIGHT0_M1 = 395,
    U55_IFM2_HEIGHT1_M1 = 396,
    U55_IFM2_IB_START = 397,
    U55_IFM2_REGION = 399,

    U55_IFM_BASE0 = 0,
    U55_IFM_STRIDE_X = 4,
    U55_IFM_STRIDE_Y = 5,
    U55_IFM_STRIDE_C = 6,
    U55_OFM_BASE0 = 16,
    U55_OFM_STRIDE_X = 20,
    U55_OFM_STRIDE_Y = 21,
    U55_OFM_STRIDE_C = 22,
    U55_WEIGHT_BASE = 32,
    U55_WEIGHT_LENGTH = 33,
    U55_SCALE_BASE = 34,
    U55_SCALE_LENGTH = 35,
    U55_OFM_SCALE = 36,
    U55_OPA_SCALE = 37,
    U55_OPB_SCALE = 38,
    U55_DMA0_SRC = 48,
    U55_DMA0_DST = 49,
    U55_DMA0_LEN = 50,
    U55_IFM2_BASE0 = 128,
    U55_IFM2_STRIDE_X = 132,
    U55_IFM2_STRIDE_Y = 133,
    U55_IFM2_STRIDE_C = 134
};

/* Rounding modes of the precision registers (bits 15..14). */
enum { U55_ROUND_DBL = 0, U55_ROUND_TRUNCATE = 1, U55_ROUND_NATURAL = 2 };

static inline uint32_t u55_r0(const ap_u55_t *npu, uint32_t opcode) { return npu->r0[opcode - AP_U55_CMD0_FIRST]; }
static inline uint32_t u55_r1(const ap_u55_t *npu, uint32_t opcode) { return npu->r1[opcode]; }
static inline int32_t u55_s16(uint32_t v) { return (int32_t)(int16_t)(uint16_t)v; }

/* Records the first fault (later ones are consequences). */
void u55_fault(ap_u55_t *npu, const char *what, uint32_t detail);

/* Takes `steps` from the job's budget before an operation runs; 0 (and a fault) when the
 * operation would exceed it. */
int u55_spend(ap_u55_t *npu, uint64_t steps);

/* a * b, or UINT64_MAX where that overflows: step counts of hostile registers. */
static inline uint64_t u55_mul_sat(uint64_t a, uint64_t b) {
    return (a != 0 && b > UINT64_MAX / a) ? UINT64_MAX : a * b;
}

/* Sets up an NPU of `macs` MACs per cycle (32, 64, 128 or 256) with no regions and a cleared
 * register file; 0 for another size. */
int u55_init(ap_u55_t *npu, uint32_t macs);

/* Runs `words` command words; 1 when the stream reached NPU_OP_STOP without a fault. */
int u55_execute(ap_u55_t *npu, const uint8_t *stream, uint32_t words);

/* A name for an opcode (the register or operation of ethosu55_interface.h), for faults. */
const char *u55_opcode_name(uint32_t opcode, int cmd1);

/* ---- Feature maps (u55_fmap.c) ------------------------------------------------------------ */

typedef struct u55_fmap {
    uint8_t *mem; /* the region's base, or NULL */
    uint64_t size;
    uint32_t bytes;  /* element size: 1, 2 or 4 */
    int is_signed;
    int brick;       /* NHCWB16 */
    int32_t zero_point;
    uint32_t base[4];
    uint32_t height0, height1, width0;
    int64_t stride_x, stride_y, stride_c;
} u55_fmap_t;

typedef enum { U55_IFM, U55_IFM2, U55_OFM } u55_fmap_kind_t;

/* The feature map the registers describe; faults on a precision the NPU does not have. */
void u55_fmap(ap_u55_t *npu, u55_fmap_kind_t kind, u55_fmap_t *fm);
/* Element (y, x, c), sign- or zero-extended, zero point not subtracted. */
int64_t u55_fmap_read(ap_u55_t *npu, const u55_fmap_t *fm, uint32_t y, uint32_t x, uint32_t c);
/* Checks before an operation writes anything that every element of a height x width x depth
 * box lies in the map's region (the address is affine within a tile and a brick, so the
 * boxes' corners and boundaries decide); faults with `what` otherwise. */
int u55_fmap_check_box(ap_u55_t *npu, const u55_fmap_t *fm, uint32_t height, uint32_t width, uint32_t depth,
                       const char *what);
/* Stores the low bits of v at (y, x, c). */
void u55_fmap_write(ap_u55_t *npu, const u55_fmap_t *fm, uint32_t y, uint32_t x, uint32_t c, int64_t v);

/* ---- The output stage (u55_rounding.c) ---------------------------------------------------- */

/* round(v * multiplier / 2^shift) in the given mode; DBL double-rounds at bit `dbl_point`
 * (31 for the OFM stage). Saturates to int64. */
int64_t u55_round_shift(int64_t v, uint32_t multiplier, uint32_t shift, uint32_t mode, uint32_t dbl_point);

/* Steps 2-5 of the output stage for a scaled value: OFM zero point, activation function
 * (TANH, SIGMOID, LUT), clamps, for an OFM described by fm. */
int64_t u55_activate(ap_u55_t *npu, const u55_fmap_t *ofm, int64_t scaled);

/* Checks before an operation's elements that the activation registers are ones the model
 * executes; faults naming them otherwise. */
void u55_check_activation(ap_u55_t *npu, const u55_fmap_t *ofm);

/* The global OFM scale (OFM_SCALE) of an operation reading `ifm`: multiplier and shift (the
 * multiplier 1 for a 32-bit IFM). */
void u55_ofm_scale(const ap_u55_t *npu, const u55_fmap_t *ifm, uint32_t *multiplier, uint32_t *shift);
uint32_t u55_ofm_rounding(const ap_u55_t *npu);

/* The int16 functions of ACTIVATION 3 and 4, as TFLite's int16 TANH and LOGISTIC compute
 * them from their 256-entry sigmoid table. */
int64_t u55_tanh16(int64_t x);
int64_t u55_sigmoid16(int64_t x);
extern const uint16_t u55_sigmoid_table[256];

/* ---- Kernels and weights (u55_weights.c) -------------------------------------------------- */

typedef struct u55_kernel {
    uint32_t stride_x, stride_y, dilation_x, dilation_y;
    uint32_t width, height;                 /* taps */
    uint32_t dilated_width, dilated_height; /* extent in IFM elements */
    int part_kernel_first;
    uint32_t pad_top, pad_left, pad_bottom, pad_right;
    uint32_t ofm_height, ofm_width, ofm_depth, ifm_depth;
    int64_t ifm_height, ifm_width; /* derived from the OFM box, kernel and pads */
} u55_kernel_t;

void u55_kernel(const ap_u55_t *npu, u55_kernel_t *k);

/* Decodes the operation's weight stream into w[((o * height + ky) * width + kx) * in + i]
 * (in = 1 for depthwise), weights already less their zero point. Returns the array (in the
 * model's work area) or NULL after a fault. */
const int16_t *u55_weights(ap_u55_t *npu, const u55_kernel_t *k, int depthwise, uint32_t ifm_bytes);

/* The scale entry of OFM channel c: bias, multiplier, shift. 0 after a fault. */
int u55_scale_entry(ap_u55_t *npu, uint32_t c, int64_t *bias, uint32_t *multiplier, uint32_t *shift);

/* Decodes a weight stream into at most `cap` symbols; the number decoded, or -1 for a stream
 * that is not one (u55_mlw.c). */
int64_t u55_mlw_decode(const uint8_t *data, uint64_t bytes, int16_t *out, uint64_t cap);

/* ---- Operations --------------------------------------------------------------------------- */

void u55_conv(ap_u55_t *npu, int depthwise);
void u55_pool(ap_u55_t *npu, uint32_t mode);
void u55_elementwise(ap_u55_t *npu, uint32_t mode);

#endif /* ARENAPLAN_U55_H */

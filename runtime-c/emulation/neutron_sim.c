/* The host simulator of NXP's Neutron driver API (see arenaplan/neutron_sim.h). */
#include "arenaplan/neutron_sim.h"

#include "arenaplan/neutron.h"
#include "arenaplan/neutron_driver.h"

#include <string.h>

#define NEUTRON_MAGIC 0x64434D6Eu
#define MODELS 8

typedef struct model {
    int prepared;
    uint8_t *context; /* the caller's memory (NO_HEAP_USAGE), or NULL: the simulator's own */
    const void *microcode;
    ap_neutron_job_t job; /* the next run, as the backend described it */
    int described;
} model_t;

static int initialized;
static model_t models[MODELS];
static ap_neutron_sim_record_t last;
static uint32_t calls;

static int aligned16(const void *p) { return p != NULL && ((uintptr_t)p & 15u) == 0; }

static int overlap(const void *a, size_t an, const void *b, size_t bn) {
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return a != NULL && b != NULL && an > 0 && bn > 0 && x < y + bn && y < x + an;
}

static model_t *model_of(NeutronModelHandle h) {
    for (int i = 0; i < MODELS; i++) {
        NeutronModelHandle own = models[i].context != NULL ? (NeutronModelHandle)models[i].context : &models[i];
        if (h != NULL && h == own && models[i].prepared) {
            return &models[i];
        }
    }
    return NULL;
}

static NeutronError fail(ap_neutron_sim_status_t status) {
    last.status = status;
    return (NeutronError)(0x100 * (int32_t)status + 3); /* driver component, as NXP's codes */
}

NeutronError neutronInit(void) {
    initialized = 1;
    return ENONE;
}

NeutronError neutronDeinit(void) {
    initialized = 0;
    memset(models, 0, sizeof models);
    return ENONE;
}

NeutronError neutronModelPrepare(const NeutronModelConfig *mcfg, NeutronModelHandle *hdl) {
    if (!initialized) {
        return fail(AP_NEUTRON_SIM_NOT_INITIALIZED);
    }
    if (mcfg == NULL || hdl == NULL || !aligned16(mcfg->microcode) || !aligned16(mcfg->weights) ||
        !aligned16(mcfg->kernels)) {
        return fail(AP_NEUTRON_SIM_BAD_MODEL);
    }
    const uint8_t *m = mcfg->microcode;
    if (((uint32_t)m[0] | (uint32_t)m[1] << 8 | (uint32_t)m[2] << 16 | (uint32_t)m[3] << 24) != NEUTRON_MAGIC) {
        return fail(AP_NEUTRON_SIM_BAD_MODEL);
    }
    for (int i = 0; i < MODELS; i++) {
        if (!models[i].prepared) {
            memset(&models[i], 0, sizeof models[i]);
            models[i].prepared = 1;
            models[i].microcode = m;
            if (*hdl != NULL) {
                /* The caller's context (NXP's NO_HEAP_USAGE): the library writes its state
                 * there, all of it, and the handle is that memory. */
                models[i].context = (uint8_t *)*hdl;
                memset(models[i].context, 0x5C, AP_NEUTRON_SIM_CONTEXT_BYTES);
            } else {
                *hdl = &models[i];
            }
            return ENONE;
        }
    }
    return fail(AP_NEUTRON_SIM_BAD_MODEL); /* out of model contexts */
}

size_t neutronGetModelContextSize(void) { return AP_NEUTRON_SIM_CONTEXT_BYTES; }

NeutronError neutronModelUnprepare(NeutronModelHandle hdl) {
    model_t *m = model_of(hdl);
    if (m == NULL) {
        return fail(AP_NEUTRON_SIM_BAD_HANDLE);
    }
    m->prepared = 0;
    return ENONE;
}

void ap_neutron_job_hook(void *model_handle, const ap_neutron_job_t *job) {
    model_t *m = model_of(model_handle);
    if (m != NULL && job != NULL) {
        m->job = *job;
        m->described = 1;
    }
}

/* Where byte `b` of an NCHW tensor lies in its NHWC copy. */
static size_t nhwc_byte(const ap_neutron_layout_t *l, size_t b) {
    size_t e = l->element, i = b / e, w = i % l->w, h = (i / l->w) % l->h, c = (i / ((size_t)l->w * l->h)) % l->c,
           n = i / ((size_t)l->w * l->h * l->c);
    return (((n * l->h + h) * l->w + w) * l->c + c) * e + b % e;
}

/* Whether every byte the NPU gets for a transposed input is the NCHW source's at the same
 * (n,c,h,w): the channels-last copy NXP's backend makes, checked element by element. */
static int transposed_correctly(const ap_neutron_layout_t *l, const uint8_t *npu, size_t size) {
    const uint8_t *src = l->source;
    size_t total = (size_t)l->n * l->c * l->h * l->w * l->element;
    if (total != size || l->element == 0) {
        return 0;
    }
    for (size_t b = 0; b < total; b++) {
        if (npu[nhwc_byte(l, b)] != src[b]) {
            return 0;
        }
    }
    return 1;
}

NeutronError neutronRunBlocking(NeutronModelHandle hdl, const NeutronDataConfig *dcfg) {
    memset(&last, 0, sizeof last);
    calls++;
    model_t *m = model_of(hdl);
    if (!initialized) {
        return fail(AP_NEUTRON_SIM_NOT_INITIALIZED);
    }
    if (m == NULL) {
        return fail(AP_NEUTRON_SIM_BAD_HANDLE);
    }
    if (!m->described || dcfg == NULL || (m->job.ninputs > 0 && dcfg->inputs == NULL) || dcfg->outputs == NULL) {
        return fail(AP_NEUTRON_SIM_BAD_DATA);
    }
    const ap_neutron_job_t *j = &m->job;
    m->described = 0; /* one description, one run */
    last.ninputs = j->ninputs;
    last.noutputs = j->noutputs;
    last.scratch = (uint64_t)(uintptr_t)j->scratch;
    last.scratch_size = j->scratch_size;
    last.sram_scratch = (uint64_t)(uintptr_t)j->sram_scratch;
    last.sram_scratch_size = j->sram_scratch_size;
    last.profile = (uint64_t)(uintptr_t)j->profile;
    last.profile_size = j->profile_size;
    last.debug = (uint64_t)(uintptr_t)j->debug;
    last.debug_size = j->debug_size;
    last.input0 = j->ninputs > 0 ? (uint64_t)(uintptr_t)j->inputs[0] : 0;
    last.output0 = j->noutputs > 0 ? (uint64_t)(uintptr_t)j->outputs[0] : 0;
    /* NXP's layout: outputs, then scratch, profile, debug; the SRAM scratch apart. */
    int same = dcfg->scratch == j->scratch && dcfg->scratchWeights == j->sram_scratch &&
               dcfg->outputs[j->noutputs] == j->scratch && dcfg->outputs[j->noutputs + 1] == j->profile &&
               dcfg->outputs[j->noutputs + 2] == j->debug;
    for (uint32_t i = 0; i < j->ninputs; i++) {
        same &= dcfg->inputs[i] == j->inputs[i];
    }
    for (uint32_t i = 0; i < j->noutputs; i++) {
        same &= dcfg->outputs[i] == j->outputs[i];
    }
    if (!same) {
        return fail(AP_NEUTRON_SIM_BAD_DATA);
    }
    void *regions[4] = {j->scratch, j->sram_scratch, j->profile, j->debug};
    size_t sizes[4] = {j->scratch_size, j->sram_scratch_size, j->profile_size, j->debug_size};
    /* Inputs and outputs: present and 16-byte aligned; no output overlapping another buffer of
     * the call (the NPU streams: it does not read every input before writing). */
    for (uint32_t i = 0; i < j->ninputs + j->noutputs; i++) {
        const void *p = i < j->ninputs ? j->inputs[i] : j->outputs[i - j->ninputs];
        size_t n = i < j->ninputs ? j->input_sizes[i] : j->output_sizes[i - j->ninputs];
        if (n > 0 && !aligned16(p)) {
            return fail(AP_NEUTRON_SIM_BAD_REGION);
        }
        for (uint32_t q = 0; i >= j->ninputs && q < i; q++) { /* an output against all before it */
            const void *pq = q < j->ninputs ? j->inputs[q] : j->outputs[q - j->ninputs];
            size_t nq = q < j->ninputs ? j->input_sizes[q] : j->output_sizes[q - j->ninputs];
            if (overlap(p, n, pq, nq)) {
                return fail(AP_NEUTRON_SIM_OVERLAP);
            }
        }
    }
    for (int k = 0; k < 4; k++) {
        if (sizes[k] == 0) {
            continue;
        }
        if (!aligned16(regions[k])) {
            return fail(AP_NEUTRON_SIM_BAD_REGION);
        }
        for (int q = 0; q < k; q++) {
            if (overlap(regions[k], sizes[k], regions[q], sizes[q])) {
                return fail(AP_NEUTRON_SIM_OVERLAP);
            }
        }
        for (uint32_t i = 0; i < j->ninputs + j->noutputs; i++) {
            const void *p = i < j->ninputs ? j->inputs[i] : j->outputs[i - j->ninputs];
            size_t n = i < j->ninputs ? j->input_sizes[i] : j->output_sizes[i - j->ninputs];
            if (overlap(regions[k], sizes[k], p, n)) {
                return fail(AP_NEUTRON_SIM_OVERLAP);
            }
        }
    }
    uint32_t sum = 0;
    for (uint32_t i = 0; i < j->ninputs; i++) {
        const uint8_t *in = j->inputs[i];
        const ap_neutron_layout_t *l = j->input_layouts != NULL ? &j->input_layouts[i] : NULL;
        if (l != NULL && l->source != NULL && !transposed_correctly(l, in, j->input_sizes[i])) {
            return fail(AP_NEUTRON_SIM_BAD_LAYOUT);
        }
        for (size_t b = 0; b < j->input_sizes[i]; b++) {
            sum += in[b];
        }
    }
    for (int k = 0; k < 4; k++) {
        if (sizes[k] > 0) {
            memset(regions[k], 0xDB, sizes[k]);
        }
    }
    /* Output bytes in the program's order: for an output the NPU sees channels-last, byte b
     * of element (n,c,h,w) goes to (n,h,w,c), so only a transposition back gives the formula. */
    for (uint32_t k = 0; k < j->noutputs; k++) {
        uint8_t *out = j->outputs[k];
        const ap_neutron_layout_t *l = j->output_layouts != NULL ? &j->output_layouts[k] : NULL;
        for (size_t b = 0; b < j->output_sizes[k]; b++) {
            out[l != NULL && l->source != NULL ? nhwc_byte(l, b) : b] = (uint8_t)(sum + 31u * b + 7u * k);
        }
    }
    last.input_sum = sum;
    last.status = AP_NEUTRON_SIM_OK;
    return ENONE;
}

ap_status_t ap_neutron_host_setup(void) {
    ap_neutron_sim_reset();
    return neutronInit() == ENONE ? AP_OK : AP_ERR_DRIVER;
}

const ap_neutron_sim_record_t *ap_neutron_sim_last(void) { return &last; }
uint32_t ap_neutron_sim_calls(void) { return calls; }
uint32_t ap_neutron_sim_prepared(void) {
    uint32_t n = 0;
    for (int i = 0; i < MODELS; i++) {
        n += models[i].prepared != 0;
    }
    return n;
}
void ap_neutron_sim_reset(void) {
    memset(&last, 0, sizeof last);
    calls = 0;
}

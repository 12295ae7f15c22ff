/* Tests of the Neutron simulator (emulation/neutron_sim.c) through NXP's API alone, no backend:
 * what prepare refuses, handles it does not know, a run it was not told of, a described job (its
 * poison and its outputs), and its element-by-element check of a transposed input. Built twice by
 * tests/c_runtime.rs: with the simulator's declarations of NXP's API and against NXP's
 * NeutronDriver.h. */
#include "arenaplan/neutron.h"
#include "arenaplan/neutron_driver.h"
#include "arenaplan/neutron_sim.h"
#include "blobs.h"
#include "harness.h"

/* NXP's driver needs microcode, weights and kernels 16-byte aligned, and microcode that is
 * Neutron's: prepare refuses anything else and prepares nothing. */
static void prepare_refuses_what_nxps_driver_needs(void) {
    blob_t blob = neutron_blob(64, 0);
    uint8_t *microcode = blob.data + 16;
    const NeutronModelConfig unaligned[] = {{microcode + 4, microcode, microcode, 60},
                                            {microcode, microcode + 4, microcode, 60},
                                            {microcode, microcode, microcode + 4, 60}};
    int refused = 1;
    for (size_t k = 0; k < sizeof unaligned / sizeof unaligned[0]; k++) {
        NeutronModelHandle model = NULL;
        refused &= neutronModelPrepare(&unaligned[k], &model) != ENONE &&
                   ap_neutron_sim_last()->status == AP_NEUTRON_SIM_BAD_MODEL;
    }
    CHECK(refused);
    blob_t other = blob;
    other.data[16] ^= 0xFF; /* not Neutron's magic */
    const NeutronModelConfig foreign = {other.data + 16, other.data + 16, other.data + 16, 60};
    NeutronModelHandle model = NULL;
    CHECK(neutronModelPrepare(&foreign, &model) != ENONE);
    CHECK(ap_neutron_sim_last()->status == AP_NEUTRON_SIM_BAD_MODEL);
    CHECK(neutronModelPrepare(NULL, &model) != ENONE);
    CHECK(ap_neutron_sim_prepared() == 0);
}

/* A handle runs only while prepared, and only the job the backend described for it (one
 * description, one run). */
static void runs_only_a_prepared_and_described_job(void) {
    blob_t blob = neutron_blob(64, 0);
    static _Alignas(16) uint8_t in[16], out[16], scratch[64];
    const NeutronModelConfig cfg = {blob.data + 16, blob.data + 16, blob.data + 16, 60};
    const void *inputs[] = {in};
    void *outputs[] = {out, scratch, NULL, NULL};
    size_t in_size = sizeof in, out_size = sizeof out;
    const ap_neutron_job_t job = {inputs, &in_size, 1, outputs, &out_size, 1, scratch, sizeof scratch, NULL, 0,
                                  NULL, 0, NULL, 0, NULL, NULL};
    NeutronDataConfig data = {inputs, outputs, scratch, NULL};
    NeutronModelHandle model = NULL;
    CHECK(neutronModelPrepare(&cfg, &model) == ENONE);
    CHECK(ap_neutron_sim_prepared() == 1);
    /* Not described: the simulator does not guess the sizes. */
    CHECK(neutronRunBlocking(model, &data) != ENONE);
    CHECK(ap_neutron_sim_last()->status == AP_NEUTRON_SIM_BAD_DATA);
    /* Described, but handed other buffers than the job's. */
    ap_neutron_job_hook(model, &job);
    void *elsewhere[] = {scratch, out, NULL, NULL};
    NeutronDataConfig swapped = {inputs, elsewhere, out, NULL};
    CHECK(neutronRunBlocking(model, &swapped) != ENONE);
    CHECK(ap_neutron_sim_last()->status == AP_NEUTRON_SIM_BAD_DATA);
    /* Described and as described: it runs, once. */
    for (uint32_t b = 0; b < sizeof in; b++) {
        in[b] = (uint8_t)(b + 1);
    }
    ap_neutron_job_hook(model, &job);
    CHECK(neutronRunBlocking(model, &data) == ENONE);
    CHECK(ap_neutron_sim_last()->status == AP_NEUTRON_SIM_OK && ap_neutron_sim_last()->input_sum == 136);
    CHECK(neutronRunBlocking(model, &data) != ENONE);
    /* Unprepared: unknown from then on. */
    CHECK(neutronModelUnprepare(model) == ENONE);
    CHECK(ap_neutron_sim_prepared() == 0);
    ap_neutron_job_hook(model, &job);
    CHECK(neutronRunBlocking(model, &data) != ENONE);
    CHECK(ap_neutron_sim_last()->status == AP_NEUTRON_SIM_BAD_HANDLE);
    CHECK(neutronModelUnprepare(model) != ENONE);
}

/* A run poisons the scratch (0xDB) and writes output byte j as the formula of the inputs' sum;
 * a scratch over the output, or an output off a 16-byte boundary, is refused before anything is
 * written. */
static void a_run_poisons_scratch_and_writes_the_formula(void) {
    blob_t blob = neutron_blob(64, 0);
    static _Alignas(16) uint8_t in[16], out[32], scratch[64];
    const NeutronModelConfig cfg = {blob.data + 16, blob.data + 16, blob.data + 16, 60};
    NeutronModelHandle model = NULL;
    CHECK(neutronModelPrepare(&cfg, &model) == ENONE);
    memset(in, 3, sizeof in);
    const void *inputs[] = {in};
    size_t in_size = sizeof in, out_size = 16;
    {
        void *outputs[] = {out, scratch, NULL, NULL};
        const ap_neutron_job_t job = {inputs, &in_size, 1, outputs, &out_size, 1, scratch, sizeof scratch, NULL, 0,
                                      NULL, 0, NULL, 0, NULL, NULL};
        NeutronDataConfig data = {inputs, outputs, scratch, NULL};
        ap_neutron_job_hook(model, &job);
        CHECK(neutronRunBlocking(model, &data) == ENONE);
        int as_formula = 1, poisoned = 1;
        for (uint32_t j = 0; j < 16; j++) {
            as_formula &= out[j] == expected_output(48, j);
        }
        for (uint32_t b = 0; b < sizeof scratch; b++) {
            poisoned &= scratch[b] == 0xDB;
        }
        CHECK(as_formula && poisoned);
    }
    /* The scratch over the output. */
    {
        void *outputs[] = {scratch, scratch, NULL, NULL};
        const ap_neutron_job_t job = {inputs, &in_size, 1, outputs, &out_size, 1, scratch, sizeof scratch, NULL, 0,
                                      NULL, 0, NULL, 0, NULL, NULL};
        NeutronDataConfig data = {inputs, outputs, scratch, NULL};
        memset(scratch, 0, sizeof scratch);
        ap_neutron_job_hook(model, &job);
        CHECK(neutronRunBlocking(model, &data) != ENONE);
        CHECK(ap_neutron_sim_last()->status == AP_NEUTRON_SIM_OVERLAP && scratch[0] == 0);
    }
    /* An output off a 16-byte boundary. */
    {
        void *outputs[] = {out + 8, scratch, NULL, NULL};
        const ap_neutron_job_t job = {inputs, &in_size, 1, outputs, &out_size, 1, scratch, sizeof scratch, NULL, 0,
                                      NULL, 0, NULL, 0, NULL, NULL};
        NeutronDataConfig data = {inputs, outputs, scratch, NULL};
        memset(out, 0, sizeof out);
        ap_neutron_job_hook(model, &job);
        CHECK(neutronRunBlocking(model, &data) != ENONE);
        CHECK(ap_neutron_sim_last()->status == AP_NEUTRON_SIM_BAD_REGION && out[8] == 0);
    }
    CHECK(neutronModelUnprepare(model) == ENONE);
}

/* The simulator's check is real: an input described as transposed but not. */
static void a_transposed_input_is_checked_element_by_element(void) {
    static const uint8_t formats[] = {1, 1}, maps[] = {0, 0};
    blob_t blob = neutron_blob_io(1, 1, 1, formats, maps);
    static _Alignas(16) uint8_t in[24 * 8], out[12 * 8], scratch[64];
    NeutronModelConfig cfg = {blob.data + 16, blob.data + 16, blob.data + 16, 60};
    NeutronModelHandle model = NULL;
    CHECK(neutronModelPrepare(&cfg, &model) == ENONE);
    const void *inputs[] = {in};
    void *outputs[] = {out, scratch, NULL, NULL};
    size_t in_size = 24, out_size = 12;
    ap_neutron_layout_t layout = {in, 1, 3, 2, 4, 1}, none[1];
    memset(none, 0, sizeof none);
    for (uint32_t b = 0; b < 24; b++) {
        in[b] = (uint8_t)b; /* NCHW and NHWC differ for these bytes */
    }
    ap_neutron_job_t job = {inputs, &in_size, 1, outputs, &out_size, 1, scratch, 64, NULL, 0, NULL, 0, NULL, 0,
                            &layout, none};
    NeutronDataConfig data = {inputs, outputs, scratch, NULL};
    ap_neutron_job_hook(model, &job);
    CHECK(neutronRunBlocking(model, &data) != ENONE);
    CHECK(ap_neutron_sim_last()->status == AP_NEUTRON_SIM_BAD_LAYOUT);
    (void)neutronModelUnprepare(model);
}

static const ctest_case_t cases[] = {
    CTEST(prepare_refuses_what_nxps_driver_needs),
    CTEST(runs_only_a_prepared_and_described_job),
    CTEST(a_run_poisons_scratch_and_writes_the_formula),
    CTEST(a_transposed_input_is_checked_element_by_element),
};

int main(void) {
    const ctest_room_t room = {"neutron_emulation", ap_neutron_host_setup, ap_neutron_sim_reset, cases,
                               sizeof cases / sizeof cases[0]};
    return ctest_main(&room);
}

/* Tests of the Neutron simulator (emulation/neutron_sim.c) through NXP's API alone, no backend:
 * its element-by-element check of a transposed input. Built twice by
 * tests/c_runtime.rs: with the simulator's declarations of NXP's API and against NXP's
 * NeutronDriver.h. */
#include "arenaplan/neutron.h"
#include "arenaplan/neutron_driver.h"
#include "arenaplan/neutron_sim.h"
#include "blobs.h"
#include "harness.h"

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
    CTEST(a_transposed_input_is_checked_element_by_element),
};

int main(void) {
    const ctest_room_t room = {"neutron_emulation", ap_neutron_host_setup, ap_neutron_sim_reset, cases,
                               sizeof cases / sizeof cases[0]};
    return ctest_main(&room);
}

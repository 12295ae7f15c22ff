/* Where each scratch role sits in a delegate call's trailing arguments (after the inputs and
 * outputs). GENERATED from arenaplan-build's scratch-slot definition
 * (build-support/src/backends/slots.rs); a test fails when the two differ.
 *
 * A call's scratch list holds the roles from slot 0 up to the last role its blob needs; a role
 * of size zero before that is an empty argument (data NULL, size 0), so every role keeps its
 * slot. A list shorter than a role's slot means the plan did not plan that role. */
#ifndef ARENAPLAN_SCRATCH_SLOTS_H
#define ARENAPLAN_SCRATCH_SLOTS_H

/* EthosUBackend: Vela's scratch (region 1), fast scratch (region 2, Dedicated_Sram). */
#define AP_ETHOSU_SLOT_SCRATCH 0u
#define AP_ETHOSU_SLOT_FAST_SCRATCH 1u
#define AP_ETHOSU_SLOTS 2u

/* NeutronBackend: scratch, SRAM scratch (weights prefetch), profile and debug buffers, transpositions. */
#define AP_NEUTRON_SLOT_SCRATCH 0u
#define AP_NEUTRON_SLOT_SRAM_SCRATCH 1u
#define AP_NEUTRON_SLOT_PROFILE 2u
#define AP_NEUTRON_SLOT_DEBUG 3u
#define AP_NEUTRON_SLOT_TRANSPOSE 4u
#define AP_NEUTRON_SLOTS 5u

#endif /* ARENAPLAN_SCRATCH_SLOTS_H */

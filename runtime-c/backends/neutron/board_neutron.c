/* Neutron board bring-up (see arenaplan/board.h): compiled with the feature `board` (over the
 * simulated driver with the simulators). Apart from the Ethos-U's, so that Ethos-U firmware never references NXP's
 * library. */
#include "arenaplan/board.h"

#include "arenaplan/neutron_driver.h"

ap_status_t ap_board_neutron_init(void) { return neutronInit() == ENONE ? AP_OK : AP_ERR_DRIVER; }

/* Everything the Rust crate binds (input to bindgen). */
#include "arenaplan/runtime.h"
#include "arenaplan/board.h"
#include "arenaplan/dcache.h"
#include "arenaplan/ethosu.h"
#include "arenaplan/ethosu_sim.h"
#include "arenaplan/neutron.h"
#include "arenaplan/neutron_sim.h"
#include "arenaplan/tflite.h"

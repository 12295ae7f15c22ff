//! The backend blob plugins (Vela bin stream, Neutron payload).
#![no_main]

use std::collections::BTreeMap;

use arenaplan_build::backends::plugin_for;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for backend in ["EthosUBackend", "NeutronBackend"] {
        let _ = plugin_for(backend).unwrap().inspect(data, &BTreeMap::new());
    }
});

//! Every kernel of the signature table binds: its shim compiles against ExecuTorch's headers
//! and links against ExecuTorch's own definition (a wrong type in the table, or a reader of
//! the wrong type, fails to link, since C++ mangles parameter types), with every symbol
//! resolved. Compiling all 245 kernels takes minutes on two cores, so this runs where
//! `ARENAPLAN_EVERY_EXECUTORCH_KERNEL=1` asks for it: CI's own step.

#[test]
fn every_kernel_of_the_table_compiles_links_and_loads() {
    if std::env::var_os("ARENAPLAN_EVERY_EXECUTORCH_KERNEL").is_none() {
        eprintln!("skipped: set ARENAPLAN_EVERY_EXECUTORCH_KERNEL=1 (CI does)");
        return;
    }
    let sources = arenaplan_host::executorch_sources()
        .expect("EXECUTORCH_PATH names ExecuTorch's sources")
        .unwrap();
    let all: Vec<&'static arenaplan_build::executorch::Signature> =
        arenaplan_build::executorch::signatures::all()
            .iter()
            .collect();
    let caps = arenaplan_build::executorch::Capacities {
        tensors: 16,
        rank: 8,
        list: 16,
    };
    let kernels = arenaplan_host::ExecuTorchKernels::for_operators(&sources, &all, caps, None)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(kernels.entries().len(), all.len());
    for (entry, sig) in kernels.entries().iter().zip(&all) {
        // SAFETY: each name is a static C string of the loaded library.
        let name = unsafe { std::ffi::CStr::from_ptr(entry.name) };
        assert_eq!(name.to_str().unwrap(), sig.op);
    }
}

//! `Model` over a program whose "C functions" are written here in Rust, so the tests run under
//! Miri too (CI: `cargo +nightly miri test -p arenaplan --test model`): one model at a time,
//! zeroed inputs and outputs, constants never written, runs, errors naming their call, and
//! teardown.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use arenaplan::sys::ap_status;
use arenaplan::{Arena, ArenaSpan, CMethod, CProgram, CallArgs, Model, Program};

/// A fake generated program: method 0 doubles its 8-byte input into output 0 (arena) and has a
/// constant output 1 in read-only memory; method `reset` has one constant output and one output
/// outside any arena. Each use gets its own module, so tests run in parallel.
macro_rules! fake_program {
    ($m:ident) => {
        mod $m {
            use super::*;

            pub static ARENA: Arena<64, 16> = Arena::new();
            /// A constant output: in read-only memory, so Miri reports any write to it.
            pub static CONSTANT: [u8; 4] = [1, 2, 3, 4];
            /// Memory that is not an arena (read-only, so Miri reports a write): never lent
            /// mutably, never zeroed.
            pub static OUTSIDE: [u8; 8] = [9; 8];
            pub static INITS: AtomicU32 = AtomicU32::new(0);
            pub static DEINITS: AtomicU32 = AtomicU32::new(0);
            pub static FAIL_RUN: AtomicBool = AtomicBool::new(false);
            pub static FAIL_INIT: AtomicBool = AtomicBool::new(false);

            fn at(offset: usize, len: u32, size: *mut u32) -> *mut u8 {
                // SAFETY: `size` is the model's own local.
                unsafe { *size = len };
                ARENA.as_ptr().wrapping_add(offset)
            }
            extern "C" fn init() -> ap_status {
                INITS.fetch_add(1, Ordering::SeqCst);
                if FAIL_INIT.load(Ordering::SeqCst) {
                    ap_status::AP_ERR_BAD_BLOB
                } else {
                    ap_status::AP_OK
                }
            }
            extern "C" fn deinit() {
                DEINITS.fetch_add(1, Ordering::SeqCst);
            }
            extern "C" fn input(index: u32, size: *mut u32) -> *mut u8 {
                match index {
                    0 => at(0, 8, size),
                    _ => core::ptr::null_mut(),
                }
            }
            extern "C" fn output(index: u32, size: *mut u32) -> *const u8 {
                match index {
                    0 => at(16, 8, size),
                    1 => {
                        // SAFETY: as in `at`.
                        unsafe { *size = 4 };
                        CONSTANT.as_ptr()
                    }
                    _ => core::ptr::null(),
                }
            }
            extern "C" fn run() -> ap_status {
                if FAIL_RUN.load(Ordering::SeqCst) {
                    return ap_status::AP_ERR_DRIVER;
                }
                let base = ARENA.as_ptr();
                for i in 0..8 {
                    // SAFETY: bytes 0..8 and 16..24 of the arena; no slice of them is alive
                    // during a run (`Model::run` takes `&mut self`).
                    unsafe { *base.add(16 + i) = (*base.add(i)).wrapping_mul(2) };
                }
                ap_status::AP_OK
            }
            extern "C" fn failed_call() -> u32 {
                if FAIL_INIT.load(Ordering::SeqCst) {
                    0
                } else {
                    5
                }
            }
            extern "C" fn reset_input(_: u32, size: *mut u32) -> *mut u8 {
                // SAFETY: as in `at`.
                unsafe { *size = 8 };
                OUTSIDE.as_ptr().cast_mut()
            }
            extern "C" fn reset_output(index: u32, size: *mut u32) -> *const u8 {
                // SAFETY: as in `at`.
                unsafe { *size = if index == 0 { 4 } else { 8 } };
                if index == 0 {
                    CONSTANT.as_ptr()
                } else {
                    OUTSIDE.as_ptr()
                }
            }
            extern "C" fn reset_run() -> ap_status {
                ap_status::AP_OK
            }

            pub struct Plan;
            impl Program for Plan {
                // SAFETY: the functions above behave as generated ones do.
                const C: CProgram = unsafe {
                    CProgram::new(
                        init,
                        deinit,
                        &[
                            CMethod::new("forward", 1, 2, input, output, run, failed_call),
                            CMethod::new(
                                "reset",
                                1,
                                2,
                                reset_input,
                                reset_output,
                                reset_run,
                                failed_call,
                            ),
                        ],
                    )
                };
                const CALLS: &'static [CallArgs] = &[CallArgs {
                    index: 5,
                    delegate: true,
                    backend: "EthosUBackend",
                    args: &[0, 1, 2],
                    inputs: 1,
                    outputs: 1,
                    scratch: 1,
                }];
                fn arenas() -> &'static [ArenaSpan] {
                    static SPANS: [ArenaSpan; 1] = [ARENA.span()];
                    &SPANS
                }
                fn taken() -> &'static AtomicBool {
                    static TAKEN: AtomicBool = AtomicBool::new(false);
                    &TAKEN
                }
            }
            pub type M = Model<Plan>;
        }
    };
}

fake_program!(one_at_a_time);
fake_program!(zeroing);
fake_program!(running);
fake_program!(failing);
fake_program!(failing_init);
fake_program!(ranges);

#[test]
fn one_model_exists_at_a_time_and_dropping_it_gives_it_back() {
    use one_at_a_time::*;
    let model = M::take().expect("the first take");
    assert!(M::take().is_none(), "a second model while the first lives");
    drop(model);
    let _again = M::take().expect("taken again after the drop");
    assert_eq!(DEINITS.load(Ordering::SeqCst), 0, "never initialized");
}

#[test]
fn take_zeroes_arena_inputs_and_outputs_and_never_a_constant() {
    use zeroing::*;
    // SAFETY: no model exists; the bytes are the arena's (a stand-in for what was there).
    unsafe { core::ptr::write_bytes(ARENA.as_ptr(), 0xAB, 64) };
    let mut model = M::take().unwrap();
    assert_eq!(model.input(0), &[0; 8]);
    assert_eq!(model.output(0), &[0; 8]);
    assert_eq!(model.output(1), &[1, 2, 3, 4], "the constant is as it was");
    assert_eq!(model.method_output(1, 0), &[1, 2, 3, 4]);
    // SAFETY: bytes the model did not lend: not inputs or outputs, so not zeroed.
    assert_eq!(unsafe { *ARENA.as_ptr().add(8) }, 0xAB);
}

#[test]
fn a_run_reads_inputs_and_writes_outputs_and_init_happens_once() {
    use running::*;
    {
        let mut model = M::take().unwrap();
        model.input(0).copy_from_slice(&[1, 2, 3, 4, 5, 6, 7, 200]);
        model.run().unwrap();
        assert_eq!(model.output(0), &[2, 4, 6, 8, 10, 12, 14, 144]);
        model.run_method(M::method("reset").unwrap()).unwrap();
        model.run().unwrap();
        assert_eq!(INITS.load(Ordering::SeqCst), 1);
    }
    assert_eq!(
        DEINITS.load(Ordering::SeqCst),
        1,
        "the drop destroys what init made"
    );
}

#[test]
fn a_failed_run_names_its_call_and_backend() {
    use failing::*;
    let mut model = M::take().unwrap();
    FAIL_RUN.store(true, Ordering::SeqCst);
    let e = model.run().unwrap_err();
    assert_eq!((e.call, e.backend), (5, "EthosUBackend"));
    assert_eq!(e.status.0, ap_status::AP_ERR_DRIVER);
}

#[test]
fn a_failed_init_is_tried_again_and_never_torn_down() {
    use failing_init::*;
    FAIL_INIT.store(true, Ordering::SeqCst);
    {
        let mut model = M::take().unwrap();
        let e = model.run().unwrap_err();
        assert_eq!(
            (e.call, e.backend, e.status.0),
            (0, "", ap_status::AP_ERR_BAD_BLOB)
        );
        FAIL_INIT.store(false, Ordering::SeqCst);
        model.run().unwrap();
        assert_eq!(INITS.load(Ordering::SeqCst), 2);
    }
    assert_eq!(DEINITS.load(Ordering::SeqCst), 1);
}

#[test]
fn memory_outside_the_arenas_is_never_lent_mutably_or_written() {
    use ranges::*;
    let mut model = M::take().unwrap();
    assert!(
        model.method_input(1, 0).is_empty(),
        "outside every arena: empty"
    );
    // Output 1 of `reset` lies there too: read as it is, never zeroed.
    assert_eq!(model.method_output(1, 1), &[9; 8]);
    assert_eq!(M::method("nothing"), None);
    assert_eq!(M::method("forward"), Some(0));
}

#[test]
#[should_panic(expected = "method 0 has 1 inputs")]
fn an_input_out_of_range_panics() {
    // Its own program, so the panic leaves no other test's model taken.
    fake_program!(panicking);
    let mut model = panicking::M::take().unwrap();
    let _ = model.input(1);
}

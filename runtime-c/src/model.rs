//! The planned model's safe API, written once for every plan: [`Model`] over a [`Program`],
//! which the generated module implements with data (its C functions, call table and arenas).
//!
//! Why it is built this way:
//! - **One `Model` at a time.** The C runtime keeps each method's state in one static, so
//!   [`Model::take`] hands out the model once (like `Peripherals::take`) and `Drop` gives it
//!   back.
//! - **Inputs and outputs are the planned buffers themselves**, lent as byte slices:
//!   `&mut self` for an input, `&self` for an output, `&mut self` for a run, so no slice outlives
//!   the run that may overwrite it.
//! - **The model writes only its arenas.** The arenas start uninitialised (no start-up cost);
//!   `take` zeroes every input and output that lies inside one, so safe code never reads
//!   uninitialised bytes. An output that is a constant (a constant method's, in flash) lies in
//!   no arena, so it is never written, and no input outside an arena is ever lent mutably: the
//!   check is by address, not by a flag a table could get wrong.

use core::fmt;
use core::marker::PhantomData;
use core::sync::atomic::{AtomicBool, Ordering};

use crate::runtime::{check, RuntimeError};
use crate::sys::ap_status;
use crate::tables::{ArenaSpan, CallArgs};

/// One method's functions in the generated C program (`NAME_input`, `NAME_run`, …), with its
/// name and counts. Made by [`c_program!`](crate::c_program), in generated code.
#[derive(Clone, Copy)]
pub struct CMethod {
    name: &'static str,
    inputs: u32,
    outputs: u32,
    input: unsafe extern "C" fn(u32, *mut u32) -> *mut u8,
    output: unsafe extern "C" fn(u32, *mut u32) -> *const u8,
    run: unsafe extern "C" fn() -> ap_status,
    failed_call: unsafe extern "C" fn() -> u32,
}

impl CMethod {
    /// A method of `inputs` inputs and `outputs` outputs, run by these functions.
    ///
    /// # Safety
    /// The functions must be those the build generated for this method (or behave as they do):
    /// `input` and `output` return NULL or the address of `*size` bytes that stay valid for the
    /// program's life and are written by nothing but the runtime's runs; `run` and
    /// `failed_call` may be called at any time on one thread.
    #[allow(clippy::too_many_arguments)]
    pub const unsafe fn new(
        name: &'static str,
        inputs: u32,
        outputs: u32,
        input: unsafe extern "C" fn(u32, *mut u32) -> *mut u8,
        output: unsafe extern "C" fn(u32, *mut u32) -> *const u8,
        run: unsafe extern "C" fn() -> ap_status,
        failed_call: unsafe extern "C" fn() -> u32,
    ) -> Self {
        CMethod {
            name,
            inputs,
            outputs,
            input,
            output,
            run,
            failed_call,
        }
    }

    /// Its name in the program (empty for a program with one method).
    pub const fn name(&self) -> &'static str {
        self.name
    }
}

/// The generated C program's functions: `NAME_init` and `NAME_deinit`, which set up and tear
/// down every method, and each method's own. Made by [`c_program!`](crate::c_program).
#[derive(Clone, Copy)]
pub struct CProgram {
    init: unsafe extern "C" fn() -> ap_status,
    deinit: unsafe extern "C" fn(),
    methods: &'static [CMethod],
}

impl CProgram {
    /// The program of these functions; the first method is the default one.
    ///
    /// # Safety
    /// As for [`CMethod::new`]: `init` initializes every method's delegates (and may fail),
    /// `deinit` destroys what a successful `init` made.
    pub const unsafe fn new(
        init: unsafe extern "C" fn() -> ap_status,
        deinit: unsafe extern "C" fn(),
        methods: &'static [CMethod],
    ) -> Self {
        CProgram {
            init,
            deinit,
            methods,
        }
    }

    /// Its methods.
    pub const fn methods(&self) -> &'static [CMethod] {
        self.methods
    }
}

/// A planned program, as the generated module describes it (`arenaplan_plan::Plan`).
///
/// Generated code implements it with data only: the C functions come from
/// [`c_program!`](crate::c_program), the only place that vouches for them.
pub trait Program: 'static {
    /// The generated C program's functions.
    const C: CProgram;
    /// Every call with its backend, to name the one a run failed at.
    const CALLS: &'static [CallArgs];
    /// Where the program's arenas lie.
    fn arenas() -> &'static [ArenaSpan];
    /// Whether its one [`Model`] is taken.
    fn taken() -> &'static AtomicBool;
}

/// Why init or a run failed: the call (its flat instruction index), its backend, and the
/// runtime's status. A failure of init that is about no one call (a delegate's blob, a missing
/// backend) names the first call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunError {
    /// The call init or run stopped at (flat instruction index).
    pub call: u32,
    /// Its backend id (empty for a kernel).
    pub backend: &'static str,
    /// What the runtime said.
    pub status: RuntimeError,
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "call {} ({}): {}", self.call, self.backend, self.status)
    }
}

/// The planned model: its arenas, tables and delegates. One exists at a time ([`Model::take`]);
/// its inputs and outputs are the planned buffers themselves.
///
/// The generated module's `Model` (after [`include_plan!`](crate::include_plan) at the crate
/// root); the workspace's `arenaplan-firmware-test` compiles this example against its plan:
///
#[doc = concat!("```ignore\n", include_str!("doc/model.rs"), "```")]
pub struct Model<P: Program> {
    initialized: bool,
    /// Not `Send` or `Sync`: the runtime's state is one static.
    _not_send: PhantomData<(*mut (), P)>,
}

impl<P: Program> Model<P> {
    /// The model, if no other `Model` of this program exists; dropping it destroys its
    /// delegates and lets it be taken again. Zeroes every input and output that lies in an
    /// arena.
    pub fn take() -> Option<Self> {
        if P::taken().swap(true, Ordering::AcqRel) {
            return None;
        }
        for method in P::C.methods {
            for index in 0..method.inputs {
                if let Some((at, len)) = in_arena::<P>(io(method.input, index)) {
                    // SAFETY: `len` bytes of an arena (checked by address), and no slice of
                    // the model's memory exists yet: the one `Model` is being made.
                    unsafe { core::ptr::write_bytes(at, 0, len) };
                }
            }
            for index in 0..method.outputs {
                let (at, len) = io(method.output, index);
                if let Some((at, len)) = in_arena::<P>((at.cast_mut(), len)) {
                    // SAFETY: as above; an output in flash lies in no arena and is skipped.
                    unsafe { core::ptr::write_bytes(at, 0, len) };
                }
            }
        }
        Some(Model {
            initialized: false,
            _not_send: PhantomData,
        })
    }

    /// Input `index` of the default method, to fill before each [`Model::run`] (the plan may
    /// reuse an input's memory once the input is read, so a run can leave other bytes there).
    /// Panics when `index` is out of range; empty for an input with no memory.
    pub fn input(&mut self, index: usize) -> &mut [u8] {
        self.method_input(0, index)
    }

    /// Output `index` of the default method, as the last [`Model::run`] left it (zeros before
    /// the first run). Panics when `index` is out of range; empty for an output with no memory.
    pub fn output(&self, index: usize) -> &[u8] {
        self.method_output(0, index)
    }

    /// Runs the default method; the first run of any method also initializes every method's
    /// delegates from their blobs.
    pub fn run(&mut self) -> Result<(), RunError> {
        self.run_method(0)
    }

    /// The index of the method named `name` (`forward`), for [`Model::run_method`].
    pub fn method(name: &str) -> Option<usize> {
        P::C.methods.iter().position(|m| m.name == name)
    }

    /// Input `index` of method `method`, to fill just before [`Model::run_method`] runs it:
    /// methods share memory (one runs at a time, as in ExecuTorch), so another method's run
    /// may overwrite it. Panics when either is out of range.
    pub fn method_input(&mut self, method: usize, index: usize) -> &mut [u8] {
        let m = Self::nth(method);
        assert!(
            index < m.inputs as usize,
            "method {method} has {} inputs",
            m.inputs
        );
        match in_arena::<P>(io(m.input, index as u32)) {
            // SAFETY: `len` bytes of an arena, which only the runtime's runs write, lent for
            // as long as `self` is borrowed mutably (so no run happens meanwhile).
            Some((at, len)) => unsafe { core::slice::from_raw_parts_mut(at, len) },
            None => &mut [],
        }
    }

    /// Output `index` of method `method`, as its last run left it, if no other method has run
    /// since: methods share memory, so read it before running another (zeros before the first
    /// run). Panics when either is out of range.
    pub fn method_output(&self, method: usize, index: usize) -> &[u8] {
        let m = Self::nth(method);
        assert!(
            index < m.outputs as usize,
            "method {method} has {} outputs",
            m.outputs
        );
        match io(m.output, index as u32) {
            (at, _) if at.is_null() => &[],
            // SAFETY: the method's output: an arena buffer zeroed by `take` or written by a
            // run, or a constant; nothing writes it while `self` is borrowed (runs take
            // `&mut self`).
            (at, len) => unsafe { core::slice::from_raw_parts(at, len) },
        }
    }

    /// Runs method `method`. State shared between methods keeps its contents from one run to
    /// the next. Panics when `method` is out of range.
    pub fn run_method(&mut self, method: usize) -> Result<(), RunError> {
        let m = Self::nth(method);
        if !self.initialized {
            let first = Self::nth(0);
            // SAFETY: the generated program's init, once per `Model` until it succeeds.
            check(unsafe { (P::C.init)() }).map_err(|s| Self::error(first, s))?;
            self.initialized = true;
        }
        // SAFETY: the generated method's run; no slice of the model's memory is alive.
        check(unsafe { (m.run)() }).map_err(|s| Self::error(m, s))
    }

    fn nth(method: usize) -> &'static CMethod {
        let methods = P::C.methods;
        assert!(
            method < methods.len(),
            "the program has {} methods",
            methods.len()
        );
        &methods[method]
    }

    fn error(m: &CMethod, status: RuntimeError) -> RunError {
        // SAFETY: reads the flat index of the call the method stopped at.
        let call = unsafe { (m.failed_call)() };
        let backend = P::CALLS
            .iter()
            .find(|c| c.index == call)
            .map_or("", |c| c.backend);
        RunError {
            call,
            backend,
            status,
        }
    }
}

impl<P: Program> Drop for Model<P> {
    fn drop(&mut self) {
        if self.initialized {
            // SAFETY: destroys the delegates the successful init made.
            unsafe { (P::C.deinit)() };
        }
        P::taken().store(false, Ordering::Release);
    }
}

/// The address and size the C program gives for input or output `index`.
fn io<R>(f: unsafe extern "C" fn(u32, *mut u32) -> R, index: u32) -> (R, usize) {
    let mut size = 0u32;
    // SAFETY: a generated accessor, which checks `index` and writes `size` or nothing.
    let at = unsafe { f(index, &mut size) };
    (at, size as usize)
}

/// `at` and `len` when they are non-empty and lie inside one of the program's arenas.
fn in_arena<P: Program>((at, len): (*mut u8, usize)) -> Option<(*mut u8, usize)> {
    let inside = !at.is_null() && len > 0 && P::arenas().iter().any(|a| a.holds(at, len));
    inside.then_some((at, len))
}

//! The macros generated code links through, so that the generated module itself holds no
//! `unsafe`: [`c_method!`](crate::c_method) and [`c_program!`](crate::c_program) vouch for the
//! generated C program's functions,
//! and [`link_static!`](crate::link_static) defines or declares a static under a C symbol name
//! (and a linker section). Each is written and reviewed here, once.

/// One method of the generated C program as a [`CMethod`](crate::CMethod): its name, its input
/// and output counts, and its four functions by symbol name. For generated code: the build
/// script emits the call, with the names of the C functions it generated and compiled beside
/// it.
///
/// ```ignore
/// const METHODS: &[arenaplan::CMethod] = &[arenaplan::c_method!(
///     "forward", 1, 1, "kws_input", "kws_output", "kws_run", "kws_failed_call"
/// )];
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! c_method {
    (
        $name:literal, $inputs:literal, $outputs:literal,
        $input:literal, $output:literal, $run:literal, $failed:literal $(,)?
    ) => {{
        unsafe extern "C" {
            #[link_name = $input]
            fn input(index: u32, size: *mut u32) -> *mut u8;
            #[link_name = $output]
            fn output(index: u32, size: *mut u32) -> *const u8;
            #[link_name = $run]
            fn run() -> $crate::sys::ap_status;
            #[link_name = $failed]
            fn failed_call() -> u32;
        }
        // SAFETY: the functions the build generated for this method, compiled from the same
        // plan as the module this expands in and linked by its `cc_build()`.
        unsafe { $crate::CMethod::new($name, $inputs, $outputs, input, output, run, failed_call) }
    }};
}

/// The generated C program as a [`CProgram`](crate::CProgram): its init and deinit by symbol
/// name, and its methods (made by [`c_method!`](crate::c_method)). For generated code.
///
/// ```ignore
/// const C: arenaplan::CProgram = arenaplan::c_program!("kws_init", "kws_deinit", METHODS);
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! c_program {
    ($init:literal, $deinit:literal, $methods:expr $(,)?) => {{
        unsafe extern "C" {
            #[link_name = $init]
            fn init() -> $crate::sys::ap_status;
            #[link_name = $deinit]
            fn deinit();
        }
        // SAFETY: as for `c_method!`: the program's own init and deinit.
        unsafe { $crate::CProgram::new(init, deinit, $methods) }
    }};
}

/// A static under a C symbol name: defined here (in a linker section, or not), or declared
/// here and defined by the generated C source. For generated code.
///
/// ```ignore
/// arenaplan::link_static! {
///     /// The arena of pool `sram`.
///     pub static ARENA_SRAM: ArenaSram = arenaplan::Arena::new();
///     section = ".bss.arenaplan.sram"; symbol = "kws_arena_sram";
/// }
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! link_static {
    (
        $(#[$meta:meta])* $vis:vis static $name:ident: $ty:ty = $init:expr;
        section = $section:literal; symbol = $symbol:literal;
    ) => {
        $(#[$meta])*
        #[unsafe(link_section = $section)]
        #[unsafe(export_name = $symbol)]
        $vis static $name: $ty = $init;
    };
    (
        $(#[$meta:meta])* $vis:vis static $name:ident: $ty:ty = $init:expr;
        symbol = $symbol:literal;
    ) => {
        $(#[$meta])*
        #[unsafe(export_name = $symbol)]
        $vis static $name: $ty = $init;
    };
    (
        $(#[$meta:meta])* $vis:vis static $name:ident: $ty:ty;
        symbol = $symbol:literal;
    ) => {
        // SAFETY: the generated C source defines the symbol with this layout (its header checks
        // the table types' sizes), immutable or reached only through raw pointers.
        unsafe extern "C" {
            $(#[$meta])*
            #[link_name = $symbol]
            $vis safe static $name: $ty;
        }
    };
}

//! ExecuTorch's own kernels for one program, compiled for the host and loaded: what a
//! firmware build compiles into the firmware (`Generated::executorch_build`), the host runner
//! compiles into a shared library and loads, so `arenaplan run` and the tests run the same C++.
//!
//! Only the operators the program calls are compiled, each kernel file for the dtypes the
//! program's calls use (the firmware's units, `executorch::selection`). Objects are cached by their source's
//! bytes and flags (`ARENAPLAN_KERNEL_CACHE`, default in this crate's build folder), so a
//! kernel compiles once however many programs call it; files are written under a temporary
//! name and renamed, so runners in parallel never see half a file.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::string::String;
use std::vec::Vec;

use arenaplan::sys;
use arenaplan_build::executorch::{
    bridge_headers, kernel_files, need_cmsis_nn, program_operators, render_shims, render_unit,
    Capacities, Dtypes, ExecuTorchSources, Signature, BRIDGE_SOURCE, DEFINES, ENV_EXECUTORCH_PATH,
    EXECUTORCH_FETCH, FLAGS,
};
use arenaplan_build::model::Program;
use arenaplan_syntax::digest::fnv1a;
use arenaplan_syntax::names::kernel_symbol;

/// The environment variable naming the folder compiled kernels are cached in.
pub const ENV_KERNEL_CACHE: &str = "ARENAPLAN_KERNEL_CACHE";

/// ExecuTorch's kernels for one program, loaded: the entries stay valid while this lives.
///
/// ```
/// # fn main() -> Result<(), String> {
/// // A program without ExecuTorch operators needs none, and nothing is compiled.
/// let program = arenaplan_build::model::Program::new("no_kernel_calls");
/// let kernels = arenaplan_host::ExecuTorchKernels::for_program(&program)?;
/// assert!(kernels.entries().is_empty());
/// # Ok(())
/// # }
/// ```
pub struct ExecuTorchKernels {
    entries: Vec<sys::ap_kernel>,
    // Holds the code the entries point into; dropped last.
    _library: Option<libloading::Library>,
}

impl std::fmt::Debug for ExecuTorchKernels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExecuTorchKernels")
            .field("kernels", &self.entries.len())
            .finish()
    }
}

impl ExecuTorchKernels {
    /// Compiles (or finds compiled) and loads the kernels of `program`'s operators that run on
    /// ExecuTorch's kernels; none when it calls none. The sources are `EXECUTORCH_PATH`'s (or
    /// the path it had when this crate was built).
    pub fn for_program(program: &Program) -> Result<Self, String> {
        Self::for_program_dtypes(program, false)
    }

    /// [`ExecuTorchKernels::for_program`], for every dtype when `all_dtypes`.
    pub fn for_program_dtypes(program: &Program, all_dtypes: bool) -> Result<Self, String> {
        // The host runner registers no kernels of its own for operators ExecuTorch implements.
        let ops = program_operators(program, |_| false);
        if ops.is_empty() {
            return Ok(ExecuTorchKernels {
                entries: Vec::new(),
                _library: None,
            });
        }
        let sources = sources().ok_or_else(|| {
            let names: Vec<String> = ops.iter().map(|s| format!("`{}`", s.op)).collect();
            format!(
                "{} run on ExecuTorch's own kernels, compiled from its sources: set \
                 {ENV_EXECUTORCH_PATH} to a checkout of ExecuTorch (a folder named `executorch`; \
                 {EXECUTORCH_FETCH})",
                names.join(", ")
            )
        })??;
        let caps = Capacities::of(program, |op| ops.iter().any(|s| s.op == op));
        caps.check()?;
        let dtypes = (!all_dtypes).then(|| Dtypes::of(program, &ops));
        Self::for_operators(&sources, &ops, caps, dtypes.as_ref())
    }

    /// Compiles (or finds compiled) and loads the kernels of `ops` from `sources`, with argument
    /// storage for `caps`, for `dtypes` (`None`: every dtype): every symbol resolved when the
    /// library is linked.
    pub fn for_operators(
        sources: &ExecuTorchSources,
        ops: &[&'static Signature],
        caps: Capacities,
        dtypes: Option<&Dtypes>,
    ) -> Result<Self, String> {
        let library = compile(sources, ops, caps, dtypes)?;
        // SAFETY: the library is ours, just compiled from ExecuTorch's kernels and the bridge;
        // loading it runs no initializer beyond C++ statics of those files.
        let library = unsafe { libloading::Library::new(&library) }
            .map_err(|e| format!("loading {}: {e}", library.display()))?;
        let mut entries = Vec::with_capacity(ops.len());
        for sig in ops {
            let symbol = kernel_symbol(sig.op);
            // SAFETY: the shim file defines `symbol` as a const ap_kernel_t.
            let entry: libloading::Symbol<'_, *const sys::ap_kernel> =
                unsafe { library.get(symbol.as_bytes()) }
                    .map_err(|e| format!("{symbol} in the compiled kernels: {e}"))?;
            // SAFETY: a const struct of the loaded library, which outlives the copy.
            entries.push(unsafe { **entry });
        }
        Ok(ExecuTorchKernels {
            entries,
            _library: Some(library),
        })
    }

    /// The kernels, as entries of the list `ap_method_init` resolves calls against.
    pub fn entries(&self) -> &[sys::ap_kernel] {
        &self.entries
    }
}

/// ExecuTorch's sources: the environment's, else those this crate was built with.
pub fn sources() -> Option<Result<ExecuTorchSources, String>> {
    ExecuTorchSources::from_env()
        .or_else(|| option_env!("ARENAPLAN_HOST_EXECUTORCH_PATH").map(ExecuTorchSources::at))
}

fn cache_dir() -> PathBuf {
    std::env::var_os(ENV_KERNEL_CACHE)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("ARENAPLAN_HOST_KERNEL_CACHE")))
}

/// CMSIS-NN's checkout: the environment's, else the one this crate was built with.
fn cmsis_nn() -> Option<PathBuf> {
    std::env::var_os("CMSIS_NN_PATH")
        .map(PathBuf::from)
        .or_else(|| option_env!("ARENAPLAN_HOST_CMSIS_NN_PATH").map(PathBuf::from))
}

/// The C files of CMSIS-NN the runtime compiles (its list), for the Cortex-M operators.
fn cmsis_nn_files(nn: &Path) -> Result<Vec<PathBuf>, String> {
    let list = env!("ARENAPLAN_HOST_CMSIS_NN_SOURCES");
    let text = std::fs::read_to_string(list).map_err(|e| format!("reading {list}: {e}"))?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| nn.join(l))
        .collect())
}

/// The host's C (or C++) compiler as a build script finds it, unoptimized, with its default
/// arguments, position-independent code (a shared library) and no warnings (the sources are
/// ExecuTorch's and CMSIS-NN's, not ours to fix).
fn host_tool(cpp: bool) -> Result<(PathBuf, Vec<String>), String> {
    let target = env!("ARENAPLAN_HOST_TARGET");
    let tool = cc::Build::new()
        .cpp(cpp)
        .target(target)
        .host(target)
        .opt_level(0)
        .debug(false)
        .cargo_metadata(false)
        .try_get_compiler()
        .map_err(|e| {
            format!(
                "no C{} compiler for the host: {e}",
                if cpp { "++" } else { "" }
            )
        })?;
    let mut args: Vec<String> = tool
        .args()
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    args.extend(["-fPIC".into(), "-w".into()]);
    Ok((tool.path().to_path_buf(), args))
}

/// The C compiler and its flags, for CMSIS-NN's files.
fn c_compiler(nn: &Path) -> Result<(PathBuf, Vec<String>), String> {
    let (tool, mut args) = host_tool(false)?;
    args.push("-std=c11".into());
    args.push(format!("-I{}", nn.join("Include").display()));
    Ok((tool, args))
}

/// The C++ compiler and the flags every kernel file gets. Unoptimized, as a debug build's C:
/// the host runs small programs, and the tests compile every fixture's kernels from a fresh
/// clone (a third faster than `-O1`); the arithmetic is IEEE's either way (SSE, no contraction
/// without FMA).
fn compiler(
    sources: &ExecuTorchSources,
    nn: Option<&Path>,
) -> Result<(PathBuf, Vec<String>), String> {
    let (tool, mut args) = host_tool(true)?;
    // Each multiply and add rounded on its own on every host (an Arm host would fuse them).
    args.push("-ffp-contract=off".into());
    args.extend(FLAGS.iter().map(|f| f.to_string()));
    args.extend(DEFINES.iter().map(|d| format!("-D{d}")));
    // A kernel that fails says why on stderr (ap_et_platform.cpp prints ExecuTorch's log).
    args.push("-DET_LOG_ENABLED=1".into());
    for dir in sources.includes() {
        args.push(format!("-I{}", dir.display()));
    }
    args.push(format!("-I{}", env!("ARENAPLAN_HOST_BRIDGE")));
    args.push(format!("-I{}", env!("ARENAPLAN_HOST_RUNTIME_INCLUDE")));
    if let Some(nn) = nn {
        args.push(format!("-I{}", nn.join("Include").display()));
    }
    Ok((tool, args))
}

/// Compiles what `ops` need into a shared library (reusing cached objects) and returns its
/// path.
fn compile(
    sources: &ExecuTorchSources,
    ops: &[&'static Signature],
    caps: Capacities,
    dtypes: Option<&Dtypes>,
) -> Result<PathBuf, String> {
    let cache = cache_dir();
    let nn = if need_cmsis_nn(ops) {
        Some(cmsis_nn().ok_or_else(|| {
            "the program's Cortex-M operators call CMSIS-NN: set CMSIS_NN_PATH to a checkout of \
             Arm's CMSIS-NN"
                .to_string()
        })?)
    } else {
        None
    };
    let (cxx, args) = compiler(sources, nn.as_deref())?;
    let bridge_key = bridge_headers(Path::new(env!("ARENAPLAN_HOST_BRIDGE")))?;
    let shim = render_shims(ops, caps)?;
    let shim_path = cache
        .join("shims")
        .join(format!("{:016x}.cpp", fnv1a(shim.as_bytes())));
    write_atomically(&shim_path, shim.as_bytes())?;
    // Each kernel file through its unit, as the firmware compiles it; the unit's key holds the
    // kernel file's bytes too (the unit only names it).
    let mut extra_key: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    let mut files = Vec::new();
    for file in kernel_files(ops) {
        let unit = render_unit(file, ops, dtypes);
        let path = cache
            .join("units")
            .join(format!("{:016x}.cpp", fnv1a(unit.as_bytes())));
        write_atomically(&path, unit.as_bytes())?;
        let kernel = sources.root().join(file);
        let bytes =
            std::fs::read(&kernel).map_err(|e| format!("reading {}: {e}", kernel.display()))?;
        extra_key.push((path.clone(), bytes));
        files.push(path);
    }
    files.extend(sources.support_files(ops));
    files.push(Path::new(env!("ARENAPLAN_HOST_BRIDGE")).join(BRIDGE_SOURCE));
    files.push(shim_path);

    let mut units: Vec<(PathBuf, &Path, &[String])> = files
        .into_iter()
        .map(|f| (f, cxx.as_path(), &args[..]))
        .collect();
    let c = match &nn {
        Some(nn) => Some((cmsis_nn_files(nn)?, c_compiler(nn)?)),
        None => None,
    };
    if let Some((c_files, (cc, c_args))) = &c {
        for f in c_files {
            units.push((f.clone(), cc.as_path(), &c_args[..]));
        }
    }
    link_library(&cache, &cxx, units, &extra_key, &bridge_key)
}

/// Compiles `units` (source, compiler, arguments), each object cached by its key (flags,
/// source bytes, the kernel file a unit names in `extra_key`, the bridge's headers), and links
/// them into a shared library with every symbol resolved: its path.
fn link_library(
    cache: &Path,
    cxx: &Path,
    units: Vec<(PathBuf, &Path, &[String])>,
    extra_key: &[(PathBuf, Vec<u8>)],
    bridge_key: &[u8],
) -> Result<PathBuf, String> {
    let mut jobs: Vec<(PathBuf, PathBuf, &Path, &[String])> = Vec::with_capacity(units.len());
    for (file, tool, args) in units {
        let file = &file;
        let bytes = std::fs::read(file).map_err(|e| format!("reading {}: {e}", file.display()))?;
        let mut key = (args.join("\u{1f}") + &tool.display().to_string()).into_bytes();
        key.extend_from_slice(file.display().to_string().as_bytes());
        key.extend_from_slice(&bytes);
        if let Some((_, kernel)) = extra_key.iter().find(|(p, _)| p == file) {
            key.extend_from_slice(kernel);
        }
        key.extend_from_slice(bridge_key);
        let object = cache.join("obj").join(format!("{:016x}.o", fnv1a(&key)));
        jobs.push((file.clone(), object, tool, args));
    }
    let todo: Vec<_> = jobs.iter().filter(|(_, o, _, _)| !o.is_file()).collect();
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::<String>::new());
    std::thread::scope(|scope| {
        for _ in 0..workers.min(todo.len()) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((src, object, tool, args)) = todo.get(i) else {
                    break;
                };
                if let Err(e) = compile_one(tool, args, src, object) {
                    failures.lock().unwrap_or_else(|p| p.into_inner()).push(e);
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap_or_else(|p| p.into_inner());
    if let Some(first) = failures.into_iter().next() {
        return Err(first);
    }

    let objects: Vec<&PathBuf> = jobs.iter().map(|(_, o, _, _)| o).collect();
    let key: String = objects.iter().map(|o| o.display().to_string()).collect();
    let library = cache
        .join("lib")
        .join(format!("{:016x}.so", fnv1a(key.as_bytes())));
    if !library.is_file() {
        let tmp = temporary(&library)?;
        let out = Command::new(cxx)
            .arg("-shared")
            // Every symbol resolved now: a kernel missing a helper fails here, named, rather
            // than when the runner first calls it.
            .arg("-Wl,-z,defs")
            .arg("-o")
            .arg(&tmp)
            .args(&objects)
            .output()
            .map_err(|e| format!("running {}: {e}", cxx.display()))?;
        if !out.status.success() {
            return Err(format!(
                "linking ExecuTorch's kernels failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        std::fs::rename(&tmp, &library)
            .map_err(|e| format!("writing {}: {e}", library.display()))?;
    }
    Ok(library)
}

/// Compiles `files` (C++, e.g. a test's harness beside ExecuTorch's own sources) with the
/// flags the kernels compile with, the bridge's platform file added, into a shared library
/// (cached as the kernels are): its path. For tests that run ExecuTorch's C++ as an oracle.
///
/// ```no_run
/// # fn main() -> Result<(), String> {
/// let sources = arenaplan_host::executorch_sources().ok_or("EXECUTORCH_PATH")??;
/// let library = arenaplan_host::executorch_library(&sources, &[sources.root().join("runtime/core/evalue.cpp")])?;
/// # Ok(()) }
/// ```
pub fn executorch_library(
    sources: &ExecuTorchSources,
    files: &[PathBuf],
) -> Result<PathBuf, String> {
    let cache = cache_dir();
    let (cxx, args) = compiler(sources, None)?;
    let bridge_key = bridge_headers(Path::new(env!("ARENAPLAN_HOST_BRIDGE")))?;
    let mut all = files.to_vec();
    all.push(Path::new(env!("ARENAPLAN_HOST_BRIDGE")).join(BRIDGE_SOURCE));
    let units = all
        .into_iter()
        .map(|f| (f, cxx.as_path(), &args[..]))
        .collect();
    link_library(&cache, &cxx, units, &[], &bridge_key)
}

fn compile_one(cxx: &Path, args: &[String], src: &Path, object: &Path) -> Result<(), String> {
    let tmp = temporary(object)?;
    let out = Command::new(cxx)
        .args(args)
        .arg("-c")
        .arg(src)
        .arg("-o")
        .arg(&tmp)
        .output()
        .map_err(|e| format!("running {}: {e}", cxx.display()))?;
    if !out.status.success() {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!(
            "compiling {} failed:\n{}",
            src.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    std::fs::rename(&tmp, object).map_err(|e| format!("writing {}: {e}", object.display()))
}

/// A name beside `path` no other process or thread uses.
fn temporary(path: &Path) -> Result<PathBuf, String> {
    static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    Ok(dir.join(format!(".{name}.{}.{n}.tmp", std::process::id())))
}

fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if std::fs::read(path).is_ok_and(|b| b == bytes) {
        return Ok(());
    }
    let tmp = temporary(path)?;
    std::fs::write(&tmp, bytes).map_err(|e| format!("writing {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("writing {}: {e}", path.display()))
}

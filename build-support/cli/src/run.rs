//! `arenaplan run`: runs a program on the host as firmware would run it — planned by the
//! build, on the C runtime, with arenaplan's kernels for the CPU's operators and the NPU
//! drivers' emulations — like ExecuTorch's `executor_runner`. Calls run in order in one
//! process over one set of arenas, so state carries from call to call and method to method.

use std::path::{Path, PathBuf};

use arenaplan_build::model::{DType, Program};
use arenaplan_build::{Build, Rendered};
use arenaplan_host::{Arenas, Runner};

use crate::input;
use crate::npy::{self, Array};
use crate::{Failure, Status};

/// Largest `.npy` input (a tensor of a microcontroller's model is far smaller).
const MAX_NPY_FILE: u64 = 256 << 20;

#[derive(clap::Args)]
pub(crate) struct RunArgs {
    /// The model: .pte, .tflite or .toml.
    #[arg(long)]
    model: PathBuf,
    /// Model files may name files under this folder (TOML `blob = "../x.bin"`); by default
    /// only files inside the model's own folder.
    #[arg(long, value_name = "DIR")]
    files_root: Option<PathBuf>,
    /// Target name from the catalogue (e.g. corstone-300).
    #[arg(long, env = "ARENAPLAN_TARGET")]
    target: String,
    /// A targets.toml to use instead of the built-in catalogue.
    #[arg(long)]
    targets: Option<PathBuf>,
    /// A call, in order: METHOD[:IN.npy[,IN.npy...]]. An empty METHOD is the program's
    /// first; a call without inputs runs on zero-filled inputs. Repeat for more calls.
    #[arg(long = "call", required = true)]
    calls: Vec<String>,
    /// Where outputs go: DIR/K-METHOD-I.npy is output I of call K (both counted from 0).
    #[arg(long)]
    out: PathBuf,
    /// Compile ExecuTorch's kernels for every dtype they support, not only those the
    /// program's calls use (as `plan --all-kernel-dtypes`).
    #[arg(long)]
    all_kernel_dtypes: bool,
    /// The most memory this run may take, in MiB: the planned arenas and one call's inputs
    /// and outputs (outputs are written call by call, never all held). A run that would need
    /// more is refused before anything runs.
    #[arg(long, value_name = "MIB", default_value_t = 1024)]
    memory_limit_mib: u64,
}

/// One call as given: the method and its input files.
struct CallSpec {
    method: String,
    inputs: Vec<PathBuf>,
}

fn parse_call(text: &str) -> CallSpec {
    match text.split_once(':') {
        Some((method, files)) => CallSpec {
            method: method.to_owned(),
            inputs: files
                .split(',')
                .filter(|f| !f.is_empty())
                .map(PathBuf::from)
                .collect(),
        },
        None => CallSpec {
            method: text.to_owned(),
            inputs: Vec::new(),
        },
    }
}

/// A method's name, inputs and outputs.
struct MethodIo {
    name: String,
    inputs: Vec<usize>,
    outputs: Vec<usize>,
}

fn methods(program: &Program) -> Vec<MethodIo> {
    if program.methods.is_empty() {
        return vec![MethodIo {
            name: program
                .entry_name
                .clone()
                .unwrap_or_else(|| program.name.clone()),
            inputs: program.inputs.clone(),
            outputs: program.outputs.clone(),
        }];
    }
    program
        .methods
        .iter()
        .map(|m| MethodIo {
            name: m.name.clone(),
            inputs: m.inputs.clone(),
            outputs: m.outputs.clone(),
        })
        .collect()
}

pub(crate) fn run(args: &RunArgs) -> Result<(), Failure> {
    let calls: Vec<CallSpec> = args.calls.iter().map(|c| parse_call(c)).collect();
    let catalogue = input::load_catalogue(args.targets.as_deref())?;
    let rendered: Rendered = Build::new()
        .catalogue(catalogue.clone())
        .target(&args.target)
        // The kernels run here are the host's plain-C CMSIS-NN: plan their scratch, in the
        // target's pools.
        .kernel_isa(arenaplan_build::model::Isa::Plain)
        .program(input::load_model(&args.model, args.files_root.as_deref())?)
        .name("run")
        .sources(Vec::<PathBuf>::new())
        .try_render()
        .map_err(|e| crate::plan_model::build_failure(&args.model, e))?;
    let (program, plan) = (&rendered.program, &rendered.plan);
    let io = methods(program);
    // Every call's method and inputs, checked before anything runs.
    let mut resolved = Vec::with_capacity(calls.len());
    for (k, call) in calls.iter().enumerate() {
        let m = if call.method.is_empty() {
            0
        } else {
            io.iter()
                .position(|m| m.name == call.method)
                .ok_or_else(|| {
                    Failure::bad_input(format!(
                        "--call {k}: the program has no method `{}` (it has {})",
                        call.method,
                        io.iter()
                            .map(|m| format!("`{}`", m.name))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                })?
        };
        // Read and checked now, read again when the call runs: one call's inputs are held
        // at a time.
        read_inputs(program, &io[m], k, &call.inputs)?;
        resolved.push(m);
    }
    check_memory(program, plan, &io, &resolved, args.memory_limit_mib)?;
    if let Some(why) = arenaplan_host::why_not_runnable(program) {
        return Err(Failure::new(Status::CannotRunHere, why));
    }
    let tables = arenaplan_host::method_tables(program, plan).ok_or_else(|| {
        Failure::new(
            Status::CannotRunHere,
            "the program's tables do not fit the runtime (a branch of more than two arms, or sizes beyond 32 bits)",
        )
    })?;
    let arenas = Arenas::new(program, plan);
    let runtime = |e: arenaplan::RuntimeError| Failure::new(Status::CallFailed, e);
    // The target's own NPU configuration (whatever its catalogue says) is what runs here.
    let target = catalogue
        .target(&args.target)
        .map_err(|e| Failure::bad_input(e.to_string()))?;
    let backends = arenaplan_host::emulated_backends_for(target)
        .map_err(|e| Failure::new(Status::CannotRunHere, e))?;
    let kernels =
        arenaplan_host::ProgramKernels::for_program_dtypes(program, args.all_kernel_dtypes)
            .map_err(|e| Failure::new(Status::CannotRunHere, e))?;
    let kernels = kernels.entries();
    let mut runners = Vec::with_capacity(tables.len());
    for (m, (_, t)) in tables.iter().enumerate() {
        // SAFETY: tables, arenas, backends and kernels outlive the runners, which run one at a
        // time over the arenas.
        let runner = unsafe { Runner::with_kernels(t, arenas.pools(), &backends, kernels) }
            .map_err(|e| {
                Failure::new(Status::CallFailed, format!("method `{}`: {e}", io[m].name))
            })?;
        runners.push(runner);
    }
    let write_failure = |e: arenaplan_build::output::WriteError| {
        let status = if e.is_bad_request() {
            Status::BadInput
        } else {
            Status::Io
        };
        Failure::new(status, e)
    };
    // Each call's outputs go to the set as the call ends; the set is published whole at the
    // end, or not at all.
    let mut set = arenaplan_build::output::OutputSet::begin(&args.out).map_err(write_failure)?;
    let mut names: Vec<String> = Vec::new();
    let mut placeholders: Vec<String> = Vec::new();
    for (k, (&m, call)) in resolved.iter().zip(&calls).enumerate() {
        let runner = &mut runners[m];
        let method = &io[m];
        let inputs = read_inputs(program, method, k, &call.inputs)?;
        for (i, &v) in method.inputs.iter().enumerate() {
            let slot = runner.input(i).map_err(runtime)?;
            let Some(data) = inputs.get(i) else {
                // A call without files runs on zeros.
                let bytes = usize::try_from(program.values[v].bytes).unwrap_or(usize::MAX);
                slot.iter_mut().take(bytes).for_each(|b| *b = 0);
                continue;
            };
            if slot.len() < data.len() {
                return Err(Failure::new(
                    Status::Internal,
                    format!(
                        "call {k}: input {i} has {} bytes of memory for {} bytes",
                        slot.len(),
                        data.len()
                    ),
                ));
            }
            slot[..data.len()].copy_from_slice(data);
        }
        let before = Placeholders::now();
        runner.execute().map_err(|(e, at)| {
            Failure::new(
                Status::CallFailed,
                format!(
                    "call {k} (`{}`): {}",
                    method.name,
                    arenaplan_host::failure_text(&e, at)
                ),
            )
        })?;
        placeholders.extend(before.since(k, &method.name));
        for (i, &v) in method.outputs.iter().enumerate() {
            let value = &program.values[v];
            let bytes = usize::try_from(value.bytes).unwrap_or(usize::MAX);
            // Planned memory, or a constant output's (a constant method's) data in the tables.
            let out = runner.output(i).map_err(runtime)?;
            let data = out.get(..bytes).map(<[u8]>::to_vec).ok_or_else(|| {
                Failure::new(
                    Status::CannotRunHere,
                    format!("call {k}: output {i} (`{}`) has no memory", value.name),
                )
            })?;
            let width = usize::try_from(value.dtype.size()).unwrap_or(1);
            let array = Array {
                dtype: value.dtype,
                shape: value.shape.clone(),
                data: crate::layout::from_memory(data, width, &value.shape, &value.dim_order),
            };
            let file = npy::write(&array).map_err(|e| {
                Failure::new(Status::CannotRunHere, format!("call {k}: output {i}: {e}"))
            })?;
            let name = format!("{k}-{}-{i}.npy", method.name);
            set.add(&name, &file).map_err(write_failure)?;
            names.push(name);
        }
    }
    // Bytes no computation produced are never shown as outputs without saying so: a marker
    // beside the outputs, and a warning.
    if !placeholders.is_empty() {
        let mut text = String::from(PLACEHOLDER_HEADER);
        for line in &placeholders {
            text.push_str(line);
            text.push('\n');
            eprintln!("warning: {line}");
        }
        set.add(PLACEHOLDER_FILE, text.as_bytes())
            .map_err(write_failure)?;
        names.push(PLACEHOLDER_FILE.into());
    }
    set.finish().map_err(write_failure)?;
    for name in &names {
        let path = args.out.join(name);
        eprintln!(
            "wrote {}",
            arenaplan_build::names::display(&path.display().to_string())
        );
    }
    // An earlier run's marker must not label these outputs.
    let stale = args.out.join(PLACEHOLDER_FILE);
    if placeholders.is_empty() && stale.is_file() {
        std::fs::remove_file(&stale).map_err(|e| {
            Failure::new(
                Status::Io,
                format!(
                    "{}: cannot remove the earlier run's marker: {e}",
                    stale.display()
                ),
            )
        })?;
    }
    Ok(())
}

/// The marker `run` writes beside outputs that an emulated NPU without a functional model
/// made (a placeholder pattern of its inputs, not the model's numbers).
const PLACEHOLDER_FILE: &str = "PLACEHOLDER-OUTPUTS.txt";
const PLACEHOLDER_HEADER: &str = "These outputs are not the model's numbers: the calls below ran \
on an emulated NPU that has no functional model and wrote a placeholder pattern of its inputs \
(outputs of later calls that read them are placeholders too). Run on the board, or on a target \
whose NPU the host emulates (the Ethos-U55 and Ethos-U85).\n";

/// The emulated NPUs' placeholder jobs so far: the Neutron's (the Ethos-U NPUs compute).
struct Placeholders {
    neutron: u32,
}

impl Placeholders {
    fn now() -> Self {
        Placeholders {
            neutron: arenaplan::sim::neutron_calls(),
        }
    }

    /// What call `k` of `method` ran on placeholders since `self`, a line per NPU.
    fn since(&self, k: usize, method: &str) -> Vec<String> {
        let jobs = Self::now().neutron - self.neutron;
        if jobs == 0 {
            return Vec::new();
        }
        vec![format!(
            "call {k} (`{method}`): {jobs} NeutronBackend job(s) on the emulated Neutron, whose \
             microcode NXP does not publish: its outputs are placeholders"
        )]
    }
}

/// The bytes of each input of `method` for call `k`: the files given (each of the input's
/// type and shape), or none for a call without files (it runs on zeros).
fn read_inputs(
    program: &Program,
    method: &MethodIo,
    k: usize,
    files: &[PathBuf],
) -> Result<Vec<Vec<u8>>, Failure> {
    if files.is_empty() {
        return Ok(Vec::new());
    }
    if files.len() != method.inputs.len() {
        return Err(Failure::bad_input(format!(
            "--call {k}: method `{}` takes {} input(s), {} file(s) given",
            method.name,
            method.inputs.len(),
            files.len()
        )));
    }
    let mut out = Vec::with_capacity(files.len());
    for (i, (&v, file)) in method.inputs.iter().zip(files).enumerate() {
        let value = &program.values[v];
        let array = npy::parse(&input::read(file, MAX_NPY_FILE)?)
            .map_err(|e| Failure::bad_input(format!("{}: {e}", file.display())))?;
        check_input(value.dtype, &value.shape, &array, file, i)?;
        let width = usize::try_from(value.dtype.size()).unwrap_or(1);
        out.push(crate::layout::to_memory(
            array.data,
            width,
            &value.shape,
            &value.dim_order,
        ));
    }
    Ok(out)
}

/// An input file fits when it has the input's type and as many elements: its shape may differ
/// where the elements line up the same (`[1]` for a 0-d tensor), as ExecuTorch's runtime
/// takes them.
fn check_input(
    dtype: DType,
    shape: &[u64],
    array: &Array,
    file: &Path,
    i: usize,
) -> Result<(), Failure> {
    let elements = |s: &[u64]| s.iter().product::<u64>();
    if array.dtype != dtype || elements(&array.shape) != elements(shape) {
        return Err(Failure::bad_input(format!(
            "{}: input {i} is {} {:?}, the method takes {} {:?}",
            file.display(),
            array.dtype.name(),
            array.shape,
            dtype.name(),
            shape
        )));
    }
    Ok(())
}

/// Refuses, before anything runs, a run that would take more than `limit_mib` MiB: the
/// planned arenas, and the largest call's inputs and outputs (each output held twice: as
/// memory lays it out and as its file).
fn check_memory(
    program: &Program,
    plan: &arenaplan_build::ModelPlan,
    io: &[MethodIo],
    calls: &[usize],
    limit_mib: u64,
) -> Result<(), Failure> {
    let bytes = |values: &[usize]| -> u64 {
        values
            .iter()
            .map(|&v| program.values[v].bytes)
            .fold(0, u64::saturating_add)
    };
    let arenas = plan
        .pools
        .iter()
        .map(|p| p.size)
        .fold(0, u64::saturating_add);
    let largest_call = calls
        .iter()
        .map(|&m| bytes(&io[m].inputs).saturating_add(bytes(&io[m].outputs).saturating_mul(2)))
        .max()
        .unwrap_or(0);
    let need = arenas.saturating_add(largest_call);
    let limit = limit_mib.saturating_mul(1 << 20);
    if need > limit {
        let mib = |b: u64| b.div_ceil(1 << 20);
        return Err(Failure::new(
            Status::CannotRunHere,
            format!(
                "this run needs {} MiB ({} MiB of arenas, {} MiB for its largest call's inputs and outputs), over the limit of {limit_mib} MiB; raise it with --memory-limit-mib {}",
                mib(need),
                mib(arenas),
                mib(largest_call),
                mib(need)
            ),
        ));
    }
    Ok(())
}

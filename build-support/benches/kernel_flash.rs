//! `cargo bench -p arenaplan-build --bench kernel_flash --features internals`: the flash
//! ExecuTorch's kernels take in firmware for each exported program (`testdata/exported/`),
//! built three ways for a Cortex-M55 at `-Os`:
//!
//! - **arenaplan**: the build's units (`executorch::selection`), each kernel file for the
//!   dtypes the program's calls use;
//! - **ExecuTorch selective**: ExecuTorch's own selective build of the same operators, the
//!   kernel files compiled with `EXECUTORCH_SELECTIVE_BUILD_DTYPE` and a
//!   `selected_op_variants.h` as ExecuTorch's `gen_selected_op_variants.py` writes it from the
//!   model's tensor dtypes (its `et_kernel_metadata`);
//! - **all dtypes**: the operators' files as they are.
//!
//! Each is linked with section garbage collection from the program's shims (the same shims,
//! bridge and shared utilities in all three) and measured as the image's text and read-only
//! data. The C library and CMSIS-NN are left out (their symbols unresolved): the same in all
//! three, and the runtime's, not the kernels'. Needs `arm-none-eabi-g++` on the PATH,
//! `EXECUTORCH_PATH` and `CMSIS_NN_PATH`; objects are cached under the target folder.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use arenaplan_build::executorch::{
    bridge_headers, kernel_files, program_operators, render_shims, render_unit,
    selection::scalar_type_name, Capacities, Dtypes, ExecuTorchSources, Signature, BRIDGE_SOURCE,
    DEFINES, FLAGS,
};
use arenaplan_build::import::load_model;
use arenaplan_build::model::{DType, EValue, Instruction, Program};
use arenaplan_syntax::digest::fnv1a;
use arenaplan_syntax::names::kernel_symbol;

const CXX: &str = "arm-none-eabi-g++";
const CORE: &[&str] = &["-mcpu=cortex-m55", "-mthumb", "-mfloat-abi=hard", "-Os"];

#[derive(Clone, Copy, PartialEq)]
enum Variant {
    Arenaplan,
    ExecuTorch,
    All,
}

struct Bench {
    sources: ExecuTorchSources,
    args: Vec<String>,
    work: PathBuf,
    /// The bridge's headers, which units and shims include: part of their objects' keys.
    bridge_headers: Vec<u8>,
}

impl Bench {
    /// The object of `source` compiled with `extra` flags (cached by content and flags).
    fn object(&self, source: &Path, extra: &[String], key_extra: &[u8]) -> Result<PathBuf, String> {
        let bytes =
            std::fs::read(source).map_err(|e| format!("reading {}: {e}", source.display()))?;
        let mut key = self.args.join("\u{1f}").into_bytes();
        key.extend(extra.join("\u{1f}").bytes());
        key.extend(source.display().to_string().bytes());
        key.extend(&bytes);
        key.extend(key_extra);
        let object = self
            .work
            .join("obj")
            .join(format!("{:016x}.o", fnv1a(&key)));
        if object.is_file() {
            return Ok(object);
        }
        std::fs::create_dir_all(object.parent().unwrap()).map_err(|e| e.to_string())?;
        let out = Command::new(CXX)
            .args(&self.args)
            .args(extra)
            .arg("-c")
            .arg(source)
            .arg("-o")
            .arg(&object)
            .output()
            .map_err(|e| format!("running {CXX}: {e}"))?;
        if !out.status.success() {
            let _ = std::fs::remove_file(&object);
            return Err(format!(
                "compiling {}:\n{}",
                source.display(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(object)
    }

    /// A generated file under the work folder, named by its content.
    fn write(&self, what: &str, ext: &str, text: &str) -> Result<PathBuf, String> {
        let path = self
            .work
            .join(what)
            .join(format!("{:016x}.{ext}", fnv1a(text.as_bytes())));
        std::fs::create_dir_all(path.parent().unwrap()).map_err(|e| e.to_string())?;
        std::fs::write(&path, text).map_err(|e| e.to_string())?;
        Ok(path)
    }

    /// The flash (text and read-only data) of `program`'s kernels built as `variant`.
    fn flash(
        &self,
        program: &Program,
        ops: &[&'static Signature],
        variant: Variant,
    ) -> Result<u64, String> {
        let caps = Capacities::of(program, |op| ops.iter().any(|s| s.op == op));
        let mut objects = Vec::new();
        let shims = self.write("shims", "cpp", &render_shims(ops, caps)?)?;
        objects.push(self.object(&shims, &[], &self.bridge_headers)?);
        let dtypes = Dtypes::of(program, ops);
        for file in kernel_files(ops) {
            let kernel = self.sources.root().join(file);
            let kernel_bytes = std::fs::read(&kernel).map_err(|e| e.to_string())?;
            let object = match variant {
                Variant::Arenaplan | Variant::All => {
                    let selection = (variant == Variant::Arenaplan).then_some(&dtypes);
                    let unit = self.write("units", "cpp", &render_unit(file, ops, selection))?;
                    let key = [&kernel_bytes[..], &self.bridge_headers].concat();
                    self.object(&unit, &[], &key)?
                }
                Variant::ExecuTorch => {
                    let header = executorch_selection(program, ops);
                    let dir = self
                        .work
                        .join("et-selection")
                        .join(format!("{:016x}", fnv1a(header.as_bytes())));
                    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
                    std::fs::write(dir.join("selected_op_variants.h"), &header)
                        .map_err(|e| e.to_string())?;
                    let extra = vec![
                        "-DEXECUTORCH_SELECTIVE_BUILD_DTYPE".to_string(),
                        format!("-iquote{}", dir.display()),
                    ];
                    self.object(&kernel, &extra, header.as_bytes())?
                }
            };
            objects.push(object);
        }
        for file in self.sources.support_files(ops) {
            objects.push(self.object(&file, &[], &[])?);
        }
        let bridge = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../runtime-c/kernels/executorch/bridge")
            .join(BRIDGE_SOURCE);
        objects.push(self.object(&bridge, &[], &self.bridge_headers)?);

        let image = self.work.join("image.elf");
        let mut link = Command::new(CXX);
        link.args(CORE)
            .args(["-nostdlib", "-Wl,--gc-sections"])
            .arg("-Wl,--unresolved-symbols=ignore-all")
            .arg("-Wl,--entry=0");
        for sig in ops {
            link.arg(format!("-Wl,--undefined={}", kernel_symbol(sig.op)));
        }
        let out = link
            .args(&objects)
            .arg("-o")
            .arg(&image)
            .output()
            .map_err(|e| format!("running {CXX}: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "linking:\n{}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        let size = Command::new("arm-none-eabi-size")
            .arg("-A")
            .arg(&image)
            .output()
            .map_err(|e| format!("running arm-none-eabi-size: {e}"))?;
        let text = String::from_utf8_lossy(&size.stdout);
        let mut bytes = 0;
        for line in text.lines() {
            let mut fields = line.split_whitespace();
            let (Some(name), Some(n)) = (fields.next(), fields.next()) else {
                continue;
            };
            if matches!(
                name,
                ".text" | ".rodata" | ".data" | ".ARM.exidx" | ".init_array"
            ) {
                bytes += n.parse::<u64>().unwrap_or(0);
            }
        }
        Ok(bytes)
    }
}

/// `selected_op_variants.h` as ExecuTorch's generator writes it for `program`: per operator
/// (its name without namespace), the dtypes of its calls' tensors.
fn executorch_selection(program: &Program, ops: &[&'static Signature]) -> String {
    let mut parts = Vec::new();
    for sig in ops {
        let mut dtypes: BTreeSet<(u8, &str)> = BTreeSet::new();
        for (_, instruction) in program.flat_instructions() {
            let Instruction::Kernel(call) = instruction else {
                continue;
            };
            if call.op != sig.op {
                continue;
            }
            for &v in call.inputs.iter().chain(&call.outputs) {
                let value = &program.values[v];
                if value.evalue == EValue::Tensor && value.dtype != DType::Bytes {
                    dtypes.insert((value.dtype.scalar_type(), scalar_type_name(value.dtype)));
                }
            }
        }
        let checks: Vec<String> = dtypes
            .iter()
            .map(|(_, n)| format!("scalar_type == executorch::aten::ScalarType::{n}"))
            .collect();
        let checks = if checks.is_empty() {
            "true".to_string()
        } else {
            checks.join(" || ")
        };
        let name = sig.op.rsplit_once("::").map_or(sig.op, |(_, n)| n);
        parts.push(format!(
            "((std::string_view(operator_name).compare(\"{name}\") == 0)\n        && ({checks}))"
        ));
    }
    format!(
        "#pragma once\n#include <string_view>\ninline constexpr bool should_include_kernel_dtype(\n  \
         const char *operator_name,\n  executorch::aten::ScalarType scalar_type\n) {{\n  return \
         {};\n}}\n",
        if parts.is_empty() {
            "true".to_string()
        } else {
            parts.join("\n || ")
        }
    )
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kernel_flash: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    Command::new(CXX)
        .arg("--version")
        .output()
        .map_err(|_| format!("needs {CXX} on the PATH"))?;
    let sources = ExecuTorchSources::from_env()
        .ok_or("needs EXECUTORCH_PATH (a checkout of ExecuTorch's sources)")??;
    let nn = std::env::var_os("CMSIS_NN_PATH")
        .map(PathBuf::from)
        .ok_or("needs CMSIS_NN_PATH (the Cortex-M kernels include CMSIS-NN's headers)")?;
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut args: Vec<String> = CORE.iter().map(|s| s.to_string()).collect();
    args.extend(["-ffunction-sections", "-fdata-sections", "-w"].map(String::from));
    args.extend(FLAGS.iter().map(|f| f.to_string()));
    args.extend(DEFINES.iter().map(|d| format!("-D{d}")));
    args.push("-DAP_ET_FREESTANDING=1".into());
    for dir in sources.includes() {
        args.push(format!("-I{}", dir.display()));
    }
    args.push(format!(
        "-I{}",
        manifest
            .join("../runtime-c/kernels/executorch/bridge")
            .display()
    ));
    args.push(format!(
        "-I{}",
        manifest.join("../runtime-c/include").display()
    ));
    args.push(format!("-I{}", nn.join("Include").display()));
    let bridge_headers = bridge_headers(&manifest.join("../runtime-c/kernels/executorch/bridge"))?;
    let bench = Bench {
        sources,
        args,
        work: Path::new(env!("CARGO_TARGET_TMPDIR")).join("kernel-flash"),
        bridge_headers,
    };

    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let dir = manifest.join("testdata/exported");
    let mut programs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path().join("program.pte")))
        .filter(|p| p.is_file())
        .collect();
    programs.sort();
    println!(
        "kernel_flash: ExecuTorch's kernels in a Cortex-M55 image (-Os, text + rodata, bytes)"
    );
    println!(
        "| program | operators | arenaplan | ExecuTorch selective | all dtypes | arenaplan / ExecuTorch |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    let (mut sum_a, mut sum_e) = (0u64, 0u64);
    for path in programs {
        let name = path
            .parent()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if filter.as_ref().is_some_and(|f| !name.contains(f.as_str())) {
            continue;
        }
        let program = load_model(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let ops = program_operators(&program, |_| false);
        if ops.is_empty() {
            continue;
        }
        let a = bench.flash(&program, &ops, Variant::Arenaplan)?;
        let e = bench.flash(&program, &ops, Variant::ExecuTorch)?;
        let all = bench.flash(&program, &ops, Variant::All)?;
        sum_a += a;
        sum_e += e;
        println!(
            "| {name} | {} | {a} | {e} | {all} | {:.2} |",
            ops.len(),
            a as f64 / e as f64
        );
    }
    if sum_e > 0 {
        println!(
            "| total | | {sum_a} | {sum_e} | | {:.2} |",
            sum_a as f64 / sum_e as f64
        );
    }
    Ok(())
}

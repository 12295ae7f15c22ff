//! The native TOML model format, for hand-written graphs and tests.
//!
//! ```toml
//! name = "two_calls"          # top-level keys come before the first [[table]]
//! inputs = ["x"]
//! outputs = ["z"]
//!
//! [[tensor]]
//! name = "x"
//! dtype = "int8"              # int8 uint8 int16 int32 int64 float16 bfloat16 float32 float64 bool bytes
//! shape = [1, 1024]           # bytes = element size * product, or give `bytes = N`
//!
//! [[tensor]]
//! name = "y"
//! dtype = "int8"
//! shape = [1, 1024]
//! pool = "cpu_scratch"        # optional: a compile spec of the target (or mem_id = N)
//!
//! [[tensor]]
//! name = "z"
//! dtype = "int8"
//! shape = [1, 10]
//!
//! [[tensor]]
//! name = "w"
//! dtype = "int8"
//! bytes = 4096
//! constant = true             # weights: in the program, not planned
//! # data = [0, 1, 2, ...]     # optional: a constant's bytes (else it has none at run time)
//!
//! [[delegate]]
//! name = "npu0"
//! backend = "EthosUBackend"
//! compile_specs = { memory_mode = "Shared_Sram" }
//! scratch = [ { size = 1536, pool = "npu_scratch", label = "scratch" } ]
//!
//! [[instruction]]
//! kind = "delegate"
//! delegate = "npu0"
//! inputs = ["x", "w"]
//! outputs = ["y"]
//!
//! [[instruction]]
//! kind = "branch"             # exactly one arm runs; arms are nested instruction lists
//! predicate = "y"
//! arms = [
//!   [ { kind = "kernel", op = "fc", inputs = ["y"], outputs = ["z"] } ],
//!   [ { kind = "kernel", op = "zeros", outputs = ["z"] } ],
//! ]
//! ```

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use crate::diagnostic::{did_you_mean, Diagnostic, SourceText};
use crate::import::ModelFolder;
use crate::model::{
    Branch, ConstantData, DType, Delegate, DelegateCall, Instruction, KernelCall, Origin,
    PoolChoice, Program, ScratchSpec, Value, ValueId, ValueKind,
};

/// Largest model file read.
const MAX_MODEL_BYTES: u64 = 16 << 20;
/// Largest blob file a model may reference.
const MAX_BLOB_BYTES: u64 = 256 << 20;
/// Deepest nesting of branches accepted (bounds recursion on hostile input).
const MAX_DEPTH: usize = 64;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawModel {
    name: String,
    #[serde(default)]
    inputs: Vec<Spanned<String>>,
    #[serde(default)]
    outputs: Vec<Spanned<String>>,
    #[serde(rename = "tensor", default)]
    tensors: Vec<RawTensor>,
    #[serde(rename = "delegate", default)]
    delegates: Vec<RawDelegate>,
    #[serde(rename = "instruction", default)]
    instructions: Vec<RawInstruction>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTensor {
    name: Spanned<String>,
    dtype: Spanned<String>,
    #[serde(default)]
    shape: Vec<u64>,
    bytes: Option<Spanned<u64>>,
    #[serde(default)]
    constant: bool,
    data: Option<Spanned<Vec<u8>>>,
    pool: Option<Spanned<String>>,
    mem_id: Option<Spanned<i64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDelegate {
    name: Spanned<String>,
    backend: String,
    blob: Option<Spanned<String>>,
    #[serde(default)]
    compile_specs: BTreeMap<String, String>,
    #[serde(default)]
    scratch: Vec<RawScratch>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScratch {
    size: Spanned<i64>,
    pool: Option<Spanned<String>>,
    mem_id: Option<Spanned<i64>>,
    label: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInstruction {
    kind: Spanned<String>,
    op: Option<String>,
    delegate: Option<Spanned<String>>,
    #[serde(default)]
    inputs: Vec<Spanned<String>>,
    #[serde(default)]
    outputs: Vec<Spanned<String>>,
    predicate: Option<Spanned<String>>,
    arms: Option<Vec<Vec<RawInstruction>>>,
}

/// Reads a TOML model file (blobs it names are read from its folder, and only from there:
/// [`ModelFolder`]).
pub fn load_toml_model(path: &Path) -> Result<Program, Diagnostic> {
    load_toml_model_in(path, &ModelFolder::of(path))
}

/// [`load_toml_model`], with blobs resolved by `files`.
pub(crate) fn load_toml_model_in(path: &Path, files: &ModelFolder) -> Result<Program, Diagnostic> {
    let source = SourceText::read(path, MAX_MODEL_BYTES)?;
    parse_toml_model(&source, Some(files))
}

/// Parses TOML model text. `blob_dir` is where blob paths resolve and how far they may reach
/// (`None`: blobs are refused).
pub fn parse_toml_model(
    source: &SourceText,
    blob_dir: Option<&ModelFolder>,
) -> Result<Program, Diagnostic> {
    let raw: RawModel = toml::from_str(&source.text).map_err(|e| {
        Diagnostic::at(
            source,
            e.span().map_or(0, |s| s.start),
            e.message().trim_end().to_owned(),
        )
    })?;
    Builder {
        source,
        blob_dir,
        names: HashMap::new(),
        delegate_names: HashMap::new(),
        program: Program::new(raw.name.clone()),
    }
    .build(raw)
}

struct Builder<'a> {
    source: &'a SourceText,
    blob_dir: Option<&'a ModelFolder>,
    names: HashMap<String, ValueId>,
    delegate_names: HashMap<String, usize>,
    program: Program,
}

impl Builder<'_> {
    fn error(&self, span: std::ops::Range<usize>, message: impl Into<String>) -> Diagnostic {
        Diagnostic::at(self.source, span.start, message)
    }

    fn origin(&self, span: std::ops::Range<usize>) -> Origin {
        let (line, column) = self.source.line_column(span.start);
        Origin::File {
            path: self.source.path.clone(),
            line,
            column,
        }
    }

    fn build(mut self, mut raw: RawModel) -> Result<Program, Diagnostic> {
        for t in std::mem::take(&mut raw.tensors) {
            self.tensor(t)?;
        }
        for d in std::mem::take(&mut raw.delegates) {
            self.delegate(d)?;
        }
        self.program.inputs = self.refs(&raw.inputs)?;
        self.program.outputs = self.refs(&raw.outputs)?;
        self.program.body = self.instructions(&raw.instructions, 0)?;
        // The one semantic check every importer ends with, pointed at the line it concerns.
        if let Err(e) = crate::model::check(&self.program) {
            return Err(self.locate(&raw, &e));
        }
        Ok(self.program)
    }

    fn tensor(&mut self, t: RawTensor) -> Result<(), Diagnostic> {
        let name = t.name.get_ref().clone();
        if self.names.contains_key(&name) {
            return Err(self.error(t.name.span(), format!("tensor `{name}` is defined twice")));
        }
        let dtype = DType::from_name(t.dtype.get_ref()).ok_or_else(|| {
            let names: Vec<&str> = DType::ALL.iter().map(|(_, n)| *n).collect();
            self.error(
                t.dtype.span(),
                format!("unknown dtype `{}`", t.dtype.get_ref()),
            )
            .with_help(format!("one of: {}", names.join(", ")))
        })?;
        let mut value = Value::planned(name.clone(), dtype, t.shape.clone());
        if value.bytes == u64::MAX {
            return Err(self.error(
                t.name.span(),
                format!("tensor `{name}`: shape {:?} is too large", t.shape),
            ));
        }
        if let Some(bytes) = &t.bytes {
            if !t.shape.is_empty() && *bytes.get_ref() != value.bytes {
                return Err(self
                    .error(
                        bytes.span(),
                        format!(
                            "tensor `{name}`: bytes = {} but {} {:?} needs {}",
                            bytes.get_ref(),
                            dtype.name(),
                            t.shape,
                            value.bytes
                        ),
                    )
                    .with_help("drop `bytes` (it follows from dtype and shape) or fix the shape"));
            }
            value.bytes = *bytes.get_ref();
        } else if t.shape.is_empty() {
            return Err(self
                .error(
                    t.name.span(),
                    format!("tensor `{name}` has neither `shape` nor `bytes`"),
                )
                .with_help("give its shape, e.g. shape = [1, 64], or its size, e.g. bytes = 64"));
        }
        value.pool = self.pool_choice(t.pool.as_ref(), t.mem_id.as_ref(), "tensor")?;
        if t.constant {
            if value.pool.is_some() {
                return Err(self.error(t.name.span(), format!("tensor `{name}` is constant: constants are not planned, so they take no pool")));
            }
            value.kind = ValueKind::Constant;
        }
        if let Some(data) = &t.data {
            if !t.constant {
                return Err(self
                    .error(data.span(), format!("tensor `{name}` has `data` but is not constant"))
                    .with_help("add constant = true, or drop `data` (planned tensors get their bytes at run time)"));
            }
            if data.get_ref().len() as u64 != value.bytes {
                return Err(self.error(
                    data.span(),
                    format!(
                        "tensor `{name}`: `data` has {} bytes, the tensor {}",
                        data.get_ref().len(),
                        value.bytes
                    ),
                ));
            }
            value.data = Some(ConstantData::new(data.get_ref().clone()));
        }
        let id = self.program.add_value(value);
        self.names.insert(name, id);
        Ok(())
    }

    fn pool_choice(
        &self,
        pool: Option<&Spanned<String>>,
        mem_id: Option<&Spanned<i64>>,
        what: &str,
    ) -> Result<Option<PoolChoice>, Diagnostic> {
        match (pool, mem_id) {
            (Some(_), Some(m)) => Err(self.error(
                m.span(),
                format!("a {what} takes `pool` (a compile spec) or `mem_id`, not both"),
            )),
            (Some(p), None) => Ok(Some(PoolChoice::Spec(p.get_ref().clone()))),
            (None, Some(m)) => Ok(Some(PoolChoice::MemId(*m.get_ref()))),
            (None, None) => Ok(None),
        }
    }

    fn delegate(&mut self, d: RawDelegate) -> Result<(), Diagnostic> {
        let name = d.name.get_ref().clone();
        if self.delegate_names.contains_key(&name) {
            return Err(self.error(d.name.span(), format!("delegate `{name}` is defined twice")));
        }
        let blob = match &d.blob {
            None => None,
            Some(path) => Some(self.read_blob(path)?),
        };
        let mut scratch = Vec::new();
        for (i, s) in d.scratch.iter().enumerate() {
            let pool = self
                .pool_choice(s.pool.as_ref(), s.mem_id.as_ref(), "scratch buffer")?
                .ok_or_else(|| {
                    self.error(
                        s.size.span(),
                        format!("delegate `{name}`, scratch buffer {i}: no pool given"),
                    )
                    .with_help(
                        "add pool = \"npu_scratch\" (a compile spec of the target) or mem_id = N",
                    )
                })?;
            scratch.push(ScratchSpec {
                size: *s.size.get_ref(),
                pool,
                label: s.label.clone(),
                origin: self.origin(s.size.span()),
                role: None,
            });
        }
        self.delegate_names
            .insert(name.clone(), self.program.delegates.len());
        self.program.delegates.push(Delegate {
            name,
            backend: d.backend,
            blob,
            compile_specs: d.compile_specs,
            scratch,
        });
        Ok(())
    }

    fn read_blob(&self, path: &Spanned<String>) -> Result<Vec<u8>, Diagnostic> {
        let Some(dir) = self.blob_dir else {
            return Err(self.error(
                path.span(),
                "blobs can only be read from a model file on disk",
            ));
        };
        dir.read(path.get_ref(), MAX_BLOB_BYTES)
            .map_err(|e| self.error(path.span(), format!("blob: {e}")))
    }

    /// `e` as a diagnostic at the line it concerns: the reference to the value in the
    /// instruction it names, else the instruction, else the output list's entry.
    fn locate(&self, raw: &RawModel, e: &crate::model::ModelError) -> Diagnostic {
        use crate::model::ModelError as E;
        let value_name = match e {
            E::ReadBeforeWrite { name, .. }
            | E::WritesConstant { name, .. }
            | E::InPlace { name, .. }
            | E::OutputNeverWritten { name, .. } => Some(name.as_str()),
            _ => None,
        };
        fn named<'a>(
            mut names: impl Iterator<Item = &'a Spanned<String>>,
            value_name: Option<&str>,
        ) -> Option<std::ops::Range<usize>> {
            names
                .find(|n| Some(n.get_ref().as_str()) == value_name)
                .map(|n| n.span())
        }
        let span = match e.instruction() {
            Some(flat) => raw_at(&raw.instructions, &mut { flat }).map(|r| {
                let refs = r.inputs.iter().chain(&r.predicate).chain(&r.outputs);
                named(refs, value_name).unwrap_or_else(|| r.kind.span())
            }),
            None => named(raw.outputs.iter(), value_name),
        };
        self.error(span.unwrap_or(0..0), e.to_string())
    }

    fn reference(&self, name: &Spanned<String>) -> Result<ValueId, Diagnostic> {
        self.names.get(name.get_ref()).copied().ok_or_else(|| {
            let mut d = self.error(name.span(), format!("no tensor named `{}`", name.get_ref()));
            if let Some(s) = did_you_mean(name.get_ref(), self.names.keys().map(String::as_str)) {
                d = d.with_help(format!("did you mean `{s}`?"));
            } else {
                d = d.with_help("declare it with a [[tensor]] table");
            }
            d
        })
    }

    fn refs(&self, names: &[Spanned<String>]) -> Result<Vec<ValueId>, Diagnostic> {
        names.iter().map(|n| self.reference(n)).collect()
    }

    fn instructions(
        &self,
        raw: &[RawInstruction],
        depth: usize,
    ) -> Result<Vec<Instruction>, Diagnostic> {
        raw.iter().map(|r| self.instruction(r, depth)).collect()
    }

    fn instruction(&self, r: &RawInstruction, depth: usize) -> Result<Instruction, Diagnostic> {
        let kind = r.kind.get_ref().as_str();
        let at = r.kind.span();
        let unexpected = |field: &str, present: bool| -> Result<(), Diagnostic> {
            if present {
                Err(self.error(
                    at.clone(),
                    format!("a `{kind}` instruction takes no `{field}`"),
                ))
            } else {
                Ok(())
            }
        };
        match kind {
            "kernel" => {
                unexpected("delegate", r.delegate.is_some())?;
                unexpected("predicate", r.predicate.is_some())?;
                unexpected("arms", r.arms.is_some())?;
                let op = r.op.clone().ok_or_else(|| {
                    self.error(at.clone(), "a `kernel` instruction needs `op`")
                        .with_help("e.g. op = \"aten::add.out\"")
                })?;
                Ok(Instruction::Kernel(KernelCall::new(
                    op,
                    self.refs(&r.inputs)?,
                    self.refs(&r.outputs)?,
                )))
            }
            "delegate" => {
                unexpected("op", r.op.is_some())?;
                unexpected("predicate", r.predicate.is_some())?;
                unexpected("arms", r.arms.is_some())?;
                let name = r.delegate.as_ref().ok_or_else(|| {
                    self.error(
                        at.clone(),
                        "a `delegate` instruction needs `delegate` (the name of a [[delegate]])",
                    )
                })?;
                let delegate = *self.delegate_names.get(name.get_ref()).ok_or_else(|| {
                    let mut d = self.error(
                        name.span(),
                        format!("no delegate named `{}`", name.get_ref()),
                    );
                    if let Some(s) = did_you_mean(
                        name.get_ref(),
                        self.delegate_names.keys().map(String::as_str),
                    ) {
                        d = d.with_help(format!("did you mean `{s}`?"));
                    }
                    d
                })?;
                Ok(Instruction::Delegate(DelegateCall {
                    delegate,
                    inputs: self.refs(&r.inputs)?,
                    outputs: self.refs(&r.outputs)?,
                    scratch: Vec::new(),
                }))
            }
            "branch" => {
                unexpected("op", r.op.is_some())?;
                unexpected("delegate", r.delegate.is_some())?;
                unexpected("inputs", !r.inputs.is_empty())?;
                unexpected("outputs", !r.outputs.is_empty())?;
                if depth >= MAX_DEPTH {
                    return Err(
                        self.error(at, format!("branches nested more than {MAX_DEPTH} deep"))
                    );
                }
                let predicate = r.predicate.as_ref().ok_or_else(|| {
                    self.error(at.clone(), "a `branch` instruction needs `predicate`")
                })?;
                let arms = r.arms.as_ref().ok_or_else(|| {
                    self.error(at.clone(), "a `branch` instruction needs `arms`")
                        .with_help("arms = [ [ ...instructions... ], [ ... ] ]")
                })?;
                Ok(Instruction::Branch(Branch {
                    predicate: self.reference(predicate)?,
                    arms: arms
                        .iter()
                        .map(|arm| self.instructions(arm, depth + 1))
                        .collect::<Result<_, _>>()?,
                }))
            }
            other => Err(self
                .error(at, format!("unknown instruction kind `{other}`"))
                .with_help("one of: kernel, delegate, branch")),
        }
    }
}

/// The raw instruction with flat index `flat` (a branch before its arms' instructions, as
/// [`Program::flat_instructions`] counts).
fn raw_at<'a>(raw: &'a [RawInstruction], flat: &mut usize) -> Option<&'a RawInstruction> {
    for r in raw {
        if *flat == 0 {
            return Some(r);
        }
        *flat -= 1;
        for arm in r.arms.iter().flatten() {
            if let Some(found) = raw_at(arm, flat) {
                return Some(found);
            }
        }
    }
    None
}

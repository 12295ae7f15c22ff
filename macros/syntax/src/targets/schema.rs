//! The `targets.toml` file as written: serde structures with spans, before validation.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

use super::size::ByteSize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCatalogue {
    pub schema_version: Spanned<i64>,
    #[serde(rename = "target", default)]
    pub targets: Vec<RawTarget>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTarget {
    pub name: Spanned<String>,
    #[serde(default)]
    pub description: String,
    pub cpu: String,
    pub rust_target: String,
    pub npu: Option<RawNpu>,
    /// Pool that holds planned tensors unless the model says otherwise.
    pub default_pool: Spanned<String>,
    #[serde(rename = "pool", default)]
    pub pools: Vec<RawPool>,
    /// Compile-spec name → pool name.
    #[serde(default)]
    pub specs: BTreeMap<String, Spanned<String>>,
    /// Input section of the delegate blobs (default: the compiler's read-only data).
    pub blob_section: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawNpu {
    pub backend: String,
    pub config: String,
    pub memory_mode: Option<String>,
    pub system_config: Option<String>,
    /// Bytes of fast scratch each call gets where the blob does not say (Dedicated_Sram).
    pub fast_scratch: Option<Spanned<ByteSize>>,
    /// Bytes of NXP's Neutron model context each delegate keeps in static storage
    /// (`neutronGetModelContextSize()` of a library built with `NO_HEAP_USAGE`).
    pub model_context: Option<Spanned<ByteSize>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPool {
    pub mem_id: Spanned<i64>,
    pub name: Spanned<String>,
    pub capacity: Spanned<ByteSize>,
    pub section: Spanned<String>,
    pub region: Spanned<String>,
    pub alignment: Option<Spanned<i64>>,
    /// Data-cache line of the CPU that reaches the pool, where it has a data cache.
    pub dcache_line: Option<Spanned<i64>>,
    #[serde(default = "yes")]
    pub cpu_access: bool,
    #[serde(default = "yes")]
    pub enabled: bool,
}

fn yes() -> bool {
    true
}

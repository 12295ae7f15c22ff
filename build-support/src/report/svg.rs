//! The memory map as an SVG picture: one panel per pool, time (instructions) across, offset
//! down, each buffer a rectangle; scratch stands out in orange. Sizes read in B/KiB/MiB; every
//! buffer is at least a few pixels (a tiny one stays visible) and has a tooltip; a label that
//! does not fit becomes the buffer's number, and the scratch buffers are listed under their
//! panel.

use std::fmt::Write;

use crate::model::Program;
use crate::pipeline::{BufferKind, ModelPlan};
use crate::targets::Target;

const WIDTH: f64 = 960.0;
const PANEL: f64 = 300.0;
const LEFT: f64 = 90.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 56.0;
const GAP: f64 = 70.0;
/// Height of one legend line.
const LINE: f64 = 15.0;
/// Scratch buffers listed per panel (the rest: "and N more").
const LEGEND_MAX: usize = 12;
/// The smallest a buffer is drawn, in pixels.
const MIN_PX: f64 = 3.0;

/// `bytes` as people read it: `512 B`, `22.5 KiB`, `2 MiB`.
///
/// ```
/// use arenaplan_build::report::human_bytes;
/// assert_eq!(human_bytes(512), "512 B");
/// assert_eq!(human_bytes(23040), "22.5 KiB");
/// assert_eq!(human_bytes(2 << 20), "2 MiB");
/// ```
pub fn human_bytes(bytes: u64) -> String {
    let (value, unit) = match bytes {
        b if b >= 1 << 30 => (b as f64 / (1u64 << 30) as f64, "GiB"),
        b if b >= 1 << 20 => (b as f64 / (1u64 << 20) as f64, "MiB"),
        b if b >= 1 << 10 => (b as f64 / 1024.0, "KiB"),
        b => return format!("{b} B"),
    };
    let text = format!("{value:.1}");
    format!("{} {unit}", text.strip_suffix(".0").unwrap_or(&text))
}

use crate::names::xml as escape;

/// The SVG document.
pub fn memory_map(program: &Program, model_plan: &ModelPlan, target: &Target) -> String {
    let pools: Vec<_> = model_plan
        .pools
        .iter()
        .filter_map(|p| target.pool(p.mem_id).map(|pool| (pool, p)))
        .collect();
    let steps = model_plan
        .buffers
        .iter()
        .map(|b| b.last + 1)
        .max()
        .unwrap_or(1)
        .max(1);
    // Each panel's scratch legend, listed under it.
    let legends: Vec<Vec<String>> = pools
        .iter()
        .map(|(pool, _)| {
            let scratch: Vec<_> = model_plan
                .buffers
                .iter()
                .filter(|b| b.mem_id == pool.mem_id && b.kind == BufferKind::Scratch)
                .collect();
            let mut lines: Vec<String> = scratch
                .iter()
                .take(LEGEND_MAX)
                .map(|b| {
                    format!(
                        "#{} {}: call {}, {} at offset {}",
                        b.id,
                        program.values[b.id].name,
                        b.call.unwrap_or(b.first),
                        human_bytes(b.size),
                        human_bytes(b.offset)
                    )
                })
                .collect();
            if scratch.len() > LEGEND_MAX {
                lines.push(format!(
                    "and {} more (see the tooltips)",
                    scratch.len() - LEGEND_MAX
                ));
            }
            lines
        })
        .collect();
    let legend_height = |p: usize| legends[p].len() as f64 * LINE;
    let panel_top =
        |p: usize| TOP + p as f64 * (PANEL + GAP) + (0..p).map(legend_height).sum::<f64>() + 24.0;
    let height = panel_top(pools.len()) + 20.0 - 24.0;
    let mut o = String::new();
    let _ = writeln!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:.0}" viewBox="0 0 {WIDTH} {height:.0}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(o, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        o,
        r#"<text x="{LEFT}" y="24" font-size="16" font-weight="bold">Memory map of `{}` on {}</text>"#,
        escape(&program.name),
        escape(&target.name)
    );
    let _ = writeln!(
        o,
        r##"<text x="{LEFT}" y="42" fill="#555">time (instruction) →, offset ↓; <tspan fill="#1f6fb2">■ tensor</tspan>  <tspan fill="#e8710a">■ scratch</tspan>; hover a buffer for its name, size and lifetime</text>"##
    );
    let plot_w = WIDTH - LEFT - RIGHT;
    for (p, (pool, plan)) in pools.iter().enumerate() {
        let y0 = panel_top(p);
        let size = plan.size.max(1) as f64;
        let _ = writeln!(
            o,
            r#"<text x="{LEFT}" y="{:.1}" font-weight="bold">pool {} (mem_id {}): arena {}, lower bound {}, capacity {}</text>"#,
            y0 - 8.0,
            escape(&pool.name),
            pool.mem_id,
            human_bytes(plan.size),
            human_bytes(plan.lower_bound),
            human_bytes(pool.capacity)
        );
        let _ = writeln!(
            o,
            r##"<rect x="{LEFT}" y="{y0:.1}" width="{plot_w:.1}" height="{PANEL}" fill="#f4f4f4" stroke="#999"/>"##
        );
        for t in 0..=steps {
            let x = LEFT + plot_w * t as f64 / steps as f64;
            let _ = writeln!(
                o,
                r##"<line x1="{x:.1}" y1="{y0:.1}" x2="{x:.1}" y2="{:.1}" stroke="#ddd"/>"##,
                y0 + PANEL
            );
            if steps <= 40 || t % (steps / 20).max(1) == 0 {
                let _ = writeln!(
                    o,
                    r##"<text x="{x:.1}" y="{:.1}" text-anchor="middle" fill="#555">{t}</text>"##,
                    y0 + PANEL + 14.0
                );
            }
        }
        for frac in [0.0, 0.25, 0.5, 0.75, 1.0] {
            let y = y0 + PANEL * frac;
            let _ = writeln!(
                o,
                r##"<text x="{:.1}" y="{:.1}" text-anchor="end" fill="#555">{}</text>"##,
                LEFT - 6.0,
                y + 4.0,
                human_bytes((size * frac).round() as u64)
            );
        }
        for b in model_plan
            .buffers
            .iter()
            .filter(|b| b.mem_id == pool.mem_id)
        {
            let x = LEFT + plot_w * b.first as f64 / steps as f64;
            let w = (plot_w * (b.last + 1 - b.first) as f64 / steps as f64).max(MIN_PX);
            let y = y0 + PANEL * b.offset as f64 / size;
            let h = (PANEL * b.size as f64 / size).max(MIN_PX);
            let (fill, stroke) = match b.kind {
                BufferKind::Scratch => ("#e8710a", "#8a4100"),
                BufferKind::Tensor => ("#1f6fb2", "#0d3a63"),
            };
            let name = &program.values[b.id].name;
            let _ = writeln!(
                o,
                r#"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" fill="{fill}" fill-opacity="0.75" stroke="{stroke}"><title>#{} {} — {} ({} B) at offset {}, instructions {}..={}</title></rect>"#,
                b.id,
                escape(name),
                human_bytes(b.size),
                b.size,
                b.offset,
                b.first,
                b.last
            );
            // The name where it fits, else the number the legend and tooltip give.
            let number = format!("#{}", b.id);
            let label = [name.as_str(), number.as_str()]
                .into_iter()
                .find(|l| w >= 7.0 * l.chars().count() as f64 + 8.0);
            if let (true, Some(label)) = (h >= 14.0, label) {
                let _ = writeln!(
                    o,
                    r#"<text x="{:.1}" y="{:.1}" fill="white">{}</text>"#,
                    x + 4.0,
                    y + 13.0,
                    escape(label)
                );
            }
        }
        for (i, line) in legends[p].iter().enumerate() {
            let _ = writeln!(
                o,
                r##"<text x="{LEFT}" y="{:.1}" fill="#8a4100">{}</text>"##,
                y0 + PANEL + 34.0 + i as f64 * LINE,
                escape(line)
            );
        }
    }
    let _ = writeln!(o, "</svg>");
    o
}

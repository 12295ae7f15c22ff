//! The memory map as an SVG picture: one panel per pool, time (instructions) across, offset
//! down, each buffer a rectangle coloured by its role (inputs and outputs, state, other
//! tensors, scratch); an input or output the NPU reads or writes inside its call's scratch is an
//! outline on the scratch. Sizes read in B/KiB/MiB; every buffer is at least a few pixels (a
//! tiny one stays visible) and has a tooltip; a label that does not fit becomes the buffer's
//! number, and the buffers are listed by number under their panel with their names, so a
//! printout reads without the tooltips. Each panel's title gives the pool's bytes by role.

use std::fmt::Write;

use super::roles::{totals, Role};
use crate::model::Program;
use crate::pipeline::ModelPlan;
use crate::targets::Target;

const WIDTH: f64 = 960.0;
const PANEL: f64 = 300.0;
const LEFT: f64 = 90.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 56.0;
const GAP: f64 = 70.0;
/// Height of one legend line.
const LINE: f64 = 15.0;
/// Buffers listed per panel (the rest: "and N more", in the report).
const LEGEND_MAX: usize = 24;

/// A role's fill and stroke.
fn colours(role: Role) -> (&'static str, &'static str) {
    match role {
        Role::Input | Role::Output => ("#2e8b57", "#17452b"),
        Role::State => ("#7b3fa0", "#3d1f50"),
        Role::Tensor => ("#1f6fb2", "#0d3a63"),
        Role::Scratch => ("#e8710a", "#8a4100"),
    }
}
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
    // Each panel's legend, listed under it: every buffer by number, in memory order.
    let legends: Vec<Vec<String>> = pools
        .iter()
        .map(|(pool, _)| {
            let mut buffers: Vec<_> = model_plan
                .buffers
                .iter()
                .filter(|b| b.mem_id == pool.mem_id)
                .collect();
            buffers.sort_by_key(|b| (b.offset, b.id));
            let mut lines: Vec<String> = buffers
                .iter()
                .take(LEGEND_MAX)
                .map(|b| {
                    let role = Role::of(program, b);
                    let whose = match (role, b.call) {
                        (Role::Scratch, Some(call)) => format!(", call {call}"),
                        _ => String::new(),
                    };
                    let inside = b
                        .within
                        .map_or(String::new(), |s| format!(", inside scratch #{s}"));
                    format!(
                        "#{} {} ({}{whose}{inside}): {} at offset {}, instructions {}..={}",
                        b.id,
                        program.values[b.id].name,
                        role.name(),
                        human_bytes(b.size),
                        human_bytes(b.offset),
                        b.first,
                        b.last
                    )
                })
                .collect();
            if buffers.len() > LEGEND_MAX {
                lines.push(format!(
                    "and {} more (the report lists every buffer)",
                    buffers.len() - LEGEND_MAX
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
        r##"<text x="{LEFT}" y="42" fill="#555">time (instruction) →, offset ↓; <tspan fill="#2e8b57">■ input/output</tspan>  <tspan fill="#7b3fa0">■ state</tspan>  <tspan fill="#1f6fb2">■ tensor</tspan>  <tspan fill="#e8710a">■ scratch</tspan>  □ inside a scratch; names below each pool</text>"##
    );
    let plot_w = WIDTH - LEFT - RIGHT;
    for (p, (pool, plan)) in pools.iter().enumerate() {
        let y0 = panel_top(p);
        let size = plan.size.max(1) as f64;
        let _ = writeln!(
            o,
            r#"<text x="{LEFT}" y="{:.1}" font-weight="bold">pool {} (mem_id {}): arena {}, lower bound {}, capacity {}; {}</text>"#,
            y0 - 8.0,
            escape(&pool.name),
            pool.mem_id,
            human_bytes(plan.size),
            human_bytes(plan.lower_bound),
            human_bytes(pool.capacity),
            escape(&totals(
                program,
                &model_plan
                    .buffers
                    .iter()
                    .filter(|b| b.mem_id == pool.mem_id)
                    .collect::<Vec<_>>()
            ))
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
        // Buffers inside a scratch last, drawn over it.
        let mut drawn: Vec<_> = model_plan
            .buffers
            .iter()
            .filter(|b| b.mem_id == pool.mem_id)
            .collect();
        drawn.sort_by_key(|b| b.within.is_some());
        for b in drawn {
            let x = LEFT + plot_w * b.first as f64 / steps as f64;
            let w = (plot_w * (b.last + 1 - b.first) as f64 / steps as f64).max(MIN_PX);
            let y = y0 + PANEL * b.offset as f64 / size;
            let h = (PANEL * b.size as f64 / size).max(MIN_PX);
            let role = Role::of(program, b);
            let (fill, stroke) = colours(role);
            // Inside a scratch: an outline, the scratch's colour showing through.
            let paint = if b.within.is_some() {
                format!(r#"fill="none" stroke="{fill}" stroke-width="2" stroke-dasharray="4 2""#)
            } else {
                format!(r#"fill="{fill}" fill-opacity="0.75" stroke="{stroke}""#)
            };
            let name = &program.values[b.id].name;
            let _ = writeln!(
                o,
                r#"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" {paint}><title>#{} {} ({}) — {} ({} B) at offset {}, instructions {}..={}</title></rect>"#,
                b.id,
                escape(name),
                role.name(),
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
                    r#"<text x="{:.1}" y="{:.1}" fill="{}">{}</text>"#,
                    x + 4.0,
                    // Inside a scratch: at the bottom, clear of the scratch's own label.
                    if b.within.is_some() {
                        y + h - 4.0
                    } else {
                        y + 13.0
                    },
                    if b.within.is_some() { "#222" } else { "white" },
                    escape(label)
                );
            }
        }
        for (i, line) in legends[p].iter().enumerate() {
            let _ = writeln!(
                o,
                r##"<text x="{LEFT}" y="{:.1}" fill="#333">{}</text>"##,
                y0 + PANEL + 34.0 + i as f64 * LINE,
                escape(line)
            );
        }
    }
    let _ = writeln!(o, "</svg>");
    o
}

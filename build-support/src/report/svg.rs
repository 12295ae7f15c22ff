//! The memory map as an SVG picture: one panel per pool, time (instructions) across, offset
//! down, each buffer a rectangle; delegate scratch stands out in orange.

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
    let height = TOP + pools.len() as f64 * (PANEL + GAP) + 20.0;
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
        r##"<text x="{LEFT}" y="42" fill="#555">time (instruction) →, offset ↓; <tspan fill="#1f6fb2">■ tensor</tspan>  <tspan fill="#e8710a">■ delegate scratch</tspan></text>"##
    );
    let plot_w = WIDTH - LEFT - RIGHT;
    for (p, (pool, plan)) in pools.iter().enumerate() {
        let y0 = TOP + p as f64 * (PANEL + GAP) + 24.0;
        let size = plan.size.max(1) as f64;
        let _ = writeln!(
            o,
            r#"<text x="{LEFT}" y="{:.1}" font-weight="bold">pool {} (mem_id {}): arena {} B, lower bound {} B, capacity {} B</text>"#,
            y0 - 8.0,
            escape(&pool.name),
            pool.mem_id,
            plan.size,
            plan.lower_bound,
            pool.capacity
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
                (size * frac).round() as u64
            );
        }
        for b in model_plan
            .buffers
            .iter()
            .filter(|b| b.mem_id == pool.mem_id)
        {
            let x = LEFT + plot_w * b.first as f64 / steps as f64;
            let w = plot_w * (b.last + 1 - b.first) as f64 / steps as f64;
            let y = y0 + PANEL * b.offset as f64 / size;
            let h = (PANEL * b.size as f64 / size).max(1.0);
            let (fill, stroke) = match b.kind {
                BufferKind::Scratch => ("#e8710a", "#8a4100"),
                BufferKind::Tensor => ("#1f6fb2", "#0d3a63"),
            };
            let name = &program.values[b.id].name;
            let _ = writeln!(
                o,
                r#"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" fill="{fill}" fill-opacity="0.75" stroke="{stroke}"><title>{} — {} B at offset {}, instructions {}..={}</title></rect>"#,
                escape(name),
                b.size,
                b.offset,
                b.first,
                b.last
            );
            if h >= 14.0 && w >= 7.0 * name.len().min(24) as f64 {
                let label: String = name.chars().take(24).collect();
                let _ = writeln!(
                    o,
                    r#"<text x="{:.1}" y="{:.1}" fill="white">{}</text>"#,
                    x + 4.0,
                    y + 13.0,
                    escape(&label)
                );
            }
        }
    }
    let _ = writeln!(o, "</svg>");
    o
}

//! Long plans under the user's control: progress on a terminal once planning has taken a
//! second, and a stop — at `--deadline` or on Ctrl-C — that keeps the best verified plan
//! found so far, marked as such. Without either, the planner runs to its step budget and the
//! result is the deterministic one.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arenaplan_planner::{Patience, Phase, Planner, Progress};

/// What is said of a plan that was stopped early.
pub(crate) const STOPPED_NOTE: &str = "note: planning was stopped early (--deadline or Ctrl-C): this is the best verified plan found by then, not the deterministic result of the step budget";

/// `--deadline`: a positive number of seconds.
pub(crate) fn parse_deadline(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 1e9 => Ok(s),
        _ => Err(format!("`{text}` is not a number of seconds above 0")),
    }
}

/// `--patience`: steps per buffer the smallest-arena search may go without improving, or
/// `off` for the whole budget.
pub(crate) fn parse_patience(text: &str) -> Result<Patience, String> {
    if text == "off" {
        return Ok(Patience::Unlimited);
    }
    match text.parse::<u64>() {
        Ok(steps) if steps > 0 => Ok(Patience::PerBuffer(steps)),
        _ => Err(format!(
            "`{text}` is neither a number of steps above 0 nor `off`"
        )),
    }
}

/// How long planning runs before progress is shown.
const QUIET: Duration = Duration::from_secs(1);

/// Watches one command's planning; stops the watcher when dropped.
pub(crate) struct Supervisor {
    done: Arc<AtomicBool>,
    watcher: Option<std::thread::JoinHandle<()>>,
}

impl Supervisor {
    /// Hooks `planner` up: a stop flag set by Ctrl-C (a second Ctrl-C exits at once, status
    /// 130) or after `deadline` seconds, and progress shown on standard error when it is a
    /// terminal.
    pub(crate) fn watch(planner: &mut Planner, deadline: Option<f64>) -> Supervisor {
        let stop = Arc::new(AtomicBool::new(false));
        let done = Arc::new(AtomicBool::new(false));
        let (on_signal, planning_done) = (Arc::clone(&stop), Arc::clone(&done));
        // Only one handler per process; a command plans once, so a failure here is only
        // another handler already installed (the default then applies). Once planning is
        // over, Ctrl-C quits at once, as it would without the handler.
        let _ = ctrlc::set_handler(move || {
            if planning_done.load(Ordering::Relaxed) || on_signal.swap(true, Ordering::Relaxed) {
                std::process::exit(130);
            }
        });
        planner.stop_flag(Arc::clone(&stop));
        let latest: Arc<Mutex<Option<Progress>>> = Arc::new(Mutex::new(None));
        let sink = Arc::clone(&latest);
        planner.on_progress(move |p| {
            *sink.lock().unwrap_or_else(|e| e.into_inner()) = Some(*p);
        });
        let watcher = {
            let (stop, done) = (Arc::clone(&stop), Arc::clone(&done));
            let deadline = deadline.map(Duration::from_secs_f64);
            std::thread::spawn(move || watch(&stop, &done, deadline, &latest))
        };
        Supervisor {
            done,
            watcher: Some(watcher),
        }
    }
}

impl Drop for Supervisor {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(watcher) = self.watcher.take() {
            let _ = watcher.join();
        }
    }
}

fn watch(
    stop: &AtomicBool,
    done: &AtomicBool,
    deadline: Option<Duration>,
    latest: &Mutex<Option<Progress>>,
) {
    let start = Instant::now();
    let terminal = std::io::stderr().is_terminal();
    let mut shown = false;
    let mut last_shown = start;
    while !done.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(50));
        let now = Instant::now();
        if deadline.is_some_and(|d| now - start >= d) {
            stop.store(true, Ordering::Relaxed);
        }
        if terminal && now - start >= QUIET && now - last_shown >= QUIET {
            let progress = latest
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .map(|p| (p.phase, p.arena, p.lower_bound));
            eprint!("\r{:<78}", line(progress, stop.load(Ordering::Relaxed)));
            let _ = std::io::stderr().flush();
            shown = true;
            last_shown = now;
        }
    }
    if shown {
        eprint!("\r{:78}\r", "");
    }
}

/// One progress line: phase, best arena, gap to the bound.
fn line(progress: Option<(Phase, u64, u64)>, stopping: bool) -> String {
    let stopping = if stopping { " (stopping)" } else { "" };
    let Some((phase, arena, lower_bound)) = progress else {
        return format!("planning: placing{stopping}");
    };
    let phase = match phase {
        Phase::Constructed => "placed",
        Phase::FittingCapacity => "fitting the capacity",
        Phase::ReachingBound => "searching for the bound",
        Phase::Bisecting => "bisecting",
        _ => "planning",
    };
    let gap = if lower_bound == 0 {
        0.0
    } else {
        arena.saturating_sub(lower_bound) as f64 * 100.0 / lower_bound as f64
    };
    format!(
        "planning: {phase}, best arena {arena} bytes, {gap:.2}% above the bound {lower_bound}{stopping}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_progress_line_says_phase_best_arena_and_gap() {
        let p = (Phase::Bisecting, 110, 100);
        assert_eq!(
            line(Some(p), false),
            "planning: bisecting, best arena 110 bytes, 10.00% above the bound 100"
        );
        assert!(line(Some(p), true).ends_with(" (stopping)"));
        assert_eq!(line(None, false), "planning: placing");
        assert!(parse_deadline("0.5").is_ok());
        assert_eq!(parse_patience("off"), Ok(Patience::Unlimited));
        assert_eq!(parse_patience("7"), Ok(Patience::PerBuffer(7)));
        for bad in ["0", "-1", "", "on", "1e9"] {
            assert!(parse_patience(bad).is_err(), "{bad}");
        }
        for bad in ["0", "-1", "nan", "inf", "x"] {
            assert!(parse_deadline(bad).is_err(), "{bad}");
        }
    }
}

//! Output sets survive `kill -9`: a writer killed at every step of a publish leaves the
//! complete old set or the complete new one, never a mix, and the next run removes what the
//! killed one left.
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::Command;

use arenaplan_build::output::{write_all_if_changed, write_all_observed, Step};

/// Set by the parent: the child publishes `NEW` into this folder...
const DIR_VAR: &str = "ARENAPLAN_TEST_KILL_DIR";
/// ...and kills itself with SIGKILL at the step with this index.
const STEP_VAR: &str = "ARENAPLAN_TEST_KILL_STEP";

const OLD: [(&str, &str); 3] = [("m.h", "old h"), ("m.c", "old c"), ("m.rs", "same")];
const NEW: [(&str, &str); 3] = [("m.h", "new h"), ("m.c", "new c"), ("m.rs", "same")];
/// Locked, Cleaned, three files staged, Renamed, Linked, Published.
const STEPS: usize = 8;

/// The set `dir` shows now: file names and contents, sorted.
fn visible(dir: &Path) -> Vec<(String, String)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().into_string().unwrap(),
                std::fs::read_to_string(e.path()).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

fn sorted(set: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut v: Vec<_> = set
        .iter()
        .map(|(n, b)| (n.to_string(), b.to_string()))
        .collect();
    v.sort();
    v
}

#[test]
#[ignore = "the child of a_publish_killed_at_every_step_leaves_the_old_or_the_new_set"]
fn child_publishes_and_is_killed() {
    let dir = PathBuf::from(std::env::var(DIR_VAR).expect("run by the parent test"));
    let kill_at: usize = std::env::var(STEP_VAR).unwrap().parse().unwrap();
    let mut step = 0;
    let result = write_all_observed(&dir, &NEW, &mut |_: Step| {
        if step == kill_at {
            let me = std::process::id().to_string();
            let _ = Command::new("kill").args(["-9", &me]).status();
            unreachable!("SIGKILL returned");
        }
        step += 1;
    });
    result.unwrap();
}

#[test]
fn a_publish_killed_at_every_step_leaves_the_old_or_the_new_set() {
    let top = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("arenaplan-kill-{}", std::process::id()));
    let mut saw_new = false;
    for kill_at in 0..STEPS {
        let _ = std::fs::remove_dir_all(&top);
        std::fs::create_dir_all(&top).unwrap();
        let dir = top.join("out");
        write_all_if_changed(&dir, &OLD).unwrap();
        let status = Command::new(std::env::current_exe().unwrap())
            .args([
                "--ignored",
                "--exact",
                "child_publishes_and_is_killed",
                "--nocapture",
            ])
            .env(DIR_VAR, &dir)
            .env(STEP_VAR, kill_at.to_string())
            .status()
            .unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(9), "killed at step {kill_at}");
        let seen = visible(&dir);
        assert!(
            seen == sorted(&OLD) || seen == sorted(&NEW),
            "killed at step {kill_at}: {seen:?}"
        );
        saw_new |= seen == sorted(&NEW);
        // The next run publishes and leaves nothing of the killed one behind.
        write_all_if_changed(&dir, &NEW).unwrap();
        assert_eq!(visible(&dir), sorted(&NEW));
        let mut store: Vec<String> = std::fs::read_dir(top.join(".out.arenaplan"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        store.sort();
        // The lock, the current generation, and at most the one before it (kept for readers
        // until the next run); no temporary folder or link.
        assert!(store.contains(&"lock".to_string()), "{store:?}");
        assert!(
            store.iter().all(|n| n == "lock" || n.starts_with("gen-")) && store.len() <= 3,
            "killed at step {kill_at}: {store:?}"
        );
    }
    assert!(saw_new, "some kill came after the publish");
    std::fs::remove_dir_all(&top).unwrap();
}

//! `arenaplan plan-csv` as a user runs it: outputs, summary line, exit codes, errors.

use std::path::PathBuf;
use std::process::{Command, Output};

fn arenaplan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arenaplan"))
        .args(args)
        .output()
        .expect("the arenaplan binary runs")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("arenaplan-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const EXAMPLE: &str = "id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n";

#[test]
fn plans_to_stdout_with_a_summary_on_stderr() {
    let dir = temp_dir("stdout");
    let input = dir.join("in.csv");
    std::fs::write(&input, EXAMPLE).unwrap();
    let out = arenaplan(&["plan-csv", input.to_str().unwrap(), "--capacity", "12"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.starts_with("id,lower,upper,size,offset\nb1,0,3,4,"));
    assert_eq!(stdout.lines().count(), 6);
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "buffers=5 lower_bound=12 arena=12 gap=0.00% steps=0 ended=bound\n"
    );
}

#[test]
fn output_file_is_identical_across_runs() {
    let dir = temp_dir("output");
    let input = dir.join("in.csv");
    std::fs::write(&input, EXAMPLE).unwrap();
    let (a, b) = (dir.join("a.csv"), dir.join("b.csv"));
    for path in [&a, &b] {
        let out = arenaplan(&[
            "plan-csv",
            input.to_str().unwrap(),
            "-o",
            path.to_str().unwrap(),
        ]);
        assert!(out.status.success());
        assert!(out.stdout.is_empty());
    }
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

#[test]
fn over_capacity_exits_1_says_how_far_and_writes_nothing() {
    let dir = temp_dir("capacity");
    let input = dir.join("in.csv");
    std::fs::write(&input, EXAMPLE).unwrap();
    let output = dir.join("out.csv");
    let out = arenaplan(&[
        "plan-csv",
        input.to_str().unwrap(),
        "--capacity",
        "10",
        "--output",
        output.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("no plan fits the capacity of 10 bytes"),
        "{stderr}"
    );
    assert!(stderr.contains("over; the lower bound is 12"), "{stderr}");
    assert!(!output.exists());
}

#[test]
fn bad_input_exits_2_naming_file_and_line() {
    let dir = temp_dir("bad");
    let input = dir.join("bad.csv");
    std::fs::write(&input, "id,lower,upper,size\na,0,2,4\nb,5,3,4\n").unwrap();
    let out = arenaplan(&["plan-csv", input.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("bad.csv: line 3: upper (3) must be greater than lower (5)"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());

    let missing = dir.join("missing.csv");
    let out = arenaplan(&["plan-csv", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("missing.csv"));
}

#[test]
fn alignment_pads_sizes() {
    let dir = temp_dir("align");
    let input = dir.join("in.csv");
    std::fs::write(&input, "id,lower,upper,size\na,0,2,10\nb,1,3,10\n").unwrap();
    let out = arenaplan(&["plan-csv", input.to_str().unwrap(), "--alignment", "16"]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "buffers=2 lower_bound=32 arena=32 gap=0.00% steps=0 ended=bound\n"
    );
}

#[test]
fn sizes_beyond_the_limit_are_refused_with_the_line() {
    let dir = temp_dir("huge");
    let input = dir.join("huge.csv");
    std::fs::write(
        &input,
        "id,lower,upper,size\na,0,2,4\nb,0,2,18446744073709551615\n",
    )
    .unwrap();
    let out = arenaplan(&["plan-csv", input.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("huge.csv: line 3: buffer 1: size 18446744073709551615 exceeds"),
        "{stderr}"
    );
}

#[test]
fn empty_input_says_what_the_header_needs() {
    let dir = temp_dir("empty");
    let input = dir.join("empty.csv");
    std::fs::write(&input, "").unwrap();
    let out = arenaplan(&["plan-csv", input.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("missing column `id`"), "{stderr}");
}

#[test]
fn reads_standard_input() {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_arenaplan"))
        .args(["plan-csv", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(EXAMPLE.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 6);
}

#[test]
fn an_output_that_cannot_be_written_exits_3_and_leaves_the_old_one() {
    let dir = temp_dir("unwritable");
    let input = dir.join("in.csv");
    std::fs::write(&input, EXAMPLE).unwrap();
    // A folder where the output goes: not an output file, so bad input (2), left alone.
    let out = arenaplan(&[
        "plan-csv",
        input.to_str().unwrap(),
        "-o",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains(&format!("writing {}", dir.display())) && stderr.contains("a folder"),
        "{stderr}"
    );
    // Below a file.
    let below = input.join("out.csv");
    let out = arenaplan(&[
        "plan-csv",
        input.to_str().unwrap(),
        "-o",
        below.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(std::fs::read_to_string(&input).unwrap(), EXAMPLE);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["in.csv"], "no temporary file left");
}

#[test]
fn inputs_that_are_not_regular_files_or_cannot_be_read() {
    let dir = temp_dir("not-regular");
    let out = arenaplan(&["plan-csv", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains(&format!(
            "{}: a directory, not a regular file",
            dir.display()
        )),
        "{stderr}"
    );
    if std::path::Path::new("/dev/zero").exists() {
        let out = arenaplan(&["plan-csv", "/dev/zero"]);
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(
            stderr.contains("/dev/zero: a character device, not a regular file"),
            "{stderr}"
        );
    }
    // A regular file whose reading fails (EIO): an I/O failure.
    let mem = dir.join("mem.csv");
    if std::os::unix::fs::symlink("/proc/self/mem", &mem).is_ok() && mem.exists() {
        let out = arenaplan(&["plan-csv", mem.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(3));
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.contains("mem.csv: cannot read"), "{stderr}");
    }
}

/// A lifetime CSV whose bound is out of reach: the default budget would search for seconds.
fn hard_csv() -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata/lifetimes/unreachable_bound.csv")
}

fn assert_stopped_early(out: &Output, plan: &std::path::Path) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains(" stopped=early\n"), "{stderr}");
    assert!(
        stderr.contains("best verified plan found by then"),
        "{stderr}"
    );
    // The plan written is whole: every buffer with its offset.
    assert_eq!(
        std::fs::read_to_string(plan).unwrap().lines().count(),
        3_001
    );
}

#[test]
fn plan_csv_stops_at_the_deadline_with_the_best_plan_marked() {
    let dir = temp_dir("deadline");
    let input = hard_csv();
    let plan = dir.join("plan.csv");
    let out = arenaplan(&[
        "plan-csv",
        input.to_str().unwrap(),
        "--deadline",
        "0.2",
        "-o",
        plan.to_str().unwrap(),
    ]);
    assert_stopped_early(&out, &plan);
    let bad = arenaplan(&["plan-csv", input.to_str().unwrap(), "--deadline", "-1"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[cfg(unix)]
#[test]
fn plan_csv_stops_on_ctrl_c_with_the_best_plan_marked() {
    let dir = temp_dir("ctrl-c");
    let input = hard_csv();
    let plan = dir.join("plan.csv");
    let child = Command::new(env!("CARGO_BIN_EXE_arenaplan"))
        .args([
            "plan-csv",
            input.to_str().unwrap(),
            "-o",
            plan.to_str().unwrap(),
        ])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    assert_stopped_early(&out, &plan);
}

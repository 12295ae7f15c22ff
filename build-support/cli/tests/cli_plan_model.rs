//! `arenaplan plan` and `arenaplan inspect` as a user runs them.

use std::path::PathBuf;
use std::process::{Command, Output};

fn arenaplan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arenaplan"))
        .args(args)
        .output()
        .expect("runs")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("arenaplan-plan-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const MODEL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../testdata/models/two_npu_calls.toml"
);

#[test]
fn plan_writes_the_plan_and_the_report() {
    let out = temp_dir("ok");
    let result = arenaplan(&[
        "plan",
        "--target",
        "corstone-300",
        "--model",
        MODEL,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let json = std::fs::read_to_string(out.join("two_npu_calls.plan.json")).unwrap();
    assert!(json.starts_with("{\n  \"target\": \"corstone-300\","));
    let report = std::fs::read_to_string(out.join("two_npu_calls.report.txt")).unwrap();
    assert!(
        report.contains("scratch 0 `head@2.scratch`: 1536 bytes in sram"),
        "{report}"
    );
    // The same inputs give the same bytes; --name renames the outputs.
    let again = arenaplan(&[
        "plan",
        "--target",
        "corstone-300",
        "--model",
        MODEL,
        "--out",
        out.to_str().unwrap(),
        "--name",
        "again",
    ]);
    assert!(again.status.success());
    assert_eq!(
        std::fs::read_to_string(out.join("again.plan.json")).unwrap(),
        json
    );
}

#[test]
fn bad_target_or_model_writes_nothing() {
    let out = temp_dir("bad");
    let result = arenaplan(&[
        "plan",
        "--target",
        "corstone-3000",
        "--model",
        MODEL,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(2));
    let stderr = String::from_utf8(result.stderr).unwrap();
    assert!(
        stderr.contains("unknown target `corstone-3000` (did you mean `corstone-300`?)"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 0);

    let bad = out.join("bad.toml");
    std::fs::write(&bad, "name = \"m\"\n[[tensor]]\nname = \"x\"\n").unwrap();
    let result = arenaplan(&[
        "plan",
        "--target",
        "corstone-300",
        "--model",
        bad.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(2));
    let stderr = String::from_utf8(result.stderr).unwrap();
    assert!(
        stderr.contains("bad.toml:2:1: missing field `dtype`"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_dir(&out).unwrap().count(),
        1,
        "only the model file itself"
    );
}

#[test]
fn a_zero_sized_pool_in_the_targets_file_is_refused_with_its_line() {
    let dir = temp_dir("zero");
    let targets = dir.join("targets.toml");
    std::fs::write(
        &targets,
        "schema_version = 1\n[[target]]\nname = \"b\"\ncpu = \"m55\"\nrust_target = \"t\"\ndefault_pool = \"s\"\n[[target.pool]]\nmem_id = 1\nname = \"s\"\ncapacity = 0\nsection = \".arenaplan.s\"\nregion = \"S\"\n",
    )
    .unwrap();
    let result = arenaplan(&[
        "plan",
        "--targets",
        targets.to_str().unwrap(),
        "--target",
        "b",
        "--model",
        MODEL,
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(2));
    let stderr = String::from_utf8(result.stderr).unwrap();
    assert!(
        stderr.contains("targets.toml:10:12: pool `s` has capacity 0"),
        "{stderr}"
    );
}

#[test]
fn inspect_lists_delegates_and_their_scratch() {
    let result = arenaplan(&["inspect", MODEL]);
    assert!(result.status.success());
    let text = String::from_utf8(result.stdout).unwrap();
    assert!(text.contains("1 head (EthosUBackend)"), "{text}");
    assert!(
        text.contains("scratch 0 `scratch`: 1536 bytes in spec `npu_scratch`"),
        "{text}"
    );
    assert!(text.contains("arm 0:"), "{text}");
}

// ---- The exit-status contract: 1 does not fit, 2 bad input, 3 I/O failure. ----

/// Runs arenaplan, failing the test if it has not finished within 20 s (a FIFO read would
/// block forever).
fn arenaplan_within_time(args: &[&std::ffi::OsStr]) -> Output {
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let mut child = Command::new(env!("CARGO_BIN_EXE_arenaplan"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let start = Instant::now();
    while child.try_wait().expect("waits").is_none() {
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("arenaplan {args:?} did not finish within 20 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.wait_with_output().expect("collects the output")
}

/// `plan` (writing into `out`) and `inspect --target` of one model, both on corstone-300.
fn plan_and_inspect(model: &std::path::Path, out: &std::path::Path) -> [Output; 2] {
    let model = model.to_str().unwrap();
    [
        arenaplan(&[
            "plan",
            "--target",
            "corstone-300",
            "--model",
            model,
            "--out",
            out.to_str().unwrap(),
        ]),
        arenaplan(&["inspect", model, "--target", "corstone-300"]),
    ]
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// `model` with every `from` replaced by `to`, written to `dir/name`.
fn model_variant(dir: &std::path::Path, name: &str, from: &str, to: &str) -> PathBuf {
    let text = std::fs::read_to_string(MODEL).unwrap();
    assert!(text.contains(from));
    let path = dir.join(name);
    std::fs::write(&path, text.replace(from, to)).unwrap();
    path
}

/// Names of the entries of `dir`, sorted.
fn entries(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// No temporary folder of the output writer left in `dir`, beside it, or among its
/// generations.
fn assert_no_temp_folder(dir: &std::path::Path) {
    let name = dir.file_name().unwrap().to_string_lossy();
    let store = dir.with_file_name(format!(".{name}.arenaplan"));
    for d in [dir, dir.parent().unwrap(), &store] {
        let left: Vec<String> = entries(d)
            .into_iter()
            .filter(|n| n.starts_with(".arenaplan-tmp"))
            .collect();
        assert!(left.is_empty(), "left in {}: {left:?}", d.display());
    }
}

#[test]
fn help_documents_the_exit_statuses() {
    for args in [
        &["--help"][..],
        &["plan", "--help"],
        &["inspect", "--help"],
        &["plan-csv", "--help"],
    ] {
        let result = arenaplan(args);
        assert!(result.status.success());
        let text = String::from_utf8(result.stdout).unwrap();
        for line in [
            "Exit status (every subcommand):",
            "  1  does not fit:",
            "  2  bad input:",
            "  3  I/O failure:",
        ] {
            assert!(text.contains(line), "{args:?}: {text}");
        }
    }
}

#[test]
fn bad_flags_exit_2() {
    let out = temp_dir("flags");
    let out = out.to_str().unwrap();
    for args in [
        &[
            "plan",
            "--target",
            "corstone-300",
            "--model",
            MODEL,
            "--out",
            out,
            "--budget",
            "many",
        ][..],
        &[
            "plan",
            "--target",
            "corstone-300",
            "--model",
            MODEL,
            "--out",
            out,
            "--emit",
            "pdf",
        ],
        &["plan", "--target", "corstone-300", "--model", MODEL],
        &["inspect", MODEL, "--no-such-flag"],
        &["plan-csv", "in.csv", "--alignment", "0"],
        &["no-such-command"],
    ] {
        let result = arenaplan(args);
        assert_eq!(
            result.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&result)
        );
    }
}

#[test]
fn a_bad_declaration_is_bad_input_for_plan_and_inspect() {
    let dir = temp_dir("decl");
    let model = model_variant(&dir, "typo.toml", "\"npu_scratch\"", "\"npu_scrach\"");
    let out = dir.join("out");
    for result in &plan_and_inspect(&model, &out) {
        assert_eq!(result.status.code(), Some(2), "{}", stderr(result));
        assert!(
            stderr(result)
                .contains("has no compile spec `npu_scrach` (did you mean `npu_scratch`?)"),
            "{}",
            stderr(result)
        );
    }
    assert!(!out.exists());

    // A #[delegate] in a scanned source, too.
    let source = dir.join("decls.rs");
    std::fs::write(
        &source,
        "#[delegate(backend = \"X\", scratch = [0], mem_id = spec!(npu_scratch))]\npub struct X;\n",
    )
    .unwrap();
    let result = arenaplan(&[
        "plan",
        "--target",
        "corstone-300",
        "--model",
        MODEL,
        "--source",
        source.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(2), "{}", stderr(&result));
    assert!(
        stderr(&result).contains("decls.rs:1:"),
        "{}",
        stderr(&result)
    );
    assert!(!out.exists());
}

#[test]
fn over_capacity_exits_1_for_plan_and_inspect_and_writes_nothing() {
    let dir = temp_dir("capacity");
    let model = model_variant(&dir, "big.toml", "size = 8192", "size = 3000000");
    let out = dir.join("out");
    for result in &plan_and_inspect(&model, &out) {
        assert_eq!(result.status.code(), Some(1), "{}", stderr(result));
        assert!(
            stderr(result).contains("pool `sram` (mem_id 1) needs 3027648 bytes but has 2097152"),
            "{}",
            stderr(result)
        );
    }
    assert!(!out.exists());
}

#[test]
fn a_model_or_targets_file_that_never_ends_is_refused_at_once() {
    let dir = temp_dir("dev-zero");
    let out = dir.join("out");
    // Through a link with a model's extension, so the format is not what refuses it.
    let zero = dir.join("zero.pte");
    if std::os::unix::fs::symlink("/dev/zero", &zero).is_err() || !zero.exists() {
        return;
    }
    let result = arenaplan_within_time(&[
        "plan".as_ref(),
        "--target".as_ref(),
        "corstone-300".as_ref(),
        "--model".as_ref(),
        zero.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(result.status.code(), Some(2), "{}", stderr(&result));
    assert!(
        stderr(&result).contains(&format!(
            "{}: a character device, not a regular file",
            zero.display()
        )),
        "{}",
        stderr(&result)
    );
    for args in [
        &["inspect".as_ref(), "/dev/zero".as_ref()][..],
        &["inspect".as_ref(), zero.as_os_str()],
        &[
            "inspect".as_ref(),
            MODEL.as_ref(),
            "--target".as_ref(),
            "b".as_ref(),
            "--targets".as_ref(),
            "/dev/zero".as_ref(),
        ],
        &["plan-csv".as_ref(), "/dev/zero".as_ref()],
    ] {
        let result = arenaplan_within_time(args);
        assert_eq!(
            result.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&result)
        );
        assert!(stderr(&result).contains("zero"), "{}", stderr(&result));
    }
    assert!(!out.exists());
}

#[test]
fn a_fifo_is_refused_without_blocking() {
    let dir = temp_dir("fifo");
    let fifo = dir.join("model.pte");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("mkfifo unavailable: skipped");
        return;
    }
    let text = dir.join("model.toml");
    Command::new("mkfifo").arg(&text).status().unwrap();
    let out = dir.join("out");
    for model in [&fifo, &text] {
        for args in [
            &[
                "plan".as_ref(),
                "--target".as_ref(),
                "corstone-300".as_ref(),
                "--model".as_ref(),
                model.as_os_str(),
                "--out".as_ref(),
                out.as_os_str(),
            ][..],
            &["inspect".as_ref(), model.as_os_str()],
            &[
                "plan".as_ref(),
                "--target".as_ref(),
                "corstone-300".as_ref(),
                "--model".as_ref(),
                MODEL.as_ref(),
                "--source".as_ref(),
                model.as_os_str(),
                "--out".as_ref(),
                out.as_os_str(),
            ],
            &[
                "plan".as_ref(),
                "--targets".as_ref(),
                model.as_os_str(),
                "--target".as_ref(),
                "b".as_ref(),
                "--model".as_ref(),
                MODEL.as_ref(),
                "--out".as_ref(),
                out.as_os_str(),
            ],
            &["plan-csv".as_ref(), model.as_os_str()],
        ] {
            let result = arenaplan_within_time(args);
            assert_eq!(
                result.status.code(),
                Some(2),
                "{args:?}: {}",
                stderr(&result)
            );
            assert!(
                stderr(&result)
                    .contains(&format!("{}: a FIFO, not a regular file", model.display())),
                "{args:?}: {}",
                stderr(&result)
            );
        }
    }
    assert!(!out.exists());
}

#[test]
fn a_directory_or_a_missing_file_is_bad_input() {
    let dir = temp_dir("dir-input");
    let as_model = dir.join("model.toml");
    std::fs::create_dir(&as_model).unwrap();
    let result = arenaplan(&["inspect", as_model.to_str().unwrap()]);
    assert_eq!(result.status.code(), Some(2), "{}", stderr(&result));
    assert!(
        stderr(&result).contains(&format!(
            "{}: a directory, not a regular file",
            as_model.display()
        )),
        "{}",
        stderr(&result)
    );
    let result = arenaplan(&["inspect", dir.to_str().unwrap()]);
    assert_eq!(result.status.code(), Some(2), "{}", stderr(&result));
    assert!(
        stderr(&result).contains("a directory"),
        "{}",
        stderr(&result)
    );
    let missing = dir.join("missing.pte");
    let result = arenaplan(&["inspect", missing.to_str().unwrap()]);
    assert_eq!(result.status.code(), Some(2), "{}", stderr(&result));
    assert!(
        stderr(&result).contains(&format!("{}: no such file", missing.display())),
        "{}",
        stderr(&result)
    );
}

#[test]
fn a_file_that_exists_but_cannot_be_read_is_an_io_failure() {
    let dir = temp_dir("unreadable");
    // /proc/self/mem is a regular file whose first page cannot be read (EIO), even by root.
    let mem = dir.join("mem.pte");
    if std::os::unix::fs::symlink("/proc/self/mem", &mem).is_ok() && mem.exists() {
        let result = arenaplan_within_time(&["inspect".as_ref(), mem.as_os_str()]);
        assert_eq!(result.status.code(), Some(3), "{}", stderr(&result));
        assert!(
            stderr(&result).contains(&format!("{}: cannot read", mem.display())),
            "{}",
            stderr(&result)
        );
    }
    // Without permission (root reads anyway: then there is nothing to test).
    let locked = dir.join("locked.toml");
    std::fs::copy(MODEL, &locked).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::read(&locked).is_err() {
        let result = arenaplan(&["inspect", locked.to_str().unwrap()]);
        assert_eq!(result.status.code(), Some(3), "{}", stderr(&result));
    }
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o644)).unwrap();
}

#[test]
fn an_output_that_cannot_be_written_is_an_io_failure() {
    let dir = temp_dir("out-file");
    let file = dir.join("not-a-folder");
    std::fs::write(&file, "precious").unwrap();
    // A file where the folder goes is bad input (2); below a file, the file system refuses (3).
    for (out, code) in [(file.clone(), 2), (file.join("below"), 3)] {
        let result = arenaplan(&[
            "plan",
            "--target",
            "corstone-300",
            "--model",
            MODEL,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(result.status.code(), Some(code), "{}", stderr(&result));
        assert!(
            stderr(&result).contains("not-a-folder"),
            "{}",
            stderr(&result)
        );
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "precious");
    assert_eq!(entries(&dir), ["not-a-folder"]);
}

#[test]
fn a_failed_write_leaves_the_previous_outputs_as_they_were() {
    let dir = temp_dir("all-or-none");
    let out = dir.join("out");
    let plan = |model: &std::path::Path, emit: &str| {
        arenaplan(&[
            "plan",
            "--target",
            "corstone-300",
            "--model",
            model.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--emit",
            emit,
        ])
    };
    let first = plan(MODEL.as_ref(), "json,report");
    assert!(first.status.success(), "{}", stderr(&first));
    assert_no_temp_folder(&out);
    let before: Vec<(String, Vec<u8>, std::time::SystemTime)> = entries(&out)
        .into_iter()
        .map(|n| {
            let path = out.join(&n);
            let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
            (n, std::fs::read(&path).unwrap(), modified)
        })
        .collect();
    assert_eq!(before.len(), 3, "json, report, svg");

    // A changed model (so every file changes) whose set cannot be published: a folder is
    // where the lock file of its generations goes (the file system refuses to open it).
    let changed = model_variant(&dir, "changed.toml", "size = 8192", "size = 4096");
    let lock = dir.join(".out.arenaplan/lock");
    std::fs::remove_file(&lock).unwrap();
    std::fs::create_dir(&lock).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let failed = plan(&changed, "all");
    assert_eq!(failed.status.code(), Some(3), "{}", stderr(&failed));
    assert!(
        stderr(&failed).contains(".out.arenaplan"),
        "{}",
        stderr(&failed)
    );
    std::fs::remove_dir(&lock).unwrap();
    let expected: Vec<String> = before.iter().map(|f| f.0.clone()).collect();
    assert_eq!(entries(&out), expected, "no new file, no temporary folder");
    for (name, bytes, modified) in &before {
        let path = out.join(name);
        assert_eq!(&std::fs::read(&path).unwrap(), bytes, "{name}");
        assert_eq!(
            &std::fs::metadata(&path).unwrap().modified().unwrap(),
            modified,
            "{name}"
        );
    }
    assert_no_temp_folder(&out);

    // Once the way is clear, everything is written.
    let done = plan(&changed, "all");
    assert!(done.status.success(), "{}", stderr(&done));
    assert_ne!(
        std::fs::read(out.join("two_npu_calls.plan.json")).unwrap(),
        before[0].1
    );
    assert!(out.join("two_npu_calls.h").is_file());
    assert_no_temp_folder(&out);
}
#[test]
fn names_reach_the_terminal_without_control_characters() {
    let dir = temp_dir("terminal");
    let text = std::fs::read_to_string(MODEL).unwrap();
    let first = text.lines().find(|l| l.starts_with("name = ")).unwrap();
    let model = dir.join("escape.toml");
    std::fs::write(
        &model,
        text.replacen(first, "name = \"\\u001B[2Jwiped\\rfake\"", 1),
    )
    .unwrap();
    let result = arenaplan(&[
        "inspect",
        model.to_str().unwrap(),
        "--target",
        "corstone-300",
    ]);
    let stdout = String::from_utf8_lossy(&result.stdout);
    assert!(result.status.success(), "{}", stderr(&result));
    assert!(stdout.contains("\\u{1b}[2Jwiped\\u{d}fake"), "{stdout}");
    assert!(!stdout.contains('\u{1b}') && !stdout.contains('\r'));
}

/// `arenaplan plan` of `model` for corstone-300 into `out`.
fn plan_into(model: &std::path::Path, out: &std::path::Path) -> Output {
    arenaplan(&[
        "plan",
        "--target",
        "corstone-300",
        "--model",
        model.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ])
}

/// A model from a model zoo cannot carry the build machine's environment into firmware: a blob
/// path out of its folder is bad input naming the line, and nothing is written.
#[test]
fn a_blob_path_out_of_the_model_folder_is_refused_and_nothing_is_written() {
    let dir = temp_dir("blob-escape");
    let out = dir.join("out");
    for blob in ["/proc/self/environ", "../../etc/hostname"] {
        let model = dir.join("zoo.toml");
        std::fs::write(
            &model,
            format!(
                "name = \"zoo\"\ninputs = [\"x\"]\noutputs = [\"y\"]\n[[tensor]]\nname = \"x\"\ndtype = \"int8\"\nshape = [16]\n[[tensor]]\nname = \"y\"\ndtype = \"int8\"\nshape = [16]\n[[delegate]]\nname = \"npu\"\nbackend = \"MyBackend\"\nblob = \"{blob}\"\n[[instruction]]\nkind = \"delegate\"\ndelegate = \"npu\"\ninputs = [\"x\"]\noutputs = [\"y\"]\n"
            ),
        )
        .unwrap();
        let result = plan_into(&model, &out);
        assert_eq!(result.status.code(), Some(2), "{}", stderr(&result));
        assert!(
            stderr(&result).contains("zoo.toml:15:"),
            "{}",
            stderr(&result)
        );
        assert!(!out.exists());
    }
}

/// A program named too long for the files named after it is bad input (it was an I/O
/// failure, exit 3, once the file system refused the name).
#[test]
fn a_program_name_too_long_for_a_file_name_exits_2() {
    let dir = temp_dir("long-name");
    let text = std::fs::read_to_string(MODEL).unwrap();
    let first = text.lines().find(|l| l.starts_with("name = ")).unwrap();
    let model = dir.join("long.toml");
    std::fs::write(
        &model,
        text.replacen(first, &format!("name = \"{}\"", "m".repeat(300)), 1),
    )
    .unwrap();
    let out = dir.join("out");
    let result = plan_into(&model, &out);
    assert_eq!(result.status.code(), Some(2), "{}", stderr(&result));
    assert!(
        stderr(&result).contains("give a shorter name"),
        "{}",
        stderr(&result)
    );
    assert!(!out.exists());
}

#[test]
fn a_tflite_operator_without_a_kernel_exits_5_naming_it_unless_kernel_names_it() {
    let model = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata/models/tflite_without_kernels.toml");
    let out = temp_dir("no-kernel");
    let model = model.to_str().unwrap();
    let dir = out.to_str().unwrap();
    let refused = arenaplan(&[
        "plan",
        "--model",
        model,
        "--target",
        "corstone-300",
        "--out",
        dir,
    ]);
    assert_eq!(refused.status.code(), Some(5), "{}", stderr(&refused));
    let text = stderr(&refused);
    assert!(text.contains("`builtin:28` (TFLite's TANH)"), "{text}");
    assert!(text.contains("--kernel builtin:28"), "{text}");
    assert!(!out.exists() || entries(&out).is_empty(), "nothing written");
    // The firmware's own C kernels, named, and it plans.
    let mut args = vec![
        "plan",
        "--model",
        model,
        "--target",
        "corstone-300",
        "--out",
        dir,
    ];
    let ops: Vec<String> = text
        .lines()
        .filter_map(|l| l.split('`').nth(1))
        .map(str::to_owned)
        .collect();
    for op in &ops {
        args.extend(["--kernel", op.as_str()]);
    }
    let planned = arenaplan(&args);
    assert!(planned.status.success(), "{}", stderr(&planned));
}

#[test]
fn an_executorch_operator_without_a_kernel_exits_5_at_plan_time_naming_it() {
    let model = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata/models/executorch_without_kernels.toml");
    let out = temp_dir("no-et-kernel");
    let (model, dir) = (model.to_str().unwrap(), out.to_str().unwrap());
    let plan = |extra: &[&str]| {
        let mut args = vec![
            "plan",
            "--model",
            model,
            "--target",
            "corstone-300",
            "--out",
            dir,
        ];
        args.extend_from_slice(extra);
        arenaplan(&args)
    };
    let refused = plan(&[]);
    assert_eq!(refused.status.code(), Some(5), "{}", stderr(&refused));
    let text = stderr(&refused);
    for op in ["aten::_fft_r2c.out", "my_ops::front_end.out"] {
        assert!(
            text.contains(&format!("`{op}` (an ExecuTorch operator")),
            "{text}"
        );
        assert!(text.contains(&format!("--kernel {op}")), "{text}");
    }
    assert!(
        !text.contains("aten::add.out"),
        "ExecuTorch's kernel runs it: {text}"
    );
    assert!(!out.exists() || entries(&out).is_empty(), "nothing written");
    let planned = plan(&[
        "--kernel",
        "aten::_fft_r2c.out",
        "--kernel",
        "my_ops::front_end.out",
    ]);
    assert!(planned.status.success(), "{}", stderr(&planned));
}

#[test]
fn fastest_kernels_plans_the_scratch_the_default_leaves_out() {
    // The fixture's 3x3 convolution runs between its largest tensors: by default on
    // corstone-300's Helium it runs without CMSIS-NN's buffer, with --fastest-kernels with it.
    let model = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata/tflite-ops/tf_int8_ops2.tflite");
    let sram = |extra: &[&str]| -> u64 {
        let out = temp_dir(&format!("variants{}", extra.len()));
        let mut args = vec![
            "plan",
            "--model",
            model.to_str().unwrap(),
            "--target",
            "corstone-300",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend(extra);
        let result = arenaplan(&args);
        assert!(result.status.success(), "{}", stderr(&result));
        let json = std::fs::read_to_string(out.join("tf_int8_ops2.plan.json")).unwrap();
        let plan: serde_json::Value = serde_json::from_str(&json).unwrap();
        plan["pools"][0]["size"].as_u64().unwrap()
    };
    let (fit, fastest) = (sram(&[]), sram(&["--fastest-kernels"]));
    assert!(
        fit < fastest,
        "default {fit} B, --fastest-kernels {fastest} B"
    );
}

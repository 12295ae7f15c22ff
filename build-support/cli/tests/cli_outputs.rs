//! Outputs only where an output belongs: every writer of the command line (`plan --out`,
//! `run --out`, `plan-csv -o`) refuses a device, a FIFO and a symbolic link, exits 2 and
//! leaves the path exactly as it was. Run as root too (CI does): root could replace
//! `/dev/null` itself, which is what this guards against.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod support;

use support::{exported, stderr, temp_dir};

/// `plan` (or `run`, with a call) of `model` for corstone-300 into `out`.
fn writer(command: &str, model: &Path, out: &Path) -> Vec<std::ffi::OsString> {
    let mut args: Vec<std::ffi::OsString> = vec![
        command.into(),
        "--target".into(),
        "corstone-300".into(),
        "--model".into(),
        model.into(),
    ];
    if command == "run" {
        args.extend(["--call".into(), "forward".into()]);
    }
    args.extend(["--out".into(), out.into()]);
    args
}

fn arenaplan(args: &[impl AsRef<std::ffi::OsStr>]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arenaplan"))
        .args(args)
        .output()
        .expect("runs")
}

/// Each way of pointing a writer at something that is not its output, in `dir`.
fn hostile_paths(dir: &Path) -> Vec<(&'static str, PathBuf)> {
    let mut paths = Vec::new();
    // A device: as root a private one (the same as /dev/null), so that a regression replaces
    // a file of the test's and not the machine's /dev/null; else /dev/null, which a user
    // cannot replace anyway.
    let device = dir.join("null");
    let made = Command::new("mknod")
        .arg(&device)
        .args(["c", "1", "3"])
        .status()
        .is_ok_and(|s| s.success());
    paths.push((
        "device",
        if made {
            device
        } else {
            PathBuf::from("/dev/null")
        },
    ));
    let fifo = dir.join("fifo");
    if Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success())
    {
        paths.push(("fifo", fifo));
    }
    let target = dir.join("precious.txt");
    std::fs::write(&target, "keep me").unwrap();
    let link = dir.join("link");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    paths.push(("symlink", link));
    paths
}

/// What `path` is, without following it: kind and, for a regular file, its bytes.
fn state(path: &Path) -> (String, Option<Vec<u8>>) {
    let meta = std::fs::symlink_metadata(path).unwrap();
    (
        format!("{:?}", meta.file_type()),
        meta.is_file().then(|| std::fs::read(path).unwrap()),
    )
}

fn refused_untouched(what: &str, path: &Path, args: &[impl AsRef<std::ffi::OsStr>]) {
    let before = state(path);
    let out = arenaplan(args);
    assert_eq!(out.status.code(), Some(2), "{what}: {}", stderr(&out));
    assert!(
        stderr(&out).contains("left untouched"),
        "{what}: {}",
        stderr(&out)
    );
    assert_eq!(state(path), before, "{what}: {}", path.display());
}

#[test]
fn every_writer_refuses_a_device_a_fifo_and_a_symlink() {
    let dir = temp_dir("hostile-outputs");
    let csv = dir.join("in.csv");
    std::fs::write(&csv, "id,lower,upper,size\n0,0,2,16\n1,1,3,16\n").unwrap();
    let model = exported().join("linear_stack_bias/program.pte");
    for (what, path) in hostile_paths(&dir) {
        let p = path.as_os_str();
        refused_untouched(
            &format!("plan-csv -o {what}"),
            &path,
            &["plan-csv".as_ref(), csv.as_os_str(), "-o".as_ref(), p],
        );
        for command in ["plan", "run"] {
            refused_untouched(
                &format!("{command} --out {what}"),
                &path,
                &writer(command, &model, &path),
            );
        }
    }
    assert_eq!(
        std::fs::read_to_string(dir.join("precious.txt")).unwrap(),
        "keep me"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_folder_of_someone_elses_is_not_an_output_folder() {
    let dir = temp_dir("foreign-folder");
    std::fs::write(dir.join("notes.txt"), "mine").unwrap();
    let model = exported().join("linear_stack_bias/program.pte");
    let out = arenaplan(&writer("plan", &model, &dir));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("a folder arenaplan did not write"));
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn plan_csv_dash_o_dash_writes_standard_output() {
    let dir = temp_dir("dash-o-dash");
    let csv = dir.join("in.csv");
    std::fs::write(&csv, "id,lower,upper,size\n0,0,2,16\n1,1,3,16\n").unwrap();
    let out = arenaplan(&[
        "plan-csv".as_ref(),
        csv.as_os_str(),
        "-o".as_ref(),
        "-".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("id,lower,upper,size,offset"));
    assert!(!Path::new("-").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn plan_writes_each_kernel_files_unit_selective_unless_all_kernel_dtypes() {
    let model = exported().join("linear_stack_bias/program.pte");
    for (flag, says) in [
        (None, "AP_ET_DTYPE::Float"),
        (Some("--all-kernel-dtypes"), "for every dtype"),
    ] {
        let dir = temp_dir("kernel-units").join("out");
        let mut args = writer("plan", &model, &dir);
        args.extend(["--emit".into(), "c".into(), "--name".into(), "m".into()]);
        args.extend(flag.map(Into::into));
        let out = arenaplan(&args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let unit = std::fs::read_to_string(dir.join("m_et_portable_cpu_op_addmm.cpp")).unwrap();
        assert!(unit.contains(says), "{flag:?}: {unit}");
        assert!(unit.contains("#include <executorch/kernels/portable/cpu/op_addmm.cpp>"));
        let cmake = std::fs::read_to_string(dir.join("m_kernels.cmake")).unwrap();
        assert!(
            cmake.contains("\"m_et_portable_cpu_op_addmm.cpp\""),
            "{cmake}"
        );
        std::fs::remove_dir_all(dir.parent().unwrap()).unwrap();
    }
}

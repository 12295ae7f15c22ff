//! A model reaches nothing outside its own folder: every way a TOML model's `blob = "…"` can
//! point at the build machine's files is refused, naming the field, and the explicit root
//! option widens the folder and nothing else.

use std::fs;
use std::path::{Path, PathBuf};

use arenaplan_build::import::{load_model, load_model_in, ModelFolder};

mod common;

/// A fresh folder `NAME/models/m/` holding `m.toml` whose delegate names `blob`.
fn model_with_blob(name: &str, blob: &str) -> (PathBuf, PathBuf) {
    let top = std::env::temp_dir().join(format!("arenaplan-paths-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&top);
    let dir = top.join("models/m");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("ok.bin"), b"npu commands").unwrap();
    fs::write(top.join("models/shared.bin"), b"shared").unwrap();
    fs::write(top.join("secret.txt"), b"CI_TOKEN=hunter2").unwrap();
    let model = dir.join("m.toml");
    let blob = toml::Value::String(blob.to_owned());
    let text = common::one_call("MyBackend", "").replace("scratch = []", &format!("blob = {blob}"));
    fs::write(&model, text).unwrap();
    (top, model)
}

/// The refusal for `blob`, which must name the file, the line of the field and what to do.
fn refusal(name: &str, blob: &str) -> String {
    let (top, model) = model_with_blob(name, blob);
    let e = load_model(&model).unwrap_err().to_string();
    fs::remove_dir_all(&top).unwrap();
    assert!(e.contains("m.toml:16"), "names the file and line: {e}");
    assert!(!e.contains("hunter2"));
    e
}

fn blob_of(model: &Path, files: &ModelFolder) -> Vec<u8> {
    load_model_in(model, files).unwrap().delegates[0]
        .blob
        .clone()
        .unwrap()
}

#[test]
fn a_blob_inside_the_model_folder_is_read() {
    let (top, model) = model_with_blob("inside", "./ok.bin");
    assert_eq!(blob_of(&model, &ModelFolder::of(&model)), b"npu commands");
    fs::remove_dir_all(&top).unwrap();
}

#[test]
fn an_absolute_blob_path_is_refused() {
    let e = refusal("absolute", "/etc/hostname");
    assert!(e.contains("is an absolute path"), "{e}");
}

#[test]
fn proc_self_environ_is_refused() {
    let e = refusal("environ", "/proc/self/environ");
    assert!(e.contains("absolute path"), "{e}");
}

#[test]
fn dot_dot_leaving_the_folder_is_refused() {
    let e = refusal("dotdot", "../../secret.txt");
    assert!(e.contains("leads outside"), "{e}");
    assert!(e.contains("--files-root"), "says how to widen it: {e}");
    // Climbing out and back in is out too: the rule is about the path as written.
    let e = refusal("dotdot-back", "../m/ok.bin");
    assert!(e.contains("leads outside"), "{e}");
}

#[cfg(unix)]
#[test]
fn a_symlink_leading_out_of_the_folder_is_refused() {
    let (top, model) = model_with_blob("symlink", "link.bin");
    std::os::unix::fs::symlink(top.join("secret.txt"), model.with_file_name("link.bin")).unwrap();
    let e = load_model(&model).unwrap_err().to_string();
    assert!(e.contains("leads outside"), "{e}");
    fs::remove_dir_all(&top).unwrap();
}

#[cfg(target_os = "linux")]
#[test]
fn a_symlink_into_proc_is_refused_even_under_a_widened_root() {
    let (top, model) = model_with_blob("symlink-proc", "env.bin");
    std::os::unix::fs::symlink("/proc/self/environ", model.with_file_name("env.bin")).unwrap();
    let files = ModelFolder::of(&model).allow_under(Some("/"));
    let e = load_model_in(&model, &files).unwrap_err().to_string();
    assert!(e.contains("system folder"), "{e}");
    fs::remove_dir_all(&top).unwrap();
}

#[cfg(unix)]
#[test]
fn a_symlink_inside_the_folder_is_followed() {
    let (top, model) = model_with_blob("symlink-in", "alias.bin");
    std::os::unix::fs::symlink("ok.bin", model.with_file_name("alias.bin")).unwrap();
    assert_eq!(blob_of(&model, &ModelFolder::of(&model)), b"npu commands");
    fs::remove_dir_all(&top).unwrap();
}

#[test]
fn the_files_root_option_widens_the_folder_and_nothing_else() {
    let (top, model) = model_with_blob("widened", "../shared.bin");
    let files = ModelFolder::of(&model).allow_under(Some(top.join("models")));
    assert_eq!(blob_of(&model, &files), b"shared");
    fs::remove_dir_all(&top).unwrap();

    let (top, model) = model_with_blob("widened-past", "../../secret.txt");
    let files = ModelFolder::of(&model).allow_under(Some(top.join("models")));
    let e = load_model_in(&model, &files).unwrap_err().to_string();
    assert!(e.contains("leads outside"), "{e}");
    fs::remove_dir_all(&top).unwrap();
}

#[test]
fn a_missing_blob_is_named() {
    let e = refusal("missing", "nope.bin");
    assert!(e.contains("`nope.bin`: no such file"), "{e}");
}

#[cfg(unix)]
#[test]
fn a_model_reached_through_a_link_is_confined_to_its_own_folder() {
    let (top, model) = model_with_blob("model-link", "ok.bin");
    let link = top.join("link.toml");
    std::os::unix::fs::symlink(&model, &link).unwrap();
    // Its blob is found beside the model itself, not beside the link...
    assert_eq!(blob_of(&link, &ModelFolder::of(&link)), b"npu commands");
    fs::remove_dir_all(&top).unwrap();
    // ...and the link's folder is not the model's: the secret beside the link stays out.
    let (top, model) = model_with_blob("model-link-out", "../../secret.txt");
    let link = top.join("link.toml");
    std::os::unix::fs::symlink(&model, &link).unwrap();
    assert!(load_model(&link).is_err());
    fs::remove_dir_all(&top).unwrap();
}

#[test]
fn a_files_root_beside_the_model_folder_keeps_the_model_folder_allowed() {
    let (top, model) = model_with_blob("root-beside", "ok.bin");
    let elsewhere = top.join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    let files = ModelFolder::of(&model).allow_under(Some(&elsewhere));
    assert_eq!(blob_of(&model, &files), b"npu commands");
    fs::remove_dir_all(&top).unwrap();
}

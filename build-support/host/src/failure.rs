//! A run's failure, as text for people.

use std::string::String;

use arenaplan::{sys, RuntimeError};

/// What a failure of [`Runner::execute`](crate::Runner::execute) means, for people: the status and the instruction, and
/// where the emulated Ethos-U refused the job (a bare `AP_ERR_DRIVER` from Arm's driver), why:
/// which field of its optimizer config differs, or which command it stopped at.
///
/// ```
/// use arenaplan::{sys, RuntimeError};
/// let e = RuntimeError(sys::ap_status::AP_ERR_BAD_BLOB);
/// assert!(arenaplan_host::failure_text(&e, 3).ends_with("at instruction 3"));
/// ```
pub fn failure_text(e: &RuntimeError, instruction: u32) -> String {
    let mut text = format!("{e} at instruction {instruction}");
    if e.0 == sys::ap_status::AP_ERR_DRIVER {
        if let Some(m) = arenaplan::sim::ethos_u_config_mismatch() {
            text.push_str(&format!(": {m}"));
        } else if let Some(fault) = arenaplan::sim::ethos_u_fault() {
            text.push_str(&format!(": {fault}"));
        }
    }
    text
}

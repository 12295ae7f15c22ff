//! The safe edge of the C runtime: status codes as Rust errors.

use core::ffi::CStr;
use core::fmt;

use crate::sys;

/// A status other than `AP_OK` from the C runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuntimeError(pub sys::ap_status);

impl RuntimeError {
    /// The status's name, e.g. `AP_ERR_BAD_BLOB`.
    pub fn name(&self) -> &'static str {
        // SAFETY: ap_status_name returns a pointer to a static, NUL-terminated string for every
        // status (and a fixed one for unknown values); it never returns NULL.
        unsafe { CStr::from_ptr(sys::ap_status_name(self.0)) }
            .to_str()
            .unwrap_or("AP_ERR_UNKNOWN")
    }
}

impl RuntimeError {
    /// What to do about the error, where the status alone says it: `AP_ERR_DRIVER_SETUP`
    /// names the set-up call that was missed.
    ///
    /// ```
    /// use arenaplan::{sys::ap_status, RuntimeError};
    /// assert!(RuntimeError(ap_status::AP_ERR_DRIVER_SETUP).hint().unwrap().contains("ethos_u"));
    /// assert_eq!(RuntimeError(ap_status::AP_ERR_BAD_BLOB).hint(), None);
    /// ```
    pub fn hint(&self) -> Option<&'static str> {
        match self.0 {
            sys::ap_status::AP_ERR_DRIVER_SETUP => Some(
                "no NPU driver is set up (or the driver's fast memory would replace planned \
                 scratch): call ethosu_init / neutronInit before running, that is \
                 arenaplan::board::ethos_u::init or arenaplan::board::neutron::init on a board, \
                 arenaplan::sim::ethos_u and arenaplan::sim::neutron on the host or QEMU",
            ),
            _ => None,
        }
    }
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())?;
        if let Some(hint) = self.hint() {
            write!(f, " ({hint})")?;
        }
        Ok(())
    }
}

/// `Ok(())` for `AP_OK`, the error otherwise.
///
/// ```
/// use arenaplan::sys::ap_status;
/// assert!(arenaplan::check(ap_status::AP_OK).is_ok());
/// assert_eq!(arenaplan::check(ap_status::AP_ERR_BAD_BLOB).unwrap_err().name(), "AP_ERR_BAD_BLOB");
/// ```
pub fn check(status: sys::ap_status) -> Result<(), RuntimeError> {
    match status {
        sys::ap_status::AP_OK => Ok(()),
        other => Err(RuntimeError(other)),
    }
}

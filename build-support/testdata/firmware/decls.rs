// Declarations as a firmware crate writes them; scanned by tests of the build API.
use arenaplan::{delegate, spec};

#[delegate(backend = "EthosUBackend", scratch = blob, mem_id = spec!(npu_scratch))]
pub struct EthosU;

mod rust_backends {
    #[arenaplan::delegate(backend = "ConvIm2col", scratch = [2048, 512],
                          mem_id = [spec!(fast_scratch), spec!(cpu_scratch)])]
    pub fn conv_im2col(call: &mut arenaplan::Call<'_>) -> arenaplan::Result {
        call.scratch(0, 2048).map(|_| ())
    }
}

mod arenaplan_plan {
    //! Stands in for the module the build script generates.
    pub struct Declarations;
    pub mod backend {
        #[allow(non_snake_case)]
        pub mod EthosUBackend {
            pub const SCRATCH: &[usize] = &[];
        }
        #[allow(non_snake_case)]
        pub mod ConvIm2col {
            pub const SCRATCH: &[usize] = &[2048, 512];
        }
    }
}

use arenaplan::{delegate, spec, Call, Delegate};

#[delegate(backend = "EthosUBackend", scratch = blob, mem_id = spec!(npu_scratch))]
pub struct EthosU;

const HALF_KIB: usize = 512;

#[delegate(backend = "ConvIm2col", scratch = [2 * 1024, HALF_KIB],
           mem_id = [spec!(fast_scratch), spec!(cpu_scratch)])]
pub fn conv_im2col(call: &mut Call<'_>) -> arenaplan::Result {
    call.scratch(0, 2048).map(|_| ())
}

fn main() {
    assert_eq!(EthosU::BACKEND, "EthosUBackend");
    assert_eq!(EthosU::SCRATCH_BUFFERS, None);
    assert_eq!(CONV_IM2COL_DELEGATE.scratch_buffers, Some(2));
    const SRAM: u32 = spec!(npu_scratch);
    assert_eq!(SRAM, 1);
}

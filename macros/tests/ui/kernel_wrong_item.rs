// `#[kernel]` goes on a function.
#[arenaplan::kernel(op = "relu")]
pub struct Relu;

fn main() {}

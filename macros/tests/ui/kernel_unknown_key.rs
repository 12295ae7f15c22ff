// `#[kernel]` takes `op = "..."` and nothing else.
#[arenaplan::kernel(name = "relu")]
fn relu(_call: &mut arenaplan::Call<'_>) -> arenaplan::Result {
    Ok(())
}

fn main() {}

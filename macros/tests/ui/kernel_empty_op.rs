// The operator name is a non-empty string literal.
#[arenaplan::kernel(op = "")]
fn empty(_call: &mut arenaplan::Call<'_>) -> arenaplan::Result {
    Ok(())
}

fn main() {}

const POOL: u32 = arenaplan::spec!(no_such_spec);

fn main() {
    let _ = POOL;
}

//! Each kernel's exported symbol is the one the build's generated tables name for its
//! operator (one injective name rule, arenaplan-syntax's `symbol`), so firmware links it by
//! the `symbols` feature alone, and no two operators share a symbol.

#[test]
fn every_symbol_follows_the_build_name_rule() {
    assert_eq!(
        arenaplan_kernels::KERNELS.len(),
        arenaplan_kernels::SYMBOLS.len()
    );
    for (kernel, symbol) in arenaplan_kernels::KERNELS
        .iter()
        .zip(arenaplan_kernels::SYMBOLS)
    {
        let op = kernel.op.to_str().unwrap();
        assert_eq!(*symbol, arenaplan_syntax::names::kernel_symbol(op), "{op}");
    }
}

#[test]
fn operators_are_listed_once() {
    let ops = arenaplan_kernels::KERNELS;
    for (i, k) in ops.iter().enumerate() {
        assert!(ops[..i].iter().all(|o| o.op != k.op), "{:?} twice", k.op);
    }
}

/// The build decides which operators run in Rust from arenaplan-syntax's list: it must be
/// this crate's, or an operator would get two kernels (or none).
#[test]
fn the_build_knows_exactly_these_operators() {
    let ours: Vec<&str> = arenaplan_kernels::KERNELS
        .iter()
        .map(|k| k.op.to_str().unwrap())
        .collect();
    assert_eq!(ours, arenaplan_syntax::kernels::RUST_KERNELS);
}

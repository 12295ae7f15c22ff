//! The trampoline the runtime calls for a backend or kernel written in Rust: the flat list
//! split by the context's counts, errors as statuses, aliasing lists refused.

use arenaplan::__private::{dispatch, MAX_ARGS};
use arenaplan::sys::{ap_buffer, ap_context, ap_status};
use arenaplan::{Call, Error};

fn copy_plus_one(call: &mut Call<'_>) -> arenaplan::Result {
    let (inputs, outputs, scratch) = call.split();
    if scratch.len() != 1 || scratch[0].len() < inputs[0].len() {
        return Err(Error::ScratchTooSmall);
    }
    scratch[0][..inputs[0].len()].copy_from_slice(inputs[0]);
    for (o, s) in outputs[0].iter_mut().zip(scratch[0].iter()) {
        *o = s + 1;
    }
    Ok(())
}

fn failing(_: &mut Call<'_>) -> arenaplan::Result {
    Err(Error::Backend(7))
}

fn buffer(bytes: &mut [u8]) -> ap_buffer {
    ap_buffer {
        data: bytes.as_mut_ptr(),
        size: bytes.len(),
    }
}

fn context(ninputs: u32, noutputs: u32) -> ap_context {
    ap_context {
        temp: std::ptr::null_mut(),
        ninputs,
        noutputs,
        meta: std::ptr::null(),
        arg_ids: std::ptr::null(),
    }
}

fn run(f: arenaplan::BackendFn, ctx: &mut ap_context, args: &mut [ap_buffer]) -> ap_status {
    // SAFETY: every buffer points into a live local array of its size.
    unsafe { dispatch(f, ctx, args.as_mut_ptr(), args.len()) }
}

#[test]
fn a_call_runs_split_by_the_contexts_counts() {
    let (mut x, mut y, mut s) = ([1u8, 2, 3], [0u8; 3], [0u8; 8]);
    let mut args = [buffer(&mut x), buffer(&mut y), buffer(&mut s)];
    assert_eq!(
        run(copy_plus_one, &mut context(1, 1), &mut args),
        ap_status::AP_OK
    );
    assert_eq!(y, [2, 3, 4]);
}

#[test]
fn errors_become_statuses() {
    let (mut x, mut y, mut s) = ([1u8; 8], [0u8; 8], [0u8; 4]);
    let mut args = [buffer(&mut x), buffer(&mut y), buffer(&mut s)];
    assert_eq!(
        run(copy_plus_one, &mut context(1, 1), &mut args),
        ap_status::AP_ERR_SCRATCH_TOO_SMALL
    );
    assert_eq!(
        run(failing, &mut context(1, 1), &mut args),
        ap_status::AP_ERR_BACKEND
    );
    // Counts beyond the list.
    assert_eq!(
        run(copy_plus_one, &mut context(3, 1), &mut args),
        ap_status::AP_ERR_ARGUMENT_MISMATCH
    );
}

#[test]
fn written_arguments_sharing_memory_are_refused() {
    // An output over an input: a `&mut [u8]` aliasing a `&[u8]`.
    let (mut x, mut s) = ([1u8; 4], [0u8; 8]);
    let xb = buffer(&mut x);
    let mut args = [xb, xb, buffer(&mut s)];
    assert_eq!(
        run(copy_plus_one, &mut context(1, 1), &mut args),
        ap_status::AP_ERR_ARGUMENT_MISMATCH
    );
    // Scratch overlapping an output by one byte.
    let (mut x, mut both) = ([1u8; 4], [0u8; 12]);
    let out = ap_buffer {
        data: both.as_mut_ptr(),
        size: 5,
    };
    let scratch = ap_buffer {
        // SAFETY: within `both`.
        data: unsafe { both.as_mut_ptr().add(4) },
        size: 8,
    };
    let mut args = [buffer(&mut x), out, scratch];
    assert_eq!(
        run(copy_plus_one, &mut context(1, 1), &mut args),
        ap_status::AP_ERR_ARGUMENT_MISMATCH
    );
}

fn sum_inputs(call: &mut Call<'_>) -> arenaplan::Result {
    let (inputs, outputs, _) = call.split();
    for (i, o) in outputs[0].iter_mut().enumerate() {
        *o = inputs.iter().map(|x| x[i]).sum();
    }
    Ok(())
}

#[test]
fn one_input_passed_twice_is_read_twice() {
    // `x + x`: inputs may share memory, they are read-only views.
    let (mut x, mut y) = ([1u8, 2, 3], [0u8; 3]);
    let xb = buffer(&mut x);
    let mut args = [xb, xb, buffer(&mut y)];
    assert_eq!(
        run(sum_inputs, &mut context(2, 1), &mut args),
        ap_status::AP_OK
    );
    assert_eq!(y, [2, 4, 6]);
}

#[test]
fn a_list_longer_than_the_views_is_refused() {
    let mut bytes = [[0u8; 1]; MAX_ARGS + 1];
    let mut args: Vec<ap_buffer> = bytes.iter_mut().map(|b| buffer(b)).collect();
    assert_eq!(
        run(copy_plus_one, &mut context(1, 1), &mut args),
        ap_status::AP_ERR_ARGUMENT_MISMATCH
    );
}

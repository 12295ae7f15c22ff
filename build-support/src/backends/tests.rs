use super::*;

/// A Vela bin stream built block by block (name, data), each padded to 16.
fn stream(blocks: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, data) in blocks {
        let mut header = [0u8; 32];
        header[..name.len()].copy_from_slice(name.as_bytes());
        header[16..20].copy_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(&header);
        out.extend_from_slice(data);
        out.resize(out.len().div_ceil(16) * 16, 0);
    }
    out
}

fn io(count: u32) -> Vec<u8> {
    let mut v = count.to_le_bytes().to_vec();
    for i in 0..count {
        for w in [1u32, 1, 1, 4, 4, 8, 1, 16 * i, 1] {
            v.extend_from_slice(&w.to_le_bytes());
        }
    }
    v
}

fn valid_blocks() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("vela_bin_stream", vec![]),
        ("cmd_data", b"COP1\x00\x00\x00\x00".to_vec()),
        ("weight_data", vec![7; 33]),
        ("scratch_size", 1536u32.to_le_bytes().to_vec()),
        ("inputs", io(2)),
        ("outputs", io(1)),
        ("vela_end_stream", vec![]),
    ]
}

#[test]
fn a_vela_bin_stream_gives_scratch_and_io_counts() {
    let info = EthosU
        .inspect(&stream(&valid_blocks()), &BTreeMap::new())
        .unwrap();
    assert_eq!((info.inputs, info.outputs), (2, 1));
    assert_eq!(
        info.scratch,
        vec![BlobScratch {
            role: ScratchRole::EthosUScratch,
            size: 1536,
        }]
    );
    assert_eq!(
        (info.scratch[0].slot(), info.scratch[0].spec()),
        (0, "npu_scratch")
    );
    assert!(!EthosU.npu_reads_io());
    let parsed = VelaBinStream::parse(&stream(&valid_blocks())).unwrap();
    assert_eq!(parsed.inputs[1].offset, 16);
    assert_eq!(parsed.weight_size, 33);
}

#[test]
fn vela_streams_with_problems_are_refused_with_the_offset() {
    let mut swapped = valid_blocks();
    swapped.swap(2, 3);
    let e = VelaBinStream::parse(&stream(&swapped))
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "EthosUBackend blob, at byte 0x50: expected block `weight_data`, found `scratch_size`"
    );

    let mut bad_cmd = valid_blocks();
    bad_cmd[1].1 = b"XXXX".to_vec();
    assert!(VelaBinStream::parse(&stream(&bad_cmd))
        .unwrap_err()
        .to_string()
        .contains("COP1 or COP2"));

    let mut huge_io = valid_blocks();
    huge_io[4].1 = u32::MAX.to_le_bytes().to_vec();
    assert!(VelaBinStream::parse(&stream(&huge_io))
        .unwrap_err()
        .to_string()
        .contains("at most 1024"));

    let full = stream(&valid_blocks());
    for cut in 0..full.len() {
        assert!(
            VelaBinStream::parse(&full[..cut]).is_err(),
            "truncated at {cut}"
        );
    }
    let mut oversized = full.clone();
    oversized[32 + 16..][..4].copy_from_slice(&u32::MAX.to_le_bytes()); // cmd_data size
    assert!(VelaBinStream::parse(&oversized)
        .unwrap_err()
        .to_string()
        .contains("declares 4294967295 bytes"));
    assert!(VelaBinStream::parse(b"not a stream at all, certainly not").is_err());
}

/// A record whose copy lies outside Vela's scratch is refused when the blob is read, as the C
/// backend refuses it at init (the build once accepted what the board then refused).
#[test]
fn an_ethos_u_record_outside_its_scratch_is_refused_at_build_time() {
    let mut blocks = valid_blocks();
    blocks[3].1 = 64u32.to_le_bytes().to_vec(); // each record copies 128 bytes
    let e = EthosU
        .inspect(&stream(&blocks), &BTreeMap::new())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("I/O record 0: its copy does not fit in the scratch Vela computed"),
        "{e}"
    );
    let mut blocks = valid_blocks();
    let mut region_2 = io(1);
    region_2[4 + 32..4 + 36].copy_from_slice(&2u32.to_le_bytes());
    blocks[4].1 = region_2;
    let e = EthosU
        .inspect(&stream(&blocks), &BTreeMap::new())
        .unwrap_err()
        .to_string();
    assert!(e.contains("not in region 1"), "{e}");
}

#[test]
fn a_vela_stream_without_scratch_still_names_the_scratch_role() {
    let mut blocks = valid_blocks();
    blocks[3].1 = 0u32.to_le_bytes().to_vec();
    // No scratch, so no inputs or outputs either: their copies would live there.
    blocks[4].1 = io(0);
    blocks[5].1 = io(0);
    let info = EthosU.inspect(&stream(&blocks), &BTreeMap::new()).unwrap();
    assert_eq!(
        info.scratch,
        vec![BlobScratch {
            role: ScratchRole::EthosUScratch,
            size: 0,
        }]
    );
}

#[test]
fn external_vela_blocks_are_refused_naming_the_block() {
    let mut blob = stream(&valid_blocks());
    // weight_data is the third block: 32 + 16 (cmd_data's 8 bytes padded) after the second.
    let weights = 32 + 32 + 16;
    assert_eq!(&blob[weights..weights + 11], b"weight_data");
    blob[weights + 20] = 1;
    assert_eq!(
        VelaBinStream::parse(&blob).unwrap_err().to_string(),
        format!(
            "EthosUBackend blob, at byte {:#x}: block `weight_data` is external (header byte 20 is 1): its data is a key into a named data map outside the program, which arenaplan does not resolve; export the program with the delegate's data inline",
            weights + 20
        )
    );
}

/// Bytes of microcode, weights and kernels in the payloads below.
const MICROCODE: u32 = 64;
const WEIGHTS: u32 = 40;
const KERNELS: usize = 16;

/// A Neutron payload: 1 input, 1 output, 1 input argument with the given format bytes and
/// version; at 16 a microcode of 16 words (magic, sizes, I/O counts, then `words`), followed by
/// weights and kernels, each 16-aligned.
fn neutron_with(version: u8, formats: [u8; 2], words: &[(usize, u32)]) -> Vec<u8> {
    let mut v = vec![1u8, 1, 1, formats[0], formats[1], 0, 0, version];
    v.resize(16, 0);
    let mut payload = vec![0u32; (MICROCODE / 4) as usize];
    payload[0] = 0x6443_4D6E;
    payload[6] = MICROCODE;
    payload[7] = WEIGHTS;
    let io = if version == 0 { 11 } else { 13 };
    payload[io] = 1;
    payload[io + 1] = 1;
    for &(i, w) in words {
        payload[i] = w;
    }
    for w in payload {
        v.extend_from_slice(&w.to_le_bytes());
    }
    v.extend(std::iter::repeat_n(0xA5, WEIGHTS as usize));
    v.resize(v.len().div_ceil(16) * 16, 0);
    v.extend(std::iter::repeat_n(0x5A, KERNELS));
    v
}

fn neutron(version: u8, words: &[(usize, u32)]) -> Vec<u8> {
    neutron_with(version, [0, 0], words)
}

#[test]
fn neutron_headers_of_both_versions() {
    let v0 = NeutronHeader::parse(&neutron(0, &[(9, 4096), (10, 512)])).unwrap();
    assert_eq!(
        (v0.scratch_size, v0.sram_scratch_size, v0.payload_offset),
        (4096, 512, 16)
    );
    let v1 = NeutronHeader::parse(&neutron(
        1,
        &[(9, 40960), (10, 0x8000_0010), (11, 32), (12, 12288)],
    ))
    .unwrap();
    assert_eq!(
        (
            v1.scratch_size,
            v1.profile_size,
            v1.debug_size,
            v1.sram_scratch_size
        ),
        (40960, 16, 32, 12288)
    );
    assert_eq!((v1.weights_offset, v1.kernels_offset), (80, 128));
    let info = Neutron
        .inspect(&neutron(1, &[(9, 40960), (12, 12288)]), &BTreeMap::new())
        .unwrap();
    assert_eq!(
        info.scratch
            .iter()
            .map(|s| (s.role, s.size, s.spec()))
            .collect::<Vec<_>>(),
        vec![
            (ScratchRole::NeutronScratch, 40960, "npu_scratch"),
            (ScratchRole::NeutronSramScratch, 12288, "fast_scratch"),
            (ScratchRole::NeutronProfile, 0, "npu_scratch"),
            (ScratchRole::NeutronDebug, 0, "npu_scratch"),
        ]
    );
    assert!(Neutron.npu_reads_io());
}

#[test]
fn neutron_roles_come_in_slot_order_with_their_sizes() {
    let v0 = Neutron
        .inspect(&neutron(0, &[(9, 0), (10, 2048)]), &BTreeMap::new())
        .unwrap();
    assert_eq!(
        v0.scratch
            .iter()
            .map(|s| (s.slot(), s.label(), s.size))
            .collect::<Vec<_>>(),
        vec![(0, "scratch", 0), (1, "sram_scratch", 2048)],
        "version 0 has no profile or debug buffer"
    );
    let v1 = Neutron
        .inspect(
            &neutron(1, &[(9, 4096), (10, 0x8000_0100), (11, 64), (12, 1024)]),
            &BTreeMap::new(),
        )
        .unwrap();
    assert_eq!(
        v1.scratch
            .iter()
            .map(|s| (s.slot(), s.label(), s.size))
            .collect::<Vec<_>>(),
        vec![
            (0, "scratch", 4096),
            (1, "sram_scratch", 1024),
            (2, "profile", 256),
            (3, "debug", 64)
        ]
    );
}

/// A tensor for the transposition rules.
fn tensor(shape: &[u64], dtype: crate::model::DType, dim_order: &[u8]) -> crate::model::Value {
    let mut v = crate::model::Value::planned("t", dtype, shape.to_vec());
    v.dim_order = dim_order.to_vec();
    v
}

/// The transpositions of a one-input, one-output payload with `formats` over `input` and
/// `output`.
fn layout(
    formats: [u8; 2],
    input: &crate::model::Value,
    output: &crate::model::Value,
) -> Result<Vec<neutron::layout::Transposition>, String> {
    let h = NeutronHeader::parse(&neutron_with(0, formats, &[])).unwrap();
    neutron::layout::transpositions(&h, &[input], &[output])
}

#[test]
fn neutron_format_bytes_are_read_not_refused() {
    let blob = neutron_with(0, [1, 2], &[]);
    let h = NeutronHeader::parse(&blob).unwrap();
    assert_eq!((h.input_formats, h.output_formats), (vec![1], vec![2]));
    assert_eq!((h.input_map, h.output_map), (vec![0], vec![0]));
    assert!(Neutron.inspect(&blob, &BTreeMap::new()).is_ok());
}

#[test]
fn a_flagged_contiguous_tensor_of_several_channels_is_transposed_as_nchw() {
    use crate::model::DType;
    let (x, y) = (
        tensor(&[1, 3, 4, 5], DType::Int8, &[]),
        tensor(&[2, 2, 1, 3], DType::Int16, &[]),
    );
    let list = layout([1, 1], &x, &y).unwrap();
    assert_eq!(
        neutron::layout::descriptor(&list),
        "i0:1,3,4,5,1@0;o0:2,2,1,3,2@64"
    );
    assert_eq!(neutron::layout::buffer(&list).unwrap().size, 64 + 24);
    // Rank 5: N is the product of the sizes before the last three (as NXP's backend takes it).
    let z = tensor(&[2, 3, 4, 5, 6], DType::Float32, &[]);
    let list = layout([1, 0], &z, &tensor(&[1], DType::Int8, &[])).unwrap();
    assert_eq!((list[0].n, list[0].c, list[0].element), (6, 4, 4));
}

#[test]
fn a_tensor_of_one_channel_or_already_channels_last_is_passed_as_it_is() {
    use crate::model::DType;
    let one_channel = tensor(&[1, 1, 4, 5], DType::Int8, &[]);
    let channels_last = tensor(&[1, 3, 4, 5], DType::Int8, &[0, 2, 3, 1]);
    let out = tensor(&[10], DType::Int8, &[]);
    assert_eq!(layout([1, 0], &one_channel, &out).unwrap(), vec![]);
    assert_eq!(layout([1, 0], &channels_last, &out).unwrap(), vec![]);
    assert_eq!(
        layout([0, 0], &tensor(&[1, 3, 4, 5], DType::Int8, &[]), &out).unwrap(),
        vec![]
    );
}

#[test]
fn tensors_nxps_runtime_refuses_are_refused_at_build_time() {
    use crate::model::DType;
    let out = tensor(&[10], DType::Int8, &[]);
    let e = layout([1, 0], &tensor(&[4, 5], DType::Int8, &[]), &out).unwrap_err();
    assert!(e.contains("2-D") && e.contains("1-D and 2-D"), "{e}");
    let e = layout(
        [1, 0],
        &tensor(&[1, 3, 4, 5], DType::Int8, &[0, 1, 3, 2]),
        &out,
    )
    .unwrap_err();
    assert!(e.contains("neither contiguous nor channels-last"), "{e}");
    // Passed as it is (no flag, or one channel): must be contiguous.
    let e = layout(
        [0, 0],
        &tensor(&[1, 3, 4, 5], DType::Int8, &[0, 2, 3, 1]),
        &out,
    )
    .unwrap_err();
    assert!(e.contains("must be contiguous"), "{e}");
    let e = layout(
        [1, 0],
        &tensor(&[1, 1, 4, 5], DType::Int8, &[0, 2, 3, 1]),
        &out,
    )
    .unwrap_err();
    assert!(e.contains("must be contiguous"), "{e}");
}

#[test]
fn the_payload_maps_pick_each_slot_argument() {
    use crate::model::DType;
    // Two inputs; Neutron input 0 reads argument 1 (flagged), input 1 argument 0.
    let mut blob = neutron_with(0, [0, 0], &[]);
    // Counts, formats (inputs, output), maps (inputs, output), version.
    blob[..10].copy_from_slice(&[2, 1, 2, 1, 0, 0, 1, 0, 0, 0]);
    // The microcode's input count, word 11, as the header's.
    let at = 16 + 4 * 11;
    blob[at..at + 4].copy_from_slice(&2u32.to_le_bytes());
    let h = NeutronHeader::parse(&blob).unwrap();
    assert_eq!(h.input_map, vec![1, 0]);
    let (a0, a1) = (
        tensor(&[1, 1, 2, 2], DType::Int8, &[]),
        tensor(&[1, 2, 2, 2], DType::Int8, &[]),
    );
    let list = neutron::layout::transpositions(&h, &[&a0, &a1], &[&tensor(&[4], DType::Int8, &[])])
        .unwrap();
    assert_eq!(neutron::layout::descriptor(&list), "i0:1,2,2,2,1@0");
}

#[test]
fn neutron_microcode_must_agree_with_the_header_and_fit_the_blob() {
    for (version, word) in [(0u8, 11usize), (0, 12), (1, 13), (1, 14)] {
        let e = NeutronHeader::parse(&neutron(version, &[(word, 2)]))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("(word {word}) but the payload header declares 1")),
            "{e}"
        );
    }
    let e = NeutronHeader::parse(&neutron(0, &[(7, 4096)]))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(
            "put the weights at 80 and the kernels at 4176, past the end of the 144-byte blob"
        ),
        "{e}"
    );
    let e = NeutronHeader::parse(&neutron(0, &[(6, u32::MAX)]))
        .unwrap_err()
        .to_string();
    assert!(e.contains("past the end"), "{e}");
}

#[test]
fn neutron_blobs_with_problems_are_refused() {
    let mut bad_magic = neutron(1, &[]);
    bad_magic[16] ^= 0xFF;
    assert!(NeutronHeader::parse(&bad_magic)
        .unwrap_err()
        .to_string()
        .contains("magic"));
    assert!(NeutronHeader::parse(&neutron(7, &[]))
        .unwrap_err()
        .to_string()
        .contains("payload version 7"));
    // The kernels start at 128: a blob cut before them is refused.
    let full = neutron(1, &[(9, 1)]);
    assert!(NeutronHeader::parse(&full[..128]).is_ok());
    for cut in 0..128 {
        assert!(
            NeutronHeader::parse(&full[..cut]).is_err(),
            "truncated at {cut}"
        );
    }
}

#[test]
fn the_macro_knows_every_backend_the_runtime_implements() {
    // A `#[delegate] fn` may not take these ids (the tables name the runtime's symbols for them).
    for plugin in [&super::EthosU as &dyn super::BackendPlugin, &super::Neutron] {
        assert!(
            arenaplan_syntax::delegate::RUNTIME_BACKENDS.contains(&plugin.backend()),
            "{}",
            plugin.backend()
        );
        // The tables name the runtime's own symbol, not the one the name rule would give a
        // `#[delegate] fn` of that id (arenaplan-syntax's), so the two can never clash.
        assert_ne!(
            super::backend_symbol(plugin.backend()),
            arenaplan_syntax::names::backend_symbol(plugin.backend())
        );
    }
}

/// The checks the C backend makes when it reads a Neutron payload (`ap_neutron_parse`) are made
/// at build time too: a map byte naming an argument that does not exist, and more inputs or
/// outputs than the runtime takes.
#[test]
fn neutron_map_bytes_and_io_counts_are_checked_as_the_runtime_checks_them() {
    let mut blob = neutron(0, &[]);
    blob[5] = 1; // input 0 maps to argument 1 of 1
    let e = NeutronHeader::parse(&blob).unwrap_err().to_string();
    assert!(
        e.contains("input 0 maps to argument 1, but there are 1"),
        "{e}"
    );
    let mut blob = neutron(1, &[]);
    blob[6] = 3; // output 0 maps to output 3 of 1
    let e = NeutronHeader::parse(&blob).unwrap_err().to_string();
    assert!(
        e.contains("output 0 maps to argument 3, but there are 1"),
        "{e}"
    );
    let mut blob = neutron(0, &[]);
    blob[0] = 17;
    let e = NeutronHeader::parse(&blob).unwrap_err().to_string();
    assert!(e.contains("at most 16"), "{e}");
}

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
            size: 1536,
            spec: "npu_scratch",
            label: "scratch"
        }]
    );
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

fn neutron(version: u8, words: &[(usize, u32)]) -> Vec<u8> {
    // 1 input, 1 output, 1 input arg; formats, maps, version; payload at 16.
    let mut v = vec![1u8, 1, 1, 1, 0, 0, 0, version];
    v.resize(16, 0);
    let mut payload = vec![0u32; 16];
    payload[0] = 0x6443_4D6E;
    for &(i, w) in words {
        payload[i] = w;
    }
    for w in payload {
        v.extend_from_slice(&w.to_le_bytes());
    }
    v
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
    let info = Neutron
        .inspect(&neutron(1, &[(9, 40960), (12, 12288)]), &BTreeMap::new())
        .unwrap();
    assert_eq!(
        info.scratch
            .iter()
            .map(|s| (s.size, s.spec))
            .collect::<Vec<_>>(),
        vec![(40960, "npu_scratch"), (12288, "fast_scratch")]
    );
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
    // Version 1 reads up to word 12 of the payload at 16: 68 bytes.
    let full = neutron(1, &[(9, 1)]);
    assert!(NeutronHeader::parse(&full[..68]).is_ok());
    for cut in 0..68 {
        assert!(
            NeutronHeader::parse(&full[..cut]).is_err(),
            "truncated at {cut}"
        );
    }
}

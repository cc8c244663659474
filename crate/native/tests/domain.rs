//! BLAKE3's input ends at 2^64 - 1 bytes. Saved states at that edge
//! (test/state-edges.json, from the official crate's `hazmat`) load, take
//! their last bytes and finish to the official output; nothing takes the
//! input past the limit, and a refused update changes nothing.

mod common;

use blake3_kit_native::{update_from_fd, ArgKind, Error, Pool, Resumable};
use common::{key_for, pattern, state_edges};
use std::io::Write;
use std::os::fd::AsRawFd;

const MODES: [u32; 3] = [0, 1, 2];

fn load(mode: u32, body: &[u8]) -> Result<Resumable, blake3_kit_native::InvalidArg> {
    Resumable::import_state(mode, key_for(mode).as_ref().map(|k| &k[..]), body)
}

fn output(hasher: &Resumable) -> Vec<u8> {
    let mut out = vec![0; 131];
    hasher.fill(0, &mut out).unwrap();
    out
}

#[test]
fn states_at_the_limit_finish_to_the_official_output() {
    let pool = Pool::new(2).unwrap();
    let cases = state_edges();
    assert!(cases.iter().any(|c| c.room == 0) && cases.iter().any(|c| c.chunk_counter == (1 << 54) - 1));
    for case in &cases {
        let more = pattern(case.block_len + case.more_len);
        for mode in MODES {
            let what = format!("mode {mode} counter {} +{}+{}", case.chunk_counter, case.block_len, case.more_len);
            let mut hasher = load(mode, &case.body).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(hasher.room(), case.room + case.more_len as u64, "{what}");
            assert_eq!(hasher.export_state().unwrap(), case.body, "{what}: export(import(body))");
            // In pieces, the pool's among them.
            for piece in more[case.block_len..].chunks(300_000) {
                hasher.update_with(Some(&pool), piece).unwrap();
            }
            assert_eq!(output(&hasher), case.outputs[mode as usize], "{what}");
            assert_eq!(hasher.room(), case.room, "{what}");
            // One byte more than the room: refused, nothing changed.
            let too_much = vec![7; case.room.min(1 << 20) as usize + 1];
            if (too_much.len() as u64) > case.room {
                let err = hasher.update(&too_much).unwrap_err();
                assert_eq!((err.arg, err.kind), ("input", ArgKind::Range), "{what}");
                assert_eq!(output(&hasher), case.outputs[mode as usize], "{what}: a refused update changed the hasher");
            }
            match hasher.export_state() {
                Ok(body) => {
                    assert!(case.room > 0, "{what}: a state with no room was exported");
                    let reloaded = load(mode, &body).unwrap();
                    assert_eq!(output(&reloaded), case.outputs[mode as usize], "{what}: reloaded");
                }
                Err(err) => {
                    assert_eq!(case.room, 0, "{what}: {err}");
                    assert_eq!((err.arg, err.kind), ("state", ArgKind::Range));
                }
            }
        }
    }
}

/// A body whose chunk holds `in_chunk` bytes (1..=1024) after 2^54 - 1
/// chunks, with `blocks` blocks of it compressed.
fn last_chunk_body(in_chunk: usize) -> Vec<u8> {
    let counter: u64 = (1 << 54) - 1;
    let blocks = (in_chunk - 1) / 64;
    let mut body = counter.to_le_bytes().to_vec();
    body.extend_from_slice(&[blocks as u8, (in_chunk - 64 * blocks) as u8, 54, 0]);
    body.extend_from_slice(&[0x5a; 32]); // any value once a block is compressed
    body.extend_from_slice(&pattern(in_chunk - 64 * blocks));
    body.resize(108, 0);
    body.resize(108 + 32 * 54, 0x33);
    body
}

#[test]
fn a_state_needs_room_for_one_more_byte() {
    // 2^64 bytes (past the limit, and what native and wasm once finished
    // differently) and 2^64 - 1 (no room) are refused; 2^64 - 2 loads.
    for (in_chunk, loads) in [(1024, false), (1023, false), (1022, true)] {
        let result = load(0, &last_chunk_body(in_chunk));
        match (result, loads) {
            (Ok(hasher), true) => assert_eq!(hasher.room(), 1),
            (Err(err), false) => {
                assert_eq!((err.arg, err.kind), ("state", ArgKind::Range));
                assert!(err.message.contains("2^64 - 2"), "{}", err.message);
            }
            (result, _) => panic!("{in_chunk} bytes in the last chunk: {:?}", result.map(|_| ())),
        }
    }
}

#[test]
fn files_stop_at_the_limit() {
    let mut hasher = load(1, &last_chunk_body(1000)).unwrap();
    assert_eq!(hasher.room(), 23);
    let mut file = tempfile();
    file.write_all(&pattern(100)).unwrap();
    let before = output(&hasher);
    for mmap in [false, true] {
        // The file holds more than the room: refused.
        let err = update_from_fd(&mut hasher, file.as_raw_fd(), 0, 100, mmap).unwrap_err();
        assert!(matches!(err, Error::Arg(ref e) if e.kind == ArgKind::Range), "{err}");
        hasher = load(1, &last_chunk_body(1000)).unwrap();
        assert_eq!(output(&hasher), before);
        // As much as the room: taken.
        assert_eq!(update_from_fd(&mut hasher, file.as_raw_fd(), 0, 23, mmap).unwrap(), 23);
        assert_eq!(hasher.room(), 0);
        hasher = load(1, &last_chunk_body(1000)).unwrap();
    }
    assert_eq!(hasher.check_room("length", 24).unwrap_err().arg, "length");
    hasher.check_room("length", 23).unwrap();
}

fn tempfile() -> std::fs::File {
    let path = std::env::temp_dir().join(format!("blake3-kit-domain-{}", std::process::id()));
    let file = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    file
}

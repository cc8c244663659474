//! BLAKE3's input ends at 2^64 - 1 bytes. Saved states at that edge
//! (test/state-edges.json, from the official crate's `hazmat`) import, take
//! their last bytes and finish to the official output through the ABI; no
//! export takes the input past the limit, and a refused one changes nothing.

use super::*;
use crate::tests::{input, lock, prepare, read_staged, stage, update, CONTEXT, KEY, MODES};

struct EdgeState {
    chunk_counter: u64,
    block_len: usize,
    more_len: usize,
    room: u64,
    body: Vec<u8>,
    outputs: [Vec<u8>; 3],
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

fn state_edges() -> Vec<EdgeState> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../test/state-edges.json");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(json["key"], core::str::from_utf8(&KEY).unwrap());
    assert_eq!(json["context_string"], CONTEXT);
    let number = |value: &serde_json::Value| value.as_str().unwrap().parse::<u64>().unwrap();
    let cases = json["cases"].as_array().unwrap();
    cases
        .iter()
        .map(|c| EdgeState {
            chunk_counter: number(&c["chunk_counter"]),
            block_len: c["block_len"].as_u64().unwrap() as usize,
            more_len: c["more_len"].as_u64().unwrap() as usize,
            room: number(&c["room"]),
            body: unhex(c["body"].as_str().unwrap()),
            outputs: ["hash", "keyed_hash", "derive_key"].map(|k| unhex(c[k].as_str().unwrap())),
        })
        .collect()
}

fn room(slot: u32) -> u64 {
    assert_eq!(hasher_room(slot), OK);
    u64::from_le_bytes(read_staged(8).try_into().unwrap())
}

fn output(slot: u32) -> Vec<u8> {
    assert_eq!(hasher_finalize(slot, 131, 0, 0, 0), OK);
    read_staged(131)
}

fn import(mode: u32, body: &[u8]) -> i32 {
    stage(body);
    hasher_import_state(mode, body.len() as u32)
}

#[test]
fn states_at_the_limit_finish_to_the_official_output() {
    let _guard = lock();
    for case in state_edges() {
        let more = input(case.block_len + case.more_len);
        for mode in MODES {
            let what = format!("mode {mode} counter {} +{}+{}", case.chunk_counter, case.block_len, case.more_len);
            prepare(mode);
            let slot = import(mode, &case.body);
            assert!(slot >= 0, "{what}: {slot}");
            let slot = slot as u32;
            assert_eq!(room(slot), case.room + case.more_len as u64, "{what}");
            for piece in more[case.block_len..].chunks(STAGING_LEN) {
                stage(piece);
                assert_eq!(update(slot, piece.len() as u32), OK, "{what}");
            }
            let expected = &case.outputs[mode as usize];
            assert_eq!(&output(slot), expected, "{what}");
            assert_eq!(room(slot), case.room, "{what}");
            // One byte past the room: refused, nothing changed.
            let past = case.room.min(STAGING_LEN as u64 - 1) as usize + 1;
            if past as u64 > case.room {
                stage(&vec![7; past]);
                assert_eq!(update(slot, past as u32), E_INPUT_LIMIT, "{what}");
                assert_eq!(&output(slot), expected, "{what}: a refused update changed the hasher");
            }
            let exported = hasher_export_state(slot);
            if case.room == 0 {
                assert_eq!(exported, E_INPUT_LIMIT, "{what}: a state with no room was exported");
            } else {
                assert!(exported > 0, "{what}: {exported}");
                let body = read_staged(exported as usize);
                let reloaded = import(mode, &body);
                assert!(reloaded >= 0);
                assert_eq!(&output(reloaded as u32), expected, "{what}: reloaded");
                assert_eq!(hasher_free(reloaded as u32), OK);
            }
            assert_eq!(hasher_free(slot), OK);
        }
    }
}

#[test]
fn a_body_needs_room_for_one_more_byte() {
    let _guard = lock();
    prepare(MODE_HASH);
    // 2^64 bytes (what native and wasm once went on from differently) and
    // 2^64 - 1 (no room) are refused; 2^64 - 2 imports.
    for (in_chunk, loads) in [(1024usize, false), (1023, false), (1022, true)] {
        let blocks = (in_chunk - 1) / 64;
        let mut body = ((1u64 << 54) - 1).to_le_bytes().to_vec();
        body.extend_from_slice(&[blocks as u8, (in_chunk - 64 * blocks) as u8, 54, 0]);
        body.extend_from_slice(&[0x5a; 32]);
        body.extend_from_slice(&input(in_chunk - 64 * blocks));
        body.resize(108, 0);
        body.resize(108 + 32 * 54, 0x33);
        let result = import(MODE_HASH, &body);
        if loads {
            assert!(result >= 0, "{in_chunk}: {result}");
            assert_eq!(room(result as u32), 1);
            assert_eq!(hasher_free(result as u32), OK);
        } else {
            assert_eq!(result, E_BODY - state::BodyError::Full as i32, "{in_chunk} bytes in the last chunk");
        }
    }
}

#[test]
fn subtree_hashers_stop_at_the_limit_too() {
    let _guard = lock();
    prepare(MODE_HASH);
    // The last chunk's subtree: 1024 bytes of room from its offset, the
    // input's end at 2^64 - 1 bytes leaving 1023.
    let slot = hasher_new(MODE_HASH) as u32;
    let offset = ((1u64 << 54) - 1) * 1024;
    assert_eq!(hasher_set_input_offset(slot, offset as u32, (offset >> 32) as u32), OK);
    assert_eq!(room(slot), 1023);
    stage(&input(1024));
    assert_eq!(update(slot, 1024), E_INPUT_LIMIT, "within the subtree's size, past the input's end");
    assert_eq!(update(slot, 1023), OK);
    assert_eq!(room(slot), 0);
    assert_eq!(hasher_free(slot), OK);
    assert_eq!(hasher_room(u32::MAX), E_SLOT);
}

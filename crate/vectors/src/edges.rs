//! Saved states at BLAKE3's input limit, with their outputs from the
//! official crate: `cargo run -p blake3-kit-vectors -- --state-edges`
//! (`npm run vectors` writes test/state-edges.json).
//!
//! `-- --output-edges` prints output read across the end of BLAKE3's
//! 2^64 - 1 output bytes, as the official OutputReader goes on past it
//! (its block counter does) and b3sum prints for --seek there.
//!
//! No input of 2^64 - 1 bytes can be hashed in a test, but a saved state
//! can stand for one: a chunk counter near 2^54, a stack of chaining values
//! (any 32 bytes are some subtree's) and the open chunk's first bytes. Each
//! case is such a state's BODY (crate/wasm/src/state.rs, format v2) and the
//! output after `more_len` more input bytes. The oracle is upstream's
//! `hazmat`: every chunk from the counter on is hashed as a subtree at its
//! offset, and the chaining values merge as the reference implementation's
//! stack does, the last merge being the root. That is BLAKE3's tree for
//! these cases because each starting stack entry is a complete left subtree.

use std::fmt::Write;

use blake3::hazmat::{self, ChainingValue, HasherExt, Mode};
use blake3::{Hasher, CHUNK_LEN};

use crate::{hex, CONTEXT, KEY, OUTPUT_LEN};

/// (chunk counter, bytes of the open chunk in the state, input after it).
const CASES: [(u64, usize, usize); 10] = [
    // The last chunk BLAKE3 has: 54 stack entries, 1023 bytes of room.
    ((1 << 54) - 1, 1, 0),
    ((1 << 54) - 1, 5, 1018), // ends at 2^64 - 1 bytes: no room left
    ((1 << 54) - 1, 64, 900),
    ((1 << 54) - 2, 10, 1500),                         // into the last chunk
    ((1 << 54) - (1 << 21) - 1, 33, 1024 * 1024 + 17), // deep merges
    ((1 << 54) - (1 << 20), 64, 70_000),
    ((1 << 32) - 1, 64, 5000),
    (1 << 32, 1, 70_000),
    (1 << 53, 20, 3000),
    (3, 3, 2000),
];

/// The input after the counter's chunks: the official vectors' pattern.
fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 251) as u8).collect()
}

/// `count` arbitrary chaining values, the same on every run.
fn stack(count: u32, seed: u64) -> Vec<ChainingValue> {
    (0..count).map(|i| *blake3::hash(format!("state-edges stack {seed} {i}").as_bytes()).as_bytes()).collect()
}

fn new_hasher(mode: &Mode) -> Hasher {
    match mode {
        Mode::Hash => Hasher::new(),
        Mode::KeyedHash(key) => Hasher::new_keyed(key),
        Mode::DeriveKeyMaterial(context_key) => Hasher::new_from_context_key(context_key),
    }
}

/// `OUTPUT_LEN` bytes of the root of the tree whose first `counter` chunks
/// are `stack` (largest subtree first) and whose remaining input is `rest`
/// (not empty; `counter` > 0, so the root is a parent).
fn output(mode: Mode, counter: u64, stack: &[ChainingValue], rest: &[u8]) -> [u8; OUTPUT_LEN] {
    let mut stack = stack.to_vec();
    let chunks: Vec<&[u8]> = rest.chunks(CHUNK_LEN).collect();
    let chunk_cv = |index: u64, bytes: &[u8]| {
        let mut hasher = new_hasher(&mode);
        hasher.set_input_offset(index * CHUNK_LEN as u64);
        hasher.update(bytes);
        hasher.finalize_non_root()
    };
    let (last, whole) = chunks.split_last().expect("rest is not empty");
    for (i, chunk) in whole.iter().enumerate() {
        let mut cv = chunk_cv(counter + i as u64, chunk);
        let mut total = counter + i as u64 + 1;
        while total & 1 == 0 {
            cv = hazmat::merge_subtrees_non_root(&stack.pop().expect("a left sibling"), &cv, mode);
            total >>= 1;
        }
        stack.push(cv);
    }
    let mut right = chunk_cv(counter + whole.len() as u64, last);
    let (root_left, lefts) = stack.split_first().expect("counter > 0");
    for left in lefts.iter().rev() {
        right = hazmat::merge_subtrees_non_root(left, &right, mode);
    }
    let mut out = [0; OUTPUT_LEN];
    hazmat::merge_subtrees_root_xof(root_left, &right, mode).fill(&mut out);
    out
}

/// The BODY of a state at `counter` chunks with `block` open (no block of
/// the chunk compressed, so its value field is zeros).
fn body(counter: u64, block: &[u8], stack: &[ChainingValue]) -> Vec<u8> {
    let mut body = counter.to_le_bytes().to_vec();
    body.extend_from_slice(&[0, block.len() as u8, stack.len() as u8, 0]);
    body.extend_from_slice(&[0; 32]);
    body.extend_from_slice(block);
    body.resize(108, 0);
    for cv in stack {
        body.extend_from_slice(cv);
    }
    body
}

pub fn print() {
    let context_key = hazmat::hash_derive_key_context(CONTEXT);
    let key = std::str::from_utf8(KEY).expect("ASCII key");
    let mut json = String::from("{\n");
    let _ = writeln!(
        json,
        "  \"_comment\": \"Saved-state BODYs (format v2) at BLAKE3's input limit, and the output (hex, {OUTPUT_LEN} bytes) after more_len more bytes in each mode, from the official crate (crate/vectors/src/edges.rs). The input after the state's chunk_counter whole chunks is the vectors' pattern (i % 251) of block_len + more_len bytes; its first block_len bytes are the state's open block. room is the input the state can take after the more bytes, of 2^64 - 1 in all.\","
    );
    let _ = writeln!(json, "  \"key\": \"{key}\",");
    let _ = writeln!(json, "  \"context_string\": \"{CONTEXT}\",");
    // What format v1 wrote into a derive_key state's body.
    let _ = writeln!(json, "  \"context_key\": \"{}\",", hex(&context_key));
    json.push_str("  \"cases\": [\n");
    for (i, &(counter, block_len, more_len)) in CASES.iter().enumerate() {
        let stack = stack(counter.count_ones(), counter);
        let rest = pattern(block_len + more_len);
        let taken = u128::from(counter) * CHUNK_LEN as u128 + rest.len() as u128;
        let room = u128::from(u64::MAX) - taken;
        json.push_str("    {\n");
        let _ = writeln!(json, "      \"chunk_counter\": \"{counter}\",");
        let _ = writeln!(json, "      \"block_len\": {block_len},");
        let _ = writeln!(json, "      \"more_len\": {more_len},");
        let _ = writeln!(json, "      \"room\": \"{room}\",");
        let _ = writeln!(json, "      \"body\": \"{}\",", hex(&body(counter, &rest[..block_len], &stack)));
        let _ = writeln!(json, "      \"hash\": \"{}\",", hex(&output(Mode::Hash, counter, &stack, &rest)));
        let _ = writeln!(json, "      \"keyed_hash\": \"{}\",", hex(&output(Mode::KeyedHash(KEY), counter, &stack, &rest)));
        let _ = writeln!(json, "      \"derive_key\": \"{}\"", hex(&output(Mode::DeriveKeyMaterial(&context_key), counter, &stack, &rest)));
        json.push_str(if i + 1 < CASES.len() { "    },\n" } else { "    }\n" });
    }
    json.push_str("  ]\n}\n");
    print!("{json}");
}

/// (input length, output position, output length): reads at and across the
/// end of the 2^64 - 1 output bytes.
const OUTPUT_CASES: [(usize, u64, usize); 6] = [
    (3, u64::MAX - 15, 48),
    (3, u64::MAX, 2),
    (0, u64::MAX - 63, 200),
    (1025, u64::MAX - 16, 33),
    (5000, u64::MAX - 64 * 3, 64 * 6 + 5),
    (5000, u64::MAX - 1, 1),
];

pub fn print_output() {
    let key = std::str::from_utf8(KEY).expect("ASCII key");
    let mut json = String::from("{\n");
    let _ = writeln!(
        json,
        "  \"_comment\": \"Output of the vectors' pattern input (i % 251, input_len bytes) read from position, length bytes, in each mode, by the official crate's OutputReader (crate/vectors/src/edges.rs): across the end of BLAKE3's 2^64 - 1 output bytes its block counter goes on.\","
    );
    let _ = writeln!(json, "  \"key\": \"{key}\",");
    let _ = writeln!(json, "  \"context_string\": \"{CONTEXT}\",");
    json.push_str("  \"cases\": [\n");
    for (i, &(input_len, position, length)) in OUTPUT_CASES.iter().enumerate() {
        let input = pattern(input_len);
        let read = |mut hasher: Hasher| {
            hasher.update(&input);
            let mut reader = hasher.finalize_xof();
            reader.set_position(position);
            let mut out = vec![0; length];
            reader.fill(&mut out);
            hex(&out)
        };
        json.push_str("    {\n");
        let _ = writeln!(json, "      \"input_len\": {input_len},");
        let _ = writeln!(json, "      \"position\": \"{position}\",");
        let _ = writeln!(json, "      \"length\": {length},");
        let _ = writeln!(json, "      \"hash\": \"{}\",", read(Hasher::new()));
        let _ = writeln!(json, "      \"keyed_hash\": \"{}\",", read(Hasher::new_keyed(KEY)));
        let _ = writeln!(json, "      \"derive_key\": \"{}\"", read(Hasher::new_derive_key(CONTEXT)));
        json.push_str(if i + 1 < OUTPUT_CASES.len() { "    },\n" } else { "    }\n" });
    }
    json.push_str("  ]\n}\n");
    print!("{json}");
}

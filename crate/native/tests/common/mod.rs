//! Shared by the integration tests: the official input pattern, the vectors
//! file, and a small deterministic PRNG for split points.
#![allow(dead_code)]

use blake3_kit_native::{blake3, context_key};

pub const KEY: &[u8; 32] = b"whats the Elvish word for friend";
pub const CONTEXT: &str = "BLAKE3 2019-12-27 16:29:52 test vectors context";

/// The official test input: 0, 1, ..., 250, 0, 1, ...
pub fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 251) as u8).collect()
}

pub struct Case {
    pub input_len: usize,
    /// 131-byte outputs for mode 0, 1, 2.
    pub outputs: [Vec<u8>; 3],
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

/// test/vectors.json at the repository root (the official format).
pub fn vectors() -> Vec<Case> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../test/vectors.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["key"], std::str::from_utf8(KEY).unwrap());
    assert_eq!(json["context_string"], CONTEXT);
    let cases: Vec<Case> = json["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| Case {
            input_len: c["input_len"].as_u64().unwrap() as usize,
            outputs: ["hash", "keyed_hash", "derive_key"].map(|k| unhex(c[k].as_str().unwrap())),
        })
        .collect();
    assert!(cases.len() >= 35, "vectors.json has {} cases", cases.len());
    cases
}

/// A saved state at BLAKE3's input limit (test/state-edges.json).
pub struct EdgeState {
    pub chunk_counter: u64,
    pub block_len: usize,
    pub more_len: usize,
    /// Input the state can take after the more bytes.
    pub room: u64,
    pub body: Vec<u8>,
    /// 131-byte outputs after the more bytes, for mode 0, 1, 2.
    pub outputs: [Vec<u8>; 3],
}

/// test/state-edges.json, which crate/vectors writes from the official crate.
pub fn state_edges() -> Vec<EdgeState> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../test/state-edges.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["key"], std::str::from_utf8(KEY).unwrap());
    assert_eq!(json["context_string"], CONTEXT);
    let number = |value: &serde_json::Value| value.as_str().unwrap().parse::<u64>().unwrap();
    json["cases"]
        .as_array()
        .unwrap()
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

/// The key argument for mode 0, 1, 2.
pub fn key_for(mode: u32) -> Option<[u8; 32]> {
    match mode {
        0 => None,
        1 => Some(*KEY),
        _ => Some(context_key(CONTEXT)),
    }
}

/// The official crate's answer, as the oracle for sizes beyond the vectors.
pub fn official(mode: u32, input: &[u8], out_len: usize) -> Vec<u8> {
    let mut hasher = match mode {
        0 => blake3::Hasher::new(),
        1 => blake3::Hasher::new_keyed(KEY),
        _ => blake3::Hasher::new_derive_key(CONTEXT),
    };
    hasher.update(input);
    let mut out = vec![0; out_len];
    hasher.finalize_xof().fill(&mut out);
    out
}

/// xorshift64: reproducible "random" split points without a dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

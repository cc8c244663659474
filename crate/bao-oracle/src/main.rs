//! Prints what the upstream crates make of given inputs, for the JS suite to
//! hold src/bao to (test/node/bao-oracle.test.ts). Reads a JSON request on
//! stdin: `{ "seed": S, "cases": [{ "len": N, "slices": [[start, len], ...] }] }`.
//! Byte i of a case's content is `(i * 31 + S) % 251`, in JS the same, so no
//! content crosses the pipe; outputs are given as their BLAKE3 hex and length.
//!
//! Per case: bao's combined encoding, outboard, and each slice; bao-tree's
//! pre- and post-order outboards at chunk_log 0 to 6, and its encoding of
//! each of the case's chunk range sets (`"ranges": [[[start, end|null],
//! ...], ...]`, null for an open end) at each chunk_log.

use std::io::{Cursor, Read};

use bao_tree::io::outboard::{PostOrderMemOutboard, PreOrderMemOutboard};
use bao_tree::io::sync::encode_ranges_validated;
use bao_tree::{BlockSize, ChunkNum, ChunkRanges};
use serde_json::{json, Value};

fn content(len: usize, seed: u64) -> Vec<u8> {
    (0..len as u64).map(|i| ((i * 31 + seed) % 251) as u8).collect()
}

fn digest(bytes: &[u8]) -> Value {
    json!({ "len": bytes.len(), "blake3": blake3::hash(bytes).to_hex().to_string() })
}

/// `[[start, end|null], ...]` as bao-tree's range set.
fn chunk_ranges(set: &Value) -> ChunkRanges {
    let mut ranges = ChunkRanges::empty();
    for pair in set.as_array().expect("a range set") {
        let start = ChunkNum(pair[0].as_u64().expect("start"));
        ranges |= match pair[1].as_u64() {
            Some(end) => ChunkRanges::from(start..ChunkNum(end)),
            None => ChunkRanges::from(start..),
        };
    }
    ranges
}

fn main() {
    let mut request = String::new();
    std::io::stdin().read_to_string(&mut request).expect("stdin");
    let request: Value = serde_json::from_str(&request).expect("a JSON request");
    let seed = request["seed"].as_u64().expect("seed");
    let mut results = Vec::new();
    for case in request["cases"].as_array().expect("cases") {
        let len = case["len"].as_u64().expect("len") as usize;
        let input = content(len, seed);
        let (encoded, hash) = bao::encode::encode(&input);
        let (outboard, _) = bao::encode::outboard(&input);
        let slices: Vec<Value> = case["slices"]
            .as_array()
            .map(|slices| {
                slices
                    .iter()
                    .map(|pair| {
                        let (start, count) = (pair[0].as_u64().expect("start"), pair[1].as_u64().expect("len"));
                        let mut slice = Vec::new();
                        bao::encode::SliceExtractor::new(Cursor::new(&encoded), start, count).read_to_end(&mut slice).expect("slice");
                        digest(&slice)
                    })
                    .collect()
            })
            .unwrap_or_default();
        let trees: Vec<Value> = (0..=6u8)
            .map(|chunk_log| {
                let block = BlockSize::from_chunk_log(chunk_log);
                let pre = PreOrderMemOutboard::create(&input, block);
                let post = PostOrderMemOutboard::create(&input, block);
                assert_eq!(pre.root, hash);
                assert_eq!(post.root, hash);
                let ranges: Vec<Value> = case["ranges"]
                    .as_array()
                    .map(|sets| {
                        sets.iter()
                            .map(|set| {
                                let mut encoded = Vec::new();
                                encode_ranges_validated(&input[..], &pre, &chunk_ranges(set), &mut encoded).expect("encode_ranges");
                                digest(&encoded)
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                json!({ "chunkLog": chunk_log, "pre": digest(&pre.data), "post": digest(&post.data), "ranges": ranges })
            })
            .collect();
        results.push(json!({
            "len": len,
            "hash": hash.to_hex().to_string(),
            "encoded": digest(&encoded),
            "outboard": digest(&outboard),
            "slices": slices,
            "trees": trees,
        }));
    }
    println!("{}", Value::Array(results));
}

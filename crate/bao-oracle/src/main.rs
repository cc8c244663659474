//! Prints what the upstream crates make of given inputs, for the JS suite to
//! hold src/bao to (test/node/bao-oracle.test.ts). Reads a JSON request on
//! stdin: `{ "seed": S, "cases": [{ "len": N, "slices": [[start, len], ...] }] }`.
//! Byte i of a case's content is `(i * 31 + S) % 251`, in JS the same, so no
//! content crosses the pipe; outputs are given as their BLAKE3 hex and length.
//!
//! Per case: bao's combined encoding, outboard, and each slice; bao-tree's
//! pre- and post-order outboards at chunk_log 0 to 6, and its encoding of
//! each of the case's chunk range sets (`"ranges": [[[start, end|null],
//! ...], ...]`, null for an open end) at each chunk_log. With `"key": [32
//! numbers]` in the request, also bao-tree's keyed outboards and range
//! encodings (its `keyed_*` functions) at chunk_log 0, 2 and 4.
//!
//! With the argument `decode`, the other way round: the crates' decoders
//! over encodings given on stdin (src/decode.rs). With `hash-seq`, a whole
//! iroh-blobs response to a request for a hash sequence (src/hash_seq.rs).

mod decode;
mod hash_seq;

use std::io::{Cursor, Read};

use bao_tree::io::outboard::{PostOrderMemOutboard, PreOrderMemOutboard};
use bao_tree::io::sync::{encode_ranges_validated, keyed_encode_ranges_validated};
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

/// bao-tree's outboards and range encodings of `input` at `chunk_log`,
/// keyed when `key` is given.
fn tree(input: &[u8], chunk_log: u8, sets: &[Value], key: Option<&[u8; 32]>) -> (Value, blake3::Hash) {
    let block = BlockSize::from_chunk_log(chunk_log);
    let (pre, post) = match key {
        Some(key) => (PreOrderMemOutboard::create_keyed(input, block, key), PostOrderMemOutboard::create_keyed(input, block, key)),
        None => (PreOrderMemOutboard::create(input, block), PostOrderMemOutboard::create(input, block)),
    };
    assert_eq!(pre.root, post.root);
    let ranges: Vec<Value> = sets
        .iter()
        .map(|set| {
            let mut encoded = Vec::new();
            match key {
                Some(key) => keyed_encode_ranges_validated(input, &pre, &chunk_ranges(set), &mut encoded, key),
                None => encode_ranges_validated(input, &pre, &chunk_ranges(set), &mut encoded),
            }
            .expect("encode_ranges");
            digest(&encoded)
        })
        .collect();
    (json!({ "chunkLog": chunk_log, "pre": digest(&pre.data), "post": digest(&post.data), "ranges": ranges }), pre.root)
}

fn main() {
    let mut request = Vec::new();
    std::io::stdin().read_to_end(&mut request).expect("stdin");
    if std::env::args().nth(1).as_deref() == Some("decode") {
        println!("{}", decode::run(&request));
        return;
    }
    if std::env::args().nth(1).as_deref() == Some("hash-seq") {
        println!("{}", hash_seq::run(&request));
        return;
    }
    let request: Value = serde_json::from_slice(&request).expect("a JSON request");
    let seed = request["seed"].as_u64().expect("seed");
    let key: Option<[u8; 32]> = request["key"].as_array().map(|bytes| {
        let bytes: Vec<u8> = bytes.iter().map(|b| b.as_u64().expect("a key byte") as u8).collect();
        bytes.try_into().expect("a 32-byte key")
    });
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
        let sets = case["ranges"].as_array().cloned().unwrap_or_default();
        let trees: Vec<Value> = (0..=6u8)
            .map(|chunk_log| {
                let (tree, root) = tree(&input, chunk_log, &sets, None);
                assert_eq!(root, hash);
                tree
            })
            .collect();
        let keyed = key.map(|key| {
            let trees: Vec<Value> = [0u8, 2, 4]
                .into_iter()
                .map(|chunk_log| {
                    let (tree, root) = tree(&input, chunk_log, &sets, Some(&key));
                    assert_eq!(root, blake3::keyed_hash(&key, &input));
                    tree
                })
                .collect();
            json!({ "hash": blake3::keyed_hash(&key, &input).to_hex().to_string(), "trees": trees })
        });
        results.push(json!({
            "len": len,
            "hash": hash.to_hex().to_string(),
            "encoded": digest(&encoded),
            "outboard": digest(&outboard),
            "slices": slices,
            "trees": trees,
            "keyed": keyed,
        }));
    }
    println!("{}", Value::Array(results));
}

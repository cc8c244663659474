//! `blake3-kit-bao-oracle decode`: what the crates' decoders make of given
//! (possibly corrupted) encodings, for test/node/bao-fuzz.test.ts.
//!
//! The request on stdin is one line of JSON, `{ "cases": [...] }`, then the
//! raw bytes of every case's inputs, case after case, each as long as its
//! case's `"inputs"` says. A case is
//! - `{ "kind": "combined", "hash", "inputs": [encoding] }`: `bao::decode::decode`;
//! - `{ "kind": "outboard", "hash", "inputs": [content, outboard] }`: bao's `Decoder::new_outboard`;
//! - `{ "kind": "slice", "hash", "start", "length", "inputs": [slice] }`: bao's `SliceDecoder`;
//! - `{ "kind": "tree", "hash", "size", "chunkLog", "ranges": [[start, end|null], ...], "key"?, "inputs": [encoding] }`:
//!   bao-tree's `DecodeResponseIter` (`new_keyed` with a key), the verifier
//!   under its `decode_ranges`.
//!
//! Hashes and keys are hex. The answer is a JSON array, per case `{ "ok",
//! "read": [bytes of each input the decoder read], "output": {len, blake3} }`
//! (and for a tree `"pieces": [[offset, len], ...]`, the verified leaves), or
//! `{ "ok": false, "read", "error" }`. The crates stop reading once the tree
//! is verified, so `read` is what tells an encoding from one with bytes past
//! its end.

use std::io::Read;

use bao_tree::io::sync::DecodeResponseIter;
use bao_tree::io::BaoContentItem;
use bao_tree::{BaoTree, BlockSize};
use serde_json::{json, Value};

use crate::{chunk_ranges, digest};

/// Answers a whole decode request (the JSON line and the inputs after it).
pub fn run(request: &[u8]) -> Value {
    let line_end = request.iter().position(|&b| b == b'\n').expect("a JSON line, then the inputs");
    let head: Value = serde_json::from_slice(&request[..line_end]).expect("a JSON request");
    let mut inputs = &request[line_end + 1..];
    let answers: Vec<Value> = head["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|case| {
            let given: Vec<&[u8]> = case["inputs"]
                .as_array()
                .expect("inputs")
                .iter()
                .map(|len| {
                    let (input, rest) = inputs.split_at(len.as_u64().expect("an input length") as usize);
                    inputs = rest;
                    input
                })
                .collect();
            decode(case, &given)
        })
        .collect();
    assert!(inputs.is_empty(), "{} bytes past the last case's inputs", inputs.len());
    Value::Array(answers)
}

/// One case: the decoder's verdict, its output and how much of each input it read.
fn decode(case: &Value, given: &[&[u8]]) -> Value {
    let hash = blake3::Hash::from_hex(case["hash"].as_str().expect("hash")).expect("a hex hash");
    // Each decoder reads from its own copy of the input slices; what is
    // left of them afterwards tells what it read.
    let mut rest = given.to_vec();
    let mut output = Vec::new();
    let mut pieces = Vec::new();
    let result = match case["kind"].as_str().expect("kind") {
        "combined" => {
            // decode() is Decoder::new plus an up-front length check; the
            // Decoder run over the same bytes tells how many it reads.
            let _ = bao::decode::Decoder::new(&mut rest[0], &hash).read_to_end(&mut Vec::new());
            bao::decode::decode(given[0], &hash).map(|decoded| output = decoded)
        }
        "outboard" => {
            let (content, outboard) = rest.split_at_mut(1);
            bao::decode::Decoder::new_outboard(&mut content[0], &mut outboard[0], &hash).read_to_end(&mut output).map(drop)
        }
        "slice" => {
            let (start, length) = (case["start"].as_u64().expect("start"), case["length"].as_u64().expect("length"));
            bao::decode::SliceDecoder::new(&mut rest[0], &hash, start, length).read_to_end(&mut output).map(drop)
        }
        "tree" => tree(case, hash, &mut rest[0], &mut output, &mut pieces),
        kind => panic!("unknown kind {kind}"),
    };
    let read: Vec<usize> = given.iter().zip(&rest).map(|(all, left)| all.len() - left.len()).collect();
    match result {
        Ok(()) => json!({ "ok": true, "read": read, "output": digest(&output), "pieces": pieces }),
        Err(error) => json!({ "ok": false, "read": read, "error": error.to_string() }),
    }
}

/// bao-tree's verifier over a range encoding: its leaves into `output`,
/// their places into `pieces`; the first error ends it.
fn tree(case: &Value, root: blake3::Hash, encoded: &mut &[u8], output: &mut Vec<u8>, pieces: &mut Vec<[u64; 2]>) -> std::io::Result<()> {
    let size = case["size"].as_u64().expect("size");
    let chunk_log = case["chunkLog"].as_u64().expect("chunkLog") as u8;
    let tree = BaoTree::new(size, BlockSize::from_chunk_log(chunk_log));
    let ranges = chunk_ranges(&case["ranges"]);
    let items = match case["key"].as_str() {
        Some(key) => {
            let key = *blake3::Hash::from_hex(key).expect("a hex key").as_bytes();
            DecodeResponseIter::new_keyed(root, tree, encoded, &ranges, &key)
        }
        None => DecodeResponseIter::new(root, tree, encoded, &ranges),
    };
    for item in items {
        if let BaoContentItem::Leaf(leaf) = item? {
            pieces.push([leaf.offset, leaf.data.len() as u64]);
            output.extend_from_slice(&leaf.data);
        }
    }
    Ok(())
}

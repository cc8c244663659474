//! `blake3-kit-bao-oracle hash-seq`: a whole iroh-blobs response to a
//! request for a hash sequence, for test/node/hash-seq-stream.test.ts.
//!
//! The request on stdin: `{ "seed": S, "children": [len, ...], "ranges":
//! [[[start, end|null], ...], ...] }`, where `ranges[0]` is the HashSeq's
//! own range set and `ranges[i + 1]` child i's (iroh's ChunkRangesSeq
//! offsets; a missing entry asks for nothing). Child i's content is the
//! crate's `content(len, S + i)`. The answer is JSON: the HashSeq's hash,
//! the children's hashes, and the response as hex.
//!
//! The framing is iroh-blobs' provider (src/provider.rs `handle_get_impl`,
//! src/api/blobs.rs `ExportBaoProgress::write_with_progress`, at
//! n0-computer/iroh-blobs e82cbdcb): for each offset whose range set is not
//! empty, in order, the blob's size as a u64 little-endian, then
//! bao-tree's encoding of those ranges at chunk_log 4 (IROH_BLOCK_SIZE),
//! pre-order; nothing between responses, nothing after the last; offsets
//! past the HashSeq's last child end the response.

use bao_tree::io::outboard::PreOrderMemOutboard;
use bao_tree::io::sync::encode_ranges_validated;
use bao_tree::BlockSize;
use serde_json::{json, Value};

use crate::{chunk_ranges, content};

const IROH_BLOCK_SIZE: BlockSize = BlockSize::from_chunk_log(4);

/// Appends one blob's response: its size, then the encoding of `ranges`.
fn respond(data: &[u8], ranges: &Value, out: &mut Vec<u8>) {
    let ranges = chunk_ranges(ranges);
    if ranges.is_empty() {
        return;
    }
    let outboard = PreOrderMemOutboard::create(data, IROH_BLOCK_SIZE);
    out.extend_from_slice(&(data.len() as u64).to_le_bytes());
    encode_ranges_validated(data, &outboard, &ranges, &mut *out).expect("encode_ranges");
}

pub fn run(request: &[u8]) -> Value {
    let request: Value = serde_json::from_slice(request).expect("a JSON request");
    let seed = request["seed"].as_u64().expect("seed");
    let empty = json!([]);
    let ranges = request["ranges"].as_array().expect("ranges");
    let ranges_at = |offset: usize| ranges.get(offset).unwrap_or(&empty);
    let children: Vec<Vec<u8>> = request["children"]
        .as_array()
        .expect("children")
        .iter()
        .enumerate()
        .map(|(i, len)| content(len.as_u64().expect("a length") as usize, seed + i as u64))
        .collect();
    let hashes: Vec<blake3::Hash> = children.iter().map(|child| blake3::hash(child)).collect();
    let seq: Vec<u8> = hashes.iter().flat_map(|hash| *hash.as_bytes()).collect();
    let mut response = Vec::new();
    respond(&seq, ranges_at(0), &mut response);
    for (i, child) in children.iter().enumerate() {
        respond(child, ranges_at(i + 1), &mut response);
    }
    let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
    json!({
        "hash": blake3::hash(&seq).to_hex().to_string(),
        "children": hashes.iter().map(|hash| hash.to_hex().to_string()).collect::<Vec<_>>(),
        "response": hex(&response),
    })
}

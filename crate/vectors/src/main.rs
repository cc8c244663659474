//! Prints BLAKE3 test vectors in the official `test_vectors.json` format,
//! computed by the official crate: `cargo run -p blake3-kit-vectors`.
//! `npm run vectors` writes them to test/vectors.json; a test fails when the
//! committed file differs from this output.
//!
//! `-- --pattern LEN...` instead prints, per length, the hex hash of the
//! official input pattern of that length: the oracle for tests too large to
//! commit vectors for (1 GiB). `-- --state-edges` prints saved states at
//! the input limit with their outputs, `-- --output-edges` output read
//! across the end of the 2^64 - 1 output bytes (edges.rs).

use std::fmt::Write;

mod edges;

const KEY: &[u8; 32] = b"whats the Elvish word for friend";
const CONTEXT: &str = "BLAKE3 2019-12-27 16:29:52 test vectors context";
/// Extended output per case, as in the official file.
const OUTPUT_LEN: usize = 131;
/// The official file's 35 input lengths: around the block (64) and chunk
/// (1024) sizes, several chunk counts, and a tree deeper than any SIMD degree.
const LENGTHS: [usize; 35] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 63, 64, 65, 127, 128, 129, 1023, 1024, 1025, 2048, 2049, 3072, 3073, 4096, 4097, 5120, 5121, 6144, 6145,
    7168, 7169, 8192, 8193, 16384, 31744, 102400,
];

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::with_capacity(2 * bytes.len()), |mut hex, byte| {
        let _ = write!(hex, "{byte:02x}");
        hex
    })
}

fn xof_hex(mut hasher: blake3::Hasher, input: &[u8]) -> String {
    hasher.update(input);
    let mut output = [0u8; OUTPUT_LEN];
    hasher.finalize_xof().fill(&mut output);
    hex(&output)
}

fn pattern_hashes(lengths: impl Iterator<Item = String>) {
    for arg in lengths {
        let len: u64 = arg.parse().expect("--pattern takes byte counts");
        let mut hasher = blake3::Hasher::new();
        let block: Vec<u8> = (0..251 * 4096).map(|i| (i % 251) as u8).collect();
        let mut left = len;
        while left > 0 {
            let take = left.min(block.len() as u64) as usize;
            hasher.update(&block[..take]);
            left -= take as u64;
        }
        println!("{len} {}", hasher.finalize().to_hex());
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    match args.next().as_deref() {
        Some("--pattern") => return pattern_hashes(args),
        Some("--state-edges") => return edges::print(),
        Some("--output-edges") => return edges::print_output(),
        _ => {}
    }
    let comment = "Each test is an input length and three outputs, one for each of the hash, \
        keyed_hash, and derive_key modes. The input in each case is filled with a repeating \
        sequence of 251 bytes: 0, 1, 2, ..., 249, 250, 0, 1, ..., and so on. The key used with \
        keyed_hash is the 32-byte ASCII string \\\"whats the Elvish word for friend\\\", also \
        given in the `key` field below. The context string used with derive_key is the ASCII \
        string \\\"BLAKE3 2019-12-27 16:29:52 test vectors context\\\", also given in the \
        `context_string` field below. Outputs are encoded as hexadecimal. Each case is an \
        extended output, and implementations should also check that the first 32 bytes match \
        their default-length output.";
    let key = std::str::from_utf8(KEY).expect("ASCII key");
    let mut json = String::new();
    json.push_str("{\n");
    let _ = writeln!(json, "  \"_comment\": \"{comment}\",");
    let _ = writeln!(json, "  \"key\": \"{key}\",");
    let _ = writeln!(json, "  \"context_string\": \"{CONTEXT}\",");
    json.push_str("  \"cases\": [\n");
    for (i, &len) in LENGTHS.iter().enumerate() {
        let input: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        json.push_str("    {\n");
        let _ = writeln!(json, "      \"input_len\": {len},");
        let _ = writeln!(json, "      \"hash\": \"{}\",", xof_hex(blake3::Hasher::new(), &input));
        let _ = writeln!(json, "      \"keyed_hash\": \"{}\",", xof_hex(blake3::Hasher::new_keyed(KEY), &input));
        let _ = writeln!(json, "      \"derive_key\": \"{}\"", xof_hex(blake3::Hasher::new_derive_key(CONTEXT), &input));
        json.push_str(if i + 1 < LENGTHS.len() { "    },\n" } else { "    }\n" });
    }
    json.push_str("  ]\n}\n");
    print!("{json}");
}

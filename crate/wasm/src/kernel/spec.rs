//! The spec's constants and the byte/word conversions every kernel file
//! shares: a leaf module, so that no kernel depends on the dispatcher
//! (mod.rs) that depends on it.

pub const BLOCK_LEN: usize = 64;
pub const CHUNK_LEN: usize = 1024;

/// A chaining value or key as eight little-endian words.
pub type Words = [u32; 8];

pub const IV: Words = [0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19];

pub const CHUNK_START: u32 = 1 << 0;
pub const CHUNK_END: u32 = 1 << 1;
pub const PARENT: u32 = 1 << 2;
pub const ROOT: u32 = 1 << 3;
pub const KEYED_HASH: u32 = 1 << 4;
pub const DERIVE_KEY_CONTEXT: u32 = 1 << 5;
pub const DERIVE_KEY_MATERIAL: u32 = 1 << 6;

/// Which message word each round reads at each position: round 0 reads them
/// in order, and each later round applies the spec's permutation once more.
pub const MSG_SCHEDULE: [[usize; 16]; 7] = {
    const PERMUTATION: [usize; 16] = [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8];
    let mut schedule = [[0; 16]; 7];
    let mut i = 0;
    while i < 16 {
        schedule[0][i] = i;
        i += 1;
    }
    let mut round = 1;
    while round < 7 {
        let mut i = 0;
        while i < 16 {
            schedule[round][i] = schedule[round - 1][PERMUTATION[i]];
            i += 1;
        }
        round += 1;
    }
    schedule
};

/// A parent node's block: its children's chaining values.
#[inline(always)]
pub fn parent_block(left: &Words, right: &Words) -> [u8; BLOCK_LEN] {
    let mut block = [0; BLOCK_LEN];
    for (bytes, word) in block.as_chunks_mut::<4>().0.iter_mut().zip(left.iter().chain(right)) {
        *bytes = word.to_le_bytes();
    }
    block
}

pub fn words_from_key(key: &[u8; 32]) -> Words {
    let mut words = [0; 8];
    for (word, bytes) in words.iter_mut().zip(key.chunks_exact(4)) {
        *word = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    }
    words
}

pub fn bytes_from_words(words: &Words) -> [u8; 32] {
    let mut bytes = [0; 32];
    for (chunk, word) in bytes.chunks_exact_mut(4).zip(words) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    bytes
}

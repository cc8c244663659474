//! A `Resumable`'s state as the BODY of a saved state (the format is
//! src/state.ts's; the wasm engine writes the same bytes). All integers
//! little-endian:
//!
//! | offset | size | field |
//! |---:|---:|---|
//! | 0 | 8 | chunk_counter: whole chunks before the current one |
//! | 8 | 1 | blocks_compressed: 0..=15 |
//! | 9 | 1 | block_len: 0..=64 |
//! | 10 | 1 | stack_len: popcount(chunk_counter) |
//! | 11 | 1 | zero |
//! | 12 | 32 | the current chunk's chaining value once a block of it is compressed; zeros before (it would be the key) |
//! | 44 | 64 | the current block, zeros past block_len |
//! | 108 | 32 * stack_len | the fully merged CV stack, largest subtree first |
//!
//! No key is written, and a body always has room for one more input byte
//! (see crate/wasm/src/state.rs, which says why).

use blake3::{BLOCK_LEN, CHUNK_LEN};

use crate::error::InvalidArg;
use crate::kernel::Params;
use crate::kernel::CV_LEN;
use crate::resumable::{bytes_of, words_of, Resumable, NO_ROOM};

/// The body without its CV stack.
pub const BODY_HEAD: usize = 108;
/// 2^64 bytes in chunks: past upstream's input limit.
const MAX_CHUNKS: u64 = 1 << 54;
/// The chunk value field of a chunk with no block compressed.
const NO_CV: [u8; CV_LEN] = [0; CV_LEN];

impl Resumable {
    /// The state as a BODY; the hasher is unchanged. A hasher with no room
    /// left (2^64 - 1 bytes) has none: `import_state` would refuse it.
    pub fn export_state(&self) -> Result<Vec<u8>, InvalidArg> {
        if self.room() == 0 {
            return Err(InvalidArg::range("state", NO_ROOM));
        }
        Ok(self.body())
    }

    /// The BODY, of any hasher (one with no room left included).
    fn body(&self) -> Vec<u8> {
        let this = self.flushed();
        let stack = &this.stack[..this.stack_len as usize];
        let chunk = this.chunk_view();
        let mut body = Vec::with_capacity(BODY_HEAD + CV_LEN * stack.len());
        body.extend_from_slice(&this.chunk_counter.to_le_bytes());
        body.extend_from_slice(&[chunk.blocks_compressed, chunk.block_len, this.stack_len, 0]);
        // Before its first block the chunk's value is the key: never written.
        body.extend_from_slice(&if chunk.blocks_compressed == 0 { NO_CV } else { bytes_of(&chunk.cv) });
        body.extend_from_slice(&chunk.block);
        for cv in stack {
            body.extend_from_slice(cv);
        }
        body
    }

    /// A hasher in `mode` with `key` (as `Resumable::new`) from a BODY.
    /// Anything but a state this hasher could have reached is an error
    /// (argument "state"), saying what is wrong.
    pub fn import_state(mode: u32, key: Option<&[u8]>, body: &[u8]) -> Result<Resumable, InvalidArg> {
        Self::from_body(mode, key, body, false)
    }

    /// `import_state`, where `full` also takes a body with no room left.
    fn from_body(mode: u32, key: Option<&[u8]>, body: &[u8], full: bool) -> Result<Resumable, InvalidArg> {
        let params = Params::new(mode, key)?;
        let invalid = |why: String| InvalidArg::range("state", why);
        let Some((head, stack)) = body.split_first_chunk::<BODY_HEAD>() else {
            return Err(invalid(format!("the body is {} bytes, shorter than its {BODY_HEAD}-byte head", body.len())));
        };
        let chunk_counter = u64::from_le_bytes(head[..8].try_into().unwrap_or_default());
        let [blocks_compressed, block_len, stack_len, reserved] = [head[8], head[9], head[10], head[11]];
        let want = BODY_HEAD + CV_LEN * stack_len as usize;
        if body.len() != want {
            return Err(invalid(format!("the body is {} bytes; a stack of {stack_len} makes it {want}", body.len())));
        }
        if reserved != 0 {
            return Err(invalid(format!("reserved byte 11 is {reserved}, not 0")));
        }
        if chunk_counter >= MAX_CHUNKS {
            return Err(invalid(format!("chunk counter {chunk_counter} is past 2^54 chunks (2^64 bytes)")));
        }
        if stack_len as u32 != chunk_counter.count_ones() {
            return Err(invalid(format!(
                "stack length {stack_len} does not match chunk counter {chunk_counter} ({} subtrees)",
                chunk_counter.count_ones()
            )));
        }
        if blocks_compressed as usize >= CHUNK_LEN / BLOCK_LEN {
            return Err(invalid(format!("blocks compressed {blocks_compressed} is past 15")));
        }
        if block_len as usize > BLOCK_LEN {
            return Err(invalid(format!("block length {block_len} is past {BLOCK_LEN}")));
        }
        let block: [u8; BLOCK_LEN] = head[44..].try_into().unwrap_or([0; BLOCK_LEN]);
        if block[block_len as usize..].iter().any(|&b| b != 0) {
            return Err(invalid(format!("block bytes past block length {block_len} are not zero")));
        }
        if (chunk_counter > 0 || blocks_compressed > 0) && block_len == 0 {
            return Err(invalid("block length is 0 after input: the last block is kept until a byte follows it".into()));
        }
        let cv_bytes: [u8; CV_LEN] = head[12..44].try_into().unwrap_or_default();
        if blocks_compressed == 0 && cv_bytes != NO_CV {
            return Err(invalid("the chunk's chaining value field is not zero, yet no block of the chunk is compressed".into()));
        }
        // Below 2^54 chunks, plus up to a whole chunk: 2^64 at most.
        let taken = u128::from(chunk_counter) * CHUNK_LEN as u128 + (blocks_compressed as usize * BLOCK_LEN + block_len as usize) as u128;
        if taken > u128::from(u64::MAX) || (taken == u128::from(u64::MAX) && !full) {
            return Err(invalid(format!("it holds {taken} bytes: {NO_ROOM}")));
        }
        let mut hasher = Resumable::empty(params);
        hasher.chunk_counter = chunk_counter;
        hasher.blocks_compressed = blocks_compressed;
        hasher.cv = if blocks_compressed == 0 { params.words } else { words_of(&cv_bytes) };
        hasher.raw[..block_len as usize].copy_from_slice(&block[..block_len as usize]);
        hasher.raw_len = block_len as usize;
        for (slot, cv) in hasher.stack.iter_mut().zip(stack.chunks_exact(CV_LEN)) {
            slot.copy_from_slice(cv);
        }
        hasher.stack_len = stack_len;
        Ok(hasher)
    }
}

/// A parked state's head: the mode, then its key (zeros in hash mode).
const PARK_HEAD: usize = 1 + 32;

impl Resumable {
    /// This hasher as its mode, key and BODY: how the JS engine keeps
    /// states in its own memory past a number of native ones (see
    /// src/native/engine.ts). They hold the key, so they never leave the
    /// engine. Unlike a saved state, it may have no room left.
    pub fn park(&self) -> Vec<u8> {
        let (mode, key) = self.params.mode_and_key();
        let mut bytes = Vec::with_capacity(PARK_HEAD + BODY_HEAD);
        bytes.push(mode as u8);
        bytes.extend_from_slice(key.unwrap_or(&[0; 32]));
        bytes.extend_from_slice(&self.body());
        bytes
    }

    /// The hasher `park` made these bytes of; any other bytes are an error
    /// (argument "state").
    pub fn unpark(bytes: &[u8]) -> Result<Resumable, InvalidArg> {
        let Some((head, body)) = bytes.split_first_chunk::<PARK_HEAD>() else {
            return Err(InvalidArg::range("state", "not a parked state"));
        };
        let (mode, key) = (u32::from(head[0]), &head[1..]);
        Self::from_body(mode, (mode != 0).then_some(key), body, true)
    }
}

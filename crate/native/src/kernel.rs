//! Upstream's `hash_many` kernels: one compression function run across
//! many inputs side by side in SIMD lanes (16 with AVX-512). The official
//! crate keeps `hash_many` private, but its C/assembly versions are plain
//! linked symbols, so we call those; every user here is tested against
//! `blake3::hash` and `hazmat`. Where there is no such symbol (other
//! targets), `kernel()` is `None` and callers hash with the crate's Hasher.

use blake3::hazmat::{self, HasherExt};
use blake3::Hasher;

use crate::error::InvalidArg;
use crate::mode::{mode_key, new_hasher, Mode, KEY_LEN};

pub const BLOCK_LEN: usize = 64;
pub const CHUNK_LEN: usize = 1024;
pub const CV_LEN: usize = 32;
pub const CHUNK_START: u8 = 1 << 0;
pub const CHUNK_END: u8 = 1 << 1;
pub const PARENT: u8 = 1 << 2;
pub const ROOT: u8 = 1 << 3;
const KEYED_HASH: u8 = 1 << 4;
const DERIVE_KEY_MATERIAL: u8 = 1 << 6;
const IV: [u32; 8] = [0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19];

/// `blake3_hash_many_*` in upstream's `c/blake3_impl.h`.
pub type HashManyFn = unsafe extern "C" fn(
    inputs: *const *const u8,
    num_inputs: usize,
    blocks: usize,
    key: *const u32,
    counter: u64,
    increment_counter: bool,
    flags: u8,
    flags_start: u8,
    flags_end: u8,
    out: *mut u8,
);

/// Declares upstream's `blake3_hash_many_*` symbols, all of `HashManyFn`'s signature.
macro_rules! hash_many_symbols {
    ($($name:ident),*) => {
        extern "C" {
            $(
                fn $name(
                    inputs: *const *const u8,
                    num_inputs: usize,
                    blocks: usize,
                    key: *const u32,
                    counter: u64,
                    increment_counter: bool,
                    flags: u8,
                    flags_start: u8,
                    flags_end: u8,
                    out: *mut u8,
                );
            )*
        }
    };
}

#[cfg(target_arch = "x86_64")]
hash_many_symbols!(blake3_hash_many_avx512, blake3_hash_many_avx2, blake3_hash_many_sse41);
#[cfg(all(target_arch = "aarch64", target_endian = "little"))]
hash_many_symbols!(blake3_hash_many_neon);

/// The widest of upstream's kernels this CPU runs, as upstream picks it.
pub fn kernel() -> Option<HashManyFn> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512vl") {
            return Some(blake3_hash_many_avx512);
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            return Some(blake3_hash_many_avx2);
        }
        if std::arch::is_x86_feature_detected!("sse4.1") {
            return Some(blake3_hash_many_sse41);
        }
    }
    #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
    return Some(blake3_hash_many_neon);
    #[allow(unreachable_code)]
    None
}

/// The batch's mode, as the kernel takes it: key words and flags.
#[derive(Clone, Copy)]
pub struct Params {
    mode: u32,
    key: Option<[u8; KEY_LEN]>,
    pub words: [u32; 8],
    pub flags: u8,
}

impl Params {
    pub fn new(mode: u32, key: Option<&[u8]>) -> Result<Params, InvalidArg> {
        let (checked, key) = mode_key(mode, key)?;
        let flags = match checked {
            Mode::Hash => 0,
            Mode::Keyed => KEYED_HASH,
            Mode::DeriveKey => DERIVE_KEY_MATERIAL,
        };
        let words = match key {
            Some(key) => std::array::from_fn(|i| u32::from_le_bytes([key[4 * i], key[4 * i + 1], key[4 * i + 2], key[4 * i + 3]])),
            None => IV,
        };
        Ok(Params { mode, key: key.copied(), words, flags })
    }

    /// The mode (see `mode_key`) and its key, as `new` took them.
    pub fn mode_and_key(&self) -> (u32, Option<&[u8; KEY_LEN]>) {
        (self.mode, self.key.as_ref())
    }

    /// A fresh Hasher in this mode.
    pub fn hasher(&self) -> Hasher {
        // Checked in `new`: the fallback is never taken.
        new_hasher(self.mode, self.key.as_ref().map(|k| &k[..])).unwrap_or_default()
    }

    /// One input on its own, through the crate's Hasher.
    pub fn hash_alone(&self, input: &[u8], out: &mut [u8]) {
        let mut hasher = self.hasher();
        hasher.update(input);
        hasher.finalize_xof().fill(out);
    }

    /// The chaining value of one chunk (whole or short) numbered `counter`,
    /// through the crate's Hasher.
    pub fn chunk_value_alone(&self, counter: u64, chunk: &[u8], out: &mut [u8]) {
        let mut hasher = self.hasher();
        hasher.set_input_offset(counter * CHUNK_LEN as u64);
        hasher.update(chunk);
        out.copy_from_slice(&hasher.finalize_non_root());
    }

    /// The mode as upstream's `hazmat` names it.
    pub fn hazmat_mode(&self) -> hazmat::Mode<'_> {
        match (self.flags, &self.key) {
            (KEYED_HASH, Some(key)) => hazmat::Mode::KeyedHash(key),
            (DERIVE_KEY_MATERIAL, Some(key)) => hazmat::Mode::DeriveKeyMaterial(key),
            _ => hazmat::Mode::Hash,
        }
    }
}

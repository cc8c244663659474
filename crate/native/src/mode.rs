//! The three modes, how a hasher is made for each, and reading output.

use blake3::hazmat::{hash_derive_key_context, HasherExt};
use blake3::Hasher;

use crate::error::InvalidArg;
use crate::pool;

pub const KEY_LEN: usize = blake3::KEY_LEN;

/// BLAKE3's output stream ends at 2^64 - 1 bytes; past that upstream leaves
/// the result unspecified, so we refuse instead.
pub const MAX_OUTPUT: u64 = u64::MAX;

/// The mode numbers the JS API uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Hash = 0,
    Keyed = 1,
    /// Keyed by the 32-byte *context key* from [`context_key`], so the
    /// context string is hashed once, not once per hasher.
    DeriveKey = 2,
}

impl Mode {
    pub fn from_u32(mode: u32) -> Result<Mode, InvalidArg> {
        match mode {
            0 => Ok(Mode::Hash),
            1 => Ok(Mode::Keyed),
            2 => Ok(Mode::DeriveKey),
            _ => Err(InvalidArg::range("mode", format!("mode must be 0 (hash), 1 (keyed) or 2 (derive_key), got {mode}"))),
        }
    }
}

/// The key of derive_key mode for `context` (upstream's `hash_derive_key_context`).
pub fn context_key(context: &str) -> [u8; KEY_LEN] {
    hash_derive_key_context(context)
}

/// `mode` and its key, checked: hash takes no key; keyed takes the 32-byte
/// key; derive_key takes the 32-byte context key.
pub fn mode_key(mode: u32, key: Option<&[u8]>) -> Result<(Mode, Option<&[u8; KEY_LEN]>), InvalidArg> {
    let mode = Mode::from_u32(mode)?;
    let key = match (mode, key) {
        (Mode::Hash, None) => return Ok((mode, None)),
        (Mode::Hash, Some(_)) => return Err(InvalidArg::type_("key", "key must be null or undefined in hash mode (0)")),
        (_, None) => return Err(InvalidArg::type_("key", format!("key is required in mode {}", mode as u32))),
        (_, Some(key)) => key,
    };
    match <&[u8; KEY_LEN]>::try_from(key) {
        Ok(key) => Ok((mode, Some(key))),
        Err(_) => Err(InvalidArg::range("key", format!("key must be {KEY_LEN} bytes, got {}", key.len()))),
    }
}

/// A hasher for `mode` (see [`mode_key`]).
pub fn new_hasher(mode: u32, key: Option<&[u8]>) -> Result<Hasher, InvalidArg> {
    Ok(match mode_key(mode, key)? {
        (Mode::Keyed, Some(key)) => Hasher::new_keyed(key),
        (Mode::DeriveKey, Some(key)) => Hasher::new_from_context_key(key),
        _ => Hasher::new(),
    })
}

/// Fills all of `out` with output from byte `position` on; the hasher is
/// unchanged, so this can be called again after more input.
pub fn fill(hasher: &Hasher, position: u64, out: &mut [u8]) -> Result<(), InvalidArg> {
    if position as u128 + out.len() as u128 > MAX_OUTPUT as u128 {
        return Err(InvalidArg::range("position", "BLAKE3 output ends at 2^64 - 1 bytes: position + output length is past it"));
    }
    let mut reader = hasher.finalize_xof();
    reader.set_position(position);
    reader.fill(out);
    Ok(())
}

/// One-shot: hashes `input` (with the pool above `RAYON_MIN`) and fills all of
/// `out` from output position 0.
pub fn hash_into(mode: u32, key: Option<&[u8]>, input: &[u8], out: &mut [u8]) -> Result<(), InvalidArg> {
    let mut hasher = new_hasher(mode, key)?;
    pool::update(&mut hasher, input);
    fill(&hasher, 0, out)
}

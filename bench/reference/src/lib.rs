//! The official `blake3` crate behind the most ordinary wasm-bindgen API: slices
//! in, `Vec<u8>` out, a streaming hasher class. Every call copies its input
//! into wasm memory through wasm-bindgen's allocator, as a user writing this
//! by hand would get.
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub fn hash(input: &[u8]) -> Vec<u8> {
    blake3::hash(input).as_bytes().to_vec()
}

/// `key` must be 32 bytes (the bench always passes 32).
#[wasm_bindgen]
pub fn keyed_hash(key: &[u8], input: &[u8]) -> Vec<u8> {
    let key: &[u8; 32] = key.try_into().expect("key must be 32 bytes");
    blake3::keyed_hash(key, input).as_bytes().to_vec()
}

/// `len` bytes of extended output for `input`.
#[wasm_bindgen]
pub fn xof(input: &[u8], len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len];
    blake3::Hasher::new().update(input).finalize_xof().fill(&mut out);
    out
}

#[wasm_bindgen]
pub struct Hasher(blake3::Hasher);

#[wasm_bindgen]
impl Hasher {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Hasher {
        Hasher(blake3::Hasher::new())
    }

    pub fn new_keyed(key: &[u8]) -> Hasher {
        let key: &[u8; 32] = key.try_into().expect("key must be 32 bytes");
        Hasher(blake3::Hasher::new_keyed(key))
    }

    pub fn update(&mut self, input: &[u8]) {
        self.0.update(input);
    }

    pub fn finalize(&self) -> Vec<u8> {
        self.0.finalize().as_bytes().to_vec()
    }

    pub fn finalize_xof(&self, len: usize) -> Vec<u8> {
        let mut out = vec![0u8; len];
        self.0.finalize_xof().fill(&mut out);
        out
    }
}

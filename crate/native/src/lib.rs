//! The core of the Node addon (`crate/node` is only its napi-rs skin): the
//! three BLAKE3 modes, a thread pool we own, and file hashing, all over the
//! official `blake3` crate and its kernels. Plain Rust so it is tested with
//! `cargo test`, natively and under qemu for aarch64 (scripts/test.mjs).
//!
//! Nothing here panics on caller input: a bad argument is an [`InvalidArg`],
//! an OS failure an `io::Error`.

mod cpu;
mod error;
mod file;
#[cfg(target_os = "linux")]
mod guard;
mod kernel;
mod many;
mod mode;
mod outboard;
mod pool;
mod resumable;
mod state;
mod subtree;

pub use cpu::cpu_features;
pub use error::{ArgKind, Error, InvalidArg};
#[cfg(unix)]
pub use file::update_from_fd;
#[cfg(windows)]
pub use file::update_from_handle;
pub use file::{hash_file, MMAP_MIN, READ_BUF};
#[cfg(target_os = "linux")]
pub use guard::reclaim as reclaim_sigbus;
pub use many::{hash_many, Items};
pub use mode::{context_key, fill, hash_into, mode_key, new_hasher, Mode, KEY_LEN, MAX_OUTPUT};
pub use outboard::{encode as bao_encode, encoded_len as bao_encoded_len, MAX_CHUNK_LOG};
pub use pool::{set_threads, threads, update, Absorb, Pool, MAX_THREADS, RAYON_MIN};
pub use resumable::Resumable;
pub use state::BODY_HEAD;
pub use subtree::{chunk_chaining_values, max_subtree_len, merge_subtrees, parent_chaining_values, subtree_chaining_value, CV_LEN};

/// Only Linux maps files (file.rs), so elsewhere there is no SIGBUS handler
/// to put back in front, and nothing that needs one: always false.
#[cfg(not(target_os = "linux"))]
pub fn reclaim_sigbus() -> bool {
    false
}

/// Re-exported so callers name one version of the official crate.
pub use blake3;

//! The async half: tasks that run on libuv's threads (and our pool from
//! there), how they are aborted, and how a hasher is kept out of reach of
//! sync calls while a task has it.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use blake3_kit_native::{hash_file, Absorb, Error as CoreError, Resumable};
use napi::bindgen_prelude::*;
use napi::{sys, JsValue, Task};

use crate::errors::{abort_error, internal_error, invalid_arg, io_error, truncated_error};

/// Async updates hash this much between looks at the abort flag: ~2 ms at
/// one thread's 9 GB/s here, so an abort lands quickly, while each piece is
/// still far above RAYON_MIN (1 MiB) for the pool.
const PIECE: usize = 16 * 1024 * 1024;

/// Set on the JS thread when the caller's AbortSignal fires; read by a
/// running task between pieces.
#[derive(Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// An optional `signal` argument as napi-rs's AbortSignal (which cancels a
/// task that has not started) plus our flag (which stops one that has).
/// A signal that is already aborted makes the task reject at once.
pub fn signal(env: &Env, signal: Option<Object>) -> Result<(Option<AbortSignal>, Cancel)> {
    let cancel = Cancel::default();
    let Some(obj) = signal else { return Ok((None, cancel)) };
    let Ok(aborted) = obj.get_named_property::<bool>("aborted") else {
        return Err(crate::errors::type_error(env, "signal must be an AbortSignal".into()));
    };
    cancel.0.store(aborted, Ordering::Relaxed);
    // SAFETY: obj is a live value of this env, received as an argument.
    let abort = unsafe { AbortSignal::from_napi_value(env.raw(), obj.raw()) }?;
    let flag = cancel.clone();
    abort.on_abort(move || flag.0.store(true, Ordering::Relaxed));
    Ok((Some(abort), cancel))
}

/// A hasher's "an async task has my state" flag, held by that task. Sync
/// methods see it set from the call that queued the task until the promise
/// settles, so they throw instead of blocking the JS thread or slipping in
/// ahead of the queued update.
pub struct Busy(Arc<AtomicBool>);

impl Busy {
    pub fn claim(flag: &Arc<AtomicBool>) -> Option<Busy> {
        (!flag.swap(true, Ordering::AcqRel)).then(|| Busy(flag.clone()))
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// The hasher behind a lock. Only a panic while it was held (a bug) poisons
/// it, and then the state may be half-updated: refuse rather than guess.
pub fn lock(state: &Mutex<Resumable>) -> std::result::Result<MutexGuard<'_, Resumable>, &'static str> {
    state.lock().map_err(|_| "hasher state lost to an earlier internal error; create a new hasher")
}

/// What a task's `compute` found, turned into a value or a JS error on the JS thread.
pub enum Outcome<T> {
    Done(T),
    Aborted,
    Failed(CoreError),
    Broken(&'static str),
}

impl<T> Outcome<T> {
    fn into_js(self, env: &Env, op: &str, path: Option<&str>) -> Result<T> {
        match self {
            Outcome::Done(v) => Ok(v),
            Outcome::Aborted => Err(abort_error(env)),
            Outcome::Failed(CoreError::Arg(e)) => Err(invalid_arg(env, e)),
            Outcome::Failed(CoreError::Io(e)) => Err(io_error(env, &e, op, path)),
            Outcome::Failed(CoreError::Truncated) => Err(truncated_error(env, op, path)),
            Outcome::Broken(what) => Err(internal_error(what)),
        }
    }
}

/// `compute`'s body with panics caught: a panic can't unwind out of
/// libuv's thread, so it would abort Node.
fn guarded<T>(f: impl FnOnce() -> Outcome<T>) -> Result<Outcome<T>> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|_| internal_error("panic in an async task"))
}

/// Runs `f` on the locked hasher; restores the hasher as it was unless `f`
/// finished, so an aborted or failed update leaves no partial input behind.
fn all_or_nothing<T>(state: &Mutex<Resumable>, f: impl FnOnce(&mut Resumable) -> Outcome<T>) -> Outcome<T> {
    let mut hasher = match lock(state) {
        Ok(h) => h,
        Err(what) => return Outcome::Broken(what),
    };
    let before = hasher.clone();
    let outcome = f(&mut hasher);
    if !matches!(outcome, Outcome::Done(_)) {
        *hasher = before;
    }
    outcome
}

/// The bytes an async update reads on another thread. Any ArrayBuffer can
/// be detached, transferred or resized smaller by JS while the task runs,
/// freeing or shrinking its memory, so its bytes are copied first, on the JS
/// thread. A SharedArrayBuffer can grow but never shrink or detach, and the
/// reference held here keeps it alive: it is read in place.
pub enum TaskInput {
    Shared(Uint8Array),
    Copied(Vec<u8>),
}

impl TaskInput {
    /// `value` must be a Uint8Array; anything else is a TypeError naming `name`.
    pub fn new(env: &Env, value: Unknown, name: &str) -> Result<TaskInput> {
        let not_bytes = || crate::errors::type_error(env, format!("{name} must be a Uint8Array"));
        let (raw_env, raw) = (env.raw(), value.value().value);
        let (mut kind, mut length, mut data, mut buffer, mut offset) = (0, 0usize, std::ptr::null_mut(), std::ptr::null_mut(), 0usize);
        // SAFETY: live values of this env; the out-pointers are ours.
        let status = unsafe { sys::napi_get_typedarray_info(raw_env, raw, &mut kind, &mut length, &mut data, &mut buffer, &mut offset) };
        if status != sys::Status::napi_ok || kind != sys::TypedarrayType::uint8_array {
            return Err(not_bytes());
        }
        // napi_is_arraybuffer is V8's IsArrayBuffer: false for a
        // SharedArrayBuffer, and no prototype trick changes it.
        let mut plain = true;
        // SAFETY: `buffer` came from napi_get_typedarray_info just above.
        if unsafe { sys::napi_is_arraybuffer(raw_env, buffer, &mut plain) } != sys::Status::napi_ok {
            return Err(not_bytes());
        }
        if !plain {
            // SAFETY: a live Uint8Array of this env (checked above).
            return Ok(TaskInput::Shared(unsafe { Uint8Array::from_napi_value(raw_env, raw) }?));
        }
        if length == 0 || data.is_null() {
            return Ok(TaskInput::Copied(Vec::new()));
        }
        // SAFETY: napi reports `length` bytes at `data`, valid until JS runs
        // again, which it can't before this copy ends.
        Ok(TaskInput::Copied(unsafe { std::slice::from_raw_parts(data as *const u8, length) }.to_vec()))
    }

    fn bytes(&self) -> &[u8] {
        match self {
            TaskInput::Shared(view) => view,
            TaskInput::Copied(bytes) => bytes,
        }
    }
}

/// `NativeHasher.updateAsync`.
pub struct UpdateTask {
    pub state: Arc<Mutex<Resumable>>,
    pub input: TaskInput,
    pub busy: Option<Busy>,
    pub cancel: Cancel,
}

impl Task for UpdateTask {
    type Output = Outcome<()>;
    type JsValue = ();

    fn compute(&mut self) -> Result<Self::Output> {
        let (input, cancel) = (self.input.bytes(), &self.cancel);
        guarded(|| {
            all_or_nothing(&self.state, |hasher| {
                if let Err(e) = hasher.check_room("input", input.len() as u64) {
                    return Outcome::Failed(e.into());
                }
                for piece in input.chunks(PIECE) {
                    if cancel.is_set() {
                        return Outcome::Aborted;
                    }
                    if let Err(e) = hasher.update(piece) {
                        return Outcome::Failed(e.into());
                    }
                }
                Outcome::Done(())
            })
        })
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> Result<()> {
        self.busy.take();
        output.into_js(&env, "updateAsync", None)
    }

    fn reject(&mut self, _env: Env, err: Error) -> Result<()> {
        self.busy.take();
        Err(err)
    }
}

/// `NativeHasher.updateFromFd`.
pub struct FdTask {
    pub state: Arc<Mutex<Resumable>>,
    pub busy: Option<Busy>,
    pub cancel: Cancel,
    pub fd: i32,
    pub offset: u64,
    pub length: u64,
    pub mmap: bool,
}

impl Task for FdTask {
    type Output = Outcome<u64>;
    type JsValue = f64;

    fn compute(&mut self) -> Result<Self::Output> {
        let FdTask { fd, offset, length, mmap, .. } = *self;
        let cancel = &self.cancel;
        guarded(|| {
            all_or_nothing(&self.state, |hasher| {
                // The whole range, however short the file: as update_from_fd
                // checks each piece.
                if let Err(e) = hasher.check_room("length", length) {
                    return Outcome::Failed(e.into());
                }
                let mut done = 0u64;
                while done < length {
                    if cancel.is_set() {
                        return Outcome::Aborted;
                    }
                    let want = (length - done).min(PIECE as u64);
                    match update_from_fd(hasher, fd, offset + done, want, mmap) {
                        Ok(n) => {
                            done += n;
                            if n < want {
                                break; // end of file
                            }
                        }
                        Err(e) => return Outcome::Failed(e),
                    }
                }
                Outcome::Done(done)
            })
        })
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> Result<f64> {
        self.busy.take();
        output.into_js(&env, "updateFromFd", None).map(|n| n as f64)
    }

    fn reject(&mut self, _env: Env, err: Error) -> Result<f64> {
        self.busy.take();
        Err(err)
    }
}

/// The core's `update_from_fd`, with Node's fd.
#[cfg(unix)]
fn update_from_fd(hasher: &mut impl Absorb, fd: i32, offset: u64, length: u64, mmap: bool) -> std::result::Result<u64, CoreError> {
    blake3_kit_native::update_from_fd(hasher, fd, offset, length, mmap)
}

/// On Windows Node's fd is its CRT's: the core reads the HANDLE behind it.
#[cfg(windows)]
fn update_from_fd(hasher: &mut impl Absorb, fd: i32, offset: u64, length: u64, mmap: bool) -> std::result::Result<u64, CoreError> {
    let handle = crate::host::os_handle(fd)?;
    // SAFETY: the handle of an fd the caller holds open until the task
    // settles (as on Unix, where the fd is only borrowed), or
    // INVALID_HANDLE_VALUE for one that is not open, which fails.
    unsafe { blake3_kit_native::update_from_handle(hasher, handle, offset, length, mmap) }
}

/// `hashFile`: b3sum's way, via the core. Upstream hashes the whole file in
/// one call, so an abort after it started is noticed only at the end (the
/// result is then dropped and the promise rejects).
pub struct FileTask {
    pub path: String,
    pub mode: u32,
    pub key: Option<Vec<u8>>,
    pub out_len: usize,
    pub mmap: bool,
    pub cancel: Cancel,
}

impl Task for FileTask {
    type Output = Outcome<Vec<u8>>;
    type JsValue = Uint8Array;

    fn compute(&mut self) -> Result<Self::Output> {
        guarded(|| {
            if self.cancel.is_set() {
                return Outcome::Aborted;
            }
            let result = hash_file(self.path.as_ref(), self.mode, self.key.as_deref(), self.out_len, self.mmap);
            match result {
                _ if self.cancel.is_set() => Outcome::Aborted,
                Ok(out) => Outcome::Done(out),
                Err(e) => Outcome::Failed(e),
            }
        })
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> Result<Uint8Array> {
        output.into_js(&env, "hashFile", Some(&self.path)).map(Uint8Array::new)
    }
}

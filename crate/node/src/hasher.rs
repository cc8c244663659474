//! `NativeHasher`: an incremental hasher whose state async tasks can take
//! off the JS thread, and which can be saved and loaded (the core's
//! `Resumable`, whose state is ours, not the official Hasher's).

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, TryLockError};

use blake3_kit_native::{InvalidArg, Resumable};
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::errors::{integer, internal_error, invalid_arg, range_error, MAX_SAFE_INTEGER};
use crate::tasks::{signal, Busy, FdTask, TaskInput, UpdateTask};

/// Every method takes `&self`: napi-rs holds a shared borrow of the handle
/// until an async task it returned settles, so a `&mut self` method (free,
/// renew) threw while one ran. The cells are only touched on the JS thread.
#[napi(custom_finalize)]
pub struct NativeHasher {
    /// None once freed: the state goes at once, not with the wrapper's
    /// garbage collection, which V8 schedules by JS heap size alone (10^6
    /// disposed hashers of ~2 KiB each reached 2.2 GB RSS).
    state: RefCell<Option<Arc<Mutex<Resumable>>>>,
    /// Set while an async task owns the state (see tasks::Busy).
    busy: RefCell<Arc<AtomicBool>>,
    /// Whether STATE_BYTES of this handle's state are reported to V8.
    reported: Cell<bool>,
}

/// A state's bytes off the JS heap (the Resumable behind its Arc and
/// Mutex), reported to V8 with napi_adjust_external_memory while a handle
/// holds it, so that its collector counts them: V8 schedules collections by
/// the JS heap, on which a forgotten handle is a small object, and 10^5
/// forgotten hashers (a 20 KiB update and a digest each, Node 20) peaked at
/// 391 MiB RSS growth before their finalizers ran, 799 MiB with an XOF
/// reader each. With the report: see test/node/native-memory.test.ts.
const STATE_BYTES: i64 = (std::mem::size_of::<Mutex<Resumable>>() + 2 * std::mem::size_of::<usize>()) as i64;

impl ObjectFinalize for NativeHasher {
    /// Collected without free(): its state goes with it.
    fn finalize(self, env: Env) -> Result<()> {
        self.report(&env, false);
        Ok(())
    }
}

/// The body's own faults in the wording every engine uses; a bad mode or
/// key as any other call reports them.
fn state_error(env: &Env, e: InvalidArg) -> Error {
    match e.arg {
        "state" => range_error(env, format!("blake3-kit: saved state body is not valid: {}", e.message)),
        _ => invalid_arg(env, e),
    }
}

fn busy_error(env: &Env) -> Error {
    Error::from(JsError::from(Error::new("ERR_INVALID_STATE", "hasher is busy with an async update")).into_unknown(*env))
}

impl NativeHasher {
    fn wrap(env: &Env, hasher: Resumable) -> Self {
        let handle = NativeHasher {
            state: RefCell::new(Some(Arc::new(Mutex::new(hasher)))),
            busy: RefCell::new(Arc::new(AtomicBool::new(false))),
            reported: Cell::new(false),
        };
        handle.report(env, true);
        handle
    }

    /// Tells V8 whether this handle holds a state's STATE_BYTES. Best
    /// effort: a failed report changes no hashing.
    fn report(&self, env: &Env, holds: bool) {
        if self.reported.replace(holds) != holds {
            let _ = env.adjust_external_memory(if holds { STATE_BYTES } else { -STATE_BYTES });
        }
    }

    /// The state, shared (a task takes its own reference).
    fn state(&self, env: &Env) -> Result<Arc<Mutex<Resumable>>> {
        self.state
            .borrow()
            .clone()
            .ok_or_else(|| Error::from(JsError::from(Error::new("ERR_INVALID_STATE", "this hasher has been freed")).into_unknown(*env)))
    }

    /// Runs `f` on the state now, or throws if an async task has it: never
    /// blocks the JS thread on a lock.
    fn now<R>(&self, env: &Env, f: impl FnOnce(&mut Resumable) -> R) -> Result<R> {
        if self.busy.borrow().load(Ordering::Acquire) {
            return Err(busy_error(env));
        }
        let state = self.state(env)?;
        let result = match state.try_lock() {
            Ok(mut hasher) => Ok(f(&mut hasher)),
            Err(TryLockError::WouldBlock) => Err(busy_error(env)),
            Err(TryLockError::Poisoned(_)) => Err(internal_error("hasher state lost to an earlier internal error; create a new hasher")),
        };
        result
    }

    /// Makes `hasher` this handle's state, not busy: in place when nothing
    /// else holds the old one (a task still running keeps its own state and
    /// flag).
    fn hold(&self, env: &Env, hasher: Resumable) {
        self.report(env, true);
        if self.busy.borrow().load(Ordering::Acquire) {
            self.busy.replace(Arc::new(AtomicBool::new(false)));
        }
        let mut state = self.state.borrow_mut();
        if let Some(held) = state.as_mut().and_then(Arc::get_mut).and_then(|held| held.get_mut().ok()) {
            *held = hasher;
        } else {
            *state = Some(Arc::new(Mutex::new(hasher)));
        }
    }

    /// Marks the state as taken by a task about to be queued.
    fn claim(&self, env: &Env) -> Result<Busy> {
        Busy::claim(&self.busy.borrow()).ok_or_else(|| busy_error(env))
    }
}

#[napi]
impl NativeHasher {
    /// mode 0 hash (no key), 1 keyed (32-byte key), 2 derive_key (the 32-byte
    /// context key from `contextKey`).
    #[napi(constructor, catch_unwind)]
    pub fn new(env: &Env, mode: f64, key: Option<&[u8]>) -> Result<Self> {
        let mode = integer(env, "mode", mode, u32::MAX as f64)? as u32;
        Resumable::new(mode, key).map(|hasher| Self::wrap(env, hasher)).map_err(|e| invalid_arg(env, e))
    }

    /// Hashes `input` now (on the pool above RAYON_MIN); borrows it, no copy.
    /// Input past 2^64 - 1 bytes in all is a RangeError, hashing nothing.
    #[napi(catch_unwind)]
    pub fn update(&self, env: &Env, input: &[u8]) -> Result<()> {
        self.now(env, |hasher| hasher.update(input))?.map_err(|e| invalid_arg(env, e))
    }

    /// The input bytes this hasher can still take (BLAKE3's input ends at
    /// 2^64 - 1 bytes), as a number: at most 2^53 - 1, which is all that a
    /// JS caller can feed before it asks again.
    #[napi(catch_unwind)]
    pub fn room(&self, env: &Env) -> Result<f64> {
        self.now(env, |hasher| hasher.room().min(MAX_SAFE_INTEGER as u64) as f64)
    }

    /// Fills all of `out` with output from byte `skip` (0..64) of output
    /// block `counterLo + counterHi * 2^32` on, the counter going on past
    /// 2^64 - 1 bytes as the official OutputReader's does; the hasher is
    /// unchanged.
    #[napi(catch_unwind)]
    pub fn fill(&self, env: &Env, mut out: Uint8ArraySlice, counter_lo: f64, counter_hi: f64, skip: f64) -> Result<()> {
        let lo = integer(env, "counterLo", counter_lo, u32::MAX as f64)?;
        let hi = integer(env, "counterHi", counter_hi, u32::MAX as f64)?;
        let skip = integer(env, "skip", skip, 63.0)? as u8;
        // SAFETY: the only live reference to out's bytes; the hasher is ours.
        let out = unsafe { out.as_mut() };
        self.now(env, |hasher| hasher.fill_blocks((hi << 32) | lo, skip, out))
    }

    /// Drops the state now; later calls throw. A running task keeps its own
    /// reference until it ends.
    #[napi(catch_unwind)]
    pub fn free(&self, env: &Env) {
        self.state.replace(None);
        self.report(env, false);
    }

    /// Makes this handle a new hasher in `mode`, as the constructor would,
    /// whatever it held: JS keeps disposed handles and renews them, because
    /// every new wrapper object leaves a finalizer that Node runs only once
    /// the event loop turns (10^6 create/update/dispose rounds in one
    /// synchronous loop peaked at 386 MiB RSS). The state is reset in place
    /// when nothing else holds it; a task still running keeps the old one.
    #[napi(catch_unwind)]
    pub fn renew(&self, env: &Env, mode: f64, key: Option<&[u8]>) -> Result<()> {
        let mode = integer(env, "mode", mode, u32::MAX as f64)? as u32;
        let hasher = Resumable::new(mode, key).map_err(|e| invalid_arg(env, e))?;
        self.hold(env, hasher);
        Ok(())
    }

    /// Makes `target`, a disposed handle JS keeps (see `renew`), an
    /// independent copy of this hasher: `clone` without a new wrapper.
    #[napi(catch_unwind)]
    pub fn clone_into(&self, env: &Env, target: &NativeHasher) -> Result<()> {
        let copy = self.now(env, |hasher| hasher.clone())?;
        target.hold(env, copy);
        Ok(())
    }

    #[napi(catch_unwind)]
    pub fn reset(&self, env: &Env) -> Result<()> {
        self.now(env, |hasher| {
            hasher.reset();
        })
    }

    /// An independent copy of the current state.
    #[napi(catch_unwind)]
    #[allow(clippy::should_implement_trait)]
    pub fn clone(&self, env: &Env) -> Result<NativeHasher> {
        let copy = self.now(env, |hasher| hasher.clone())?;
        Ok(Self::wrap(env, copy))
    }

    /// The state as a saved state's BODY (src/state.ts); the hasher is
    /// unchanged. A hasher with no room left has none (a RangeError).
    #[napi(catch_unwind)]
    pub fn export_state(&self, env: &Env) -> Result<Uint8Array> {
        self.now(env, |hasher| hasher.export_state())?.map(Uint8Array::new).map_err(|e| invalid_arg(env, e))
    }

    /// Writes this hasher's mode, key and state over the start of `out`, as
    /// bytes for the JS engine alone, which parks states in JS memory past
    /// a number of native ones (see src/native/engine.ts); returns their
    /// length. The hasher is unchanged. They hold the key. Into the
    /// caller's buffer: a buffer made here would be freed by a finalizer
    /// that runs only when the event loop turns, which parking is for
    /// not waiting on.
    #[napi(catch_unwind)]
    pub fn park(&self, env: &Env, mut out: Uint8ArraySlice) -> Result<u32> {
        let parked = self.now(env, |hasher| hasher.park())?;
        // SAFETY: the only live reference to out's bytes.
        let out = unsafe { out.as_mut() };
        let Some(to) = out.get_mut(..parked.len()) else {
            return Err(range_error(env, format!("out is {} bytes; the parked state is {}", out.len(), parked.len())));
        };
        to.copy_from_slice(&parked);
        Ok(parked.len() as u32)
    }

    /// The hasher `park` gave these bytes of.
    #[napi(factory, catch_unwind)]
    pub fn unpark(env: &Env, bytes: &[u8]) -> Result<NativeHasher> {
        Resumable::unpark(bytes).map(|hasher| Self::wrap(env, hasher)).map_err(|e| state_error(env, e))
    }

    /// Makes this handle (see `renew`) the hasher `park` gave these bytes
    /// of: `unpark` without a new wrapper.
    #[napi(catch_unwind)]
    pub fn unpark_into(&self, env: &Env, bytes: &[u8]) -> Result<()> {
        let hasher = Resumable::unpark(bytes).map_err(|e| state_error(env, e))?;
        self.hold(env, hasher);
        Ok(())
    }

    /// A hasher in `mode` with `key` (as the constructor) from a BODY; an
    /// invalid one is a RangeError saying why, and makes nothing.
    #[napi(factory, catch_unwind)]
    pub fn import_state(env: &Env, mode: f64, key: Option<&[u8]>, body: &[u8]) -> Result<NativeHasher> {
        let mode = integer(env, "mode", mode, u32::MAX as f64)? as u32;
        Resumable::import_state(mode, key, body).map(|hasher| Self::wrap(env, hasher)).map_err(|e| state_error(env, e))
    }

    /// Hashes `input` off the JS thread: bytes in a SharedArrayBuffer where
    /// they are, any other bytes copied now (see TaskInput), so nothing JS
    /// does meanwhile can make the task read freed memory. Aborting stops
    /// between 16 MiB pieces and leaves the hasher as it was; so does any
    /// failure.
    #[napi(catch_unwind, ts_args_type = "input: Uint8Array, signal?: AbortSignal | undefined | null", ts_return_type = "Promise<void>")]
    pub fn update_async(&self, env: &Env, input: Unknown, signal: Option<Object>) -> Result<AsyncTask<UpdateTask>> {
        let (abort, cancel) = self::signal(env, signal)?;
        let busy = Some(self.claim(env)?);
        let input = TaskInput::new(env, input, "input")?;
        let task = UpdateTask { state: self.state(env)?, input, busy, cancel };
        Ok(AsyncTask::with_optional_signal(task, abort))
    }

    /// Hashes bytes [offset, offset + length) of the open file `fd` (borrowed,
    /// not closed) off the JS thread; resolves to the bytes hashed, fewer if
    /// the file ends first. `mmap` maps ranges of 16 KiB or more instead of
    /// reading them.
    #[napi(catch_unwind, ts_return_type = "Promise<number>")]
    pub fn update_from_fd(
        &self,
        env: &Env,
        fd: f64,
        offset: f64,
        length: f64,
        mmap: bool,
        signal: Option<Object>,
    ) -> Result<AsyncTask<FdTask>> {
        let fd = integer(env, "fd", fd, i32::MAX as f64)? as i32;
        let offset = integer(env, "offset", offset, MAX_SAFE_INTEGER)?;
        let length = integer(env, "length", length, MAX_SAFE_INTEGER)?;
        let (abort, cancel) = self::signal(env, signal)?;
        let busy = Some(self.claim(env)?);
        let task = FdTask { state: self.state(env)?, busy, cancel, fd, offset, length, mmap };
        Ok(AsyncTask::with_optional_signal(task, abort))
    }
}

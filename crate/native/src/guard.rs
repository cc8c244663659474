//! Mapped hashing that survives the file shrinking under it.
//!
//! Touching a page of a file mapping past the file's current end raises
//! SIGBUS, whose default action kills the process (Node included). We install
//! one process-wide SIGBUS handler and keep a fixed registry of the address
//! ranges being hashed right now. A fault inside a registered range is
//! answered by mapping zero pages over the rest of that range and marking it
//! faulted: the faulting load restarts, reads zeros, hashing runs to its end,
//! and the caller turns the mark into `Error::Truncated`, never a digest.
//! Any other SIGBUS goes to whatever handler was there before us.
//!
//! Linux only (glibc and musl): see `file.rs` for the callers, and for why
//! macOS and Windows read files instead of mapping them.
//!
//! Why no generation counter on slots: a range is unregistered only after
//! the hash over it returned, which is after the pool joined, which is after
//! every load from it completed, including a faulting load whose handler is
//! still running (the handler runs on the faulting thread, inside that load).
//! So no fault on a range can be in flight once its slot is released.

use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::ptr;
use std::sync::atomic::{fence, AtomicBool, AtomicUsize, Ordering};
use std::sync::Once;

use libc::{c_int, c_long, c_void, siginfo_t};

/// Ranges hashed at once. Each hash holds one for its duration; callers run
/// on libuv's 4 threads (or the user's), so 64 is far more than in use. When
/// all are taken the caller reads instead of mapping.
const SLOTS: usize = 64;

/// One registered range `[start, end)`, written under a seqlock so the
/// handler never acts on a half-written pair.
struct Slot {
    /// Claimed by a `Guard`; only the owner writes the fields below.
    taken: AtomicBool,
    /// Odd while `start`/`end` are being written.
    seq: AtomicUsize,
    start: AtomicUsize,
    end: AtomicUsize,
    faulted: AtomicBool,
}

#[allow(clippy::declare_interior_mutable_const)]
const EMPTY: Slot = Slot {
    taken: AtomicBool::new(false),
    seq: AtomicUsize::new(0),
    start: AtomicUsize::new(0),
    end: AtomicUsize::new(0),
    faulted: AtomicBool::new(false),
};

static REGISTRY: [Slot; SLOTS] = [EMPTY; SLOTS];

/// sysconf is not async-signal-safe: read once at install.
static PAGE: AtomicUsize = AtomicUsize::new(0);

/// The SIGBUS action to chain to: the one in place before ours. Two
/// entries, `CURRENT` naming the live one, because `reclaim` replaces it
/// while a handler that started earlier may still be reading it: the entry
/// being written is never the one such a handler reads (see `reclaim`).
struct Previous(UnsafeCell<MaybeUninit<libc::sigaction>>);
// SAFETY: an entry is written only while no handler can read it (inside
// INSTALL before ours is installed, or by `reclaim` as it explains), and the
// write is ordered before any read by the sigaction call that installs us.
unsafe impl Sync for Previous {}
#[allow(clippy::declare_interior_mutable_const)]
const UNSET: Previous = Previous(UnsafeCell::new(MaybeUninit::uninit()));
static PREVIOUS: [Previous; 2] = [UNSET; 2];
static CURRENT: AtomicUsize = AtomicUsize::new(0);
/// Handler invocations running now (one that leaves by longjmp through a
/// chained handler never comes back down: then `reclaim` gives up).
static RUNNING: AtomicUsize = AtomicUsize::new(0);

static INSTALL: Once = Once::new();
static INSTALLED: AtomicBool = AtomicBool::new(false);

fn install() {
    INSTALL.call_once(|| {
        // SAFETY: plain libc calls on locals and on PREVIOUS, which no handler
        // reads yet (ours is not installed until the last call).
        unsafe {
            let page = libc::sysconf(libc::_SC_PAGESIZE);
            if page <= 0 {
                return;
            }
            PAGE.store(page as usize, Ordering::Relaxed);
            // Read the old action first and install second, rather than both in
            // one call: the kernel installs the new action before it copies
            // the old one out, and a foreign SIGBUS in that window would see
            // no previous action.
            let prev = (*PREVIOUS[0].0.get()).as_mut_ptr();
            if libc::sigaction(libc::SIGBUS, ptr::null(), prev) != 0 {
                return;
            }
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = handler_addr();
            // SA_NODEFER: a previous handler we chain to may leave by
            // longjmp without restoring the mask; SIGBUS left blocked would
            // make the next fault fatal. SA_ONSTACK: a thread with an
            // alternate stack (Rust's stack-overflow handling sets one up)
            // uses it, as that handler expected.
            action.sa_flags = libc::SA_SIGINFO | libc::SA_NODEFER | libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            if libc::sigaction(libc::SIGBUS, &action, ptr::null_mut()) == 0 {
                INSTALLED.store(true, Ordering::Release);
            }
        }
    });
}

/// Puts our handler back after someone replaced it without chaining (Node
/// does, when a `process.on('SIGBUS')` listener comes or goes), chaining to
/// theirs from now on. Mapped hashes already running rely on it: a fault in
/// their range that reaches the other handler returns into the same fault,
/// for ever. True if SIGBUS is ours afterwards. Call it from one thread only
/// (the JS thread).
pub fn reclaim() -> bool {
    install();
    if !INSTALLED.load(Ordering::Acquire) {
        return false;
    }
    if ours() {
        return true;
    }
    // Ours is not installed, so no new invocation can start; wait briefly for
    // those that started before the switch, which may read the live entry.
    let mut spins = 0;
    while RUNNING.load(Ordering::Acquire) != 0 {
        spins += 1;
        if spins > 1_000_000 {
            return false;
        }
        std::hint::spin_loop();
    }
    let spare = 1 - CURRENT.load(Ordering::Relaxed);
    // SAFETY: the spare entry is read by no handler (none runs, and a new one
    // reads CURRENT, which still names the other entry); sigaction calls on
    // locals and that entry.
    unsafe {
        let prev = (*PREVIOUS[spare].0.get()).as_mut_ptr();
        if libc::sigaction(libc::SIGBUS, ptr::null(), prev) != 0 {
            return false;
        }
        CURRENT.store(spare, Ordering::Release);
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = handler_addr();
        action.sa_flags = libc::SA_SIGINFO | libc::SA_NODEFER | libc::SA_ONSTACK;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGBUS, &action, ptr::null_mut()) == 0
    }
}

/// `on_sigbus` as sigaction's `sa_sigaction` holds it.
fn handler_addr() -> libc::sighandler_t {
    type Handler = extern "C" fn(c_int, *mut siginfo_t, *mut c_void);
    on_sigbus as Handler as *const () as libc::sighandler_t
}

/// Whether SIGBUS is still handled by us: someone may have replaced our
/// handler since (without chaining), and then a mapping is unsafe again.
fn ours() -> bool {
    install();
    if !INSTALLED.load(Ordering::Acquire) {
        return false;
    }
    // SAFETY: queries the current action into a local.
    unsafe {
        let mut now: libc::sigaction = std::mem::zeroed();
        libc::sigaction(libc::SIGBUS, ptr::null(), &mut now) == 0 && now.sa_sigaction == handler_addr()
    }
}

/// A registered range: faults inside it read zeros and are remembered.
/// Drop it (or call `finish`) only after every access to the range is over,
/// and before the range is unmapped.
pub(crate) struct Guard {
    slot: &'static Slot,
}

impl Guard {
    /// Registers `bytes`; `None` when SIGBUS is not (or no longer) ours or all
    /// slots are taken, and the caller must not map.
    pub(crate) fn new(bytes: &[u8]) -> Option<Guard> {
        if bytes.is_empty() || !ours() {
            return None;
        }
        let slot = REGISTRY.iter().find(|s| s.taken.compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed).is_ok())?;
        slot.faulted.store(false, Ordering::Relaxed);
        let range = bytes.as_ptr_range();
        write(slot, range.start as usize, range.end as usize);
        Some(Guard { slot })
    }

    /// Unregisters; true when a fault was answered with zeros, i.e. the file
    /// shrank while mapped and what was hashed is not the file.
    pub(crate) fn finish(self) -> bool {
        self.slot.faulted.load(Ordering::Acquire)
        // Drop unregisters.
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        write(self.slot, 0, 0);
        self.slot.taken.store(false, Ordering::Release);
    }
}

/// The seqlock's writer side (one writer per slot: its owner).
fn write(slot: &Slot, start: usize, end: usize) {
    let seq = slot.seq.load(Ordering::Relaxed);
    slot.seq.store(seq.wrapping_add(1), Ordering::Relaxed);
    fence(Ordering::Release);
    slot.start.store(start, Ordering::Relaxed);
    slot.end.store(end, Ordering::Relaxed);
    slot.seq.store(seq.wrapping_add(2), Ordering::Release);
}

/// The seqlock's reader side, for the handler: `None` while being written.
/// It can't retry: the writer may be the very thread the handler interrupted.
/// A slot mid-write is never the range that faulted (see the module comment).
fn read(slot: &Slot) -> Option<(usize, usize)> {
    let before = slot.seq.load(Ordering::Acquire);
    if before % 2 == 1 {
        return None;
    }
    let (start, end) = (slot.start.load(Ordering::Relaxed), slot.end.load(Ordering::Relaxed));
    fence(Ordering::Acquire);
    (slot.seq.load(Ordering::Relaxed) == before).then_some((start, end))
}

/// The handler. Async-signal-safe only: atomics, raw syscalls (mmap),
/// sigaction and raise (both on POSIX's async-signal-safe list), and the
/// previous handler, which was itself written to run as a signal handler.
extern "C" fn on_sigbus(sig: c_int, info: *mut siginfo_t, ctx: *mut c_void) {
    // SAFETY: the kernel passes a valid siginfo (SA_SIGINFO); errno is this
    // thread's and is put back so the interrupted code never sees ours.
    RUNNING.fetch_add(1, Ordering::AcqRel);
    unsafe {
        let errno = *libc::__errno_location();
        // BUS_ADRERR: a page with no file behind it, i.e. past EOF. Other
        // codes (a sent signal, a hardware memory error) are not ours.
        let handled = !info.is_null() && (*info).si_code == libc::BUS_ADRERR && zero_fill((*info).si_addr() as usize);
        if !handled {
            chain(sig, info, ctx);
        }
        *libc::__errno_location() = errno;
    }
    RUNNING.fetch_sub(1, Ordering::AcqRel);
}

/// If `addr` is in a registered range, maps zeros from its page to the end
/// of the range and marks the range faulted.
fn zero_fill(addr: usize) -> bool {
    let page = PAGE.load(Ordering::Relaxed);
    for slot in &REGISTRY {
        let Some((start, end)) = read(slot) else { continue };
        if !(start <= addr && addr < end) {
            continue;
        }
        // From the faulting page to the range's last page: all of it lies in
        // the one mapping the range belongs to (mappings are page-granular),
        // and covering the rest at once means one fault per thread, not one
        // per page, and no second fault for a load that straddles two pages.
        // Pages below `addr` stay the file's; other threads still reading
        // there either read the file or fault and come here themselves.
        let from = addr & !(page - 1);
        let to = (end + page - 1) & !(page - 1);
        // The raw syscall, not libc's mmap, which a profiler or sanitizer may
        // interpose with code that takes locks. syscall() is variadic and
        // reads every argument as a long: pass longs, so no int arrives with
        // undefined upper bits.
        // SAFETY: [from, to) is inside a mapping a live Guard covers, which
        // holds only file bytes being hashed (read-only, never handed out).
        let got = unsafe {
            libc::syscall(
                libc::SYS_mmap,
                from as c_long,
                (to - from) as c_long,
                libc::PROT_READ as c_long,
                (libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED) as c_long,
                -1 as c_long,
                0 as c_long,
            )
        };
        if got as usize != from {
            // Could not map (out of mappings, say): returning would fault
            // again forever, so let the previous action decide.
            return false;
        }
        slot.faulted.store(true, Ordering::Release);
        return true;
    }
    false
}

/// Hands a SIGBUS that is not ours to the action that was there before.
unsafe fn chain(sig: c_int, info: *mut siginfo_t, ctx: *mut c_void) {
    let prev = &*(*PREVIOUS[CURRENT.load(Ordering::Acquire)].0.get()).as_ptr();
    let handler = prev.sa_sigaction;
    if handler == libc::SIG_DFL || handler == libc::SIG_IGN {
        // si_code <= 0: sent by kill/raise/sigqueue rather than a fault.
        let sent = info.is_null() || (*info).si_code <= 0;
        if handler == libc::SIG_IGN && sent {
            return; // ignored, as it would have been; we stay installed
        }
        // Put the old action back: a fault re-executes on return and gets it
        // (the kernel kills even when it is SIG_IGN), a sent signal is sent
        // again. Either way the process dies as it would have without us.
        libc::sigaction(sig, prev, ptr::null_mut());
        if sent {
            libc::raise(sig);
        }
    } else if prev.sa_flags & libc::SA_SIGINFO != 0 {
        let f: extern "C" fn(c_int, *mut siginfo_t, *mut c_void) = std::mem::transmute(handler);
        f(sig, info, ctx);
    } else {
        let f: extern "C" fn(c_int) = std::mem::transmute(handler);
        f(sig);
    }
}

//! A SIGBUS that is not the guard's goes to the handler that was installed
//! before it. Its own test binary with a single test, so that our test
//! handler is surely installed before the guard's (which installs on first
//! mapped hash) and nothing else maps meanwhile.

use std::fs::File;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};

use blake3_kit_native::{hash_file, MMAP_MIN};
use libc::{c_int, c_void, siginfo_t};

static FAULTS: AtomicUsize = AtomicUsize::new(0);
static SENT: AtomicUsize = AtomicUsize::new(0);

/// Stands in for someone else's handler: counts, and answers a fault the
/// guard's way (a zero page) so the faulting read can finish.
extern "C" fn test_handler(_: c_int, info: *mut siginfo_t, _: *mut c_void) {
    unsafe {
        if (*info).si_code == libc::BUS_ADRERR {
            let page = libc::sysconf(libc::_SC_PAGESIZE) as usize;
            let at = (*info).si_addr() as usize & !(page - 1);
            let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED;
            libc::mmap(at as *mut c_void, page, libc::PROT_READ, flags, -1, 0);
            FAULTS.fetch_add(1, Ordering::SeqCst);
        } else {
            SENT.fetch_add(1, Ordering::SeqCst);
        }
    }
}

fn current_handler() -> libc::sighandler_t {
    unsafe {
        let mut now: libc::sigaction = std::mem::zeroed();
        assert_eq!(libc::sigaction(libc::SIGBUS, ptr::null(), &mut now), 0);
        now.sa_sigaction
    }
}

#[test]
fn foreign_sigbus_reaches_the_previous_handler() {
    type Handler = extern "C" fn(c_int, *mut siginfo_t, *mut c_void);
    let ours = test_handler as Handler as *const () as libc::sighandler_t;
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = ours;
        action.sa_flags = libc::SA_SIGINFO;
        libc::sigemptyset(&mut action.sa_mask);
        assert_eq!(libc::sigaction(libc::SIGBUS, &action, ptr::null_mut()), 0);
    }

    // A mapped hash installs the guard's handler over ours.
    let path = std::env::temp_dir().join(format!("blake3-kit-native-{}-chain", std::process::id()));
    let data = vec![7u8; 4 * MMAP_MIN as usize];
    File::create(&path).unwrap().write_all(&data).unwrap();
    hash_file(&path, 0, None, 32, true).unwrap();
    assert_ne!(current_handler(), ours, "the guard did not install its handler");

    // A fault on a mapping nobody registered: a file cut to nothing under
    // our own map. The guard must pass it on, not answer it.
    let file = File::options().read(true).write(true).open(&path).unwrap();
    let len = data.len();
    let map = unsafe { libc::mmap(ptr::null_mut(), len, libc::PROT_READ, libc::MAP_SHARED, file.as_raw_fd(), 0) };
    assert_ne!(map, libc::MAP_FAILED);
    file.set_len(0).unwrap();
    let byte = unsafe { ptr::read_volatile((map as *const u8).add(MMAP_MIN as usize)) };
    assert_eq!((byte, FAULTS.load(Ordering::SeqCst)), (0, 1), "the previous handler saw the fault");

    // A SIGBUS sent rather than faulted (si_code <= 0) is passed on too.
    unsafe { libc::raise(libc::SIGBUS) };
    assert_eq!(SENT.load(Ordering::SeqCst), 1, "the previous handler saw the sent signal");

    unsafe { libc::munmap(map, len) };
    let _ = std::fs::remove_file(&path);
}

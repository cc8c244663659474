//! Bad arguments are errors that name the argument, never panics.

use blake3_kit_native::{context_key, hash_file, hash_into, new_hasher, set_threads, threads, ArgKind, Error, Pool, MAX_THREADS};

#[test]
fn bad_mode() {
    for mode in [3, 4, u32::MAX] {
        let e = new_hasher(mode, None).unwrap_err();
        assert_eq!((e.arg, e.kind), ("mode", ArgKind::Range), "{e}");
        assert!(hash_into(mode, None, b"x", &mut [0; 32]).is_err());
    }
}

#[test]
fn bad_keys() {
    let key = [7u8; 32];
    // Hash mode takes no key.
    let e = new_hasher(0, Some(&key)).unwrap_err();
    assert_eq!((e.arg, e.kind), ("key", ArgKind::Type), "{e}");
    for mode in [1, 2] {
        let e = new_hasher(mode, None).unwrap_err();
        assert_eq!((e.arg, e.kind), ("key", ArgKind::Type), "{e}");
        for len in [0, 1, 31, 33, 64] {
            let e = new_hasher(mode, Some(&vec![0; len])).unwrap_err();
            assert_eq!((e.arg, e.kind), ("key", ArgKind::Range), "{e}");
            assert!(e.message.contains(&len.to_string()), "{e}");
        }
        assert!(new_hasher(mode, Some(&key)).is_ok());
    }
    // A context key is just 32 bytes in, 32 out.
    assert_eq!(context_key("").len(), 32);
}

#[test]
fn bad_thread_counts() {
    let e = Pool::new(MAX_THREADS + 1).err().unwrap();
    assert_eq!((e.arg, e.kind), ("n", ArgKind::Range), "{e}");
    assert!(set_threads(usize::MAX).is_err());
    assert_eq!(Pool::new(1).unwrap().threads(), 1);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert_eq!(Pool::new(0).unwrap().threads(), cores);
    // The process-wide pool is replaceable. Other tests may run meanwhile:
    // they only see a different (equally correct) pool.
    set_threads(3).unwrap();
    assert_eq!(threads(), 3);
    set_threads(0).unwrap();
    assert_eq!(threads(), cores);
}

#[test]
fn hash_file_argument_errors_come_before_io() {
    let missing = std::path::Path::new("/nonexistent/blake3-kit");
    assert!(matches!(hash_file(missing, 9, None, 32, true), Err(Error::Arg(_))));
    assert!(matches!(hash_file(missing, 1, None, 32, true), Err(Error::Arg(_))));
    // Output too large to allocate: an error, not an abort.
    match hash_file(missing, 0, None, usize::MAX, true) {
        Err(Error::Arg(e)) => assert_eq!(e.arg, "outLength"),
        other => panic!("{other:?}"),
    }
}

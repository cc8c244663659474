//! Fuzzes the wasm ABI natively: random sequences of every export with
//! random arguments, valid and not (bad, freed and huge slot indices, lengths
//! past the staging buffer, unaligned and huge offsets, positions near
//! 2^64), against a model built on the official crate. Each call must return
//! exactly the code the model predicts, every output must be the official
//! one, and nothing may panic.
//!
//! By default a fixed seed and a fixed number of calls (a few seconds). Long
//! mode: `BLAKE3_KIT_FUZZ_SECONDS=600 cargo test -p blake3-kit-wasm --test
//! fuzz` runs rounds with fresh seeds until that many seconds have passed;
//! a failure prints its seed, and `BLAKE3_KIT_FUZZ_SEED=<seed>` replays it.

use blake3::hazmat::{self, HasherExt, Mode};
use blake3_kit_wasm::memory::{self, staged, STAGING_LEN};
use blake3_kit_wasm::*;
use std::collections::HashMap;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const DEFAULT_SEED: u64 = 0x6a09_e667_f3bc_c908;
const DEFAULT_CALLS: usize = 40_000;
/// Live hashers are capped so that the model's official hashers stay few.
const MAX_LIVE: usize = 48;
const CHUNK_LEN: u64 = 1024;

/// xorshift64*: deterministic, so a seed replays a failure.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// A length: mostly small or near the edges that matter, sometimes any u32.
    fn length(&mut self) -> u32 {
        let staging = STAGING_LEN as u32;
        match self.below(10) {
            0 => self.next() as u32,
            1 => staging - 2 + self.below(5) as u32,
            2 => u32::MAX - self.below(3) as u32,
            3 | 4 => self.below(65) as u32,
            5 => (self.below(64) as u32 + 1) * 1024 - 1 + self.below(3) as u32,
            _ => self.below(u64::from(staging) + 1) as u32,
        }
    }

    /// A 64-bit position or offset: small, chunk-aligned, huge or any.
    fn wide(&mut self) -> u64 {
        match self.below(6) {
            0 => self.next(),
            1 => u64::MAX - self.below(300),
            2 => self.below(1 << 20) * CHUNK_LEN,
            3 => (self.below(1 << 20) + 1) << (10 + self.below(53)),
            4 => self.below(5000),
            _ => self.next() >> self.below(64),
        }
    }
}

/// What the model knows of one live slot.
#[derive(Clone)]
struct Model {
    official: blake3::Hasher,
    /// The hasher as `hasher_new` made it, for `hasher_reset`.
    fresh: blake3::Hasher,
    count: u64,
    /// Set by `hasher_set_input_offset`: at most this many bytes.
    subtree_max: Option<u64>,
    /// The input offset (0 unless set).
    offset: u64,
}

impl Model {
    /// Input it can still take: BLAKE3's input ends at 2^64 - 1 bytes.
    fn room(&self) -> u64 {
        u64::MAX - self.offset - self.count
    }
}

struct Fuzz {
    rng: Rng,
    /// Random bytes that calls stage slices of.
    source: Vec<u8>,
    live: HashMap<u32, Model>,
    freed: Vec<u32>,
    /// The key area as the model knows it.
    key: [u8; 32],
    /// Calls per export and result kind, printed with `--nocapture`.
    outcomes: HashMap<(&'static str, i32), u64>,
}

fn split(value: u64) -> (u32, u32) {
    (value as u32, (value >> 32) as u32)
}

fn official_xof(reader: &mut blake3::OutputReader, position: u64, len: usize) -> Vec<u8> {
    reader.set_position(position);
    let mut out = vec![0; len];
    reader.fill(&mut out);
    out
}

fn read_staged(len: usize) -> Vec<u8> {
    staged(len as u32).expect("length checked by the caller").to_vec()
}

impl Fuzz {
    fn new(seed: u64) -> Self {
        let mut rng = Rng(seed | 1);
        let source = (0..STAGING_LEN + 4096).map(|_| rng.next() as u8).collect();
        Fuzz { rng, source, live: HashMap::new(), freed: Vec::new(), key: memory::key(), outcomes: HashMap::new() }
    }

    /// Stages `len` random bytes (as many as fit) and returns them.
    fn stage(&mut self, len: u32) -> Vec<u8> {
        let len = (len as usize).min(STAGING_LEN);
        let start = self.rng.below(4096) as usize;
        let bytes = self.source[start..start + len].to_vec();
        staged(len as u32).expect("fits").copy_from_slice(&bytes);
        bytes
    }

    /// A slot index: mostly live, else freed, near the live ones or any.
    fn slot(&mut self) -> u32 {
        match self.rng.below(10) {
            0..=5 if !self.live.is_empty() => {
                let keys: Vec<u32> = self.live.keys().copied().collect();
                keys[self.rng.below(keys.len() as u64) as usize]
            }
            6 | 7 if !self.freed.is_empty() => self.freed[self.rng.below(self.freed.len() as u64) as usize],
            8 => self.rng.below(4096) as u32,
            _ => self.rng.next() as u32,
        }
    }

    /// A mode: mostly valid.
    fn mode(&mut self) -> u32 {
        if self.rng.chance(90) {
            self.rng.below(3) as u32
        } else {
            3 + self.rng.below(u64::from(u32::MAX - 3)) as u32
        }
    }

    /// The official hasher and hazmat mode for `mode` with the current key area.
    fn official(&self, mode: u32) -> Option<blake3::Hasher> {
        match mode {
            MODE_HASH => Some(blake3::Hasher::new()),
            MODE_KEYED => Some(blake3::Hasher::new_keyed(&self.key)),
            MODE_DERIVE_KEY => Some(blake3::Hasher::new_from_context_key(&self.key)),
            _ => None,
        }
    }

    fn hazmat_mode(&self, mode: u32) -> Option<Mode<'_>> {
        match mode {
            MODE_HASH => Some(Mode::Hash),
            MODE_KEYED => Some(Mode::KeyedHash(&self.key)),
            MODE_DERIVE_KEY => Some(Mode::DeriveKeyMaterial(&self.key)),
            _ => None,
        }
    }

    /// Tallies a result: error codes by value, successes as 0.
    fn note(&mut self, export: &'static str, code: i32) {
        *self.outcomes.entry((export, code.min(0))).or_default() += 1;
    }

    fn report(&self) {
        let mut outcomes: Vec<_> = self.outcomes.iter().collect();
        outcomes.sort();
        for ((export, code), calls) in outcomes {
            eprintln!("fuzz: {export} {} x{calls}", if *code == 0 { "ok".to_string() } else { code.to_string() });
        }
    }

    fn is_slot(&self, code: i32) -> bool {
        code >= 0 && !self.live.contains_key(&(code as u32))
    }

    fn step(&mut self) {
        let choice = self.rng.below(18);
        match choice {
            0 => self.set_key(),
            1 => self.derive_context_key(),
            2 => self.hash_oneshot(),
            3 | 4 => self.hasher_new(),
            5..=7 => self.hasher_update(),
            8 => self.hasher_finalize(),
            9 => self.hasher_reset(),
            10 => self.hasher_clone(),
            11 => self.hasher_free(),
            12 => self.hasher_set_input_offset(),
            13 => self.hasher_finalize_non_root(),
            14 => self.chunk_cvs(),
            15 => self.parent_cvs(),
            16 => self.subtree_parents(),
            _ => self.merge(),
        }
        assert_eq!(slots_in_use() as usize, self.live.len(), "after call kind {choice}");
    }

    fn set_key(&mut self) {
        let key: [u8; 32] = std::array::from_fn(|_| self.rng.next() as u8);
        memory::set_key(&key);
        self.key = key;
    }

    fn derive_context_key(&mut self) {
        let len = if self.rng.chance(80) { self.rng.below(200) as u32 } else { self.rng.length() };
        let mut context = self.stage(len);
        if self.rng.chance(70) {
            // Mostly valid UTF-8: ASCII letters.
            for byte in &mut context {
                *byte = b'a' + *byte % 26;
            }
            staged(context.len() as u32).expect("fits").copy_from_slice(&context);
        }
        let code = derive_context_key(len);
        self.note("derive_context_key", code);
        if len as usize > STAGING_LEN {
            return assert_eq!(code, E_LENGTH);
        }
        match std::str::from_utf8(&context) {
            Err(_) => assert_eq!(code, E_UTF8),
            Ok(text) => {
                assert_eq!(code, OK);
                self.key = hazmat::hash_derive_key_context(text);
                assert_eq!(memory::key(), self.key);
            }
        }
    }

    fn hash_oneshot(&mut self) {
        let (mode, input_len, out_len) = (self.mode(), self.rng.length(), self.rng.length());
        let input = self.stage(input_len);
        let code = hash_oneshot(mode, input_len, out_len);
        self.note("hash_oneshot", code);
        let Some(mut official) = self.official(mode) else { return assert_eq!(code, E_MODE) };
        if input_len as usize > STAGING_LEN || out_len as usize > STAGING_LEN {
            return assert_eq!(code, E_LENGTH);
        }
        assert_eq!(code, OK);
        official.update(&input);
        let expected = official_xof(&mut official.finalize_xof(), 0, out_len as usize);
        assert!(read_staged(out_len as usize) == expected, "hash_oneshot mode {mode}, {input_len} bytes");
    }

    fn hasher_new(&mut self) {
        if self.live.len() >= MAX_LIVE {
            return self.hasher_free();
        }
        let mode = self.mode();
        let code = hasher_new(mode);
        self.note("hasher_new", code);
        let Some(official) = self.official(mode) else { return assert_eq!(code, E_MODE) };
        assert!(self.is_slot(code), "hasher_new gave {code}");
        self.freed.retain(|&slot| slot != code as u32);
        self.live.insert(code as u32, Model { fresh: official.clone(), official, count: 0, subtree_max: None, offset: 0 });
    }

    fn hasher_update(&mut self) {
        if self.rng.chance(1) {
            return self.feed();
        }
        let (slot, len) = (self.slot(), self.rng.length());
        let input = self.stage(len);
        let code = hasher_update(slot, len);
        self.note("hasher_update", code);
        let Some(model) = self.live.get_mut(&slot) else { return assert_eq!(code, E_SLOT) };
        if len as usize > STAGING_LEN {
            return assert_eq!(code, E_LENGTH);
        }
        if model.subtree_max.is_some_and(|max| model.count.saturating_add(u64::from(len)) > max) {
            return assert_eq!(code, E_STATE);
        }
        if u64::from(len) > model.room() {
            return assert_eq!(code, E_INPUT_LIMIT);
        }
        assert!(code == OK || code == OK_MEMORY_GREW, "hasher_update gave {code}");
        model.official.update(&input);
        model.count += u64::from(len);
        let room = model.room();
        assert_eq!(hasher_room(slot), OK);
        assert_eq!(u64::from_le_bytes(read_staged(8).try_into().unwrap()), room, "hasher_room");
    }

    /// Megabytes into one live hasher: past 2047 chunks its stack outgrows
    /// its slot's head and spills into a tail.
    fn feed(&mut self) {
        let Some(&slot) = self.live.keys().next() else { return };
        for _ in 0..32 + self.rng.below(32) {
            let len = STAGING_LEN as u32 - self.rng.below(2) as u32;
            let input = self.stage(len);
            let code = hasher_update(slot, len);
            self.note("hasher_update (feed)", code);
            let model = self.live.get_mut(&slot).expect("live");
            if model.subtree_max.is_some_and(|max| model.count.saturating_add(u64::from(len)) > max) {
                return assert_eq!(code, E_STATE);
            }
            if u64::from(len) > model.room() {
                return assert_eq!(code, E_INPUT_LIMIT);
            }
            assert!(code == OK || code == OK_MEMORY_GREW, "hasher_update gave {code}");
            model.official.update(&input);
            model.count += u64::from(len);
        }
    }

    fn hasher_finalize(&mut self) {
        let (slot, out_len, position) = (self.slot(), self.rng.length(), self.rng.wide());
        let (lo, hi) = split(position / 64);
        let code = hasher_finalize(slot, out_len, lo, hi, (position % 64) as u32);
        self.note("hasher_finalize", code);
        let Some(model) = self.live.get(&slot) else { return assert_eq!(code, E_SLOT) };
        if model.subtree_max.is_some() {
            return assert_eq!(code, E_STATE);
        }
        if out_len as usize > STAGING_LEN {
            return assert_eq!(code, E_LENGTH);
        }
        assert_eq!(code, OK);
        let expected = official_xof(&mut model.official.finalize_xof(), position, out_len as usize);
        assert!(read_staged(out_len as usize) == expected, "hasher_finalize at {position}, {out_len} bytes");
    }

    fn hasher_reset(&mut self) {
        let slot = self.slot();
        let code = hasher_reset(slot);
        self.note("hasher_reset", code);
        let Some(model) = self.live.get_mut(&slot) else { return assert_eq!(code, E_SLOT) };
        assert_eq!(code, OK);
        model.official = model.fresh.clone();
        model.count = 0;
        model.subtree_max = None;
        model.offset = 0;
    }

    fn hasher_clone(&mut self) {
        if self.live.len() >= MAX_LIVE {
            return self.hasher_free();
        }
        let slot = self.slot();
        let code = hasher_clone(slot);
        self.note("hasher_clone", code);
        let Some(model) = self.live.get(&slot).cloned() else { return assert_eq!(code, E_SLOT) };
        assert!(self.is_slot(code), "hasher_clone gave {code}");
        self.freed.retain(|&freed| freed != code as u32);
        self.live.insert(code as u32, model);
    }

    fn hasher_free(&mut self) {
        let slot = self.slot();
        let code = hasher_free(slot);
        self.note("hasher_free", code);
        if self.live.remove(&slot).is_none() {
            return assert_eq!(code, E_SLOT);
        }
        assert_eq!(code, OK);
        self.freed.push(slot);
        if self.freed.len() > 64 {
            self.freed.remove(0);
        }
    }

    fn hasher_set_input_offset(&mut self) {
        let slot = self.slot();
        // Sometimes a subtree at the input's end, where the 2^64 - 1 byte
        // limit comes before the subtree's own size.
        let offset = if self.rng.chance(10) { ((1u64 << 54) - (1 << self.rng.below(8))) * CHUNK_LEN } else { self.rng.wide() };
        let (lo, hi) = split(offset);
        let code = hasher_set_input_offset(slot, lo, hi);
        self.note("hasher_set_input_offset", code);
        let Some(model) = self.live.get_mut(&slot) else { return assert_eq!(code, E_SLOT) };
        if offset % CHUNK_LEN != 0 {
            return assert_eq!(code, E_ALIGN);
        }
        if model.count != 0 || model.subtree_max.is_some() {
            return assert_eq!(code, E_STATE);
        }
        assert_eq!(code, OK);
        model.official.set_input_offset(offset);
        model.subtree_max = Some(hazmat::max_subtree_len(offset).unwrap_or(u64::MAX));
        model.offset = offset;
    }

    fn hasher_finalize_non_root(&mut self) {
        let slot = self.slot();
        let code = hasher_finalize_non_root(slot);
        self.note("hasher_finalize_non_root", code);
        let Some(model) = self.live.get(&slot) else { return assert_eq!(code, E_SLOT) };
        if model.count == 0 {
            return assert_eq!(code, E_STATE);
        }
        assert_eq!(code, OK);
        assert!(read_staged(32) == model.official.finalize_non_root(), "finalize_non_root after {} bytes", model.count);
    }

    fn merge(&mut self) {
        let mode = self.mode();
        let cvs = self.stage(64);
        let (left, right): ([u8; 32], [u8; 32]) = (cvs[..32].try_into().unwrap(), cvs[32..].try_into().unwrap());
        if self.rng.chance(50) {
            let code = merge_non_root(mode);
            self.note("merge_non_root", code);
            let Some(hazmat_mode) = self.hazmat_mode(mode) else { return assert_eq!(code, E_MODE) };
            assert_eq!(code, OK);
            assert!(read_staged(32) == hazmat::merge_subtrees_non_root(&left, &right, hazmat_mode));
            return;
        }
        let (out_len, position) = (self.rng.length(), self.rng.wide());
        let (lo, hi) = split(position);
        let code = merge_root(mode, out_len, lo, hi);
        self.note("merge_root", code);
        let Some(hazmat_mode) = self.hazmat_mode(mode) else { return assert_eq!(code, E_MODE) };
        if out_len as usize > STAGING_LEN {
            return assert_eq!(code, E_LENGTH);
        }
        assert_eq!(code, OK);
        let mut reader = hazmat::merge_subtrees_root_xof(&left, &right, hazmat_mode);
        assert!(read_staged(out_len as usize) == official_xof(&mut reader, position, out_len as usize));
    }

    fn chunk_cvs(&mut self) {
        let (mode, len) = (self.mode(), self.rng.length());
        let counter =
            if self.rng.chance(70) { self.rng.below(1 << 30) } else { self.rng.wide() / if self.rng.chance(50) { 1024 } else { 1 } };
        let input = self.stage(len);
        let (lo, hi) = split(counter);
        let code = chunk_cvs(mode, len, lo, hi);
        self.note("chunk_cvs", code);
        let Some(fresh) = self.official(mode) else { return assert_eq!(code, E_MODE) };
        if len == 0 || len as usize > STAGING_LEN {
            return assert_eq!(code, E_LENGTH);
        }
        if counter.checked_mul(CHUNK_LEN).and_then(|offset| offset.checked_add(u64::from(len))).is_none() {
            return assert_eq!(code, E_POSITION);
        }
        let count = input.len().div_ceil(CHUNK_LEN as usize);
        assert_eq!(code, count as i32);
        let found = read_staged(32 * count);
        for (i, chunk) in input.chunks(CHUNK_LEN as usize).enumerate() {
            let mut official = fresh.clone();
            official.set_input_offset((counter + i as u64) * CHUNK_LEN);
            official.update(chunk);
            assert!(found[32 * i..32 * i + 32] == official.finalize_non_root(), "chunk {i} of {count} at counter {counter}");
        }
    }

    fn subtree_parents(&mut self) {
        let mode = self.mode();
        let len = if self.rng.chance(70) { (1 << self.rng.below(7)) * 1024 - self.rng.below(1024) as u32 } else { self.rng.length() };
        let chunks = u64::from(len).div_ceil(CHUNK_LEN).max(1);
        let counter = match self.rng.below(3) {
            0 => chunks * self.rng.below(1 << 20),
            1 => self.rng.below(1 << 30),
            _ => self.rng.wide() / CHUNK_LEN,
        };
        let chunk_log = if self.rng.chance(80) { self.rng.below(8) as u32 } else { self.rng.next() as u32 };
        let input = self.stage(len);
        let (lo, hi) = split(counter);
        let code = subtree_parents(mode, len, lo, hi, chunk_log);
        self.note("subtree_parents", code);
        let Some(mut official) = self.official(mode) else { return assert_eq!(code, E_MODE) };
        if len == 0 || len as usize > STAGING_LEN || !chunks.is_power_of_two() {
            return assert_eq!(code, E_LENGTH);
        }
        if !counter.is_multiple_of(chunks) {
            return assert_eq!(code, E_ALIGN);
        }
        if counter.checked_mul(CHUNK_LEN).and_then(|offset| offset.checked_add(u64::from(len))).is_none() {
            return assert_eq!(code, E_POSITION);
        }
        let height = chunks.trailing_zeros();
        assert_eq!(code, (1 << (height - chunk_log.min(height))) - 1, "{chunks} chunks, chunk_log {chunk_log}");
        official.set_input_offset(counter * CHUNK_LEN);
        official.update(&input);
        assert!(read_staged(32) == official.finalize_non_root(), "{chunks} chunks at counter {counter}");
    }

    fn parent_cvs(&mut self) {
        let mode = self.mode();
        let pairs = match self.rng.below(4) {
            0 => self.rng.next() as u32,
            1 => (STAGING_LEN / 64) as u32 - 1 + self.rng.below(3) as u32,
            _ => self.rng.below(200) as u32,
        };
        let records = self.stage(pairs.saturating_mul(64));
        let code = parent_cvs(mode, pairs);
        self.note("parent_cvs", code);
        let Some(hazmat_mode) = self.hazmat_mode(mode) else { return assert_eq!(code, E_MODE) };
        if pairs as usize > STAGING_LEN / 64 {
            return assert_eq!(code, E_LENGTH);
        }
        assert_eq!(code, pairs as i32);
        let found = read_staged(32 * pairs as usize);
        for (i, record) in records.chunks(64).enumerate() {
            let (left, right): ([u8; 32], [u8; 32]) = (record[..32].try_into().unwrap(), record[32..].try_into().unwrap());
            assert!(found[32 * i..32 * i + 32] == hazmat::merge_subtrees_non_root(&left, &right, hazmat_mode), "pair {i} of {pairs}");
        }
    }

    /// Frees every live hasher, so the next round starts empty.
    fn finish(&mut self) {
        for slot in self.live.keys() {
            assert_eq!(hasher_free(*slot), OK);
        }
        self.live.clear();
        assert_eq!(slots_in_use(), 0);
    }
}

fn env_number(name: &str) -> Option<u64> {
    let value = std::env::var(name).ok()?;
    Some(value.parse().unwrap_or_else(|_| panic!("{name}={value} is not a number")))
}

/// The one test in this binary: the exports share static memory.
#[test]
fn random_calls_match_the_model_and_never_panic() {
    let replay = env_number("BLAKE3_KIT_FUZZ_SEED");
    let Some(seconds) = env_number("BLAKE3_KIT_FUZZ_SECONDS") else {
        let mut fuzz = Fuzz::new(replay.unwrap_or(DEFAULT_SEED));
        for _ in 0..DEFAULT_CALLS {
            fuzz.step();
        }
        fuzz.report();
        return fuzz.finish();
    };
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |since| since.as_nanos() as u64);
    let mut seed = replay.unwrap_or(now ^ DEFAULT_SEED);
    let mut calls = 0u64;
    while Instant::now() < deadline {
        eprintln!("fuzz: round with BLAKE3_KIT_FUZZ_SEED={seed}");
        let mut fuzz = Fuzz::new(seed);
        for _ in 0..DEFAULT_CALLS {
            fuzz.step();
        }
        fuzz.finish();
        calls += DEFAULT_CALLS as u64;
        seed = fuzz.rng.next();
    }
    eprintln!("fuzz: {calls} calls in {seconds} s");
}

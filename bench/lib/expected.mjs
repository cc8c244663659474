// The digest every row must reproduce before it is timed. BLAKE3 values come
// from the official crate (the reference build) and are cross-checked against
// @noble/hashes, an independent implementation: if those two disagree the
// run stops. The context rows are checked against a second implementation of
// their own algorithm (noble's sha256/blake2b, hash-wasm's xxhash64).
import { createXXHash64 } from 'hash-wasm';
import { blake3 as nobleBlake3 } from '@noble/hashes/blake3.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { blake2b } from '@noble/hashes/blake2.js';
import { MODES } from './config.mjs';
import { expectationKey, fingerprint, KEY, makeInput, XOF_INPUT_SIZE } from './data.mjs';
import { LOADERS } from './loaders-node.mjs';

export async function computeExpected(impls, cells) {
  const algos = new Set(impls.map((i) => i.algo));
  const kinds = Object.fromEntries(MODES.map((m) => [m.id, m.kind]));
  const wanted = new Map(); // key -> [algo, kind, size]
  for (const impl of impls) {
    for (const cell of cells) {
      const kind = kinds[cell.mode];
      if (impl.algo !== 'blake3' && (kind === 'keyed' || kind === 'xof')) continue;
      const key = expectationKey(impl.algo, kind, cell.size);
      wanted.set(key, [impl.algo, kind === 'stream' ? 'oneshot' : kind, cell.size]);
    }
  }

  const ref = algos.has('blake3') ? await LOADERS['reference simd']() : undefined;
  if (ref) await ref.glue.default({ module_or_path: ref.source });
  const xxh = algos.has('xxh64') ? await createXXHash64() : undefined;

  const expected = {};
  for (const [key, [algo, kind, size]] of wanted) {
    let mine, second;
    if (algo === 'blake3') {
      if (kind === 'xof') {
        const input = makeInput(XOF_INPUT_SIZE);
        mine = ref.glue.xof(input, size);
        second = nobleBlake3(input, { dkLen: size });
      } else {
        const input = makeInput(size);
        mine = kind === 'keyed' ? ref.glue.keyed_hash(KEY, input) : ref.glue.hash(input);
        second = kind === 'keyed' ? nobleBlake3(input, { key: KEY }) : nobleBlake3(input);
      }
    } else {
      const input = makeInput(size);
      if (algo === 'sha256') mine = second = sha256(input);
      else if (algo === 'blake2b512') mine = second = blake2b(input);
      else if (algo === 'xxh64') mine = second = xxh.init().update(input).digest('hex');
      else throw new Error(`no oracle for ${algo}`);
    }
    const fp = fingerprint(mine);
    if (fp !== fingerprint(second)) {
      throw new Error(`oracles disagree for ${key}: official crate ${fp}, @noble/hashes ${fingerprint(second)}`);
    }
    expected[key] = fp;
  }
  return expected;
}

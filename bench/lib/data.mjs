// Inputs and digest fingerprints, the same in Node, in the browser and in the
// parent that computes the expected values.

/** The official test-vector input pattern: byte i is i % 251. Filled by
 * doubling copies after the first 251 × 4096 bytes, since a byte loop over
 * 256 MiB takes seconds. `shared`: in a SharedArrayBuffer. */
export function makeInput(size, shared = false) {
  const out = new Uint8Array(shared ? new SharedArrayBuffer(size) : new ArrayBuffer(size));
  const period = 251 * 4096;
  for (let i = 0; i < Math.min(size, period); i++) out[i] = i % 251;
  for (let done = period; done < size; done *= 2) out.copyWithin(done, 0, Math.min(done, size - done));
  return out;
}

/** The key of the official test vectors. */
export const KEY = new TextEncoder().encode('whats the Elvish word for friend');

export const XOF_INPUT_SIZE = 32;

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
export function toHex(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += HEX[bytes[i]];
  return s;
}

/** A short, comparable summary of an output: the hex itself up to 64 bytes;
 * for longer (XOF) outputs the length, both ends and an FNV-1a checksum of
 * every byte. Outputs may be hex strings already (xxhash rows). */
export function fingerprint(out) {
  if (typeof out === 'string') return out.toLowerCase();
  if (typeof out === 'bigint') return out.toString(16).padStart(16, '0');
  const bytes = out instanceof Uint8Array ? out : new Uint8Array(out.buffer ?? out, out.byteOffset ?? 0, out.byteLength);
  if (bytes.length <= 64) return toHex(bytes);
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return `${bytes.length}B:${toHex(bytes.subarray(0, 16))}..${toHex(bytes.subarray(-16))}:fnv=${(h >>> 0).toString(16)}`;
}

/** Which expected value a cell compares against: streaming must give the
 * one-shot digest of the same input. */
export function expectationKey(algo, modeKind, size) {
  const kind = modeKind === 'stream' ? 'oneshot' : modeKind;
  return `${algo}|${kind}|${size}`;
}

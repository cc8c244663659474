// Bench input of any size (byte i = i % 251), filled by doubling copies
// because a byte loop over 256 MiB takes seconds. Shared by node.mjs and
// page.html.
export function filled(length, shared) {
  const bytes = new Uint8Array(shared ? new SharedArrayBuffer(length) : new ArrayBuffer(length));
  for (let i = 0; i < Math.min(length, 251 * 4096); i++) bytes[i] = i % 251;
  for (let done = 251 * 4096; done < length; done *= 2) bytes.copyWithin(done, 0, Math.min(done, length - done));
  return bytes;
}

// Compares digests in time that depends only on their length: a MAC check
// must not tell an attacker how many leading bytes were right.

/** Whether `a` and `b` hold the same bytes; false if the lengths differ. */
export function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

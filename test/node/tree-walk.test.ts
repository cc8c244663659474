// src/tree/walk.ts against the recursion it replaced, written out here:
// the BLAKE3 split (a left subtree of the largest power of two of chunks
// below the length), parents before children, then the exits, pruning by
// chunk ranges, the parents-only listing, and the parents' places in pre-
// and post-order (src/tree/tree.ts's ParentStore reads nodes by them).
import { describe, expect, it } from 'vitest';
import { BlockSize, CHUNK_LEN, leftSubtreeLength } from '../../src/tree/geometry.js';
import { boundariesOf, isAll, splitInner, truncate } from '../../src/tree/ranges.js';
import { ParentStore, Tree } from '../../src/tree/tree.js';
import { NodeWalk, parentsInPreOrder } from '../../src/tree/walk.js';
import { random, seed } from '../shared/setup.js';

type Visit = [kind: 'leaf' | 'parent' | 'exit', offset: number, size: number, depth: number, isRight: boolean];

/** The pre-order the walk must give, by plain recursion. */
function reference(length: number, block: number, exits: boolean): Visit[] {
  const out: Visit[] = [];
  const visit = (offset: number, size: number, depth: number, isRight: boolean): void => {
    if (size <= block) {
      out.push(['leaf', offset, size, depth, isRight]);
      return;
    }
    out.push(['parent', offset, size, depth, isRight]);
    let left = CHUNK_LEN;
    while (left * 2 < size) left *= 2;
    visit(offset, left, depth + 1, false);
    visit(offset + left, size - left, depth + 1, true);
    if (exits) out.push(['exit', offset, size, depth, isRight]);
  };
  visit(0, length, 0, false);
  return out;
}

function walked(walk: NodeWalk): Visit[] {
  const out: Visit[] = [];
  while (walk.next()) out.push([walk.exit ? 'exit' : walk.isLeaf ? 'leaf' : 'parent', walk.offset, walk.size, walk.depth, walk.isRight]);
  return out;
}

const rng = random(seed);
const lengths = [
  0,
  1,
  1023,
  1024,
  1025,
  2048,
  2049,
  3 * 1024,
  5 * 1024 + 7,
  64 * 1024,
  64 * 1024 + 1,
  100_000,
  ...Array.from({ length: 20 }, () => rng.int(600_000)),
];

describe(`the tree walk (seed ${seed})`, () => {
  it('visits what the recursion visits, in its order, with and without exits, at chunkLog 0 to 6', () => {
    for (const length of lengths) {
      for (let chunkLog = 0; chunkLog <= 6; chunkLog++) {
        const block = BlockSize.of(chunkLog);
        for (const exits of [false, true]) {
          expect(walked(new NodeWalk(block, { exits }).start(length)), `${length} at ${chunkLog}`).toEqual(reference(length, block.bytes, exits));
        }
        const parents = reference(length, block.bytes, false).filter(([kind]) => kind === 'parent');
        expect(walked(new NodeWalk(block, { parentsOnly: true }).start(length))).toEqual(parents);
        const offsets = new Float64Array(parents.length);
        const sizes = new Float64Array(parents.length);
        expect(parentsInPreOrder(block, length, offsets, sizes)).toBe(parents.length);
        expect([...offsets]).toEqual(parents.map((p) => p[1]));
        expect([...sizes]).toEqual(parents.map((p) => p[2]));
        expect(block.parentsLength(length)).toBe(parents.length * 64);
        const tree = Tree.of(length, block);
        expect([tree.leaves, tree.parents, tree.parentsLength]).toEqual([parents.length + 1, parents.length, parents.length * 64]);
        // Each node's place: a parent's index in either order, a leaf's
        // count of the parents before it in pre-order.
        const all = reference(length, block.bytes, true);
        const exits = all.filter(([kind]) => kind === 'exit');
        const walk = tree.walk({ exits: true });
        let seenParents = 0;
        for (const [kind, offset, size] of all) {
          expect(walk.next()).toBe(true);
          if (kind === 'exit') expect(walk.postIndex, `exit at ${offset}`).toBe(exits.findIndex((e) => e[1] === offset && e[2] === size));
          else expect(walk.preIndex, `${kind} at ${offset}`).toBe(kind === 'parent' ? seenParents++ : seenParents);
        }
        // A store in each order finds each parent's node where a
        // sequential writer in that order put it.
        for (const [order, sequence] of [
          ['pre', parents],
          ['post', exits],
        ] as const) {
          const bytes = new Uint8Array(tree.parentsLength);
          for (const [i, [, offset, size]] of sequence.entries()) bytes.set(new Uint8Array(new Float64Array([offset, size]).buffer), i * 64 + 8);
          const store = new ParentStore(tree, bytes, order);
          const stored = tree.walk({ parentsOnly: true });
          while (stored.next()) {
            const node = new Float64Array(store.at(stored).slice(8, 24).buffer);
            expect([node[0], node[1]]).toEqual([stored.offset, stored.size]);
          }
          if (tree.parents > 0) expect(new Float64Array(store.root().slice(8, 24).buffer)[1]).toBe(length);
        }
      }
    }
  });

  it('skips the subtrees of a parent it is told to skip', () => {
    const length = 37 * 1024 + 5;
    const walk = new NodeWalk(BlockSize.of(0)).start(length);
    const seen: number[] = [];
    while (walk.next()) {
      seen.push(walk.offset);
      if (!walk.isLeaf && walk.offset === 0 && walk.size === 32 * 1024) walk.skip();
    }
    // The root, its left child (skipped), then the right subtree from 32 KiB on.
    expect(seen.slice(0, 3)).toEqual([0, 0, 32 * 1024]);
    expect(seen.every((offset, i) => i < 2 || offset >= 32 * 1024)).toBe(true);
  });

  it('splits a query as bao-tree does: pruned where it misses, opened where it covers a group in part', () => {
    for (let trial = 0; trial < 60; trial++) {
      const length = rng.int(300_000);
      const chunkLog = rng.int(5);
      const block = BlockSize.of(chunkLog).bytes;
      const ranges = Array.from({ length: 1 + rng.int(3) }, () => {
        const start = rng.int(Math.ceil(length / 1024) + 3);
        return [start, rng.int(4) === 0 ? Number.POSITIVE_INFINITY : start + 1 + rng.int(40)] as [number, number];
      });
      const query = truncate(boundariesOf(ranges), length);
      const expected: [number, number, boolean, boolean][] = [];
      // The recursion range-walk.ts had before the walk.
      const visit = (start: number, size: number, q: readonly number[]): void => {
        const leaf = q.length === 0 || size <= CHUNK_LEN || (isAll(q) && size <= block);
        expected.push([start * CHUNK_LEN, size, q.length > 0, leaf]);
        if (leaf) return;
        const left = leftSubtreeLength(size);
        const [l, r] = splitInner(q, start, start + left / CHUNK_LEN);
        visit(start, left, l);
        visit(start + left / CHUNK_LEN, size - left, r);
      };
      visit(0, length, query);
      const walk = new NodeWalk(BlockSize.of(chunkLog), { openPartial: true }).start(length, query);
      const got: [number, number, boolean, boolean][] = [];
      while (walk.next()) got.push([walk.offset, walk.size, walk.wanted, walk.isLeaf]);
      expect(got, `${length} bytes, chunkLog ${chunkLog}, ${JSON.stringify(ranges)}`).toEqual(expected);
    }
  });
});

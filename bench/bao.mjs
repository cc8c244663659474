// Bao against plain hashing, as ratios within one run (issue #12's targets:
// outboard encode >= 0.9x hash(), streaming verified decode >= 0.8x).
//
//   node bench/bao.mjs [--backend wasm-simd|native|auto] [--sizes 1,64] (MiB)
//
// tinybench, medians of each task's samples; one process per backend. The
// npm peer blake3-bao is not in the registry this machine reaches, so it has
// no row.
import { parseArgs } from 'node:util';
import { Bench } from 'tinybench';
import { repoDir } from './lib/build.mjs';
import { fmtRatio, MiB, mdTable } from './lib/format.mjs';
import { median as medianOf } from './lib/timing.mjs';

const { values } = parseArgs({ options: { backend: { type: 'string', default: 'wasm-simd' }, sizes: { type: 'string', default: '1,64' } } });
const b3 = await import(`${repoDir}/dist/bao-node.js`);
const api = await b3.init({ backend: values.backend });

/** `bytes` as a stream of 64 KiB pieces, as a fetch body might arrive. */
function pieces(bytes) {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(at, (at += 64 * 1024)));
    },
  });
}

async function drain(stream) {
  const reader = stream.getReader();
  while (!(await reader.read()).done);
}

const rows = [];
for (const mib of values.sizes.split(',').map(Number)) {
  const content = new Uint8Array(mib * MiB).map((_, i) => (i * 31) % 251);
  const { encoding, hash } = b3.baoEncode(content);
  const { encoding: outboard } = b3.baoEncode(content, { outboard: true });
  const { outboard: irohOutboard, hash: treeHash } = b3.baoTreeOutboard(content, { chunkLog: 4 });
  // One 16 KiB group from the middle, as a peer asks for it; rates below
  // are the content's size over the time, so ratios show what is saved.
  const middleGroup = [[(mib * 1024) / 2, (mib * 1024) / 2 + 16]];
  const bench = new Bench({ time: mib >= 16 ? 2000 : 500, warmup: true });
  bench
    .add('hash()', () => b3.hash(content))
    .add('baoEncode outboard', () => b3.baoEncode(content, { outboard: true }))
    .add('baoEncode combined', () => b3.baoEncode(content))
    .add('baoDecode combined', () => b3.baoDecode(encoding, hash))
    .add('baoDecodeOutboard', () => b3.baoDecodeOutboard(content, outboard, hash))
    .add('baoTreeOutboard chunkLog 4', () => b3.baoTreeOutboard(content, { chunkLog: 4 }))
    .add('baoDecodeStream, 64 KiB pieces', () => drain(b3.baoDecodeStream(pieces(encoding), hash)))
    .add('baoDecodeStream outboard, 64 KiB pieces', () => drain(b3.baoDecodeStream(pieces(content), hash, { outboard })))
    .add('baoTreeEncodeRanges, one group, hashing all', () => b3.baoTreeEncodeRanges(content, middleGroup))
    .add('baoTreeEncodeRanges, one group, from outboard', () =>
      b3.baoTreeEncodeRanges(content, middleGroup, { outboard: irohOutboard, hash: treeHash }),
    );
  await bench.run();
  // tinybench 6 (bench/'s own) gives the median as latency.p50; 2 (the
  // root's, when bench/ has no node_modules) keeps the samples.
  const median = (task) => task.result.latency?.p50 ?? medianOf(task.result.samples);
  const base = median(bench.tasks[0]);
  for (const task of bench.tasks) {
    rows.push([`${mib} MiB`, task.name, `${((mib * MiB) / 1e6 / (median(task) / 1e3)).toFixed(0)} MB/s`, fmtRatio(base / median(task))]);
  }
}
console.log(`backend ${api.backend}, Node ${process.version}\n`);
console.log(mdTable(['size', 'task', 'median rate', 'vs hash()'], rows, ['---', '---', '---:', '---:']));

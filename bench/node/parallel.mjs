// Cold and warm hashParallel in a fresh process of any process runtime
// (bench/lib/parallel-cold.mjs). The job comes as JSON in argv[2].
import { parallelColdWarm } from '../lib/parallel-cold.mjs';
import { errorText } from '../lib/measure.mjs';

const job = JSON.parse(process.argv[2]);
let result;
try {
  result = await parallelColdWarm(await import(new URL('../../dist/node.js', import.meta.url).href), job);
} catch (error) {
  result = { error: errorText(error) };
}
process.send(result, () => process.exit(0));

// The page side of the Chromium run (bundled by bench/lib/build.mjs). The
// runner opens a fresh page per implementation and calls window.bench.run;
// for cold starts, a fresh page (and browser context, so nothing is cached)
// per measurement calls window.bench.cold.
import { coldStart } from '../lib/cold.mjs';
import { findImpl } from '../lib/impls.mjs';
import { LOADERS } from '../lib/loaders-browser.mjs';
import { errorText, runCells } from '../lib/measure.mjs';

window.bench = {
  info: () => ({ userAgent: navigator.userAgent, crossOriginIsolated: globalThis.crossOriginIsolated }),

  async run({ name, cells, expected, profile, start }) {
    const impl = findImpl(name);
    let api;
    try {
      api = await impl.setup(await LOADERS[name]());
    } catch (error) {
      return { loadError: errorText(error) };
    }
    const stoppedAt = await runCells({
      impl,
      api,
      cells,
      expected,
      profile,
      start,
      report: (index, result) => window.benchReport(index, result),
    });
    return { stoppedAt };
  },

  // Import (fetching and compiling the chunk and any wasm) + init + first hash.
  async cold(name) {
    try {
      return { ms: await coldStart(findImpl(name), LOADERS[name]) };
    } catch (error) {
      return { error: errorText(error) };
    }
  },
};

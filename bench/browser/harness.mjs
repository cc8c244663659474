// The page side of the browser runs (bundled by bench/lib/build.mjs), the
// same page in Chromium, Firefox and WebKit. The runner opens a fresh page per
// implementation, calls window.bench.load once and then window.bench.cell
// once per cell: one call per cell rather than a callback, since WebDriver
// (WebKit) can only call into a page, and a page that dies mid-cell then
// costs that cell only. For cold starts, a fresh page (and browser context or
// browser, so nothing is cached) per measurement calls window.bench.cold.
import { coldStart } from '../lib/cold.mjs';
import { findImpl } from '../lib/impls.mjs';
import { LOADERS } from '../lib/loaders-browser.mjs';
import { errorText, runCells } from '../lib/measure.mjs';
import { parallelColdWarm } from '../lib/parallel-cold.mjs';

let loaded;

window.bench = {
  info: async () => ({
    userAgent: navigator.userAgent,
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    cores: navigator.hardwareConcurrency,
  }),

  async load(name) {
    const impl = findImpl(name);
    try {
      loaded = { impl, api: await impl.setup(await LOADERS[name]()) };
      return {};
    } catch (error) {
      return { loadError: errorText(error) };
    }
  },

  async cell({ cell, expected, profile }) {
    let result;
    await runCells({ ...loaded, cells: [cell], expected, profile, report: (_, r) => (result = r) });
    return result;
  },

  // Import (fetching and compiling the chunk and any wasm) + init + first hash.
  async cold(name) {
    try {
      return { ms: await coldStart(findImpl(name), LOADERS[name]) };
    } catch (error) {
      return { error: errorText(error) };
    }
  },

  async parallel(job) {
    try {
      return await parallelColdWarm(await import('/repo/dist/browser.js'), job);
    } catch (error) {
      return { error: errorText(error) };
    }
  },
};

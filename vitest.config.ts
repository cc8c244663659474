import { playwright } from '@vitest/browser-playwright';
import { fileURLToPath } from 'node:url';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

const entry = (name: string) => fileURLToPath(new URL(`./src/${name}.ts`, import.meta.url));

// The suite every backend must pass, in Node and in Chromium.
const shared = ['test/shared/**/*.test.ts'];

// Debian's chromium, never a downloaded browser. Without the background
// networking flags it keeps dialling hosts this machine cannot reach.
const chromium = playwright({
  launchOptions: {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--js-flags=--expose-gc',
    ],
  },
});

function nodeProject(flavour: 'simd' | 'scalar'): TestProjectInlineConfiguration {
  return {
    resolve: { alias: { 'blake3-kit': entry('node') } },
    test: {
      name: `node-${flavour}`,
      include: [...shared, 'test/node/**/*.test.ts'],
      // The CLI and the example page pick their own backend: testing them once is enough.
      exclude: flavour === 'simd' ? [] : ['test/node/cli.test.ts', 'test/node/example-page.test.ts'],
      provide: { flavour },
      environment: 'node',
      pool: 'forks',
      execArgv: ['--expose-gc'],
      testTimeout: 120_000,
    },
  };
}

// The simd project is served cross-origin isolated (SharedArrayBuffer exists),
// the scalar one is not: the suite must pass both ways.
const isolation = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

function browserProject(flavour: 'simd' | 'scalar'): TestProjectInlineConfiguration {
  return {
    resolve: { alias: { 'blake3-kit': entry('browser') } },
    server: { headers: flavour === 'simd' ? isolation : {} },
    test: {
      name: `chromium-${flavour}`,
      include: [...shared, 'test/browser/**/*.test.ts'],
      provide: { flavour },
      testTimeout: 120_000,
      browser: {
        enabled: true,
        headless: true,
        provider: chromium,
        instances: [{ browser: 'chromium' }],
        screenshotFailures: false,
      },
    },
  };
}

export default defineConfig({
  test: {
    projects: [nodeProject('simd'), nodeProject('scalar'), browserProject('simd'), browserProject('scalar')],
  },
});

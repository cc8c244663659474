// Copied from blake3 (https://github.com/connor4312/blake3), MIT License,
// Copyright (c) 2019 Connor Peet (see ../LICENSE in this directory).
// Adapted as ADAPTED.md lists: the imports, and the harness. Theirs bundled
// the library with webpack and drove a page with puppeteer; here the
// tests run in vitest's Chromium page, `page.evaluate` evaluates in it
// (../page.ts), and runTests() is theirs unchanged.
// @ts-nocheck
// biome-ignore-all lint: blake3's code as its authors wrote it (ADAPTED.md)
// biome-ignore-all format: blake3's code as its authors wrote it (ADAPTED.md)
import { Buffer } from '../buffer.js';
import { beforeAll as before, describe, expect, it } from 'vitest';
import { openPage, type Page } from '../page.js';
import { inputs, hello48, ogTestVectors } from './base/test-helpers.js';

describe('browser', () => {
  // 2.x's webpack build: blake3/browser, ready at import (ours: after load()).
  describe('webpack', () => {
    let page: Page;
    before(async () => {
      page = await openPage('named', inputs);
    });

    runTests({
      get page() {
        return page;
      },
    });
  });

  // 2.x's browser-async build: the default export loads and resolves to the API.
  describe('native browser', () => {
    let page: Page;
    before(async () => {
      page = await openPage('default', inputs);
    });

    runTests({
      get page() {
        return page;
      },
    });
  });
});

function runTests(opts: { page: Page }) {
  it('hashes a string', async () => {
    const result = await opts.page.evaluate('blake3.hash(inputs.large.input).toString("hex")');
    expect(result).to.equal(inputs.large.hash.toString('hex'));
  });

  describe('input encoding', () => {
    it('hashes a uint8array', async () => {
      const contents = [...new Uint8Array(Buffer.from(inputs.hello.input))];
      const result = await opts.page.evaluate(
        `blake3.hash(new Uint8Array([${contents.join(',')}])).toString("hex")`,
      );
      expect(result).to.equal(inputs.hello.hash.toString('hex'));
    });

    it('hashes a string', async () => {
      const result = await opts.page.evaluate('blake3.hash(inputs.large.input).toString("hex")');
      expect(result).to.equal(inputs.large.hash.toString('hex'));
    });

    it('customizes output length', async () => {
      const result = await opts.page.evaluate(
        'blake3.hash(inputs.hello.input, { length: 16 }).toString("hex")',
      );
      expect(result).to.equal(inputs.hello.hash.slice(0, 16).toString('hex'));
    });
  });

  describe('output encoding', () => {
    const tcases = [
      { encoding: 'hex', expected: inputs.hello.hash.toString('hex') },
      { encoding: 'base64', expected: inputs.hello.hash.toString('base64') },
      { encoding: 'utf8', expected: inputs.hello.hash.toString('utf8') },
    ];

    tcases.forEach(({ encoding, expected }) =>
      it(encoding, async () => {
        const result = await opts.page.evaluate(
          `blake3.hash(inputs.hello.input).toString("${encoding}")`,
        );
        expect(result).to.equal(expected);
      }),
    );

    it('raw', async () => {
      const result = (await opts.page.evaluate(`blake3.hash(inputs.hello.input)`)) as {
        length: number;
        [n: number]: number;
      };
      const actual = Buffer.alloc(32);
      for (let i = 0; i < actual.length; i++) {
        actual[i] = result[i]; // it comes as a plain object, we need to convert it to a buffer
      }
      expect(actual).to.deep.equal(inputs.hello.hash);
    });
  });

  describe('hash class', () => {
    it('digests', async () => {
      const result = await opts.page.evaluate(`(() => {
        const hash = blake3.createHash();
        ${[...Buffer.from(inputs.hello.input)]
          .map(byte => `hash.update(new Uint8Array([${byte}]));`)
          .join('\n')}
        return hash.digest('hex');
      })()`);

      expect(result).to.equal(inputs.hello.hash.toString('hex'));
    });

    it('customizes the output length', async () => {
      const result = await opts.page.evaluate(`(() => {
        const hash = blake3.createHash();
        hash.update(${JSON.stringify(inputs.hello.input)});
        return hash.digest('hex', { length: 16 });
      })()`);

      expect(result).to.equal(inputs.hello.hash.slice(0, 16).toString('hex'));
    });

    it('returns a hash instance from digest', async () => {
      const result = await opts.page.evaluate(`(() => {
        const hash = blake3.createHash();
        ${[...Buffer.from(inputs.hello.input)]
          .map(byte => `hash.update(new Uint8Array([${byte}]));`)
          .join('\n')}
        return hash.digest('hex');
      })()`);

      expect(result).to.equal(inputs.hello.hash.toString('hex'));
    });
  });

  describe('reader', () => {
    it('is sane with a Hash', async () => {
      const result = await opts.page.evaluate(`(() => {
        const hash = blake3.createHash();
        hash.update("hello");

        return blake3.using(hash.reader(), reader => [
          reader.read(48).toString('hex'),
          reader.toArray().toString('hex'),
          reader.toString('hex'),
        ]);
      })()`);

      expect(result).to.deep.equal([
        hello48.toString('hex'),
        inputs.hello.hash.toString('hex'),
        inputs.hello.hash.toString('hex'),
      ]);
    });
  });

  describe('original test vectors', () => {
    for (const {
      inputLen,
      expectedDerive,
      expectedHash,
      expectedKeyed,
    } of ogTestVectors.cases.slice(0, 6)) {
      describe(`${inputLen}`, async () => {
        const input = Buffer.alloc(inputLen);
        for (let i = 0; i < inputLen; i++) {
          input[i] = i % 251;
        }

        const inputStr = `new Uint8Array([${input.join(',')}])`;

        it('hash()', async () => {
          const result = await opts.page.evaluate(`blake3.hash(
            ${inputStr},
            { length: ${expectedHash.length / 2} }
          ).toString("hex")`);

          expect(result).to.equal(expectedHash);
        });

        it('deriveKey()', async () => {
          const result = await opts.page.evaluate(`blake3.deriveKey(
            ${JSON.stringify(ogTestVectors.context)},
            ${inputStr},
            { length: ${expectedHash.length / 2} }
          ).toString("hex")`);

          expect(result).to.equal(expectedDerive);
        });

        it('createKeyed()', async () => {
          const result = await opts.page.evaluate(`(() => {
            const hasher = blake3.createKeyed(new Uint8Array([${Buffer.from(ogTestVectors.key).join(
              ',',
            )}]));
            hasher.update(${inputStr});
            return hasher.digest({ length: ${expectedHash.length / 2} }).toString('hex');
          })()`);

          expect(result).to.equal(expectedKeyed);
        });

        it('keyedHash()', async () => {
          const result = await opts.page.evaluate(`blake3.keyedHash(
            new Uint8Array([${Buffer.from(ogTestVectors.key).join(',')}]),
            ${inputStr},
            { length: ${expectedHash.length / 2} }
          ).toString("hex")`);

          expect(result).to.equal(expectedKeyed);
        });
      });
    }
  });
}

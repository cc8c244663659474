// Node's Buffer for blake3's tests in the page (ADAPTED.md): the npm
// 'buffer' package, except that it decodes invalid UTF-8 differently from
// Node. It replaces each byte of a broken sequence with U+FFFD; Node, like
// TextDecoder, replaces each maximal part (WHATWG). Their browser tests
// computed the expected strings in Node, so here they decode as Node does.
// biome-ignore lint/style/useNodejsImportProtocol: the npm package in the page, not Node's module
import { Buffer } from 'buffer';

const decoder = new TextDecoder();
const packageToString = Buffer.prototype.toString;
Buffer.prototype.toString = function (this: Buffer, encoding?: BufferEncoding, start?: number, end?: number): string {
  const utf8 = encoding === undefined || /^utf-?8$/i.test(encoding);
  return utf8 ? decoder.decode(this.subarray(start ?? 0, end ?? this.length)) : packageToString.call(this, encoding, start, end);
};

export { Buffer };

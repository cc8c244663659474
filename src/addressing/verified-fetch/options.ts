// The options that name a content's tree, shared by verifiedFetch and the
// Service Worker's handler (outboard.ts checks and loads them).

/** What `new Headers()` takes. Not the DOM's HeadersInit by name: a
 * Node-only consumer's types (@types/node) lack it but have Headers. */
export type HeaderValues = ConstructorParameters<typeof Headers>[0];

/** Where a content's tree comes from, and what it is. */
export interface TreeOptions {
  /** The root hash you trust: 32 bytes, or a CID of them (a BDASL CID, 'bafkr4…'). */
  hash: ArrayBufferView | ArrayBufferLike | string;
  /** The outboard: its bytes, or a URL to fetch it from. Without one,
   * the content URL serves the bao crate's combined encoding. */
  outboard?: ArrayBufferView | ArrayBufferLike | string | URL;
  /** A bao-tree outboard over groups of 2^chunkLog chunks (0 to 16; iroh
   * uses 4, 16 KiB). Without it, `outboard` is the bao crate's outboard,
   * with its 8-byte length header. */
  chunkLog?: number;
  /** A bao-tree outboard's order: 'pre' (the default) or 'post'. */
  order?: 'pre' | 'post';
  /** The content's length, where the caller knows it. Either way the
   * length is proven by the content's last group before a byte of a
   * response that depends on it is passed on. */
  size?: number;
  /** The largest outboard read from a URL: 64 MiB by default (the bao
   * crate's outboard of 1 GiB; bao-tree's at chunkLog 4 of 256 GiB). */
  maxOutboardBytes?: number;
}

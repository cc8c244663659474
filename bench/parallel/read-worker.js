// A Web Worker that only reads Blob slices (bench/parallel/page.html's read
// limits): `{ blob, sync }` in, the byte count out. FileReaderSync where
// asked (workers only), else blob.arrayBuffer().
self.onmessage = async ({ data: { blob, sync } }) => {
  const buffer = sync ? new FileReaderSync().readAsArrayBuffer(blob) : await blob.arrayBuffer();
  self.postMessage(buffer.byteLength);
};

// Imported before the real worker, so this listener runs first: the worker
// closes itself after receiving its third job and before answering it.
let jobs = 0;
self.addEventListener('message', (event) => {
  if (event.data.type === 'job' && ++jobs === 3) {
    self.close();
    event.stopImmediatePropagation();
  }
});

// A hashing worker script that fails while loading.
throw new Error('this worker script is broken on purpose');

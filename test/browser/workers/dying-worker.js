// A hashing Web Worker that silently closes itself during its third job: no
// event reaches the page, so only the pool's watchdog can notice.
import './close-on-third-job.js';
import '/dist/worker.js';

// A hashing worker that exits in the middle of its third job.
import './exit-on-third-job.mjs';
import '../../../dist/worker-node.js';

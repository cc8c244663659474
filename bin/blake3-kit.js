#!/usr/bin/env node
// V8's compiled code for the command's modules is kept between runs where
// Node can (22.1 and later): without it, compiling them was the largest
// part of what the command adds to Node's own start-up.
import module from 'node:module';

module.enableCompileCache?.();
await import('../dist/cli.js');

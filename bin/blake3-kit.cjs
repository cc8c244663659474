#!/usr/bin/env node
// V8's compiled code for the command's modules is kept between runs where
// Node can (22.1 and later): without it, compiling them was the largest
// part of what the command adds to Node's own start-up.
'use strict';
require('node:module').enableCompileCache?.();
require('../dist/cli.cjs');

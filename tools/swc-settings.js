// The compile settings tools/build.js and tools/register.js share: SWC's options (.swcrc) and
// the `@comanda/*` path aliases of tsconfig.base.json, each mapped by the caller to where its
// target lives (the sources, or their compiled copy in dist/).
'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');

/** .swcrc as options for @swc/core's transform calls. */
function swcOptions() {
  const swcrc = JSON.parse(readFileSync(join(ROOT, '.swcrc'), 'utf8'));
  delete swcrc.$schema;
  return swcrc;
}

/** Each alias of tsconfig.base.json's `paths` with its target (relative to the root), mapped. */
function pathAliases(mapTarget) {
  const { compilerOptions } = JSON.parse(readFileSync(join(ROOT, 'tsconfig.base.json'), 'utf8'));
  return Object.entries(compilerOptions.paths).map(([alias, [target]]) => [
    alias,
    mapTarget(target),
  ]);
}

module.exports = { ROOT, pathAliases, swcOptions };

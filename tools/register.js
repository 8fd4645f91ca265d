// `node -r ./tools/register.js <file>.ts`: runs the repository's TypeScript as it is, compiled
// file by file on load with SWC and the build's own settings (.swcrc, the `@comanda/*` paths of
// tsconfig.base.json), as tools/build.js compiles it for the image (ADR 0058).
//
// It loads nothing else: @swc-node/register, which `npm start` used before, also loads the
// TypeScript compiler to read tsconfig and source-map-support to rewrite every stack Node
// formats: 21 MB more of heap at boot, more to mark in every full collection, and an error's
// stack formatted in 60 µs instead of 11. Each module carries an inline source map, so a
// debugger (`node --inspect`) shows the TypeScript lines; stack traces name the .ts files with
// the compiled lines unless Node's own source maps are on (NODE_OPTIONS=--enable-source-maps).
'use strict';
const { transformSync } = require('@swc/core');
const Module = require('node:module');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { ROOT, pathAliases, swcOptions } = require('./swc-settings');

const swcrc = swcOptions();
const aliases = new Map(pathAliases((target) => join(ROOT, target)));

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return resolveFilename.call(this, aliases.get(request) ?? request, ...rest);
};

Module._extensions['.ts'] = function compileTypeScript(module, filename) {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    ...swcrc,
    swcrc: false,
    filename,
    sourceMaps: 'inline',
  });
  module._compile(code, filename);
};

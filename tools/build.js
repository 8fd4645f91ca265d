// `npm run build` / `nx build <app>`: compiles apps and the libraries they use from TypeScript
// to CommonJS with SWC (the transform the tests and `npm start` use), into dist/ with the
// repository's layout. Path aliases (`@comanda/...`) become relative requires, so the output
// runs with plain `node dist/apps/<app>/main.js` and production dependencies only.
const { transformFileSync } = require('@swc/core');
const { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } = require('node:fs');
const { dirname, join, relative, sep } = require('node:path');

const { ROOT, pathAliases, swcOptions } = require('./swc-settings');
// `--out=<folder>` builds elsewhere (tests); it must sit inside the checkout to find node_modules.
const outOption = process.argv.find((arg) => arg.startsWith('--out='));
const DIST = outOption ? join(ROOT, outOption.slice('--out='.length)) : join(ROOT, 'dist');
const NOT_SHIPPED = ['platform-e2e'];

const swcrc = swcOptions();
const aliases = Object.fromEntries(
  pathAliases((target) => join(DIST, target.replace(/\.ts$/, '.js'))),
);

function sources(folder) {
  const found = [];
  for (const entry of readdirSync(folder)) {
    const path = join(folder, entry);
    if (statSync(path).isDirectory()) found.push(...sources(path));
    else if (
      /\.ts$/.test(entry) &&
      !/\.(spec|e2e-spec|test)\.ts$/.test(entry) &&
      !entry.endsWith('.d.ts')
    )
      found.push(path);
  }
  return found;
}

function compile(file) {
  const out = join(DIST, relative(ROOT, file)).replace(/\.ts$/, '.js');
  let { code } = transformFileSync(file, {
    ...swcrc,
    sourceMaps: false,
    swcrc: false,
    filename: file,
  });
  code = code.replace(/require\("(@comanda\/[a-z-]+)"\)/g, (whole, alias) => {
    const target = aliases[alias];
    if (!target) return whole;
    let path = relative(dirname(out), target).split(sep).join('/');
    if (!path.startsWith('.')) path = `./${path}`;
    return `require(${JSON.stringify(path)})`;
  });
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, code);
}

const requested = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const apps = readdirSync(join(ROOT, 'apps')).filter(
  (app) =>
    !NOT_SHIPPED.includes(app) &&
    (requested.length === 0 || requested.includes(app)) &&
    statSync(join(ROOT, 'apps', app, 'src', 'main.ts'), { throwIfNoEntry: false }),
);
if (requested.length === 0) rmSync(DIST, { recursive: true, force: true });

const started = Date.now();
const files = [
  ...sources(join(ROOT, 'libs')),
  ...apps.flatMap((app) => sources(join(ROOT, 'apps', app, 'src'))),
];
for (const file of files) compile(file);
for (const app of apps) {
  // The entry the image, compose and k8s run: `node dist/apps/<app>/main.js`.
  writeFileSync(join(DIST, 'apps', app, 'main.js'), "require('./src/main.js');\n");
}
console.log(
  `built ${apps.join(', ')} (${files.length} files) into dist/ in ${Date.now() - started} ms`,
);

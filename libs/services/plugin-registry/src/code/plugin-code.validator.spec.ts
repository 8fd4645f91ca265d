import { checkPluginCode } from './plugin-code.validator';

describe('checkPluginCode', () => {
  it.each([
    [
      'an async function declaration',
      'export default async function run(context) { return context; }',
    ],
    ['an anonymous function', 'export default function () {}'],
    ['an async arrow function', 'export default async (context) => { await context.ready; };'],
    ['a function bound to a const', 'const run = async (context) => context;\nexport default run;'],
    ['a function declared first', 'async function run(context) {}\nexport default run;'],
    ['a function exported as default by name', 'function run() {}\nexport { run as default };'],
    [
      'a function after imports and top-level await',
      "import x from 'https://cdn/x.js';\nawait x;\nexport default () => x;",
    ],
  ])('accepts a module that default-exports %s', (_label, source) => {
    expect(checkPluginCode(source)).toBeUndefined();
  });

  it('accepts code with a </script> sequence, unicode and CRLF line ends', () => {
    expect(
      checkPluginCode(
        'export default function () {\r\n  return "</script> — ünïcødé 🍕";\r\n}\r\n',
      ),
    ).toBeUndefined();
  });

  it('reports the parser message with its 1-based line and column for code that does not parse', () => {
    expect(checkPluginCode('export default function () {\n  return 1 +;\n}')).toEqual({
      kind: 'syntax',
      message: 'Unexpected token',
      line: 2,
      column: 13,
    });
  });

  it('refuses a script that is only valid outside module (strict) mode', () => {
    const problem = checkPluginCode('with (window) { export default function () {} }');
    expect(problem?.kind).toBe('syntax');
    expect(problem?.line).toBe(1);
  });

  it('refuses CommonJS code, which has no default export', () => {
    expect(checkPluginCode('module.exports = async function (context) {};')).toMatchObject({
      kind: 'no_default_export',
    });
  });

  it('refuses a named function export without a default', () => {
    expect(checkPluginCode('export async function run() {}')?.kind).toBe('no_default_export');
  });

  it.each([
    ['a class', 'export default class Plugin {}'],
    ['an object', 'export default { run() {} };'],
    ['a call result', 'export default definePlugin(() => {});'],
    ['a binding to a non-function', 'const settings = { a: 1 };\nexport default settings;'],
    ['an undeclared binding', 'export default run;'],
    ['a re-export from elsewhere', "export { default } from './other.js';"],
  ])('refuses a default export that is %s, pointing at it', (_label, source) => {
    const problem = checkPluginCode(source);
    expect(problem?.kind).toBe('default_export_not_a_function');
    expect(problem?.line).toBeGreaterThanOrEqual(1);
  });

  it('never runs the code it checks', () => {
    const marker = globalThis as { pluginRan?: boolean };
    expect(
      checkPluginCode('globalThis.pluginRan = true;\nexport default () => {};'),
    ).toBeUndefined();
    expect(marker.pluginRan).toBeUndefined();
  });
});

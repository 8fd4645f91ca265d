// Shared jest settings: SWC transform (fast, keeps decorator metadata for Nest and TypeORM)
// and the tsconfig path aliases, so every project tests against the sources of its libs.
const path = require('node:path');
const { compilerOptions } = require('./tsconfig.base.json');

const moduleNameMapper = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([alias, [target]]) => [
    `^${alias.replace('/', '\\/')}$`,
    path.join(__dirname, target),
  ]),
);

module.exports = {
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper,
  transform: {
    '/node_modules/jose/.+\\.js$': [
      '@swc/jest',
      { jsc: { target: 'es2022' }, module: { type: 'commonjs' } },
    ],
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
          keepClassNames: true,
        },
        module: { type: 'commonjs' },
        sourceMaps: 'inline',
      },
    ],
  },
  // jose 6 ships ESM only; Node 20 requires it natively but jest does not, so it is compiled.
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
  testMatch: ['**/?(*.)+(spec|test|e2e-spec).ts'],
  setupFiles: [path.join(__dirname, 'jest.setup.js')],
  testTimeout: 30000,
  reporters: ['default', path.join(__dirname, 'tools', 'test-results-reporter.js')],
};

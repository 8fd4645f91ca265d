const preset = require('../../jest.preset.js');

const esm = ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }];

module.exports = {
  ...preset,
  displayName: 'security-suite',
  rootDir: __dirname,
  // The OpenAPI validator ships ESM only, like jose: compiled for jest the same way.
  transform: { '/node_modules/@seriousme/.+\\.js$': esm, ...preset.transform },
  transformIgnorePatterns: ['/node_modules/(?!jose/|@seriousme/)'],
  // Each suite starts the platform as `npm start` does, in a process of its own.
  testTimeout: 120000,
  maxWorkers: 1,
};

const { reporters, ...preset } = require('../../jest.preset.js');

const esm = ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }];

/**
 * The suite runs twice, with the same tests: against the platform as `npm start` runs it
 * (standalone, one process) and against a distributed deployment (each service its own
 * process from the compiled build). `--selectProjects standalone` or `distributed` runs one.
 */
function target(name) {
  return {
    ...preset,
    displayName: name,
    rootDir: __dirname,
    // The OpenAPI validator ships ESM only, like jose: compiled for jest the same way.
    transform: { '/node_modules/@seriousme/.+\\.js$': esm, ...preset.transform },
    transformIgnorePatterns: ['/node_modules/(?!jose/|@seriousme/)'],
    setupFiles: [...preset.setupFiles, require.resolve(`./src/support/target-${name}.js`)],
    // Each suite starts its deployment in processes of its own.
    testTimeout: 120000,
  };
}

module.exports = {
  rootDir: __dirname,
  reporters,
  projects: [target('standalone'), target('distributed')],
  // One deployment at a time: they share the machine's PostgreSQL with the other projects.
  maxWorkers: 1,
  testTimeout: 120000,
};

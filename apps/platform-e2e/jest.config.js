module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'platform-e2e',
  rootDir: __dirname,
  // Each suite boots a whole platform: give it room, and keep the 2-core machine responsive.
  testTimeout: 60000,
  maxWorkers: 2,
};

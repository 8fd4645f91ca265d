module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'cli',
  rootDir: __dirname,
  // The end-to-end suite boots a whole platform and spawns the CLI per command.
  testTimeout: 60000,
};

module.exports = {
  ...require('../../../jest.preset.js'),
  displayName: 'service-config-store',
  rootDir: __dirname,
};

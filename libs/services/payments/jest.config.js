module.exports = {
  ...require('../../../jest.preset.js'),
  displayName: 'service-payments',
  rootDir: __dirname,
};

module.exports = {
  ...require('../../../jest.preset.js'),
  displayName: 'service-orders',
  rootDir: __dirname,
};

module.exports = {
  ...require('../../../jest.preset.js'),
  displayName: 'service-gateway',
  rootDir: __dirname,
};

module.exports = {
  ...require('../../../jest.preset.js'),
  displayName: 'service-auth',
  rootDir: __dirname,
};

module.exports = {
  ...require('../../../jest.preset.js'),
  displayName: 'service-notifications',
  rootDir: __dirname,
};

module.exports = {
  ...require('../../../jest.preset.js'),
  displayName: 'service-plugin-registry',
  rootDir: __dirname,
};

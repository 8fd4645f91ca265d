module.exports = {
  ...require('../../../jest.preset.js'),
  displayName: 'service-partner-sandbox',
  rootDir: __dirname,
};

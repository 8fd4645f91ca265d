module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'pos-adapter',
  rootDir: __dirname,
};

module.exports = { ...require('../../jest.preset.js'), displayName: 'context', rootDir: __dirname };

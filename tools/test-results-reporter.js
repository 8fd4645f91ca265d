// Jest reporter: leaves each project's counts in tmp/test-results so tools/run-tests.js can
// print one closing line for the whole suite across the projects Nx ran.
const { mkdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

class TestResultsReporter {
  constructor(globalConfig) {
    this.name = (globalConfig.rootDir || 'jest').split('/').slice(-2).join('-');
  }

  onRunComplete(_contexts, results) {
    const dir = join(__dirname, '..', 'tmp', 'test-results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, `${this.name}-${process.pid}.json`),
      JSON.stringify({
        passed: results.numPassedTests,
        failed: results.numFailedTests + results.numRuntimeErrorTestSuites,
        skipped: results.numPendingTests + results.numTodoTests,
      }),
    );
  }
}

module.exports = TestResultsReporter;

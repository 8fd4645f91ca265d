// Jest reporter: leaves each project's counts, and the names and first error lines of its
// failed tests, in tmp/test-results so tools/run-tests.js can close the whole suite across
// the projects Nx ran with what failed (the tail of a CI log is often all one gets to see).
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
        failures: failuresOf(results),
      }),
    );
  }
}

/** `file › test: first line of its error`, for every failed test and every suite that failed to run. */
function failuresOf(results) {
  const failures = [];
  for (const suite of results.testResults) {
    const file = suite.testFilePath.split('/').slice(-3).join('/');
    if (suite.testExecError) failures.push(`${file}: ${firstLine(suite.testExecError.message)}`);
    for (const test of suite.testResults) {
      if (test.status !== 'failed') continue;
      failures.push(`${file} › ${test.fullName}: ${firstLine(test.failureMessages[0] ?? '')}`);
    }
  }
  return failures;
}

function firstLine(message) {
  // Drop ANSI colours and keep the first meaningful line, shortened.
  const text = String(message).replace(/\u001b\[[0-9;]*m/g, '');
  const line = text.split('\n').find((candidate) => candidate.trim() !== '') ?? '';
  return line.trim().slice(0, 300);
}

module.exports = TestResultsReporter;

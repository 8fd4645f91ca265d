// Preloaded (`node -r`) into every process the security suite starts: when the test runner
// that started it is gone (killed, or stopped by a CI time limit before its afterAll ran),
// the process ends too, so no deployment outlives its run. The timer holds nothing open.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.kill(process.pid, 'SIGKILL');
}, 1000).unref();

/**
 * What a bench server's main thread did over a window its parent chooses
 * (`npm run bench:timeline`): `{ timeline: 'start' }` over IPC starts recording and is
 * answered `{ timelineStarted: true }`; `{ timeline: 'stop' }` is answered
 * `{ timeline: ServerTimeline }`.
 */
import { PerformanceObserver, performance } from 'node:perf_hooks';

/** A server's main thread over a window, on the wall clock (epoch ms). */
export interface ServerTimeline {
  /** Every garbage collection: when it started and how long it took. */
  collections: { atEpochMs: number; ms: number }[];
  /**
   * Every 100 ms or so: the main thread's time outside its event loop's wait so far (event loop
   * utilisation; wall time, so time it was runnable but not given a CPU counts).
   */
  busy: { atEpochMs: number; activeMs: number }[];
}

function timelineRecorder(): (message: { timeline: 'start' | 'stop' }) => void {
  let recording: { timeline: ServerTimeline; stop: () => void } | undefined;
  const epoch = (at: number) => performance.timeOrigin + at;
  return (message) => {
    if (message.timeline === 'start') {
      const timeline: ServerTimeline = { collections: [], busy: [] };
      const observer = new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
          timeline.collections.push({ atEpochMs: epoch(entry.startTime), ms: entry.duration });
        }
      });
      observer.observe({ entryTypes: ['gc'] });
      const mark = () =>
        timeline.busy.push({
          atEpochMs: epoch(performance.now()),
          activeMs: performance.eventLoopUtilization().active,
        });
      mark();
      const timer = setInterval(mark, 100);
      process.send?.({ timelineStarted: true });
      recording = {
        timeline,
        stop: () => {
          clearInterval(timer);
          mark();
          observer.disconnect();
        },
      };
      return;
    }
    recording?.stop();
    process.send?.({ timeline: recording?.timeline });
    recording = undefined;
  };
}

/** Answers the parent's timeline messages (see above) for as long as the process runs. */
export function answerTimelines(): void {
  const onTimeline = timelineRecorder();
  process.on('message', (message: unknown) => {
    if (typeof message === 'object' && message !== null && 'timeline' in message) {
      onTimeline(message as { timeline: 'start' | 'stop' });
    }
  });
}

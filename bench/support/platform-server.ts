/**
 * The platform as `npm start` runs it (the same `startPlatform`, against DATABASE_URL), in
 * its own process so that its RSS and its start time are its own. Tells its parent the
 * gateway's and every service's URL over IPC once everything listens; stops when the parent
 * disconnects.
 *
 * `{ profile: 'start' }` / `{ profile: 'stop', file }` from the parent take a CPU profile of
 * exactly the window between them (BENCH_PROFILE: one profile per measured path, without the
 * boot and the idle time between runs); the child answers `{ profiled: file }`.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { startPlatform } from '@comanda/platform';
import { snapshotEnv } from '@comanda/runtime';
import { answerTimelines } from './timeline-recorder';

type ProfileMessage = { profile: 'start' } | { profile: 'stop'; file: string };

function profiler(): (message: ProfileMessage) => void {
  let session: Session | undefined;
  const allocations = process.env.BENCH_PROFILE_KIND === 'allocations';
  return (message) => {
    if (message.profile === 'start') {
      session = new Session();
      session.connect();
      const started = () => process.send?.({ profiling: true });
      if (allocations) {
        // Allocations sampled about one per 4 KB allocated, those a scavenge freed at once
        // included: where the allocation rate (and so the young generation's collections)
        // comes from.
        session.post(
          'HeapProfiler.startSampling',
          {
            samplingInterval: 4096,
            includeObjectsCollectedByMinorGC: true,
            includeObjectsCollectedByMajorGC: true,
          },
          started,
        );
        return;
      }
      session.post('Profiler.enable', () =>
        session?.post('Profiler.setSamplingInterval', { interval: 200 }, () =>
          session?.post('Profiler.start', started),
        ),
      );
      return;
    }
    const file = allocations ? message.file.replace(/\.cpuprofile$/, '.heapprofile') : message.file;
    const stopped = (error: Error | null, profile: object | undefined) => {
      if (!error) writeFileSync(file, JSON.stringify(profile));
      session?.disconnect();
      session = undefined;
      process.send?.({ profiled: file });
    };
    if (allocations)
      session?.post('HeapProfiler.stopSampling', (error, result) =>
        stopped(error, result?.profile),
      );
    else session?.post('Profiler.stop', (error, result) => stopped(error, result?.profile));
  };
}

async function main(): Promise<void> {
  const platform = await startPlatform({ port: 0, env: Object.freeze(snapshotEnv()) });
  const services = Object.fromEntries(
    [...platform.services].map(([name, service]) => [name, service.url]),
  );
  const onProfile = profiler();
  process.on('message', (message: unknown) => {
    if (typeof message === 'object' && message !== null && 'profile' in message) {
      onProfile(message as ProfileMessage);
    }
  });
  answerTimelines();
  process.send?.({ ready: true, url: platform.baseUrl, services });
  process.on('disconnect', () => {
    void platform.close().finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

/**
 * The platform as `npm start` runs it (the same `startPlatform`, against DATABASE_URL), in
 * its own process so that its RSS and its start time are its own. Tells its parent the
 * gateway's and every service's URL over IPC once everything listens; stops when the parent
 * disconnects.
 */
import { startPlatform } from '@comanda/platform';
import { snapshotEnv } from '@comanda/runtime';

async function main(): Promise<void> {
  const platform = await startPlatform({ port: 0, env: Object.freeze(snapshotEnv()) });
  const services = Object.fromEntries(
    [...platform.services].map(([name, service]) => [name, service.url]),
  );
  process.send?.({ ready: true, url: platform.baseUrl, services });
  process.on('disconnect', () => {
    void platform.close().finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

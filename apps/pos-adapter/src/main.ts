import { startAdapter } from './adapter';
import { loadConfig } from './config';

// The reference POS adapter: `node -r ./tools/register.js apps/pos-adapter/src/main.ts`
// (configuration in docs/pos-integration.md).
async function main(): Promise<void> {
  // The adapter is meant to be copied out of this repository, so it reads its environment
  // itself: once, here.
  // eslint-disable-next-line no-restricted-syntax
  const adapter = await startAdapter(loadConfig(process.env), console, (reason) => {
    console.error(`${reason}; exiting so the supervisor restarts the adapter`);
    process.exit(1);
  });
  const stop = () => {
    adapter.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  console.error((error as Error).message);
  process.exit(1);
});

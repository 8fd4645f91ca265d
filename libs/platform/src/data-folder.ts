import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { StartupError } from './startup-error';

/** Creates the data folder (0700) and proves it writable, or says in one line what to do. */
export async function useDataFolder(root: string): Promise<void> {
  try {
    await mkdir(root, { recursive: true, mode: 0o700 });
    const probe = join(root, `.write-test-${process.pid}`);
    await writeFile(probe, '');
    await rm(probe);
  } catch (error) {
    throw new StartupError(
      `cannot use the data folder ${root} (${(error as NodeJS.ErrnoException).code ?? String(error)}): ` +
        'set COMANDA_DATA_DIR to a folder this user can write',
      { cause: error },
    );
  }
}

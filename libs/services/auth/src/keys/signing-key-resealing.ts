import { Inject, Injectable, Logger } from '@nestjs/common';
import { takeTurn, UnitOfWork } from '@comanda/persistence';
import { open, seal } from '@comanda/security';
import { KEY_MATERIAL } from '../crypto/key-material.provider';
import type { KeyMaterial } from '../crypto/key-material';
import { SigningKey } from './signing-key.entity';
import { SIGNING_KEYS_TURN } from './signing-key.service';

/**
 * After a change of key encryption key (AUTH_PREVIOUS_KEY_ENCRYPTION_KEY set, e.g. standalone
 * data made when a constant development key sealed it), every signing key still sealed with
 * the former key is re-sealed with the current one, so the former key stops mattering.
 */
@Injectable()
export class SigningKeyResealing {
  private readonly logger = new Logger('auth.keys');

  constructor(
    private readonly unitOfWork: UnitOfWork,
    @Inject(KEY_MATERIAL) private readonly keys: KeyMaterial,
  ) {}

  async resealWithCurrentKey(): Promise<number> {
    const previous = this.keys.previousKeyEncryptionKey;
    if (!previous) return 0;
    const resealed = await this.unitOfWork.run(async (tx) => {
      // The turn of SigningKeyService: replicas starting together take turns.
      await takeTurn(tx, SIGNING_KEYS_TURN);
      const repository = tx.getRepository(SigningKey);
      let count = 0;
      for (const row of await repository.find()) {
        if (opens(this.keys.keyEncryptionKey, row)) continue;
        if (!opens(previous, row)) {
          throw new Error(
            `signing key ${row.kid} opens with neither AUTH_KEY_ENCRYPTION_KEY nor AUTH_PREVIOUS_KEY_ENCRYPTION_KEY`,
          );
        }
        const pem = open(previous, row.privateKeySealed, row.kid);
        await repository.update(
          { kid: row.kid },
          { privateKeySealed: seal(this.keys.keyEncryptionKey, pem, row.kid) },
        );
        count += 1;
      }
      return count;
    });
    if (resealed > 0) this.logger.log(`re-sealed ${resealed} signing key(s) with the current key`);
    return resealed;
  }
}

function opens(key: Buffer, row: SigningKey): boolean {
  try {
    open(key, row.privateKeySealed, row.kid);
    return true;
  } catch {
    // Wrong key (the GCM tag does not verify): the caller tries the other one.
    return false;
  }
}

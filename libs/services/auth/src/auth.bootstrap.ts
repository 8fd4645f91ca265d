import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { UnitOfWork } from '@comanda/persistence';
import { AUTH_CONFIG, type AuthConfig } from './auth.config';
import { ClientService } from './clients/client.service';
import { SigningKeyResealing } from './keys/signing-key-resealing';
import { SigningKeyService } from './keys/signing-key.service';

/** On start: signing keys exist, and the platform admin client matches the environment. */
@Injectable()
export class AuthBootstrap implements OnApplicationBootstrap {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly keys: SigningKeyService,
    private readonly resealing: SigningKeyResealing,
    private readonly clients: ClientService,
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.resealing.resealWithCurrentKey();
    await this.keys.ensureKeys();
    const { COMANDA_ADMIN_CLIENT_ID: clientId, COMANDA_ADMIN_CLIENT_SECRET: clientSecret } =
      this.config;
    if (clientId && clientSecret) {
      await this.unitOfWork.run((tx) => this.clients.bootstrapAdmin(tx, clientId, clientSecret));
    } else {
      // Said once: an operator who forgot it would otherwise look for an admin that was never made.
      new Logger('auth').log(
        'COMANDA_ADMIN_CLIENT_SECRET is not set: no platform admin client is made or updated (an existing one keeps its secret)',
      );
    }
  }
}

import { Module } from '@nestjs/common';
import { CLOCK, systemClock } from './common/clock';
import { ConfigValuesController } from './configs/config-values.controller';
import { ConfigValuesService } from './configs/config-values.service';
import { ConfigService } from './configs/config.service';
import { ConfigsController } from './configs/configs.controller';
import { ConnectionService } from './connections/connection.service';
import { ConnectionsController } from './connections/connections.controller';
import { ExtensionReferenceValidator } from './extensions/extension-reference.validator';
import { ExtensionService } from './extensions/extension.service';
import { ExtensionsController } from './extensions/extensions.controller';

/** Configs, connections and extensions under `/entities/{entity}`. */
@Module({
  controllers: [
    ConfigsController,
    ConfigValuesController,
    ConnectionsController,
    ExtensionsController,
  ],
  providers: [
    { provide: CLOCK, useValue: systemClock },
    ExtensionReferenceValidator,
    ConfigService,
    ConfigValuesService,
    ConnectionService,
    ExtensionService,
  ],
})
export class ConfigStoreModule {}

import { ConfigVersionEntity } from './configs/config-version.entity';
import { ConnectionEntity } from './connections/connection.entity';
import { ExtensionEntity } from './extensions/extension.entity';
import { ExtensionVersionEntity } from './extensions/extension-version.entity';

export const CONFIG_STORE_ENTITIES = [
  ConfigVersionEntity,
  ConnectionEntity,
  ExtensionEntity,
  ExtensionVersionEntity,
];

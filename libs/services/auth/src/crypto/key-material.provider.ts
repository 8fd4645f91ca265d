import type { Provider } from '@nestjs/common';
import { AUTH_CONFIG, type AuthConfig } from '../auth.config';
import { keyMaterialFrom, type KeyMaterial } from './key-material';
import { SecretHasher } from './secret-hasher';

export const KEY_MATERIAL = Symbol('AUTH_KEY_MATERIAL');

export const keyMaterialProviders: Provider[] = [
  {
    provide: KEY_MATERIAL,
    inject: [AUTH_CONFIG],
    useFactory: (config: AuthConfig) => keyMaterialFrom(config),
  },
  {
    provide: SecretHasher,
    inject: [KEY_MATERIAL],
    useFactory: ({ secretPepper, previousSecretPepper }: KeyMaterial) =>
      new SecretHasher(secretPepper, previousSecretPepper),
  },
];

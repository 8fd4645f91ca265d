import { SetMetadata } from '@nestjs/common';
import { PUBLIC_ROUTE } from './security-metadata';

/** The route needs no token (token endpoint, JWKS, health, partner callbacks with their own signature). */
export function Public() {
  return SetMetadata(PUBLIC_ROUTE, true);
}

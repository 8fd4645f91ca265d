import { httpRequestOf } from '@comanda/http';
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Principal } from '../principal';
import { principalOf } from '../guards/principal-of-request';

/** The verified caller of the request; undefined on a `@Public()` route. */
export const CurrentPrincipal = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Principal | undefined =>
    principalOf(httpRequestOf<object>(context)),
);

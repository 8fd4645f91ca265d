import type { Principal } from '../principal';

const PRINCIPAL = Symbol('comanda.principal');

interface WithPrincipal {
  [PRINCIPAL]?: Principal;
}

export function attachPrincipal(request: object, principal: Principal): void {
  (request as WithPrincipal)[PRINCIPAL] = principal;
}

export function principalOf(request: object): Principal | undefined {
  return (request as WithPrincipal)[PRINCIPAL];
}

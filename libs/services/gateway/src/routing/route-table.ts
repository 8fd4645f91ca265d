import type { UpstreamName } from './upstream';

interface Route {
  upstream: UpstreamName;
  matches(path: string): boolean;
}

/** `/orders` and `/orders/...`, not `/ordersx`. */
const under = (prefix: string) => (path: string) =>
  path === prefix || path.startsWith(`${prefix}/`);
const exactly = (target: string) => (path: string) => path === target;

// The owning service of every public path (docs/architecture.md). `/connect/token` and
// `/.well-known/*` without a tenant are what a tenant's own issuer host serves.
const ROUTES: readonly Route[] = [
  { upstream: 'auth', matches: under('/auth') },
  { upstream: 'auth', matches: under('/admin') },
  { upstream: 'auth', matches: exactly('/connect/token') },
  { upstream: 'auth', matches: under('/.well-known') },
  { upstream: 'config-store', matches: under('/entities') },
  { upstream: 'plugin-registry', matches: under('/frontend/plugins') },
  { upstream: 'orders', matches: under('/stores') },
  { upstream: 'orders', matches: under('/baskets') },
  { upstream: 'orders', matches: under('/orders') },
  { upstream: 'orders', matches: under('/event-subscriptions') },
  { upstream: 'payments', matches: under('/payments') },
  { upstream: 'notifications', matches: under('/notifications') },
];

/** The service that owns a request path (without its query), or undefined when none does. */
export function owningUpstream(path: string): UpstreamName | undefined {
  return ROUTES.find((route) => route.matches(path))?.upstream;
}

/** The services behind the gateway, by the env variable that holds each one's internal URL. */
export const UPSTREAMS = {
  auth: 'AUTH_URL',
  'config-store': 'CONFIG_STORE_URL',
  'plugin-registry': 'PLUGIN_REGISTRY_URL',
  orders: 'ORDERS_URL',
  payments: 'PAYMENTS_URL',
  notifications: 'NOTIFICATIONS_URL',
} as const;

export type UpstreamName = keyof typeof UPSTREAMS;

/** The configured upstreams: name to origin (`http://host:port`, no trailing slash). */
export type UpstreamOrigins = ReadonlyMap<UpstreamName, string>;

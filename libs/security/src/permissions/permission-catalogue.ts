/**
 * Every permission a client can be granted, with what it opens. One source of truth: the
 * `@RequirePermission()` typing, the auth service's validation of grants and
 * `GET /admin/permissions` all read this list.
 */
export const PERMISSIONS = {
  'configs:read': {
    description: 'Read config items and their versions.',
    endpoints: [
      'GET /entities/{entity}/configs',
      'GET /entities/{entity}/configs/versions',
      'GET /entities/{entity}/configs/versions/{version}',
      'GET /entities/{entity}/values',
    ],
  },
  'configs:write': {
    description: 'Create and update config items, and dry-run them.',
    endpoints: [
      'POST /entities/{entity}/configs',
      'PUT /entities/{entity}/configs',
      'POST /entities/{entity}/configs/dry-run',
      'PUT /entities/{entity}/configs/dry-run',
    ],
  },
  'connections:read': {
    description: 'Read typed connections between objects.',
    endpoints: ['GET /entities/{entity}/connections', 'GET /entities/{entity}/connections/{id}'],
  },
  'connections:write': {
    description: 'Create, update and delete connections.',
    endpoints: [
      'POST /entities/{entity}/connections',
      'PUT /entities/{entity}/connections/{id}',
      'DELETE /entities/{entity}/connections/{id}',
    ],
  },
  'extensions:read': {
    description: 'Read extensions.',
    endpoints: ['GET /entities/{entity}/extensions', 'GET /entities/{entity}/extensions/{id}'],
  },
  'extensions:write': {
    description: 'Create, update and remove extensions.',
    endpoints: [
      'POST /entities/{entity}/extensions',
      'PUT /entities/{entity}/extensions/{id}',
      'DELETE /entities/{entity}/extensions/{id}',
    ],
  },
  'plugins:read': {
    description: 'List plugin configs and download plugin code.',
    endpoints: [
      'GET /frontend/plugins/configs',
      'GET /frontend/plugins/{name}/versions/{version}/code',
    ],
  },
  'plugins:write': {
    description: 'Upload plugin code and manifests, update plugin configs.',
    endpoints: [
      'POST /frontend/plugins',
      'POST /frontend/plugins/manifest',
      'PUT /frontend/plugins/{id}/config',
    ],
  },
  'catalog:write': {
    description: 'Import stores and menus (with their mappingDetails).',
    endpoints: ['PUT /stores/{id}', 'PUT /stores/{id}/menu'],
  },
  storefront: {
    description: 'Build baskets and check them out on behalf of guests.',
    endpoints: [
      'GET /stores/{id}',
      'GET /stores/{id}/menu',
      'POST /baskets',
      'GET /baskets/{id}',
      'POST /baskets/{id}/items',
      'POST /baskets/{id}/checkout',
    ],
  },
  'orders:read': {
    description: 'Read orders with their placement and payment state.',
    endpoints: [
      'GET /orders',
      'GET /orders/{id}',
      'GET /orders/{id}/receipt',
      'GET /orders/{id}/confirmation-email',
      'GET /payments/{id}',
      'GET /stores/{id}',
      'GET /stores/{id}/menu',
      'POST /event-subscriptions',
      'GET /event-subscriptions',
      'GET /event-subscriptions/{id}',
      'DELETE /event-subscriptions/{id}',
      'GET /event-subscriptions/{id}/deliveries',
      'POST /event-subscriptions/{id}/deliveries/{deliveryId}/redeliver',
    ],
  },
  'orders:placement': {
    description: 'Place orders in a POS: start a placement session, report placed or failed.',
    endpoints: [
      'POST /orders/{id}/place-order-session/start',
      'POST /orders/{id}/pos/placed',
      'POST /orders/{id}/pos/failed',
    ],
  },
  'loyalty:write': {
    description: 'Add loyalty discounts to baskets.',
    endpoints: ['POST /baskets/{id}/discounts'],
  },
  'payments:admin': {
    description: 'Configure payment merchants (partner URL, signing secret).',
    endpoints: ['PUT /payments/merchants/{id}', 'GET /payments/merchants/{id}'],
  },
  'personal-data:read': {
    description:
      'Read guest name, e-mail, phone and address unredacted on every order read; opens no endpoint by itself.',
    endpoints: [],
  },
  'platform:admin': {
    description:
      'Support staff: manage tenants, clients and signing keys. Granted only to clients of the platform tenant.',
    endpoints: [
      'POST /admin/tenants',
      'GET /admin/tenants',
      'POST /admin/clients',
      'GET /admin/clients',
      'GET /admin/clients/{clientId}',
      'POST /admin/clients/{clientId}/permissions',
      'POST /admin/clients/{clientId}/secret',
      'DELETE /admin/clients/{clientId}',
      'GET /admin/permissions',
      'POST /admin/keys/rotate',
    ],
  },
} as const satisfies Record<string, { description: string; endpoints: readonly string[] }>;

export type Permission = keyof typeof PERMISSIONS;

export const PERMISSION_NAMES = Object.keys(PERMISSIONS) as Permission[];

/** The permission that reveals personal data in reads (see `redactPersonalData`). */
export const PERSONAL_DATA_PERMISSION: Permission = 'personal-data:read';

/** Only tokens of this tenant may carry `platform:admin`. */
export const PLATFORM_TENANT_ID = 'platform';

export function isPermission(value: string): value is Permission {
  return Object.prototype.hasOwnProperty.call(PERMISSIONS, value);
}

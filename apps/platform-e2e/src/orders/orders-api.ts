import { randomUUID } from 'node:crypto';
import type { Permission } from '@comanda/security';
import { provisionClient, type ProvisionedClient } from '../support/clients';
import type { TestPlatform } from '../support/platform';

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  text: string;
  json: T;
}

/** Everything a restaurant's integrations do, one client per role, all through the gateway. */
export interface OrdersTenant {
  tenantId: string;
  /** Calls with a client holding exactly `permissions` (cached per permission set). */
  as<T = Record<string, unknown>>(
    permissions: Permission[],
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<ApiResponse<T>>;
  /** The client `as` uses for `permissions`, e.g. to hand its credentials to a POS adapter. */
  client(permissions: Permission[]): Promise<ProvisionedClient>;
}

export const ALL_ORDER_PERMISSIONS: Permission[] = [
  'catalog:write',
  'storefront',
  'orders:read',
  'orders:placement',
  'loyalty:write',
  'configs:write',
];

export async function ordersTenant(
  platform: TestPlatform,
  tenantId: string,
  environment: 'test' | 'production' = 'test',
): Promise<OrdersTenant> {
  const clients = new Map<string, Promise<ProvisionedClient>>();
  const clientFor = (permissions: Permission[]) => {
    const key = [...permissions].sort().join(' ');
    let client = clients.get(key);
    if (!client) {
      client = provisionClient(platform, {
        tenantId,
        permissions: permissions.filter((permission) => permission !== 'personal-data:read'),
        personalData: permissions.includes('personal-data:read'),
        environment,
      });
      clients.set(key, client);
    }
    return client;
  };
  return {
    tenantId,
    client: clientFor,
    async as(permissions, method, path, body, headers = {}) {
      const client = await clientFor(permissions);
      const response = await fetch(`${platform.baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${await client.token()}`,
          'x-api-version': '0',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      const isJson = /json/.test(response.headers.get('content-type') ?? '') && text.length > 0;
      return {
        status: response.status,
        headers: response.headers,
        text,
        json: (isJson ? JSON.parse(text) : undefined) as never,
      };
    },
  };
}

export const GUEST = {
  name: 'Zoë Müller',
  email: 'zoe@example.com',
  phone: '+41 79 000 00 00',
  address: { street: 'Bahnhofstrasse 1', city: 'Zürich', postalCode: '8001', country: 'CH' },
};

export const STORE_MAPPING = {
  'pos.store.id': '007',
  ' spaced key ': '  leading and trailing  ',
  quotes: 'say "hi" \\ and \'bye\'',
  unicode: 'Crème brûlée 🍮 ✓',
};

export const ITEM_MAPPING = { plu: '000123', 'modifiers.group': 'A.B.C', note: 'tab\there' };

/** A store with a two-item menu; returns its id. */
export async function seedStore(
  tenant: OrdersTenant,
  options: { paymentMerchantId?: string } = {},
): Promise<string> {
  const storeId = `store-${randomUUID().slice(0, 8)}`;
  const store = await tenant.as(['catalog:write'], 'PUT', `/stores/${storeId}`, {
    name: 'Zum Löwen',
    currency: 'CHF',
    mappingDetails: STORE_MAPPING,
    ...options,
  });
  if (store.status !== 200) throw new Error(`store: ${store.status} ${store.text}`);
  const menu = await tenant.as(['catalog:write'], 'PUT', `/stores/${storeId}/menu`, {
    items: [
      {
        id: 'burger',
        type: 'menuItem',
        title: 'Burger',
        price: 1850,
        mappingDetails: ITEM_MAPPING,
      },
      {
        id: 'fries',
        type: 'menuItem',
        title: 'Fries',
        price: 600,
        mappingDetails: { plu: '0042' },
      },
    ],
  });
  if (menu.status !== 200) throw new Error(`menu: ${menu.status} ${menu.text}`);
  return storeId;
}

export interface CheckedOut {
  basketId: string;
  orderId: string;
  status: string;
}

export interface BasketOptions {
  fulfillment?: 'pickup' | 'delivery';
  payment?: { merchantId: string; paymentMethod: string };
  quantity?: number;
  requestedReadyTime?: string;
}

/** A basket with `quantity` burgers (without payment unless given), not checked out: its id. */
export async function filledBasket(
  tenant: OrdersTenant,
  storeId: string,
  options: BasketOptions = {},
): Promise<string> {
  const basket = await tenant.as<{ id: string }>(['storefront'], 'POST', '/baskets', {
    storeId,
    fulfillment: options.fulfillment ?? 'pickup',
    guest: GUEST,
    ...(options.payment ? { payment: options.payment } : {}),
    ...(options.requestedReadyTime ? { requestedReadyTime: options.requestedReadyTime } : {}),
  });
  if (basket.status !== 201) throw new Error(`basket: ${basket.status} ${basket.text}`);
  const item = await tenant.as(['storefront'], 'POST', `/baskets/${basket.json.id}/items`, {
    menuItemId: 'burger',
    quantity: options.quantity ?? 1,
  });
  if (item.status !== 201) throw new Error(`item: ${item.status} ${item.text}`);
  return basket.json.id;
}

/** A basket with `quantity` burgers, checked out (without payment unless given). */
export async function placeBasket(
  tenant: OrdersTenant,
  storeId: string,
  options: BasketOptions = {},
): Promise<CheckedOut> {
  const basketId = await filledBasket(tenant, storeId, options);
  const checkout = await tenant.as<{ orderId: string; status: string }>(
    ['storefront'],
    'POST',
    `/baskets/${basketId}/checkout`,
    {},
  );
  if (checkout.status !== 202) throw new Error(`checkout: ${checkout.status} ${checkout.text}`);
  return { basketId, ...checkout.json };
}

export function placedReport(refs: Record<string, string> = {}): Record<string, unknown> {
  return {
    orderName: 'Check 42',
    datePlaced: '2026-11-23T18:00:00Z',
    estimatedReadyTime: '2026-11-23T18:20:00+01:00',
    orderRefsDict: refs,
    receipt: 'ZUM LÖWEN\n1 x Burger   18.50\nTOTAL CHF 18.50\n',
    extensions: { table: 7 },
  };
}

/** Queues of orders' consumers: durable, so a test removes the ones its platform declared. */

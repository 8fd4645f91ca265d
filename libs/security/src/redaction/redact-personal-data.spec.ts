import type { Principal } from '../principal';
import { REDACTED, redactPersonalData } from './redact-personal-data';

const principal = (scopes: string[]): Principal => ({
  clientId: 'c',
  tenantId: 't',
  environment: 'test',
  scopes: new Set(scopes),
  personalData: scopes.includes('personal-data:read'),
  tokenId: 'j',
});

const order = {
  id: 'o-1',
  guest: { name: 'Ada', email: 'ada@example.com', phone: null },
  deliveryAddress: { street: 'Main 1', city: 'Bern' },
  items: [{ sku: 'a', note: 'for Ada' }, { sku: 'b' }],
};
const paths = [
  'guest.name',
  'guest.email',
  'guest.phone',
  'deliveryAddress',
  'items[].note',
  'missing.field',
];

describe('redactPersonalData', () => {
  it('replaces guest name, e-mail, address and nested array fields without personal-data:read', () => {
    expect(redactPersonalData(order, principal(['orders:read']), paths)).toEqual({
      id: 'o-1',
      guest: { name: REDACTED, email: REDACTED, phone: null },
      deliveryAddress: REDACTED,
      items: [{ sku: 'a', note: REDACTED }, { sku: 'b' }],
    });
  });

  it('leaves the input untouched', () => {
    const copy = structuredClone(order);
    redactPersonalData(order, principal([]), paths);
    expect(order).toEqual(copy);
  });

  it('returns the data as is with personal-data:read', () => {
    expect(redactPersonalData(order, principal(['orders:read', 'personal-data:read']), paths)).toBe(
      order,
    );
  });
});

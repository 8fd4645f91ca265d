import {
  acceptedMediaType,
  bodyLimitFor,
  hasDotSegment,
  isVersionExempt,
  mediaTypeOf,
  requiresBearer,
} from './request-policy';
import { owningUpstream } from './route-table';

describe('request policy', () => {
  it.each([
    '/auth/acme/connect/token',
    '/connect/token',
    '/auth/acme/.well-known/jwks.json',
    '/.well-known/openid-configuration',
    '/notifications/merchants/m-1/events',
    '/health/ready',
    '/docs',
    '/docs/openapi.json',
  ])('exempts %s from X-Api-Version', (path) => expect(isVersionExempt(path)).toBe(true));

  it.each([
    '/admin/clients',
    '/auth/acme/connect/token/extra',
    '/auth/acme/other',
    '/notifications/merchants/m-1',
    '/notifications/merchants/m-1/events/1',
    '/docsx',
    '/entities/x/configs',
  ])('requires X-Api-Version on %s', (path) => expect(isVersionExempt(path)).toBe(false));

  it('names the one media type each endpoint takes', () => {
    expect(acceptedMediaType('POST', '/auth/acme/connect/token')).toBe(
      'application/x-www-form-urlencoded',
    );
    expect(acceptedMediaType('POST', '/frontend/plugins')).toBe('text/plain');
    expect(acceptedMediaType('POST', '/frontend/plugins/manifest')).toBe('application/json');
    expect(acceptedMediaType('PUT', '/stores/s1')).toBe('application/json');
    expect(mediaTypeOf('Application/JSON; charset=UTF-8')).toBe('application/json');
    expect(mediaTypeOf(undefined)).toBeUndefined();
  });

  it('gives plugin code its own body limit', () => {
    const limits = { defaultBytes: 10, pluginCodeBytes: 20, serviceBytes: new Map() };
    expect(bodyLimitFor('POST', '/frontend/plugins', limits)).toBe(20);
    expect(bodyLimitFor('POST', '/frontend/plugins/manifest', limits)).toBe(10);
  });

  it("applies a service's own smaller limit to the paths it owns", () => {
    const serviceBytes = new Map([
      ['auth', 5],
      ['notifications', 7],
      ['plugin-registry', 40],
    ]);
    const limits = { defaultBytes: 10, pluginCodeBytes: 20, serviceBytes };
    expect(bodyLimitFor('POST', '/admin/tenants', limits, 'auth')).toBe(5);
    expect(bodyLimitFor('POST', '/notifications/merchants/m/events', limits, 'notifications')).toBe(
      7,
    );
    expect(bodyLimitFor('PUT', '/stores/s1', limits, 'orders')).toBe(10);
    // Never more than the gateway's own limit.
    expect(bodyLimitFor('POST', '/frontend/plugins/configs', limits, 'plugin-registry')).toBe(10);
  });

  it('requires a bearer token everywhere but OAuth, partner events, health, docs and /', () => {
    for (const path of [
      '/admin/tenants',
      '/entities/x/configs',
      '/orders/1',
      '/frontend/plugins',
    ]) {
      expect(requiresBearer(path)).toBe(true);
    }
    for (const path of [
      '/',
      '/auth/acme/connect/token',
      '/notifications/merchants/m/events',
      '/health/ready',
      '/docs',
    ]) {
      expect(requiresBearer(path)).toBe(false);
    }
  });

  it('finds dot segments, plain or percent-encoded', () => {
    expect(hasDotSegment('/entities/../admin')).toBe(true);
    expect(hasDotSegment('/entities/%2E%2e/admin')).toBe(true);
    expect(hasDotSegment('/entities/./x')).toBe(true);
    expect(hasDotSegment('/entities/v1.2/x')).toBe(false);
    expect(hasDotSegment('/entities/.../x')).toBe(false);
  });

  it('routes by whole path segments', () => {
    expect(owningUpstream('/orders')).toBe('orders');
    expect(owningUpstream('/orders/1')).toBe('orders');
    expect(owningUpstream('/ordersx')).toBeUndefined();
    expect(owningUpstream('/frontend/plugins')).toBe('plugin-registry');
    expect(owningUpstream('/frontend/other')).toBeUndefined();
    expect(owningUpstream('/')).toBeUndefined();
  });
});

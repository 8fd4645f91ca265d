import { mergeOpenApiDocuments } from './openapi-merge';

describe('OpenAPI merge', () => {
  it('keeps the paths each service owns, merges components and tags, and names unavailable services', () => {
    const merged = mergeOpenApiDocuments(
      [
        {
          upstream: 'auth',
          document: {
            paths: {
              '/admin/tenants': { get: {} },
              '/health/ready': { get: {} },
              '/orders/{id}': { get: {} },
            },
            components: { schemas: { Tenant: { type: 'object' }, Shared: { title: 'auth' } } },
            tags: [{ name: 'admin' }],
          },
        },
        {
          upstream: 'orders',
          document: {
            paths: { '/orders/{id}': { get: { operationId: 'getOrder' } } },
            components: { schemas: { Order: { type: 'object' }, Shared: { title: 'orders' } } },
            tags: [{ name: 'admin' }, { name: 'orders' }],
          },
        },
      ],
      ['payments'],
    );
    expect(Object.keys(merged.paths ?? {})).toEqual(['/admin/tenants', '/orders/{id}']);
    expect(merged.paths?.['/orders/{id}']).toEqual({ get: { operationId: 'getOrder' } });
    expect(merged.components?.['schemas']).toEqual({
      Tenant: { type: 'object' },
      Order: { type: 'object' },
      Shared: { title: 'auth' },
    });
    expect(merged.tags).toEqual([{ name: 'admin' }, { name: 'orders' }]);
    expect(merged['x-comanda-unavailable-services']).toEqual(['payments']);
  });

  it('marks the OAuth endpoints and partner events as needing neither a bearer token nor X-Api-Version', () => {
    const version = { name: 'X-Api-Version', in: 'header', required: true };
    const tenant = { name: 'tenantId', in: 'path', required: true };
    const merged = mergeOpenApiDocuments(
      [
        {
          upstream: 'auth',
          document: {
            paths: {
              '/auth/{tenantId}/connect/token': { post: { parameters: [version, tenant] } },
              '/auth/{tenantId}/.well-known/jwks.json': { get: { parameters: [version] } },
              '/admin/tenants': { get: { parameters: [version] } },
            },
          },
        },
        {
          upstream: 'notifications',
          document: {
            paths: {
              '/notifications/merchants/{merchantId}/events': {
                post: { parameters: [version], summary: 'a partner event' },
              },
            },
          },
        },
      ],
      [],
    );
    expect(merged.security).toEqual([{ bearer: [] }]);
    expect(merged.paths?.['/auth/{tenantId}/connect/token']).toEqual({
      post: { parameters: [tenant], security: [] },
    });
    expect(merged.paths?.['/auth/{tenantId}/.well-known/jwks.json']).toEqual({
      get: { parameters: [], security: [] },
    });
    expect(merged.paths?.['/notifications/merchants/{merchantId}/events']).toEqual({
      post: { parameters: [], summary: 'a partner event', security: [] },
    });
    // Everything else keeps the document's bearer requirement and the version header.
    expect(merged.paths?.['/admin/tenants']).toEqual({ get: { parameters: [version] } });
  });
});

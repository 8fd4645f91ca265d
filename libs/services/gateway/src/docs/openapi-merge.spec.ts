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
});

import { addProblemAnswers } from './problem-openapi';

describe('problem answers in an OpenAPI document', () => {
  it('gives every operation a default problem+json answer and the Problem schema', () => {
    const document = addProblemAnswers({
      paths: {
        '/orders/{id}': {
          get: { responses: { '200': { description: 'ok' } } },
          parameters: [],
        },
        '/orders': { post: {} },
      },
    });
    const problem = {
      content: {
        'application/problem+json; charset=utf-8': {
          schema: { $ref: '#/components/schemas/Problem' },
        },
      },
    };
    expect(document.paths['/orders/{id}'].get).toMatchObject({
      responses: { '200': { description: 'ok' }, default: problem },
    });
    expect(document.paths['/orders'].post).toMatchObject({ responses: { default: problem } });
    expect(document.paths['/orders/{id}'].parameters).toEqual([]);
    expect(
      (document as { components?: Record<string, Record<string, unknown>> }).components?.[
        'schemas'
      ]?.['Problem'],
    ).toMatchObject({ type: 'object' });
  });
});

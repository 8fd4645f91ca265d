import { randomBytes } from 'node:crypto';
import { expectPlatformServing, V0 } from './support/clients';
import { startDeployment, type Deployment } from './support/deployment';
import { tenantClientToken } from './support/tenant-client';

interface Answer {
  status: number;
  /** The body with the id it names replaced, and what differs per request removed. */
  body: unknown;
}

describe('row 10 (medium): private extension ids reveal nothing about other tenants', () => {
  let deployment: Deployment;
  let victim: string;
  let attacker: string;
  const extensions = '/entities/menu/extensions';

  beforeAll(async () => {
    deployment = await startDeployment('extension_ids');
    const permissions = ['extensions:read', 'extensions:write'];
    victim = (await tenantClientToken(deployment, permissions, 'victim')).token;
    attacker = (await tenantClientToken(deployment, permissions, 'attacker')).token;
  });
  afterAll(() => deployment?.close());

  async function call(token: string, method: string, path: string, body?: unknown) {
    return fetch(`${deployment.baseUrl}${path}`, {
      method,
      headers: {
        ...V0,
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  /** What the attacker learns from each request about `id`, the id itself blanked out. */
  async function probe(id: string): Promise<Answer[]> {
    const requests: Array<[string, string, unknown?]> = [
      ['GET', `${extensions}/${id}?include_private=true&include_deleted=true`],
      [
        'PUT',
        `${extensions}/${id}?include_deleted=true`,
        { id, version: '2', availability: 'Public' },
      ],
      ['DELETE', `${extensions}/${id}`],
      ['POST', extensions, { id, version: '1', availability: 'Private' }],
    ];
    const answers: Answer[] = [];
    for (const [method, path, body] of requests) {
      const response = await call(attacker, method, path, body);
      const text = (await response.text()).split(id).join('<id>');
      answers.push({
        status: response.status,
        body: JSON.parse(text, (key, value: unknown) =>
          ['requestId', 'instance', 'createdAt', 'lastUpdateDate'].includes(key)
            ? undefined
            : value,
        ),
      });
    }
    return answers;
  }

  it('answers another tenant probing a private id exactly as for an id nobody used, and lets it take the id', async () => {
    const secret = `secret-${randomBytes(4).toString('hex')}`;
    const created = await call(victim, 'POST', extensions, {
      id: secret,
      version: 'v1',
      availability: 'Private',
    });
    expect(created.status).toBe(200);

    const taken = await probe(secret);
    const unused = await probe(`unused-${randomBytes(4).toString('hex')}`);
    expect(taken).toEqual(unused);
    expect(taken.map((answer) => answer.status)).toEqual([404, 404, 404, 200]);

    // The attacker now holds the id too, and may even publish it: the victim keeps its own.
    const published = await call(attacker, 'PUT', `${extensions}/${secret}`, {
      id: secret,
      version: 'v2',
      availability: 'Public',
    });
    expect(published.status).toBe(200);
    const own = await call(victim, 'GET', `${extensions}/${secret}?include_private=true`);
    expect(own.status).toBe(200);
    expect(await own.json()).toMatchObject({ id: secret, version: 'v1', availability: 'Private' });
    await expectPlatformServing(deployment);
  });
});

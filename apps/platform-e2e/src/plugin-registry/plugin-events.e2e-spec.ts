import type { CloudEvent } from '@comanda/contracts';
import { RabbitMqBus } from '@comanda/messaging';
import {
  createTestBroker,
  disposePlatformBroker,
  waitFor,
  type TestBroker,
} from '@comanda/testing';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import {
  freshPlugin,
  manifestFor,
  pluginCode,
  pluginTeam,
  type PluginTeam,
} from './plugin-registry-api';

const OBSERVER_QUEUE = 'plugin-events-observer';

describe('plugin registry events on RabbitMQ', () => {
  let broker: TestBroker;
  let platform: TestPlatform;
  let observer: RabbitMqBus;
  let team: PluginTeam;
  const received: CloudEvent[] = [];

  beforeAll(async () => {
    broker = await createTestBroker('e2e-plugin-events');
    platform = await startTestPlatform('e2e_plugin_events', { broker });
    observer = new RabbitMqBus({
      url: broker.url,
      exchange: broker.exchange,
      queuePrefix: broker.queuePrefix,
      connectionName: 'plugin-events-observer',
    });
    await observer.subscribe({
      queue: OBSERVER_QUEUE,
      eventTypes: ['plugin.code_uploaded', 'plugin.manifest_uploaded', 'plugin.config_updated'],
      retry: { delaysMs: [] },
      handler: async (message) => {
        received.push(message.event);
      },
    });
    team = await pluginTeam(platform, 'tenant-plugin-events');
  }, 120_000);

  afterAll(async () => {
    await observer?.close();
    await platform?.close();
    if (broker) await disposePlatformBroker(broker, [`${broker.queuePrefix}${OBSERVER_QUEUE}`]);
  });

  it('announces each code upload, manifest upload and config change as a CloudEvent of the tenant, in order', async () => {
    const name = freshPlugin('events');
    await team.uploadCode(name, '1.0.0', pluginCode('a'));
    await team.uploadCode(name, '1.0.0', pluginCode('b'));
    await team.uploadManifest(name, manifestFor('1.0.0'));
    const config = await team.call('POST', '/frontend/plugins/configs', {
      body: { name, version: '1.0.0', config: {} },
    });
    expect(config.status).toBe(201);

    const ours = await waitFor('the four plugin events on the bus', () => {
      const events = received.filter((event) => event.tenantid === team.tenantId);
      return events.length >= 4 ? events : undefined;
    });
    expect(ours.map((event) => [event.type, event.subject, event.source])).toEqual([
      ['plugin.code_uploaded', `${name}@1.0.0`, '/comanda/plugin-registry'],
      ['plugin.code_uploaded', `${name}@1.0.0`, '/comanda/plugin-registry'],
      ['plugin.manifest_uploaded', `${name}@1.0.0`, '/comanda/plugin-registry'],
      ['plugin.config_updated', config.json.id, '/comanda/plugin-registry'],
    ]);
    expect(ours[1].data).toMatchObject({ name, version: '1.0.0', overwritten: true });
    expect(ours[3].data).toEqual({ id: config.json.id, name, version: '1.0.0' });
  });

  it('announces nothing for a refused change', async () => {
    const name = freshPlugin('refused');
    expect((await team.uploadCode(name, '1.0.0', 'export default 42;')).status).toBe(422);
    expect((await team.uploadManifest(name, manifestFor('1.0.0'))).status).toBe(422);
    // A later accepted change of the same tenant arrives; nothing of the refused plugin precedes it.
    const marker = freshPlugin('marker');
    await team.uploadCode(marker, '1.0.0', pluginCode('m'));
    await waitFor('the marker event', () =>
      received.some((event) => event.subject === `${marker}@1.0.0`),
    );
    expect(received.filter((event) => event.subject.startsWith(`${name}@`))).toEqual([]);
  });
});

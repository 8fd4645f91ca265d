import { ComandaClient } from './comanda-client';
import type { AdapterConfig } from './config';
import { OrderPlacer, type Logger } from './order-placer';
import { RabbitMqSource } from './rabbitmq-source';
import { SimulatedPos } from './simulated-pos';
import { WebhookSource } from './webhook-source';

export interface RunningAdapter {
  /** The port of the webhook endpoint, when webhooks are on. */
  webhookPort?: number;
  close(): Promise<void>;
}

/** Starts the sources the config turns on; all of them feed the same placer. */
export async function startAdapter(
  config: AdapterConfig,
  log: Logger = console,
  /** The broker connection is gone (the process should exit and be restarted). */
  onLost: (reason: string) => void = (reason) => log.warn(reason),
): Promise<RunningAdapter> {
  const placer = new OrderPlacer(new ComandaClient(config), new SimulatedPos(config.pos), log);
  const closers: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const closeOne of closers.reverse()) await closeOne();
  };
  try {
    let webhookPort: number | undefined;
    if (config.rabbitmq) {
      const source = new RabbitMqSource(config.rabbitmq, config.tenantId, placer, log, onLost);
      closers.push(() => source.close());
      await source.start();
    }
    if (config.webhook) {
      const source = new WebhookSource(config.webhook, placer, log);
      closers.push(() => source.close());
      webhookPort = await source.start();
    }
    return { webhookPort, close };
  } catch (error) {
    await close();
    throw error;
  }
}

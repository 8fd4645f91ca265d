import {
  Injectable,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { OutboxRelay } from './outbox/outbox.relay';
import { TimerHandlerRegistry } from './timers/timer-handler.registry';
import { TimerPoller } from './timers/timer.poller';

/**
 * Starts the relay and the timer poller once every module is initialised, and stops them on
 * shutdown in the order that loses nothing: timers first (their effects may add events),
 * then the relay, which finally publishes whatever is pending.
 */
@Injectable()
export class MessagingLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly relay: OutboxRelay,
    private readonly poller: TimerPoller,
    private readonly registry: TimerHandlerRegistry,
  ) {}

  onApplicationBootstrap(): void {
    this.registry.discover();
    this.relay.start();
    this.poller.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.poller.stop();
    await this.relay.stop();
    await this.relay.drain();
  }

  /** For the readiness check: both loops run and their last database round trip worked. */
  isHealthy(): boolean {
    return this.relay.isHealthy() && this.poller.isHealthy();
  }
}

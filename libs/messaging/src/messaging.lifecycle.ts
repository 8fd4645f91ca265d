import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { Inbox } from './inbox/inbox.service';
import { MESSAGING_OPTIONS, type MessagingOptions } from './messaging.options';
import { OutboxRelay } from './outbox/outbox.relay';
import type { LoopState } from './polling/polling-loop';
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
    @Inject(MESSAGING_OPTIONS) private readonly options: MessagingOptions,
    private readonly inbox: Inbox,
  ) {}

  onApplicationBootstrap(): void {
    this.registry.discover();
    if (!this.options.deferRelayStart) this.relay.start();
    this.poller.start();
    this.inbox.startCleanup();
  }

  /** Starts the outbox relay held back by `deferRelayStart` (idempotent). */
  startRelay(): void {
    this.relayStarted = true;
    this.relay.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.inbox.stopCleanup();
    await this.poller.stop();
    await this.relay.stop();
    await this.relay.drain();
  }

  /**
   * For the readiness check: the poller, the loops `watch`ed (and the relay, once started)
   * run, their last round worked, and none has been stuck in a round for three poll
   * intervals (at least 5 s).
   */
  isHealthy(): boolean {
    const { relay, ...others } = this.loops();
    return (
      (relay === 'ok' || relay === 'not-started') &&
      Object.values(others).every((state) => state === 'ok')
    );
  }

  /** Each loop's state, for the readiness answer: which one is stopped, stuck or failing. */
  loops(): Record<string, LoopState | 'not-started'> & { relay: LoopState | 'not-started' } {
    const relayStarted = !this.options.deferRelayStart || this.relayStarted;
    const watched = Object.fromEntries([...this.watched].map(([name, state]) => [name, state()]));
    return {
      ...watched,
      relay: relayStarted ? this.relay.state() : 'not-started',
      timers: this.poller.state(),
    };
  }

  /**
   * Another loop of the service for readiness to watch beside the relay and the timer
   * poller (a sender of posts to partners or webhook endpoints): `state` is read per probe.
   */
  watch(name: string, state: () => LoopState): void {
    this.watched.set(name, state);
  }

  private readonly watched = new Map<string, () => LoopState>();

  private relayStarted = false;
}

import { Injectable } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { ON_TIMER_METADATA, type OnTimerMetadata, type OnTimerOptions } from './on-timer.decorator';
import { DuplicateTimerHandlerError, TimerLockNotFoundError } from './timer.errors';
import type { TimerHandler, TimerLock } from './timer.types';

/** What a handler registered in code may declare (`lockFirst` as the function itself). */
export interface TimerRegistration extends Omit<OnTimerOptions, 'lockFirst'> {
  lockFirst?: TimerLock;
}

/**
 * The timer handlers of the application: the `@OnTimer` methods, found once at bootstrap,
 * and those registered in code (the bus server's retries, docs/adr/0032), whenever that is.
 */
@Injectable()
export class TimerHandlerRegistry {
  private readonly discovered = new Map<string, TimerHandler>();
  private readonly registered = new Map<string, TimerHandler>();
  /** Names of the deadlines that get a grace after an outage (`graceAfterOutage`). */
  private readonly graced = new Set<string>();
  /** What each handler locks before its timer's row (`lockFirst`), by timer name. */
  private readonly locks = new Map<string, TimerLock>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  /** Finds the `@OnTimer` methods again; handlers registered in code are kept. */
  discover(): void {
    for (const name of this.discovered.keys()) {
      this.graced.delete(name);
      this.locks.delete(name);
    }
    this.discovered.clear();
    for (const wrapper of this.discovery.getProviders()) {
      const instance: unknown = wrapper.instance;
      if (!instance || typeof instance !== 'object' || !wrapper.isDependencyTreeStatic()) continue;
      const prototype: unknown = Object.getPrototypeOf(instance);
      if (!prototype || typeof prototype !== 'object') continue;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const target = (instance as Record<string, unknown>)[method];
        if (typeof target !== 'function') continue;
        const marked = this.reflector.get<OnTimerMetadata | undefined>(ON_TIMER_METADATA, target);
        if (marked === undefined) continue;
        const { name, lockFirst, ...options } = marked;
        if (this.get(name)) throw new DuplicateTimerHandlerError(name);
        let lock: TimerLock | undefined;
        if (lockFirst !== undefined) {
          const method = (instance as Record<string, unknown>)[lockFirst];
          // The handler itself would run twice, once before the timer's row is marked.
          if (typeof method !== 'function' || method === target) {
            throw new TimerLockNotFoundError(name, lockFirst);
          }
          lock = (method as TimerLock).bind(instance);
        }
        this.discovered.set(name, (target as TimerHandler).bind(instance));
        this.noteOptions(name, { ...options, lockFirst: lock });
      }
    }
  }

  register(name: string, handler: TimerHandler, options: TimerRegistration = {}): void {
    if (this.get(name)) throw new DuplicateTimerHandlerError(name);
    this.registered.set(name, handler);
    this.noteOptions(name, options);
  }

  get(name: string): TimerHandler | undefined {
    return this.discovered.get(name) ?? this.registered.get(name);
  }

  names(): string[] {
    return [...this.discovered.keys(), ...this.registered.keys()];
  }

  /** What the handler of timers `name` locks before the timer's row, if it declared it. */
  lockFirst(name: string): TimerLock | undefined {
    return this.locks.get(name);
  }

  /** The timers that are deadlines for reports from outside (`graceAfterOutage`). */
  gracedNames(): string[] {
    return [...this.graced];
  }

  private noteOptions(name: string, options: TimerRegistration): void {
    if (options.graceAfterOutage) this.graced.add(name);
    if (options.lockFirst) this.locks.set(name, options.lockFirst);
  }
}

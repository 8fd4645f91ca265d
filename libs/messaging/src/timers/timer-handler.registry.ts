import { Injectable } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { ON_TIMER_METADATA } from './on-timer.decorator';
import { DuplicateTimerHandlerError } from './timer.errors';
import type { TimerHandler } from './timer.types';

/** The `@OnTimer` handlers of the application, found once at bootstrap. */
@Injectable()
export class TimerHandlerRegistry {
  private readonly handlers = new Map<string, TimerHandler>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  discover(): void {
    this.handlers.clear();
    for (const wrapper of this.discovery.getProviders()) {
      const instance: unknown = wrapper.instance;
      if (!instance || typeof instance !== 'object' || !wrapper.isDependencyTreeStatic()) continue;
      const prototype: unknown = Object.getPrototypeOf(instance);
      if (!prototype || typeof prototype !== 'object') continue;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const target = (instance as Record<string, unknown>)[method];
        if (typeof target !== 'function') continue;
        const name = this.reflector.get<string | undefined>(ON_TIMER_METADATA, target);
        if (name === undefined) continue;
        this.register(name, (target as TimerHandler).bind(instance));
      }
    }
  }

  register(name: string, handler: TimerHandler): void {
    if (this.handlers.has(name)) throw new DuplicateTimerHandlerError(name);
    this.handlers.set(name, handler);
  }

  get(name: string): TimerHandler | undefined {
    return this.handlers.get(name);
  }

  names(): string[] {
    return [...this.handlers.keys()];
  }
}

import { SetMetadata } from '@nestjs/common';

export const ON_TIMER_METADATA = 'comanda:on-timer';

/**
 * Marks a provider method as the handler of the durable timers named `name`:
 * `(payload, manager, timer) => Promise<void>`. One handler per name per service.
 */
export function OnTimer(name: string): MethodDecorator {
  return SetMetadata(ON_TIMER_METADATA, name);
}

import type { LoggerService } from '@nestjs/common';

/** The part of a Nest logger the buses write to. */
export type BusLogger = Pick<LoggerService, 'log' | 'warn' | 'error'>;

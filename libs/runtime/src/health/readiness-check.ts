/**
 * A readiness condition a service adds to its own (database, bus, loops): provided under
 * READINESS_CHECK by the service's module, shown under its `name` in `/health/ready`.
 */
export interface ReadinessCheck {
  name: string;
  /** `up: false` turns readiness red; `details` are shown beside it. */
  check(): Promise<{ up: boolean; details?: Record<string, unknown> }>;
}

export const READINESS_CHECK = Symbol('READINESS_CHECK');

import { Inject, Injectable, Optional } from '@nestjs/common';

/**
 * More metrics to serve beside a service's own at its `/metrics` (Prometheus text format):
 * provided under METRICS_SOURCE by the service's module. The standalone gateway gives the
 * metrics of every service of its process, so that the one public port shows them all.
 */
export interface MetricsSource {
  expositions(): Promise<string[]>;
}

export const METRICS_SOURCE = Symbol('METRICS_SOURCE');

/** Holds the service's METRICS_SOURCE, if its module exports one (most do not). */
@Injectable()
export class MoreMetrics {
  constructor(@Optional() @Inject(METRICS_SOURCE) readonly source?: MetricsSource) {}
}

interface Family {
  head: string[];
  samples: string[];
}

/**
 * The metrics prom-client collects of the process itself (`collectDefaultMetrics`): every
 * registry of a process gives the same values, each under its own `service` label.
 */
const PROCESS_WIDE = /^(nodejs|process)_/;

/**
 * Several registries' text expositions as one: the samples of a metric family named in more
 * than one are gathered under that family's first `# HELP` and `# TYPE`, which the format
 * allows once. All the registries are of one process: its process-wide families are taken
 * from the first exposition only, not repeated once per service.
 */
export function mergeExpositions(texts: readonly string[]): string {
  const families = new Map<string, Family>();
  texts.forEach((text, index) => {
    let family: Family | undefined;
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const comment = /^# (HELP|TYPE) (\S+)/.exec(line);
      if (comment) {
        const name = comment[2];
        if (index > 0 && PROCESS_WIDE.test(name)) {
          family = undefined;
          continue;
        }
        family = families.get(name);
        if (!family) {
          family = { head: [], samples: [] };
          families.set(name, family);
        }
        if (!family.head.some((kept) => kept.startsWith(`# ${comment[1]} `))) {
          family.head.push(line);
        }
      } else if (family) {
        family.samples.push(line);
      }
    }
  });
  // As prom-client writes a registry: each family's lines, a blank line between families.
  return [...families.values()]
    .map((family) => `${[...family.head, ...family.samples].join('\n')}\n`)
    .join('\n');
}

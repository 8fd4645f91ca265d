import type { Principal } from '../principal';

/** What a redacted field reads as. */
export const REDACTED = '[redacted]';

/**
 * A copy of `value` with the personal data at `paths` replaced by `"[redacted]"`, unless the
 * principal holds `personal-data:read` (then `value` itself). Paths are dotted; `[]` walks
 * every element of an array: `guest.email`, `deliveryAddress`, `guests[].phone`. Absent and
 * null fields stay as they are. The input is never modified.
 */
export function redactPersonalData<T>(value: T, principal: Principal, paths: string[]): T {
  if (principal.personalData) return value;
  let result: unknown = value;
  for (const path of paths) result = redactPath(result, parsePath(path));
  return result as T;
}

type Step = { key: string } | { each: true };

function parsePath(path: string): Step[] {
  const steps: Step[] = [];
  for (const part of path.split('.')) {
    const match = /^([^[\]]*)((?:\[\])*)$/.exec(part);
    if (!match) throw new Error(`invalid redaction path "${path}"`);
    if (match[1]) steps.push({ key: match[1] });
    for (let i = 0; i < match[2].length / 2; i++) steps.push({ each: true });
  }
  return steps;
}

function redactPath(node: unknown, steps: Step[]): unknown {
  if (node === null || node === undefined || typeof node !== 'object') return node;
  const [step, ...rest] = steps;
  if ('each' in step) {
    if (!Array.isArray(node)) return node;
    return node.map((element: unknown) =>
      rest.length === 0 ? redactLeaf(element) : redactPath(element, rest),
    );
  }
  const record = node as Record<string, unknown>;
  if (!Object.prototype.hasOwnProperty.call(record, step.key)) return node;
  const current = record[step.key];
  const next = rest.length === 0 ? redactLeaf(current) : redactPath(current, rest);
  return next === current ? node : { ...record, [step.key]: next };
}

function redactLeaf(value: unknown): unknown {
  return value === null || value === undefined ? value : REDACTED;
}

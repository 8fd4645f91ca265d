import { invalidParameter } from './request.errors';

const SLUG = /^[a-z0-9-]{1,63}$/;

/** `{entity}` names a namespace of the tenant: a lower-case slug, like a DNS label. */
export function parseEntitySlug(value: string): string {
  if (!SLUG.test(value)) {
    throw invalidParameter('entity', 'must be 1-63 lower-case letters, digits or "-"');
  }
  return value;
}

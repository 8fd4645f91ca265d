import { invalidParameter } from './request.errors';

/** The ETag header of an answer, as the API description names it. */
export const ETAG_HEADER = {
  ETag: { description: 'The revision, to send back as If-Match', schema: { type: 'string' } },
};

export function entityTag(revision: number): string {
  return `"${revision}"`;
}

const TAG_LIST = /^\s*(W\/)?"[^"]*"\s*(,\s*(W\/)?"[^"]*"\s*)*$/;

/**
 * RFC 9110 If-Match with the strong comparison: absent means "no precondition", `*` matches
 * any current representation, otherwise one listed tag must equal the current one.
 */
export function ifMatchSatisfied(ifMatch: string | undefined, currentRevision: number): boolean {
  if (ifMatch === undefined) return true;
  if (ifMatch.trim() === '*') return true;
  if (!TAG_LIST.test(ifMatch))
    throw invalidParameter('If-Match', 'must be "*" or a list of quoted entity tags');
  const current = entityTag(currentRevision);
  return ifMatch
    .split(',')
    .map((tag) => tag.trim())
    .some((tag) => tag === current);
}

import type { FastifyInstance, FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import type { ProblemFieldError } from '../problem/problem-details';
import { ProblemError } from '../problem/problem.error';
import { RequestValidationError } from '../validation/request-validation.error';
import { MAX_JSON_DEPTH } from '../storable/storable-text';
import { problemFromFastifyError } from './fastify-errors';
import { RefusedBody, takesRefusedBody } from './refused-body';
import { contentCodingRefusal } from './content-coding';
import { firstInexactNumber } from './exact-numbers';
import { utf8Body } from './utf8-body';

/** What any one JSON body may hold, whatever route it is for. */
export interface JsonInputLimits {
  maxDepth: number;
  maxKeysPerObject: number;
  maxArrayLength: number;
  maxStringLength: number;
  /**
   * Refuse members named like object internals (RESERVED_MEMBER_NAMES): for bodies a DTO's
   * transformation reads, which would drop them. A body read member by member (a partner
   * event, whose extra members are ignored) takes them.
   */
  refuseReservedNames: boolean;
  /**
   * Refuse a number JSON.parse does not keep as written (`firstInexactNumber`): for bodies whose
   * parsed value is stored or answered. A body kept as its bytes (a partner event, stored raw,
   * whose extra members are ignored) loses nothing and takes them.
   */
  refuseInexactNumbers: boolean;
}

export const DEFAULT_JSON_INPUT_LIMITS: JsonInputLimits = {
  maxDepth: MAX_JSON_DEPTH,
  maxKeysPerObject: 1000,
  maxArrayLength: 10_000,
  maxStringLength: 256 * 1024,
  refuseReservedNames: true,
  refuseInexactNumbers: true,
};

interface Frame {
  value: unknown;
  depth: number;
  key: string | number | undefined;
  parent: Frame | undefined;
}

const MAX_PATH_CHARACTERS = 200;

/**
 * Member names a DTO's transformation would silently drop: Nest's ValidationPipe deletes
 * `constructor` and `prototype` members, and class-transformer skips every name of an
 * `Object.prototype` member (`toString`, `valueOf`, ...). Refused, so nothing is lost
 * without a word (a POS reference named `toString` would also escape the uniqueness check).
 */
const RESERVED_MEMBER_NAMES = new Set([
  ...Object.getOwnPropertyNames(Object.prototype),
  'prototype',
]);

/** A breach of the limits, or a member named like an object internal (`reservedName`). */
export interface JsonBreach extends ProblemFieldError {
  reservedName?: string;
}

/** `values.deep[0][0]`, from the parent chain (built only on a breach, so deep input stays cheap). */
function pathOf(frame: Frame): string {
  const parts: string[] = [];
  for (let at: Frame | undefined = frame; at?.key !== undefined; at = at.parent) {
    parts.push(typeof at.key === 'number' ? `[${at.key}]` : `.${at.key}`);
    if (parts.length > MAX_PATH_CHARACTERS) break;
  }
  const path = parts.reverse().join('').replace(/^\./, '');
  return path.length > MAX_PATH_CHARACTERS ? `${path.slice(0, MAX_PATH_CHARACTERS)}…` : path;
}

/**
 * The first limit a parsed JSON value breaks, with where, or undefined. Iterative, so a body
 * nested 10,000 deep is measured without recursion, and it stops at the first breach. Given
 * the `text` it was parsed from, a number whose literal JSON.parse could not keep exactly is
 * a breach too, named where its literal stands (the text is only read when it holds a literal
 * that can have changed).
 */
export function jsonLimitBreach(
  value: unknown,
  limits: JsonInputLimits,
  text?: string,
): JsonBreach | undefined {
  const stack: Frame[] = [{ value, depth: 1, key: undefined, parent: undefined }];
  let inexact: ReturnType<typeof firstInexactNumber> | null | undefined;
  while (stack.length > 0) {
    const frame = stack.pop() as Frame;
    const { value: current, depth } = frame;
    const breach = (message: string) => ({ path: pathOf(frame), message });
    if (typeof current === 'string') {
      if (current.length > limits.maxStringLength) {
        return breach(`must not be longer than ${limits.maxStringLength} characters`);
      }
      continue;
    }
    // JSON.parse reads 1e400 as Infinity, which every later JSON.stringify writes as null.
    if (typeof current === 'number' && !Number.isFinite(current)) {
      return breach('must be a number between -1.7976931348623157e308 and 1.7976931348623157e308');
    }
    if (typeof current === 'number' && text !== undefined && limits.refuseInexactNumbers) {
      // Read from the text once, at the first number met: where the literal stands there.
      inexact ??= firstInexactNumber(text) ?? null;
      if (inexact) {
        return {
          path: inexact.path,
          message: `must be a number JSON keeps exactly (it would read as ${inexact.value}): send fewer digits, or the number as a string`,
        };
      }
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth > limits.maxDepth)
      return breach(`must not nest deeper than ${limits.maxDepth} levels`);
    if (Array.isArray(current)) {
      if (current.length > limits.maxArrayLength) {
        return breach(`must not have more than ${limits.maxArrayLength} items`);
      }
      current.forEach((item, index) =>
        stack.push({ value: item, depth: depth + 1, key: index, parent: frame }),
      );
      continue;
    }
    const keys = Object.keys(current);
    if (keys.length > limits.maxKeysPerObject) {
      return breach(`must not have more than ${limits.maxKeysPerObject} members`);
    }
    for (const key of keys) {
      if (limits.refuseReservedNames && RESERVED_MEMBER_NAMES.has(key)) {
        const member = { value: undefined, depth: depth + 1, key, parent: frame };
        return { path: pathOf(member), message: 'is a reserved member name', reservedName: key };
      }
      if (key.length > limits.maxStringLength) {
        return breach(`member names must not be longer than ${limits.maxStringLength} characters`);
      }
      stack.push({
        value: (current as Record<string, unknown>)[key],
        depth: depth + 1,
        key,
        parent: frame,
      });
    }
  }
  return undefined;
}

/**
 * Parses a JSON request body as every service does: empty or malformed JSON and
 * `__proto__` / `constructor.prototype` members are refused (Fastify's own errors, answered
 * as problems), and so is a value deeper, wider or longer than the limits (400
 * `request.invalid`, naming where). Throws the error to answer with.
 */
export function parseGuardedJson(
  text: string,
  limits: JsonInputLimits = DEFAULT_JSON_INPUT_LIMITS,
): unknown {
  if (text.length === 0) throw emptyJsonError();
  let parsed: unknown;
  try {
    parsed = secureJson.parse(text, undefined, {
      protoAction: 'error',
      constructorAction: 'error',
    });
  } catch (error) {
    throw isForbiddenMember(error) ? forbiddenMemberError() : invalidJsonError();
  }
  const breach = jsonLimitBreach(parsed, limits, text);
  if (breach?.reservedName !== undefined) throw reservedMemberError(breach);
  if (breach) throw new RequestValidationError([breach]);
  return parsed;
}

/**
 * Replaces Fastify's JSON parser with one that refuses, before any validation runs, bodies
 * deeper, wider or longer than the limits (see parseGuardedJson).
 */
export function installJsonInputGuard(
  fastify: FastifyInstance,
  bodyLimit: number,
  limits: JsonInputLimits = DEFAULT_JSON_INPUT_LIMITS,
): void {
  if (fastify.hasContentTypeParser('application/json')) {
    fastify.removeContentTypeParser('application/json');
  }
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit },
    (request: FastifyRequest, body: Buffer, done) => {
      // Many clients send their JSON Content-Type on every request: a DELETE without a body
      // has none to parse.
      if (body.length === 0 && request.method === 'DELETE') {
        done(null, undefined);
        return;
      }
      // Refused as a wrong Content-Type is, before any route judges the body (ADR 0065).
      const coded = contentCodingRefusal(request.headers['content-encoding']);
      if (coded) return done(coded, undefined);
      try {
        done(null, parseGuardedJson(utf8Body(body, 'json'), limits));
      } catch (error) {
        if (!takesRefusedBody(request)) return done(error as Error, undefined);
        // The error as the error handler would have answered it (Nest's filters see it now).
        const refusal = problemFromFastifyError(error, request) ?? (error as Error);
        done(null, new RefusedBody(refusal));
      }
    },
  );
}

function emptyJsonError(): Error {
  return Object.assign(
    new Error('Body cannot be empty when content-type is set to application/json'),
    {
      statusCode: 400,
      code: 'FST_ERR_CTP_EMPTY_JSON_BODY',
    },
  );
}

/** secure-json-parse's refusal of a `__proto__` or `constructor.prototype` member. */
function isForbiddenMember(error: unknown): boolean {
  return (
    error instanceof SyntaxError &&
    /forbidden (?:prototype|constructor) property/.test(error.message)
  );
}

/** Valid JSON, refused for a member name that could pollute prototypes: said as such. */
function forbiddenMemberError(): ProblemError {
  return new ProblemError({
    status: 400,
    code: 'request.forbidden_member',
    title: 'Forbidden member name',
    detail:
      'The JSON body has a "__proto__" or "constructor.prototype" member; such members are refused.',
  });
}

/** Valid JSON, refused for a member name the DTO transformation would drop: said as such. */
function reservedMemberError(breach: JsonBreach): ProblemError {
  return new ProblemError({
    status: 400,
    code: 'request.forbidden_member',
    title: 'Forbidden member name',
    detail:
      `The JSON body has a member named "${breach.reservedName}" (at ${breach.path}); names of ` +
      'JavaScript object internals (constructor, prototype, toString, valueOf, ...) are refused.',
  });
}

function invalidJsonError(): Error {
  return Object.assign(new Error('Body is not valid JSON'), {
    statusCode: 400,
    code: 'FST_ERR_CTP_INVALID_JSON_BODY',
  });
}

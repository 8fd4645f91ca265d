import type { ValidationError } from 'class-validator';
import type { ProblemFieldError } from '../problem/problem-details';

// The pipe strips values from errors (they may hold secrets), so array items are told apart
// by their numeric property; DTOs never declare properties named by digits.
const ARRAY_INDEX = /^\d+$/;

function childPath(parent: string, error: ValidationError): string {
  if (parent && ARRAY_INDEX.test(error.property)) return `${parent}[${error.property}]`;
  return parent ? `${parent}.${error.property}` : error.property;
}

/** Rules on a value's size, which say nothing useful about a value of the wrong kind. */
const SIZE_RULES = new Set(['minLength', 'maxLength', 'isLength', 'min', 'max']);
/**
 * Rules on an array's size: left out only when the value is no array. Beside them, a failed
 * rule may be an `each` rule on one element, which says nothing about the array's size.
 */
const ARRAY_SIZE_RULES = new Set(['arrayMinSize', 'arrayMaxSize']);

/**
 * The messages of a field's failed rules. When a rule on what the value is failed (a type, a
 * format, visible text), its size rules are left out: `5` for a name is "must be a string",
 * not also "must be 1 to 200 characters", and a missing date-time is not "too long".
 */
function messagesOf(constraints: Record<string, string>): Set<string> {
  const failed = Object.keys(constraints);
  const kind = failed.filter((rule) => !SIZE_RULES.has(rule) && !ARRAY_SIZE_RULES.has(rule));
  const shown = failed.filter((rule) => {
    if (SIZE_RULES.has(rule)) return kind.length === 0;
    if (ARRAY_SIZE_RULES.has(rule)) return !failed.includes('isArray');
    return true;
  });
  // Two rules may word their refusal alike (a date-time that is neither RFC 3339 nor ISO
  // 8601 strict): each message once.
  return new Set(shown.map((rule) => constraints[rule]));
}

function collect(errors: ValidationError[], parent: string, out: ProblemFieldError[]): void {
  for (const error of errors) {
    const path = childPath(parent, error);
    for (const message of messagesOf(error.constraints ?? {})) {
      out.push({ path, message });
    }
    if (error.children?.length) collect(error.children, path, out);
  }
}

/** class-validator's tree as a flat list, nested paths written `a.b[0].c`. */
export function flattenValidationErrors(errors: ValidationError[]): ProblemFieldError[] {
  const out: ProblemFieldError[] = [];
  collect(errors, '', out);
  return out;
}

import type { ValidationError } from 'class-validator';
import type { ProblemFieldError } from '../problem/problem-details';

// The pipe strips values from errors (they may hold secrets), so array items are told apart
// by their numeric property; DTOs never declare properties named by digits.
const ARRAY_INDEX = /^\d+$/;

function childPath(parent: string, error: ValidationError): string {
  if (parent && ARRAY_INDEX.test(error.property)) return `${parent}[${error.property}]`;
  return parent ? `${parent}.${error.property}` : error.property;
}

function collect(errors: ValidationError[], parent: string, out: ProblemFieldError[]): void {
  for (const error of errors) {
    const path = childPath(parent, error);
    // Two rules may word their refusal alike (a date-time that is neither RFC 3339 nor ISO
    // 8601 strict): each message once.
    for (const message of new Set(Object.values(error.constraints ?? {}))) {
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

import type { ProblemFieldError } from '../problem/problem-details';
import { ProblemError } from '../problem/problem.error';

export class RequestValidationError extends ProblemError {
  constructor(errors: ProblemFieldError[]) {
    super({
      status: 400,
      code: 'request.invalid',
      title: 'Invalid request',
      detail:
        errors.length === 1
          ? 'One input is invalid; see errors.'
          : `${errors.length} inputs are invalid; see errors.`,
      errors,
    });
  }
}

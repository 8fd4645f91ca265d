import { ValidationPipe } from '@nestjs/common';
import type { ValidationError } from 'class-validator';
import { RequestValidationError } from './request-validation.error';
import { flattenValidationErrors } from './validation-errors';

/** Unknown properties are errors, not silently dropped: a typo in a field name must be seen. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors: ValidationError[]) =>
      new RequestValidationError(flattenValidationErrors(errors)),
  });
}

import { ProblemError, type ProblemFieldError } from '@comanda/http';
import type { SignatureRejection } from '@comanda/outbound';

/** Rule 7: the partner answers 400 and sends no event. */
export class InvalidOperationError extends ProblemError {
  constructor(code: string, title: string, detail: string, errors?: ProblemFieldError[]) {
    super({ status: 400, code, title, detail, errors });
  }

  static malformedJson(): InvalidOperationError {
    return new InvalidOperationError(
      'request.malformed_json',
      'Malformed JSON',
      'The request body is not valid JSON; no event will follow.',
    );
  }

  static invalid(errors: ProblemFieldError[]): InvalidOperationError {
    return new InvalidOperationError(
      'operation.invalid',
      'Invalid operation',
      'The operation request is missing a required field or has a wrong one; no event will follow.',
      errors,
    );
  }
}

export class OperationSignatureError extends ProblemError {
  constructor(reason: SignatureRejection) {
    super({
      status: 401,
      code: 'operation.signature_invalid',
      title: 'Invalid signature',
      detail: `The Comanda-Signature header does not prove the merchant's secret (${reason}); no event will follow.`,
      headers: { 'WWW-Authenticate': 'Comanda-Signature' },
    });
  }
}

export class TransactionNotFoundError extends ProblemError {
  constructor(paymentId: string) {
    super({
      status: 404,
      code: 'sandbox.transaction_not_found',
      title: 'Transaction not found',
      detail: `The sandbox has no transaction for payment "${paymentId}".`,
    });
  }
}

import { ProblemError } from '@comanda/http';

export class PaymentNotFoundError extends ProblemError {
  constructor(id: string) {
    super({
      status: 404,
      code: 'payment.not_found',
      title: 'Payment not found',
      detail: `There is no payment "${id}".`,
    });
  }
}

import { ProblemError } from '@comanda/http';

export class MerchantNotFoundError extends ProblemError {
  constructor(id: string) {
    super({
      status: 404,
      code: 'merchant.not_found',
      title: 'Merchant not found',
      detail: `There is no merchant "${id}".`,
    });
  }
}

/** Merchant ids are global (the notification path names no tenant): another tenant has it. */
export class MerchantIdTakenError extends ProblemError {
  constructor(id: string) {
    super({
      status: 409,
      code: 'merchant.id_taken',
      title: 'Merchant id taken',
      detail: `The merchant id "${id}" is in use; choose another id.`,
    });
  }
}

export class PartnerUrlRefusedError extends ProblemError {
  constructor(reason: string, message: string) {
    super({
      status: 422,
      code: 'merchant.partner_url_refused',
      title: 'Partner URL refused',
      detail: `The partner URL cannot be used: ${message}.`,
      errors: [{ path: 'partnerUrl', message: `${reason}: ${message}` }],
    });
  }
}

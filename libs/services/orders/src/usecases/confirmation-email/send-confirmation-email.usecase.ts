import { Injectable } from '@nestjs/common';
import type { Tx } from '@comanda/persistence';
import { ConfirmationEmailNotFoundError } from '../../domain/order.errors';
import { MailTransport } from '../../mail/mail-transport';
import { renderConfirmation } from '../../mail/render-confirmation';
import { OrdersConfig } from '../../orders.config';
import { ConfirmationEmailEntity } from '../../persistence/confirmation-email.entity';
import { ConfirmationEmailRepository } from '../../persistence/confirmation-email.repository';
import { OrderRepository } from '../../persistence/order.repository';

/**
 * On `order.placed`: renders the confirmation, stores it and hands it to the transport.
 * A failed SMTP send throws, so the inbox retries it (the stored copy rolls back with it).
 */
@Injectable()
export class SendConfirmationEmail {
  constructor(
    private readonly orders: OrderRepository,
    private readonly mails: ConfirmationEmailRepository,
    private readonly transport: MailTransport,
    private readonly config: OrdersConfig,
  ) {}

  async execute(tx: Tx, tenantId: string, orderId: string): Promise<void> {
    const order = await this.orders.find(tx, tenantId, orderId);
    if (!order || order.status !== 'placed') return;
    if (await this.mails.find(tx, tenantId, orderId)) return;
    const rendered = renderConfirmation(order);
    const mail = Object.assign(new ConfirmationEmailEntity(), {
      orderId,
      tenantId,
      to: order.guest.email,
      ...rendered,
      transport: this.transport.kind,
      createdAt: new Date(),
    });
    await this.mails.save(tx, mail);
    await this.transport.send({ from: this.config.MAIL_FROM, to: mail.to, ...rendered });
  }

  async read(tx: Tx, tenantId: string, orderId: string): Promise<ConfirmationEmailEntity> {
    await this.orders.get(tx, tenantId, orderId);
    const mail = await this.mails.find(tx, tenantId, orderId);
    if (!mail) throw new ConfirmationEmailNotFoundError(orderId);
    return mail;
  }
}

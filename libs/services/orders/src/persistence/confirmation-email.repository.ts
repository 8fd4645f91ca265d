import { Injectable } from '@nestjs/common';
import type { Tx } from '@comanda/persistence';
import { ConfirmationEmailEntity } from './confirmation-email.entity';

@Injectable()
export class ConfirmationEmailRepository {
  find(tx: Tx, tenantId: string, orderId: string): Promise<ConfirmationEmailEntity | null> {
    return tx.findOne(ConfirmationEmailEntity, { where: { tenantId, orderId } });
  }

  async save(tx: Tx, mail: ConfirmationEmailEntity): Promise<void> {
    await tx.save(ConfirmationEmailEntity, mail);
  }
}

import type { ConfigUpdated } from '@comanda/contracts';
import type { Tx } from '@comanda/persistence';
import type { OrderChargesEntity } from '../../persistence/order-charges.entity';
import type { OrderChargesRepository } from '../../persistence/order-charges.repository';
import { ProjectOrderCharges } from './project-order-charges.usecase';

/** The projection's rows in memory: the use case only finds and saves. */
function inMemoryCharges() {
  const rows = new Map<string, OrderChargesEntity>();
  const repository = {
    find: async (_tx: Tx, tenantId: string) => rows.get(tenantId) ?? null,
    save: async (_tx: Tx, row: OrderChargesEntity) => void rows.set(row.tenantId, { ...row }),
  } as unknown as OrderChargesRepository;
  return { rows, project: new ProjectOrderCharges(repository) };
}

const tx = {} as Tx;
const event = (
  version: number,
  values: Record<string, unknown>,
  deleted = false,
): ConfigUpdated => ({
  entity: 'order-charges',
  configId: 'charges',
  version,
  publisher: 'client',
  deleted,
  values,
});

describe("orders' projection of the order-charges config", () => {
  it('keeps the newest version and ignores a late older one', async () => {
    const { rows, project } = inMemoryCharges();
    await project.execute(tx, 't', event(2, { serviceCharge: 'v2' }));
    await project.execute(tx, 't', event(1, { serviceCharge: 'v1' }));
    expect(rows.get('t')).toMatchObject({ version: 2, values: { serviceCharge: 'v2' } });
  });

  it('clears the charges on removal and takes a new config after it', async () => {
    const { rows, project } = inMemoryCharges();
    await project.execute(tx, 't', event(1, { serviceCharge: 'v1' }));
    await project.execute(tx, 't', event(1, { serviceCharge: 'v1' }, true));
    expect(rows.get('t')).toMatchObject({ deleted: true, values: {} });
    await project.execute(tx, 't', event(2, { deliveryFee: 'v2' }));
    expect(rows.get('t')).toMatchObject({
      version: 2,
      deleted: false,
      values: { deliveryFee: 'v2' },
    });
  });

  it('ignores configs of other entities', async () => {
    const { rows, project } = inMemoryCharges();
    await project.execute(tx, 't', { ...event(1, {}), entity: 'configurations' });
    expect(rows.size).toBe(0);
  });
});

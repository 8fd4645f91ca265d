import { schemaOf } from '@comanda/persistence';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { LIMITS } from '../domain/limits';

export class CreateOrdersTables1764000000000 implements MigrationInterface {
  name = 'CreateOrdersTables1764000000000';

  async up(runner: QueryRunner): Promise<void> {
    const schema = schemaOf(runner);
    await runner.query(`
      CREATE TABLE "${schema}"."stores" (
        tenant_id varchar(${LIMITS.idLength}) NOT NULL,
        store_id varchar(${LIMITS.idLength}) NOT NULL,
        name varchar(${LIMITS.titleLength}) NOT NULL,
        currency varchar(${LIMITS.currencyLength}) NOT NULL,
        mapping_details json NOT NULL,
        payment_merchant_id varchar(${LIMITS.idLength}),
        menu json NOT NULL DEFAULT '[]',
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, store_id)
      )`);
    await runner.query(`
      CREATE TABLE "${schema}"."baskets" (
        id uuid PRIMARY KEY,
        tenant_id varchar(${LIMITS.idLength}) NOT NULL,
        store_id varchar(${LIMITS.idLength}) NOT NULL,
        fulfillment varchar(16) NOT NULL,
        requested_ready_time varchar(64),
        guest json NOT NULL,
        payment_request json,
        lines json NOT NULL,
        discounts json NOT NULL,
        order_id uuid,
        created_at timestamptz NOT NULL
      )`);
    await runner.query(`
      CREATE TABLE "${schema}"."orders" (
        id uuid PRIMARY KEY,
        tenant_id varchar(${LIMITS.idLength}) NOT NULL,
        basket_id uuid NOT NULL UNIQUE,
        store_id varchar(${LIMITS.idLength}) NOT NULL,
        status varchar(32) NOT NULL,
        fulfillment varchar(16) NOT NULL,
        requested_ready_time varchar(64),
        guest json NOT NULL,
        store_details json NOT NULL,
        items json NOT NULL,
        discounts json NOT NULL,
        totals json NOT NULL,
        payment_request json,
        payments json NOT NULL,
        payment_id varchar(${LIMITS.idLength}),
        placement json,
        failure json,
        receipt text,
        timeline json NOT NULL,
        created_at timestamptz NOT NULL,
        ready_at timestamptz,
        finalized_at timestamptz,
        updated_at timestamptz NOT NULL
      )`);
    await runner.query(
      `CREATE INDEX "orders_by_status" ON "${schema}"."orders" (tenant_id, status, created_at, id)`,
    );
    // The uniqueness of orderRefsDict values per tenant lives here, race-safe: a second
    // order claiming a value waits for the first claim's transaction and then finds it taken.
    await runner.query(`
      CREATE TABLE "${schema}"."order_refs" (
        tenant_id varchar(${LIMITS.idLength}) NOT NULL,
        ref_value varchar(${LIMITS.orderRefLength}) NOT NULL,
        ref_key varchar(${LIMITS.orderRefLength}) NOT NULL,
        order_id uuid NOT NULL,
        PRIMARY KEY (tenant_id, ref_value)
      )`);
    await runner.query(`
      CREATE TABLE "${schema}"."checkout_keys" (
        tenant_id varchar(${LIMITS.idLength}) NOT NULL,
        idempotency_key varchar(${LIMITS.idempotencyKeyLength}) NOT NULL,
        basket_id uuid NOT NULL,
        response json,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, idempotency_key)
      )`);
    await runner.query(`
      CREATE TABLE "${schema}"."order_charges" (
        tenant_id varchar(${LIMITS.idLength}) PRIMARY KEY,
        version integer NOT NULL,
        deleted boolean NOT NULL,
        values json NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await runner.query(`
      CREATE TABLE "${schema}"."confirmation_emails" (
        order_id uuid PRIMARY KEY,
        tenant_id varchar(${LIMITS.idLength}) NOT NULL,
        to_address varchar(${LIMITS.emailLength}) NOT NULL,
        subject text NOT NULL,
        text text NOT NULL,
        html text NOT NULL,
        transport varchar(16) NOT NULL,
        created_at timestamptz NOT NULL
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    const schema = schemaOf(runner);
    for (const table of [
      'confirmation_emails',
      'order_charges',
      'checkout_keys',
      'order_refs',
      'orders',
      'baskets',
      'stores',
    ]) {
      await runner.query(`DROP TABLE "${schema}"."${table}"`);
    }
  }
}

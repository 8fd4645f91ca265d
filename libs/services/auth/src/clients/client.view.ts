import { ApiProperty } from '@nestjs/swagger';
import type { ApiClient } from './api-client.entity';

export class ClientContactsView {
  @ApiProperty() primary!: string;
  @ApiProperty() secondary!: string;
}

/** A client as the admin API shows it: never a secret. */
export class ClientView {
  @ApiProperty() clientId!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: [String] }) tenantIds!: string[];
  @ApiProperty({ enum: ['test', 'production'] }) environment!: 'test' | 'production';
  @ApiProperty({ type: [String] }) permissions!: string[];
  @ApiProperty() personalData!: boolean;
  @ApiProperty({ type: ClientContactsView }) contacts!: ClientContactsView;
  @ApiProperty() useCase!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) revokedAt!: string | null;
}

/** A new client: its secret, shown here once and never again. */
export class CreatedClientSecretView {
  @ApiProperty() clientId!: string;
  @ApiProperty({ description: 'Shown once, never again' }) clientSecret!: string;
}

/** A new client that asked for `credentialsFile`: the file and the passphrase that opens it. */
export class CreatedClientCredentialsView {
  @ApiProperty() clientId!: string;
  @ApiProperty({ description: 'Encrypted credentials file, shown once' })
  credentialsFile!: string;
  @ApiProperty({ description: 'Opens the credentials file, shown once' }) passphrase!: string;
}

export class RotatedSecretView {
  @ApiProperty({ description: 'The new secret, shown once' }) clientSecret!: string;
}

export function toClientView(client: ApiClient): ClientView {
  return {
    clientId: client.clientId,
    name: client.name,
    tenantIds: client.tenantIds,
    environment: client.environment,
    permissions: client.permissions,
    personalData: client.personalData,
    contacts: { primary: client.contactPrimary, secondary: client.contactSecondary },
    useCase: client.useCase,
    createdAt: client.createdAt.toISOString(),
    revokedAt: client.revokedAt?.toISOString() ?? null,
  };
}

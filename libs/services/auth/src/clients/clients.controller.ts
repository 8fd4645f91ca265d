import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { RequirePermission } from '@comanda/security';
import { CreateClientDto, GrantPermissionsDto, RotateSecretDto } from './client.dto';
import { ClientService, type CreatedClient } from './client.service';
import { toClientView, type ClientView } from './client.view';

@Controller('admin/clients')
@RequirePermission('platform:admin')
export class ClientsController {
  constructor(private readonly clients: ClientService) {}

  /** The secret is shown here once and never again. */
  @Post()
  create(@Body() body: CreateClientDto): Promise<CreatedClient> {
    return this.clients.create(body);
  }

  @Get()
  async list(): Promise<ClientView[]> {
    return (await this.clients.list()).map(toClientView);
  }

  @Get(':clientId')
  async get(@Param('clientId') clientId: string): Promise<ClientView> {
    return toClientView(await this.clients.get(clientId));
  }

  @Post(':clientId/permissions')
  @HttpCode(200)
  async grant(
    @Param('clientId') clientId: string,
    @Body() body: GrantPermissionsDto,
  ): Promise<ClientView> {
    return toClientView(await this.clients.grant(clientId, body.permissions));
  }

  @Post(':clientId/secret')
  @HttpCode(200)
  rotateSecret(
    @Param('clientId') clientId: string,
    @Body() body: RotateSecretDto,
  ): Promise<{ clientSecret: string }> {
    return this.clients.rotateSecret(clientId, body.gracePeriodSeconds ?? 0);
  }

  @Delete(':clientId')
  async revoke(@Param('clientId') clientId: string): Promise<ClientView> {
    return toClientView(await this.clients.revoke(clientId));
  }
}

import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiExtraModels,
  ApiOkResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { RequirePermission } from '@comanda/security';
import { CreateClientDto, GrantPermissionsDto, RotateSecretDto } from './client.dto';
import { ClientService, type CreatedClient } from './client.service';
import {
  ClientView,
  CreatedClientCredentialsView,
  CreatedClientSecretView,
  RotatedSecretView,
  toClientView,
} from './client.view';
import { UnitOfWork } from '@comanda/persistence';

@Controller('admin/clients')
@ApiTags('admin')
@ApiExtraModels(CreatedClientSecretView, CreatedClientCredentialsView)
@RequirePermission('platform:admin')
export class ClientsController {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly clients: ClientService,
  ) {}

  /** The secret is shown here once and never again. */
  @Post()
  @ApiCreatedResponse({
    description: 'The new client with its secret, or its credentials file when asked for',
    schema: {
      oneOf: [
        { $ref: getSchemaPath(CreatedClientSecretView) },
        { $ref: getSchemaPath(CreatedClientCredentialsView) },
      ],
    },
  })
  create(@Body() body: CreateClientDto): Promise<CreatedClient> {
    return this.unitOfWork.run((tx) => this.clients.create(tx, body));
  }

  @Get()
  @ApiOkResponse({ type: [ClientView] })
  async list(): Promise<ClientView[]> {
    return (await this.clients.list()).map(toClientView);
  }

  @Get(':clientId')
  @ApiOkResponse({ type: ClientView })
  async get(@Param('clientId') clientId: string): Promise<ClientView> {
    return toClientView(await this.clients.get(clientId));
  }

  @Post(':clientId/permissions')
  @HttpCode(200)
  @ApiOkResponse({ type: ClientView })
  async grant(
    @Param('clientId') clientId: string,
    @Body() body: GrantPermissionsDto,
  ): Promise<ClientView> {
    return toClientView(
      await this.unitOfWork.run((tx) => this.clients.grant(tx, clientId, body.permissions)),
    );
  }

  @Post(':clientId/secret')
  @HttpCode(200)
  @ApiOkResponse({ type: RotatedSecretView })
  rotateSecret(
    @Param('clientId') clientId: string,
    @Body() body: RotateSecretDto,
  ): Promise<{ clientSecret: string }> {
    return this.unitOfWork.run((tx) =>
      this.clients.rotateSecret(tx, clientId, body.gracePeriodSeconds ?? 0),
    );
  }

  @Delete(':clientId')
  @ApiOkResponse({ type: ClientView, description: 'The revoked client' })
  async revoke(@Param('clientId') clientId: string): Promise<ClientView> {
    return toClientView(await this.unitOfWork.run((tx) => this.clients.revoke(tx, clientId)));
  }
}

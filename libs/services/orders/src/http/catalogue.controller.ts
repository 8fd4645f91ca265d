import { Body, Controller, Get, Param, Put, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { StorableInputGuard } from '@comanda/http';
import { UnitOfWork } from '@comanda/persistence';
import { CurrentPrincipal, RequirePermission, type Principal } from '@comanda/security';
import type { StoreEntity } from '../persistence/store.entity';
import { ReadStore } from '../usecases/catalogue/read-store.usecase';
import { SaveMenu } from '../usecases/catalogue/save-menu.usecase';
import { SaveStore } from '../usecases/catalogue/save-store.usecase';
import { MenuInputDto, MenuView, StoreInputDto, StoreView } from './catalogue.dto';
import { IdParamPipe } from './id-param.pipe';

function storeView(store: StoreEntity): StoreView {
  return {
    id: store.storeId,
    name: store.name,
    currency: store.currency,
    mappingDetails: store.mappingDetails,
    paymentMerchantId: store.paymentMerchantId,
    updatedAt: store.updatedAt.toISOString(),
  };
}

function menuView(store: StoreEntity): MenuView {
  return { storeId: store.storeId, items: store.menu };
}

@ApiTags('catalogue')
@Controller('stores/:storeId')
@UseGuards(StorableInputGuard)
export class CatalogueController {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly saveStore: SaveStore,
    private readonly saveMenu: SaveMenu,
    private readonly readStore: ReadStore,
  ) {}

  @Put()
  @RequirePermission('catalog:write')
  @ApiOkResponse({ type: StoreView })
  async putStore(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId', IdParamPipe) storeId: string,
    @Body() input: StoreInputDto,
  ): Promise<StoreView> {
    const store = await this.unitOfWork.run((tx) =>
      this.saveStore.execute(tx, { tenantId: principal.tenantId, storeId, ...input }),
    );
    return storeView(store);
  }

  @Get()
  @RequirePermission('orders:read', 'storefront', 'catalog:write')
  @ApiOkResponse({ type: StoreView })
  async getStore(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId', IdParamPipe) storeId: string,
  ): Promise<StoreView> {
    const store = await this.unitOfWork.run((tx) =>
      this.readStore.execute(tx, principal.tenantId, storeId),
    );
    return storeView(store);
  }

  @Put('menu')
  @RequirePermission('catalog:write')
  @ApiOkResponse({ type: MenuView })
  async putMenu(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId', IdParamPipe) storeId: string,
    @Body() input: MenuInputDto,
  ): Promise<MenuView> {
    const store = await this.unitOfWork.run((tx) =>
      this.saveMenu.execute(tx, { tenantId: principal.tenantId, storeId, items: input.items }),
    );
    return menuView(store);
  }

  @Get('menu')
  @RequirePermission('orders:read', 'storefront', 'catalog:write')
  @ApiOkResponse({ type: MenuView })
  async getMenu(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId', IdParamPipe) storeId: string,
  ): Promise<MenuView> {
    const store = await this.unitOfWork.run((tx) =>
      this.readStore.execute(tx, principal.tenantId, storeId),
    );
    return menuView(store);
  }
}

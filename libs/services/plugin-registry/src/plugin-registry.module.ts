import { Module, RequestMethod, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { loadConfig, RUNTIME_ENV, type RuntimeEnv } from '@comanda/runtime';
import { PluginCodeController } from './code/plugin-code.controller';
import { PluginCodeChecker } from './code/plugin-code.checker';
import { PluginCodeService } from './code/plugin-code.service';
import { TextPlainOnlyMiddleware } from './code/text-plain-only.middleware';
import { PluginConfigService } from './configs/plugin-config.service';
import { PluginConfigsController } from './configs/plugin-configs.controller';
import { PluginManifestController } from './manifest/plugin-manifest.controller';
import { PluginManifestService } from './manifest/plugin-manifest.service';
import { PluginRegistryConfig } from './plugin-registry.config';

@Module({
  controllers: [PluginConfigsController, PluginManifestController, PluginCodeController],
  providers: [
    {
      provide: PluginRegistryConfig,
      inject: [RUNTIME_ENV],
      useFactory: (env: RuntimeEnv) => loadConfig(PluginRegistryConfig, env),
    },
    PluginCodeChecker,
    PluginCodeService,
    PluginManifestService,
    PluginConfigService,
  ],
})
export class PluginRegistryModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(TextPlainOnlyMiddleware)
      .forRoutes({ path: 'frontend/plugins', method: RequestMethod.POST });
  }
}

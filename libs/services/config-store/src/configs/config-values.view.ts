import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ExtensionReferenceView, ExtensionView } from '../extensions/extension.output';
import type { ConfigValuesOutput, ResolvedReference } from './config-values.service';

/** How the API description shows {@link ResolvedReference}. */
export class ResolvedReferenceView extends ExtensionReferenceView implements ResolvedReference {
  @ApiProperty({
    type: ExtensionView,
    nullable: true,
    description: 'The pinned version; null when it is no longer available to the caller',
  })
  extension!: ExtensionView | null;
}

/** How the API description shows {@link ConfigValuesOutput}. */
export class ConfigValuesView implements ConfigValuesOutput {
  @ApiProperty() id!: string;
  @ApiProperty() entity!: string;
  @ApiProperty({ type: 'integer' }) version!: number;
  @ApiProperty({ type: 'object', additionalProperties: true }) values!: Record<string, unknown>;
  @ApiPropertyOptional({
    type: [ResolvedReferenceView],
    description: 'With `complete=true`: each extension reference, resolved to the version it pins',
  })
  extensions?: ResolvedReferenceView[];
}

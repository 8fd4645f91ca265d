import { Body, Controller, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiOkResponse, ApiResponse, ApiTags } from '@nestjs/swagger';
import { IsString, IsUrl, MaxLength, MinLength } from 'class-validator';
import { IsOmittable } from '@comanda/http';
import { PAYMENT_METHOD_TOKENS } from '../domain/payment-method-tokens';
import { TransactionNotFoundError } from '../domain/sandbox.errors';
import type { SandboxTransaction } from '../domain/sandbox-transaction';
import { SandboxLedger } from '../persistence/sandbox-ledger';
import { EventDelivery, FAILING_RECEIVER_PATH } from '../usecases/event-delivery';
import {
  SandboxMerchantView,
  SandboxReceiverFailureView,
  SandboxTransactionView,
} from './sandbox.views';

export class MerchantSettingsDto {
  @IsOmittable()
  @IsString()
  @MinLength(1)
  @MaxLength(500)
  signingSecret?: string;

  @IsOmittable()
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  notificationsUrl?: string;
}

/** The sandbox's own pages: its ledger, its merchants, its tokens. Not part of the contract. */
@ApiTags('sandbox')
@Controller('sandbox')
export class SandboxController {
  constructor(
    private readonly ledger: SandboxLedger,
    private readonly delivery: EventDelivery,
  ) {}

  @Get('transactions/:paymentId')
  @ApiOkResponse({ type: SandboxTransactionView })
  transaction(@Param('paymentId') paymentId: string): SandboxTransaction {
    const transaction = this.ledger.transactions.get(paymentId);
    if (!transaction) throw new TransactionNotFoundError(paymentId);
    return transaction;
  }

  @Get('tokens')
  @ApiOkResponse({
    description: 'Each payment-method token and the behaviour it plays',
    schema: { type: 'object', additionalProperties: { type: 'string' } },
  })
  tokens(): Record<string, string> {
    return { ...PAYMENT_METHOD_TOKENS };
  }

  /** What the merchant set up with the partner: its secret and notifications_url. */
  @Put('merchants/:merchantId')
  @ApiOkResponse({ type: SandboxMerchantView })
  configureMerchant(
    @Param('merchantId') merchantId: string,
    @Body() settings: MerchantSettingsDto,
  ): { merchantId: string; notificationsUrl: string } {
    const known = this.ledger.merchants.get(merchantId) ?? {};
    this.ledger.merchants.set(merchantId, {
      signingSecret: settings.signingSecret ?? known.signingSecret,
      notificationsUrl: settings.notificationsUrl ?? known.notificationsUrl,
    });
    return { merchantId, notificationsUrl: this.delivery.notificationsUrl(merchantId) };
  }

  /** A receiver that cannot take events, for `sandbox_receiver_500` (rule 4). */
  @Post(FAILING_RECEIVER_PATH.replace('/sandbox/', ''))
  @HttpCode(500)
  @ApiResponse({ status: 500, type: SandboxReceiverFailureView, description: 'Always' })
  failingReceiver(): { status: number; detail: string } {
    return { status: 500, detail: 'the sandbox plays a receiver that cannot store the event' };
  }
}

import { Injectable } from '@nestjs/common';
import { OnTimer, type FiredTimer } from '@comanda/messaging';
import type { Tx } from '@comanda/persistence';
import { ExpirePlacement } from '../usecases/placement-timeout/expire-placement.usecase';
import {
  PICKUP_TIMEOUT_TIMER,
  PLACEMENT_TIMEOUT_TIMER,
  type PlacementTimerPayload,
} from '../usecases/placement-timers';

@Injectable()
export class PlacementTimeoutHandler {
  constructor(private readonly expirePlacement: ExpirePlacement) {}

  @OnTimer(PLACEMENT_TIMEOUT_TIMER)
  placementTimedOut(payload: PlacementTimerPayload, tx: Tx, _timer: FiredTimer): Promise<void> {
    return this.expirePlacement.execute(tx, { ...payload, trigger: 'placement_timeout' });
  }

  @OnTimer(PICKUP_TIMEOUT_TIMER)
  notPickedUp(payload: PlacementTimerPayload, tx: Tx, _timer: FiredTimer): Promise<void> {
    return this.expirePlacement.execute(tx, { ...payload, trigger: 'pickup_timeout' });
  }
}

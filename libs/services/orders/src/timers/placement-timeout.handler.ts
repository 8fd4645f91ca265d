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

  // Both wait for a POS's call (a session start, a report): after an outage they give the
  // POS a grace to send again what was refused meanwhile (docs/adr/0060).
  @OnTimer(PLACEMENT_TIMEOUT_TIMER, { graceAfterOutage: true })
  placementTimedOut(payload: PlacementTimerPayload, tx: Tx, _timer: FiredTimer): Promise<void> {
    return this.expirePlacement.execute(tx, { ...payload, trigger: 'placement_timeout' });
  }

  @OnTimer(PICKUP_TIMEOUT_TIMER, { graceAfterOutage: true })
  notPickedUp(payload: PlacementTimerPayload, tx: Tx, _timer: FiredTimer): Promise<void> {
    return this.expirePlacement.execute(tx, { ...payload, trigger: 'pickup_timeout' });
  }
}

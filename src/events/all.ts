import type { AccountEvent } from './account.ts';
import type { ApiKeyEvent } from './api-key.ts';
import type { AuditorEvent } from './auditor.ts';
import type { GatewayLedgerEvent } from './gateway.ts';
import type { GatewayPeriodEvent } from './gateway-periods.ts';
import type { SuspenseEvent } from './gateway-suspense.ts';
import type { HoldingAccountEvent } from './holding-accounts.ts';
import type { HoldingTransferEvent } from './holding-transfers.ts';
import type { LedgerAdjustmentEvent } from './ledger-adjustments.ts';
import type { LedgerIntegrityEvent } from './ledger-integrity.ts';
import type { TransferEvent } from './transfer.ts';
import type { HolidayCalendarEvent } from './holiday-calendar.ts';
import type { OrderEvent } from './payments-order.ts';
import type { PaymentEvent } from './payments.ts';
import type { PayoutReferenceEvent } from './payout-reference.ts';
import type { ReceivingEvent } from './payments-receiving.ts';
import type { SessionEvent } from './session.ts';
import type { UserEmailEvent } from './user-email.ts';
import type { UserEvent } from './user.ts';
import type { WalletLoginEvent } from './wallet-login.ts';
import type { PayoutAccountEvent, WithdrawalPayoutEvent } from './withdrawal-payout.ts';
import './account.ts';
import './api-key.ts';
import './auditor.ts';
import './gateway.ts';
import './gateway-periods.ts';
import './gateway-suspense.ts';
import './holding-accounts.ts';
import './holding-transfers.ts';
import './ledger-adjustments.ts';
import './ledger-integrity.ts';
import './transfer.ts';
import './holiday-calendar.ts';
import './payments-order.ts';
import './payments.ts';
import './payout-reference.ts';
import './payments-receiving.ts';
import './session.ts';
import './user-email.ts';
import './user.ts';
import './wallet-login.ts';
import './withdrawal-payout.ts';

/** Every event the service declares; importing this module registers them all. */
export type AnyEvent =
  | UserEvent
  | UserEmailEvent
  | SessionEvent
  | ApiKeyEvent
  | AuditorEvent
  | AccountEvent
  | WalletLoginEvent
  | PaymentEvent
  | ReceivingEvent
  | OrderEvent
  | HoldingAccountEvent
  | HoldingTransferEvent
  | LedgerAdjustmentEvent
  | LedgerIntegrityEvent
  | TransferEvent
  | GatewayLedgerEvent
  | SuspenseEvent
  | PayoutReferenceEvent
  | PayoutAccountEvent
  | WithdrawalPayoutEvent
  | HolidayCalendarEvent
  | GatewayPeriodEvent;

import type { AccountEvent } from './account.ts';
import type { ApiKeyEvent } from './api-key.ts';
import type { OrderEvent, PaymentEvent, ReceivingEvent } from './payment.ts';
import type { SessionEvent } from './session.ts';
import type { UserEmailEvent, UserEvent } from './user.ts';
import type { WalletLoginEvent } from './wallet-login.ts';
import './account.ts';
import './api-key.ts';
import './payment.ts';
import './session.ts';
import './user.ts';
import './wallet-login.ts';

/** Every event the service declares; importing this module registers them all. */
export type AnyEvent =
  | UserEvent
  | UserEmailEvent
  | SessionEvent
  | ApiKeyEvent
  | AccountEvent
  | WalletLoginEvent
  | PaymentEvent
  | ReceivingEvent
  | OrderEvent;

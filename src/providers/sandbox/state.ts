import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Clock } from '../../clock.ts';
import { SandboxError } from './errors.ts';
import { seedAccount } from './seed.ts';

/** Everything the sandbox remembers: accounts with their money, logins, sessions, OTPs and virtual accounts. */
const transaction = z.object({
  id: z.string(),
  type: z.enum(['CREDIT', 'DEBIT']),
  amount: z.int().positive(),
  description: z.string(),
  senderName: z.string(),
  reference: z.string().nullable(),
  occurredAt: z.string(),
});
const account = z.object({
  providerCode: z.string(),
  accountRef: z.string(),
  holderName: z.string(),
  balance: z.int().nonnegative(),
  createdAt: z.string(),
  transactions: z.array(transaction),
});
const bankLogin = z.object({
  providerCode: z.string(),
  username: z.string(),
  salt: z.string(),
  passwordHash: z.string(),
});
const session = z.object({
  token: z.string(),
  providerCode: z.string(),
  accountRef: z.string(),
  expiresAt: z.string(),
});
const challenge = z.object({
  id: z.string(),
  providerCode: z.string(),
  phoneNumber: z.string(),
  code: z.string(),
  expiresAt: z.string(),
  wrongTries: z.int().nonnegative(),
  /** The second OTP of WALLET-C: verifying it never asks for a third. */
  second: z.boolean(),
});
const inboxMessage = z.object({
  phone: z.string(),
  providerCode: z.string(),
  code: z.string(),
  channel: z.enum(['MESSENGER', 'SMS']),
  sentAt: z.string(),
});
const virtualAccount = z.object({ vaNumber: z.string(), providerCode: z.string(), accountRef: z.string() });
/** An outbound transfer of a wallet by the caller's reference: what its status answers, and what a repeat must match. */
const transferRecord = z.object({
  providerCode: z.string(),
  accountRef: z.string(),
  reference: z.string(),
  /** what was asked (destination or QR, amount): the same reference with another request is refused */
  request: z.string(),
  outcome: z.discriminatedUnion('status', [
    z.object({ status: z.literal('SUCCESS'), transactionId: z.string() }),
    z.object({ status: z.literal('FAILED'), reason: z.string() }),
  ]),
});

export const sandboxSnapshot = z.object({
  version: z.literal(1),
  accounts: z.array(account),
  bankLogins: z.array(bankLogin),
  sessions: z.array(session),
  challenges: z.array(challenge),
  inbox: z.array(inboxMessage),
  virtualAccounts: z.array(virtualAccount),
  // absent from state files written before transfers existed
  transfers: z.array(transferRecord).default([]),
});

export type SandboxTransaction = z.infer<typeof transaction>;
export type SandboxAccount = z.infer<typeof account>;
export type BankLogin = z.infer<typeof bankLogin>;
export type SandboxSession = z.infer<typeof session>;
export type OtpChallenge = z.infer<typeof challenge>;
export type InboxMessage = z.infer<typeof inboxMessage>;
export type VirtualAccount = z.infer<typeof virtualAccount>;
export type TransferRecord = z.infer<typeof transferRecord>;
export type SandboxSnapshot = z.infer<typeof sandboxSnapshot>;

export type NewTransaction = {
  type: 'CREDIT' | 'DEBIT';
  amount: number;
  description?: string | undefined;
  senderName?: string | undefined;
  reference?: string | null | undefined;
};

const challengeGraceMs = 24 * 60 * 60 * 1000;
const accountKey = (providerCode: string, accountRef: string) => `${providerCode} ${accountRef}`;
const loginKey = (providerCode: string, username: string) => `${providerCode} ${username}`;
const transferKey = (providerCode: string, accountRef: string, reference: string) =>
  `${providerCode} ${accountRef} ${reference}`;

export class SandboxState {
  readonly accounts = new Map<string, SandboxAccount>();
  readonly bankLogins = new Map<string, BankLogin>();
  readonly sessions = new Map<string, SandboxSession>();
  readonly challenges = new Map<string, OtpChallenge>();
  /** The last OTP sent to each phone number. */
  readonly inbox = new Map<string, InboxMessage>();
  readonly virtualAccounts = new Map<string, VirtualAccount>();
  private readonly transfers = new Map<string, TransferRecord>();
  private readonly listeners: (() => void)[] = [];

  constructor(private readonly clock: Clock) {}

  static restore(clock: Clock, snapshot: SandboxSnapshot): SandboxState {
    const state = new SandboxState(clock);
    for (const a of snapshot.accounts) state.accounts.set(accountKey(a.providerCode, a.accountRef), a);
    for (const l of snapshot.bankLogins) state.bankLogins.set(loginKey(l.providerCode, l.username), l);
    for (const s of snapshot.sessions) state.sessions.set(s.token, s);
    for (const c of snapshot.challenges) state.challenges.set(c.id, c);
    for (const m of snapshot.inbox) state.inbox.set(m.phone, m);
    for (const v of snapshot.virtualAccounts) state.virtualAccounts.set(v.vaNumber, v);
    for (const t of snapshot.transfers) state.transfers.set(transferKey(t.providerCode, t.accountRef, t.reference), t);
    return state;
  }

  snapshot(): SandboxSnapshot {
    return {
      version: 1,
      accounts: [...this.accounts.values()],
      bankLogins: [...this.bankLogins.values()],
      sessions: [...this.sessions.values()],
      challenges: [...this.challenges.values()],
      inbox: [...this.inbox.values()],
      virtualAccounts: [...this.virtualAccounts.values()],
      transfers: [...this.transfers.values()],
    };
  }

  /** Called after every change, e.g. to write the state file. */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  changed(): void {
    for (const listener of this.listeners) listener();
  }

  findAccount(providerCode: string, accountRef: string): SandboxAccount | undefined {
    return this.accounts.get(accountKey(providerCode, accountRef));
  }

  /** The account, created with its deterministic balance and history when first seen. */
  openAccount(providerCode: string, accountRef: string): SandboxAccount {
    const existing = this.findAccount(providerCode, accountRef);
    if (existing) return existing;
    const created = seedAccount(providerCode, accountRef, this.clock.now());
    this.accounts.set(accountKey(providerCode, accountRef), created);
    this.changed();
    return created;
  }

  /** Adds a transaction dated now and moves the balance; a debit never takes it below zero. */
  record(target: SandboxAccount, input: NewTransaction): SandboxTransaction {
    if (input.type === 'DEBIT' && input.amount > target.balance)
      throw new SandboxError(400, 'INSUFFICIENT_BALANCE', `Balance ${target.balance} is less than ${input.amount}`);
    const added: SandboxTransaction = {
      id: randomUUID(),
      type: input.type,
      amount: input.amount,
      description: input.description ?? '',
      senderName: input.senderName ?? (input.type === 'DEBIT' ? target.holderName : 'SANDBOX'),
      reference: input.reference ?? null,
      occurredAt: this.clock.now().toISOString(),
    };
    target.transactions.push(added);
    target.balance += input.type === 'CREDIT' ? input.amount : -input.amount;
    this.changed();
    return added;
  }

  findTransfer(account: SandboxAccount, reference: string): TransferRecord | undefined {
    return this.transfers.get(transferKey(account.providerCode, account.accountRef, reference));
  }

  saveTransfer(record: TransferRecord): void {
    this.transfers.set(transferKey(record.providerCode, record.accountRef, record.reference), record);
    this.changed();
  }

  findBankLogin(providerCode: string, username: string): BankLogin | undefined {
    return this.bankLogins.get(loginKey(providerCode, username));
  }

  saveBankLogin(login: BankLogin): void {
    this.bankLogins.set(loginKey(login.providerCode, login.username), login);
    this.changed();
  }

  /**
   * Forgets sessions and challenges that can no longer be used, so the state file does not grow forever. An
   * expired challenge is kept a day longer, so that verifying it still says expired rather than not found.
   */
  prune(): void {
    const now = this.clock.now().getTime();
    for (const [token, s] of this.sessions) if (Date.parse(s.expiresAt) <= now) this.sessions.delete(token);
    for (const [id, c] of this.challenges)
      if (Date.parse(c.expiresAt) + challengeGraceMs <= now) this.challenges.delete(id);
  }
}

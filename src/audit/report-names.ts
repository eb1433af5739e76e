import { query, type Queryable } from '../db/pool.ts';

/**
 * The names finance reads beside the ids of its reports: a merchant's business name (its gateway access request; the
 * user's own name when it never asked) and email, and an account's provider and name. Looked up when a report is
 * computed, so a closed month keeps the names it was closed with; an id the read models do not know keeps null names.
 */

export type MerchantNames = { merchantName: string | null; merchantEmail: string | null };
export type AccountNames = { providerCode: string | null; accountName: string | null };

const noMerchant: MerchantNames = { merchantName: null, merchantEmail: null };
const noAccount: AccountNames = { providerCode: null, accountName: null };
const isUuid = (id: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);

/** The merchants' names by id (every id asked for is in the map). */
export async function merchantNames(db: Queryable, ids: Iterable<string>): Promise<Map<string, MerchantNames>> {
  const wanted = [...new Set(ids)].filter(isUuid);
  const found = new Map<string, MerchantNames>(wanted.map(id => [id, noMerchant]));
  if (wanted.length === 0) return found;
  const r = await query<{ id: string } & MerchantNames>(
    db,
    'ReportMerchantNames',
    `select u.id::text as id, coalesce(g.business->>'businessName', u.name) as "merchantName", u.email as "merchantEmail"
     from users u left join gateway_access g on g.user_id = u.id where u.id = any($1::uuid[])`,
    [wanted],
  );
  for (const { id, ...names } of r.rows) found.set(id, names);
  return found;
}

/** The platform accounts' provider codes and names by id (holding accounts, the payout account). */
export async function accountNames(db: Queryable, ids: Iterable<string>): Promise<Map<string, AccountNames>> {
  const wanted = [...new Set(ids)].filter(isUuid);
  const found = new Map<string, AccountNames>(wanted.map(id => [id, noAccount]));
  if (wanted.length === 0) return found;
  const r = await query<{ id: string } & AccountNames>(
    db,
    'ReportAccountNames',
    `select id::text as id, provider_code as "providerCode", account_name as "accountName" from accounts
     where id = any($1::uuid[])`,
    [wanted],
  );
  for (const { id, ...names } of r.rows) found.set(id, names);
  return found;
}

/** A merchant's names, or nulls (an id no lookup was asked for). */
export const merchantNamesOf = (names: Map<string, MerchantNames>, id: string | null): MerchantNames =>
  (id && names.get(id)) || noMerchant;

/** An account's names, or nulls. */
export const accountNamesOf = (names: Map<string, AccountNames>, id: string | null): AccountNames =>
  (id && names.get(id)) || noAccount;

/** A ledger account's owner as a name: a merchant's business name, a holding account's provider and name. */
export function ledgerAccountName(
  account: string,
  merchants: Map<string, MerchantNames>,
  accounts: Map<string, AccountNames>,
): string | null {
  const [kind, id] = account.split(':');
  if (kind === 'merchant' && id) return merchants.get(id)?.merchantName ?? null;
  if (kind === 'holding' && id) {
    const a = accounts.get(id);
    return a?.providerCode ? `${a.providerCode} ${a.accountName ?? ''}`.trim() : null;
  }
  return null;
}

/** The merchants and platform accounts named by ledger accounts (merchant:<id>:…, holding:<id>). */
export function idsOfLedgerAccounts(accounts: Iterable<string>): { merchants: string[]; accounts: string[] } {
  const merchants: string[] = [];
  const platform: string[] = [];
  for (const account of accounts) {
    const [kind, id] = account.split(':');
    if (kind === 'merchant' && id) merchants.push(id);
    else if (kind === 'holding' && id) platform.push(id);
  }
  return { merchants, accounts: platform };
}

/** What a balance history may be asked of: the merchants with a ledger and the platform accounts with cash in it. */
export type ReportSubjects = {
  merchants: ({ id: string } & MerchantNames)[];
  accounts: ({ id: string } & AccountNames)[];
};

export async function reportSubjects(db: Queryable): Promise<ReportSubjects> {
  const merchants = await query<{ id: string } & MerchantNames>(
    db,
    'ReportSubjectMerchants',
    `select b.merchant_id::text as id, coalesce(g.business->>'businessName', u.name) as "merchantName", u.email as "merchantEmail"
     from gateway_balances b left join users u on u.id = b.merchant_id left join gateway_access g on g.user_id = b.merchant_id
     order by 2 nulls last, 3, 1 limit 1000`,
  );
  const accounts = await query<{ id: string } & AccountNames>(
    db,
    'ReportSubjectAccounts',
    `select c.account_id as id, a.provider_code as "providerCode", a.account_name as "accountName"
     from gateway_cash c left join accounts a on a.id::text = c.account_id order by 2 nulls last, 3, 1`,
  );
  return { merchants: merchants.rows, accounts: accounts.rows };
}

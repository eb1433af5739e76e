import { paymentMethodOf } from '../domain/payment-methods.ts';

/**
 * The enums of the read models as the dashboard and the admin console say them: one table per enum, each value a
 * word people here read. The API keeps its codes; a value a table does not know yet shows as its code rather than
 * nothing (an event from a newer version folded by an older page).
 */

export const roleWords: Record<string, string> = { USER: 'Pengguna', ADMIN: 'Admin' };

export const planWords: Record<string, string> = { free: 'Gratis' };

export const subscriptionWords: Record<string, string> = { ACTIVE: 'aktif', EXPIRED: 'berakhir' };

export const mutationTypeWords: Record<string, string> = { CREDIT: 'Masuk', DEBIT: 'Keluar' };

export const accessStatusWords: Record<string, string> = {
  NONE: 'Belum mengajukan',
  PENDING: 'Menunggu peninjauan',
  APPROVED: 'Disetujui',
  REJECTED: 'Ditolak',
};

export const withdrawalStatusWords: Record<string, string> = {
  REQUESTED: 'Diproses',
  PAID: 'Dibayar',
  REJECTED: 'Ditolak',
};

/** The fields of a gateway access request (GatewayAccessRequested), as the request form labels them. */
export const businessFieldWords: Record<string, string> = {
  businessName: 'Nama usaha',
  businessType: 'Jenis usaha',
  phone: 'Telepon',
  address: 'Alamat',
  website: 'Situs web',
  description: 'Keterangan',
};

/** A payment method as merchants and admins read it (the registry's label), or its code when the registry has none. */
export const methodWord = (type: string): string => paymentMethodOf(type)?.merchantLabel ?? type;

/** A value's word in `table`, or the value itself when the table has none. */
export const wordOf = (table: Record<string, string>, value: string): string =>
  Object.hasOwn(table, value) ? table[value]! : value;

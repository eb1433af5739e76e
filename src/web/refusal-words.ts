import { errorCodes, type DomainError, type ErrorCode } from '../errors.ts';

/**
 * The refusals a person meets on the dashboard's pages, in Indonesian. The API answers the registry's English
 * (src/errors.ts); a page says the same refusal in the words below. A code not listed keeps its message.
 */
const words: Partial<Record<ErrorCode, string>> = {
  NOT_FOUND: 'Tidak ditemukan',
  FORBIDDEN: 'Akses ditolak',
  CROSS_ORIGIN_REFUSED: 'Ditolak: permintaan datang dari halaman situs lain',
  PAYLOAD_TOO_LARGE: 'Data yang dikirim terlalu besar',
  RATE_LIMITED: 'Terlalu banyak permintaan, coba lagi sebentar lagi',
  DATABASE_UNAVAILABLE: 'Layanan sedang tidak tersedia, coba lagi sebentar lagi',
  INTERNAL_ERROR: 'Terjadi kesalahan di pihak kami',
  ACCOUNT_NOT_FOUND: 'Rekening tidak ditemukan',
  ACCOUNT_INACTIVE: 'Sesi penyedia sudah berakhir; masuk ulang dulu',
  PROVIDER_NOT_FOUND: 'Penyedia tidak dikenal',
  PROVIDER_LOGIN_FAILED: 'Penyedia menolak login',
  PROVIDER_UNAVAILABLE: 'Penyedia sedang tidak dapat dihubungi, coba lagi nanti',
  PROVIDER_REJECTED: 'Penyedia menolak permintaan',
  NOT_ENOUGH_POINTS: 'Poin tidak cukup',
  MISSING_FIELDS: 'Ada isian wajib yang kosong',
  UNKNOWN_PROVIDER: 'E-wallet ini tidak masuk dengan OTP',
  VERIFICATION_INCOMPLETE: 'Data verifikasi belum lengkap',
  OTP_SESSION_INVALID: 'Sesi OTP kedaluwarsa atau tidak dikenal; mulai lagi dari awal',
  OTP_VERIFICATION_FAILED: 'Kode OTP salah atau verifikasi gagal',
  PAYMENT_NOT_FOUND: 'Pembayaran tidak ditemukan',
  GATEWAY_ACCESS_CONFLICT: 'Status akses gateway tidak memungkinkan tindakan ini',
  HOLDING_ACCOUNT_CANNOT_SERVE: 'Rekening ini tidak melayani metode gateway mana pun',
  WITHDRAWAL_NOT_FOUND: 'Penarikan tidak ditemukan',
  WITHDRAWAL_BELOW_MINIMUM: 'Jumlah di bawah minimal penarikan',
  INSUFFICIENT_BALANCE: 'Jumlah melebihi saldo tersedia',
  WITHDRAWAL_OWN_PAYOUT: 'Admin tidak dapat membayar penarikannya sendiri',
  WITHDRAWAL_NOT_REQUESTED: 'Penarikan ini sudah dibayar atau ditolak',
  QR_IMAGE_MISSING: 'Pilih gambar kode QR',
  QR_IMAGE_NOT_AN_IMAGE: 'Berkas bukan gambar PNG atau JPEG',
  QR_IMAGE_TOO_LARGE: 'Gambar terlalu besar',
  QR_NOT_FOUND: 'Tidak ada kode QR yang terbaca di gambar',
  QR_DECODER_BUSY: 'Terlalu banyak gambar QR sedang dibaca; coba lagi sebentar lagi',
  QR_NOT_QRIS: 'Kode QR bukan QRIS yang sah',
  QR_AMOUNT_MISMATCH: 'Jumlah berbeda dari nominal di QRIS',
  QR_AMOUNT_OUT_OF_RANGE: 'Transfer QR dari Rp 1 sampai Rp 10.000.000',
  TRANSFER_NOT_SUPPORTED: 'Transfer keluar hanya dari akun Wallet A',
  BALANCE_INSUFFICIENT: 'Saldo tidak cukup',
  BANK_LIST_FAILED: 'Daftar bank tidak dapat diambil',
  BANK_ACCOUNT_VALIDATION_FAILED: 'Rekening tujuan tidak valid (nomor salah atau bank tidak cocok)',
  BANK_ACCOUNT_INDEX_INVALID: 'Pemeriksaan penerima sudah kedaluwarsa; periksa lagi',
  TRANSFER_AMOUNT_MISMATCH: 'Jumlah berbeda dari yang sudah diperiksa',
  TRANSFER_FAILED: 'Transfer gagal; saldo tidak terpotong',
  TRANSFER_UNCONFIRMED: 'Penyedia belum mengonfirmasi transfer; saldo tetap terpotong sampai ada kepastian. Jangan ulangi dengan pemeriksaan baru',
  WEBHOOK_URL_REFUSED: 'URL webhook ditolak',
  WEBHOOK_ENDPOINT_NOT_FOUND: 'Endpoint webhook tidak ditemukan',
  WEBHOOK_DELIVERY_NOT_FOUND: 'Pengiriman tidak ditemukan',
  WEBHOOK_ENDPOINT_LIMIT: 'Terlalu banyak endpoint webhook; hapus satu dulu',
  WEBHOOK_ENDPOINT_DISABLED: 'Endpoint webhook nonaktif (penerimanya menjawab 410 Gone)',
  INVALID_HOLIDAY_CALENDAR: 'Kalender tidak sah: setiap tanggal harus di tahun itu, sekali saja',
  INVALID_PERIOD: 'Periode tidak sah: tanggal YYYY-MM-DD, awal tidak setelah akhir, paling lama 366 hari',
  STREAM_NOT_FOUND: 'Tidak ada stream dengan ID itu',
};

/**
 * A refusal as a page says it: the registry's words in Indonesian, with what the throw site added after them (a
 * webhook URL's or a QR's reason, an amount) kept as it is; a message of the throw site's own (the pages' are
 * Indonesian already) is left alone.
 */
export function refusalWords(error: Pick<DomainError, 'code' | 'message'>): string {
  const said = words[error.code];
  const plain: string = errorCodes[error.code].message;
  if (!said || !error.message.startsWith(plain)) return error.message;
  return `${said}${error.message.slice(plain.length)}`;
}

import { errorCodes, type DomainError, type ErrorCode, type RefusalParams } from '../errors.ts';
import { formatRupiah } from './html.ts';

/** The codes of the session surface: their registry messages are the interface's Indonesian already. */
type SessionCode = { [C in ErrorCode]: (typeof errorCodes)[C] extends { surface: 'session' } ? C : never }[ErrorCode];

/** A refusal's words: fixed, or chosen by what the throw site passed (`refuse(code, { params })`). */
type Words = string | ((p: RefusalParams) => string);

const amount = (p: RefusalParams, name: string) => (typeof p[name] === 'number' ? formatRupiah(p[name]) : null);
/** Words with the parts a throw site did not pass left out. */
const join = (...parts: (string | number | null | undefined)[]) =>
  parts.filter(part => part !== null && part !== undefined && part !== '').join(' ');
const inBrackets = (label: string, value: string | number | null | undefined) =>
  value === undefined || value === null ? null : `(${label}${value})`;

/**
 * The refusals as the dashboard's and admin console's pages say them, in Indonesian: one entry per code that can
 * reach a page (every code but the session surface's), chosen by the code and its params, never by the message (the
 * API's English, src/errors.ts). The compiler refuses a new code without words.
 */
const words = {
  VALIDATION_ERROR: p =>
    p.reason === 'INVALID_URL' ? 'URL webhook ditolak: bukan URL http atau https yang sah' : 'Isian tidak valid',
  INVALID_INPUT: 'Isian tidak valid',
  INVALID_TEXT: 'Teks harus Unicode yang sah tanpa karakter NUL',
  BAD_REQUEST: 'Permintaan tidak valid',
  UNAUTHORIZED: 'Sesi Anda sudah berakhir; masuk lagi',
  FORBIDDEN: 'Akses ditolak',
  CROSS_ORIGIN_REFUSED: 'Ditolak: permintaan datang dari halaman situs lain',
  NOT_FOUND: 'Tidak ditemukan',
  METHOD_NOT_ALLOWED: 'Cara permintaan ini tidak diizinkan di alamat ini',
  CONFLICT: 'Bentrok dengan data yang ada; coba lagi',
  PAYLOAD_TOO_LARGE: 'Data yang dikirim terlalu besar',
  UNSUPPORTED_MEDIA_TYPE: 'Jenis data yang dikirim tidak didukung',
  UNPROCESSABLE: 'Permintaan tidak dapat diproses',
  RATE_LIMITED: p => {
    const scope =
      p.scope === 'qr-key'
        ? 'Terlalu banyak gambar QR untuk API key ini'
        : p.scope === 'qr-user'
          ? 'Terlalu banyak gambar QR untuk pengguna ini'
          : p.scope === 'otp'
            ? 'Terlalu banyak permintaan kode OTP'
            : 'Terlalu banyak permintaan';
    return typeof p.seconds === 'number'
      ? `${scope}; coba lagi dalam ${p.seconds} detik`
      : `${scope}, coba lagi sebentar lagi`;
  },
  INTERNAL_ERROR: 'Terjadi kesalahan di pihak kami',
  UNAVAILABLE: 'Layanan sedang tidak tersedia, coba lagi sebentar lagi',
  DATABASE_UNAVAILABLE: 'Layanan sedang tidak tersedia, coba lagi sebentar lagi',
  BUSY: 'Layanan sedang sibuk; tidak ada yang tersimpan, coba lagi sebentar lagi',

  INVALID_API_KEY: 'API key tidak sah atau tidak ada',
  SESSION_EXISTS: 'Sesi ini sudah dimulai',

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
  PAYMENT_TYPE_NOT_SUPPORTED: p => {
    switch (p.case) {
      case 'retired':
        return 'QRIS statis tidak bisa dibuat lagi: pembayar mengetik nominalnya sendiri. Pakai QRIS-DYNAMIC';
      case 'no-methods':
        return `Rekening ${p.provider ?? 'ini'} tidak bisa menerima pembayaran`;
      case 'not-offered':
        return join(
          'Metode',
          p.type ?? 'ini',
          'tidak didukung',
          p.provider ?? 'penyedia ini',
          inBrackets('yang didukung: ', p.supported),
        );
      case 'not-gateway':
        return join('Metode', p.type ?? 'ini', 'tidak dilayani gateway', inBrackets('yang dilayani: ', p.served));
      default:
        return 'Metode pembayaran tidak didukung penyedia';
    }
  },
  RECEIVING_ACCOUNT_GONE: 'Rekening penerima pembayaran ini sudah tidak ada',
  GATEWAY_NOT_APPROVED: p =>
    `${join('Akses gateway belum disetujui', inBrackets('status: ', p.status))}; ajukan lewat dasbor`,
  ORDER_PENDING: 'Pesanan ini sudah punya pembayaran yang menunggu',
  ORDER_ALREADY_PAID: 'Pesanan ini sudah lunas; tidak ditagih lagi',
  NO_UNIQUE_CODE:
    'Semua kode unik untuk jumlah ini sedang dipakai pembayaran yang menunggu; coba lagi nanti atau jumlah lain',
  VA_NUMBER_TAKEN: 'Nomor virtual account sudah dipakai',
  PAYMENT_NOT_PENDING: 'Pembayaran ini sudah tidak menunggu',
  PAYMENT_METHOD_CHOSEN: 'Metode pembayaran sudah dipilih',
  IDEMPOTENCY_KEY_REUSED: 'Idempotency-Key ini sudah dipakai untuk permintaan lain',
  PAYABLE_LAPSED: 'Jumlah tagihan kedaluwarsa sebelum pembayaran tercatat; coba lagi',
  PAYMENT_NOT_BILLED: 'Belum ada tagihan: pilih cara bayar dulu',
  PAYMENT_NOT_IN_SANDBOX: 'Pembayaran ini tidak masuk ke penyedia sandbox',
  SANDBOX_PAYMENT_REFUSED: 'Sandbox menolak membayar tagihan ini',
  SANDBOX_UNAVAILABLE: 'Sandbox sedang tidak tersedia; coba lagi sebentar lagi',

  GATEWAY_ACCESS_CONFLICT: 'Status akses gateway tidak memungkinkan tindakan ini',
  GATEWAY_DIRECT_NOT_ALLOWED: 'DIRECT tidak bisa dipakai lewat gateway',
  NO_HOLDING_ACCOUNT: p =>
    p.method
      ? `Belum ada rekening penampung yang bisa melayani ${p.method}; coba lagi nanti atau metode lain`
      : 'Belum ada rekening penampung yang bisa melayani pembayaran gateway; coba lagi nanti',
  HOLDING_ACCOUNT_CANNOT_SERVE: 'Rekening ini tidak melayani metode gateway mana pun',

  WITHDRAWAL_NOT_FOUND: 'Penarikan tidak ditemukan',
  SETTLEMENT_NOT_FOUND: 'Pencairan tidak ditemukan',
  WITHDRAWAL_BELOW_MINIMUM: p => join('Jumlah di bawah minimal penarikan', inBrackets('', amount(p, 'minimum'))),
  INSUFFICIENT_BALANCE: p => join('Jumlah melebihi saldo tersedia', inBrackets('', p.available)),
  WITHDRAWAL_OWN_PAYOUT: 'Admin tidak dapat membayar penarikannya sendiri',
  WITHDRAWAL_NOT_REQUESTED: 'Penarikan ini sudah dibayar atau ditolak',
  WITHDRAWAL_REFERENCE_USED: 'Referensi pembayaran ini sudah dipakai untuk penarikan lain',
  WITHDRAWAL_DESTINATION_INVALID: 'Rekening tujuan ditolak saat diperiksa penyedia (nomor atau bank tidak valid)',
  PAYOUT_ACCOUNT_NOT_SET: 'Belum ada rekening pembayaran: admin menandai salah satu akun WALLET-A platform dulu',
  SUSPENSE_NOT_FOUND: 'Dana tak terklaim ini tidak ditemukan',
  SUSPENSE_NOT_OPEN: 'Dana ini sudah dialokasikan atau dikembalikan',
  SUSPENSE_NOT_TRANSFERRED:
    'Dana ini tidak diambil oleh pemindahan dana antar rekening platform; tidak bisa dikembalikan ke status terbuka',
  SUSPENSE_ALREADY_UNTRANSFERRED: 'Dana ini sudah dikembalikan dari pemindahan dananya dan berstatus terbuka',
  SUSPENSE_BELOW_FEE: 'Jumlahnya tidak lebih besar dari biayanya; tidak bisa dialokasikan',
  SUSPENSE_TARGET_INVALID:
    'Alokasikan ke pembayaran gateway (ID pembayaran) atau merchant gateway yang disetujui (ID pengguna)',
  HOLDING_CASH_SHORT: 'Kas rekening platform di buku besar kurang dari jumlah pembayaran',
  WITHDRAWAL_HOLDER_MISMATCH: p =>
    `Nama pemilik rekening menurut bank${p.answered ? ` (${p.answered})` : ''} berbeda dari nama yang diminta${p.asked ? ` (${p.asked})` : ''}; hanya bisa dibayar dengan pengecualian admin beserta alasannya`,
  LEDGER_ADJUSTMENT_INVALID:
    'Penyesuaian buku besar harus untuk rekening penampung platform, bertanggal paling lambat sekarang',
  HOLDING_TRANSFER_INVALID: 'Pemindahan dana harus dari satu rekening penampung platform ke rekening penampung lain',
  WITHDRAWAL_PAYOUT_IN_FLIGHT:
    'Pembayaran penarikan ini lewat WALLET-A sudah dimulai: belum bisa ditolak sebelum transfernya gagal',
  WITHDRAWAL_PAYOUT_FAILED: p =>
    `Transfer lewat WALLET-A gagal${p.reason ? `: ${p.reason}` : ''}; tidak ada dana yang berpindah, penarikan tetap diajukan`,
  WITHDRAWAL_PAYOUT_UNCONFIRMED: p =>
    `Penyedia belum mengonfirmasi transfer${p.reason ? `: ${p.reason}` : ''}; penarikan tetap diajukan, bayar lagi untuk menanyakan hasilnya`,

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
  TRANSFER_UNCONFIRMED:
    'Penyedia belum mengonfirmasi transfer; saldo tetap terpotong sampai ada kepastian. Jangan ulangi dengan pemeriksaan baru',

  TEST_CLOCK_BACKWARDS: 'Jam uji hanya bisa maju',

  WEBHOOK_URL_REFUSED: p => {
    switch (p.reason) {
      case 'UNRESOLVABLE':
        return 'URL webhook ditolak: nama hostnya tidak dapat ditemukan';
      case 'PRIVATE_ADDRESS':
        return 'URL webhook ditolak: alamatnya di jaringan privat';
      default:
        return 'URL webhook ditolak';
    }
  },
  WEBHOOK_ENDPOINT_NOT_FOUND: 'Endpoint webhook tidak ditemukan',
  WEBHOOK_DELIVERY_NOT_FOUND: 'Pengiriman tidak ditemukan',
  WEBHOOK_ENDPOINT_LIMIT: 'Terlalu banyak endpoint webhook; hapus satu dulu',
  WEBHOOK_ENDPOINT_DISABLED: 'Endpoint webhook nonaktif (penerimanya menjawab 410 Gone)',

  GATEWAY_AMOUNT_BELOW_MINIMUM: p =>
    join('Jumlah', amount(p, 'requested'), 'di bawah minimal', p.method ?? 'metode ini', amount(p, 'minimum')),
  GATEWAY_AMOUNT_ABOVE_MAXIMUM: p =>
    join(
      'Jumlah tagihan',
      amount(p, 'billed'),
      p.billed !== p.requested ? inBrackets('', join(amount(p, 'requested'), 'ditambah biaya')) : null,
      p.case === 'no-code-room' ? 'tidak menyisakan ruang untuk kode unik di bawah maksimal' : 'di atas maksimal',
      p.method ?? 'metode ini',
      amount(p, 'maximum'),
    ),
  GATEWAY_AMOUNT_NOT_ABOVE_FEE: p =>
    join('Jumlah', amount(p, 'billed'), 'tidak lebih besar dari biaya', p.method ?? 'gateway', amount(p, 'fee')),
  INVALID_HOLIDAY_CALENDAR: 'Kalender tidak sah: setiap tanggal harus di tahun itu, sekali saja',
  INVALID_PERIOD: 'Periode tidak sah: tanggal YYYY-MM-DD, awal tidak setelah akhir, paling lama 366 hari',
  PERIOD_NOT_ENDED: p => join('Bulan', p.period, 'belum berakhir (WIB); bulan ditutup setelah hari terakhirnya lewat'),
  PERIOD_ALREADY_CLOSED: p => join('Bulan', p.period, 'sudah ditutup'),
  PERIOD_NOT_CLOSED: p => join('Bulan', p.period, 'tidak sedang ditutup'),
  PERIOD_OUT_OF_ORDER: p =>
    p.case === 'reopen'
      ? join('Hanya bulan tertutup terakhir yang dapat dibuka kembali:', p.next)
      : join('Bulan ditutup berurutan; berikutnya', p.next),

  NOTIFICATION_PROVIDER_UNKNOWN: 'Provider ini tidak mengirim notifikasi ke layanan ini',
  NOTIFICATION_SIGNATURE_INVALID: 'Tanda tangan notifikasi tidak sah',
  NOTIFICATION_STALE: 'Waktu notifikasi di luar jendela yang diterima',
  NOTIFICATION_REPLAYED: 'ID notifikasi ini sudah dipakai dengan isi lain',
  NOTIFICATION_ACCOUNT_UNKNOWN: 'Tidak ada akun aktif provider ini dengan nomor itu',
  STREAM_NOT_FOUND: 'Tidak ada stream dengan ID itu',
} satisfies Record<Exclude<ErrorCode, SessionCode>, Words>;

const isSessionCode = (code: ErrorCode): code is SessionCode =>
  (errorCodes[code] as { surface?: string }).surface === 'session';

/**
 * A refusal as a page says it: the page's own words when a page refused, else the code's words (chosen by its params);
 * the session surface's codes say their registry message, which is Indonesian. The English message is never read.
 */
export function refusalWords(error: Pick<DomainError, 'code' | 'params' | 'words'>): string {
  if (error.words !== null) return error.words;
  if (isSessionCode(error.code)) return errorCodes[error.code].message;
  const said: Words = words[error.code];
  return typeof said === 'string' ? said : said(error.params);
}

import { z } from 'zod';
import { transferLimits } from '../../commands/send-transfer.ts';
import { bankCreateBody, bankInitBody } from '../transfers.ts';
import type { DocumentedOperation } from './index-requests.ts';

/**
 * POST /api/v1/accounts/{id}/transfer as src/api/transfers.ts checks it by hand (by action: the bank steps in JSON,
 * the QR transfer as a multipart form), and what each step answers.
 */

/** Rupiah as the route takes them: a string of digits or a whole number, within the transfer's limits. */
const rupiah = (min: number) =>
  z
    .union([z.string().regex(/^\d{1,12}$/), z.int().min(min).max(transferLimits.max)])
    .describe(`Whole rupiah, digits only, at least ${min} and at most ${transferLimits.max}`);

const bankList = z
  .object({ action: z.literal('wallet-a-bank-list') })
  .meta({ title: 'The banks one can transfer to (step 1)' });
const bankInit = bankInitBody.extend({ amount: rupiah(transferLimits.bankMin) }).meta({
  title:
    'Check the destination account (step 2): instId, instLocalName, payMethod and payOption as the bank list has them',
});
const bankCreate = bankCreateBody
  .extend({ amount: rupiah(transferLimits.bankMin).describe('Equal to the amount of step 2') })
  .meta({ title: 'Send the bank transfer (step 3): deducted at once, cannot be cancelled' });

const jsonRequest = z
  .union([bankList, bankInit, bankCreate])
  .describe('A step of a bank transfer, by action (bank-list, bank-init, bank-create, in order)');
const qrisRequest = z
  .object({
    action: z.literal('wallet-a-qris-create'),
    qrImage: z.string().meta({
      contentMediaType: 'application/octet-stream',
      description: 'A JPG or PNG image of a QRIS code, at most 5 MB',
    }),
    amount: z
      .string()
      .regex(/^\d{1,12}$/)
      .optional()
      .describe(
        `Whole rupiah, at least ${transferLimits.qrisMin} and at most ${transferLimits.max}; required for a static QRIS; for a QRIS with its own amount, that amount or left out`,
      ),
  })
  .describe('A QRIS payment from the account: the QR image and the amount');

const bank = {
  instId: '014',
  name: 'Bank Central Asia',
  instLocalName: 'BCA',
  payMethod: 'BANK_TRANSFER',
  payOption: 'BCA',
};

const bankListResponse = z
  .object({
    success: z.literal(true),
    data: z.array(
      z.object({
        instId: z.string(),
        name: z.string(),
        instLocalName: z.string(),
        payMethod: z.string(),
        payOption: z.string(),
      }),
    ),
  })
  .meta({
    id: 'TransferBankListResponse',
    description:
      "The banks one can transfer to: copy one's instId, instLocalName, payMethod and payOption to bank-init",
    examples: [{ success: true, data: [bank] }],
  });

const bankInitResponse = z
  .object({
    success: z.literal(true),
    data: z.object({
      bankAccountIndexNo: z.string().describe('For bank-create'),
      accountName: z.string().describe("The destination holder's name: compare it before bank-create"),
    }),
  })
  .meta({
    id: 'TransferInquiryResponse',
    description: 'The destination account, checked',
    examples: [
      {
        success: true,
        data: { bankAccountIndexNo: '6f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9', accountName: 'BUDI SANTOSO' },
      },
    ],
  });

const sentResponse = z.object({ success: z.literal(true), message: z.string() }).meta({
  id: 'TransferSentResponse',
  description: 'The transfer, sent (bank-create, qris-create)',
  examples: [{ success: true, message: 'Transfer Rp 50.000 ke BUDI SANTOSO (BCA 1234567890) berhasil' }],
});

// anyOf, not a tagged oneOf: all three say success true (no tag; the request's action tells them apart), and the list's
// and the inquiry's differ only in data's type, which redocly's no-illogical-composition-keywords cannot see
const transferResponse = z.union([bankListResponse, bankInitResponse, sentResponse]).meta({
  id: 'TransferResponse',
  description:
    "By the request's action: the bank list (bank-list), the checked destination (bank-init), or the transfer sent (bank-create, qris-create)",
  examples: [{ success: true, message: 'Transfer Rp 50.000 ke BUDI SANTOSO (BCA 1234567890) berhasil' }],
});

export const transferOperations: Record<string, DocumentedOperation> = {
  'POST /api/v1/accounts/{id}/transfer': {
    body: { 'application/json': jsonRequest, 'multipart/form-data': qrisRequest },
    responses: { 200: transferResponse },
  },
};

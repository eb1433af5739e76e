import { z } from 'zod';
import { paymentType } from '../../events/payments.ts';
import type { Provider } from '../../providers/catalogue.ts';
import type { DocumentedOperation } from './index-requests.ts';
import { successList, type NamesAll } from './payments.ts';

/** GET /api/v1/providers as src/api/providers.ts answers it: the catalogue (src/providers/catalogue.ts). */

export const provider = z
  .object({
    providerCode: z.string().describe('The providerCode an account is created with'),
    name: z.string(),
    type: z.enum(['bank', 'ewallet']),
    paymentTypes: z.array(paymentType).describe('The payment types an account of it can receive; empty: none'),
    loginFlow: z
      .enum(['credentials', 'otp', 'direct'])
      .describe(
        'credentials: username and password; otp: the e-wallet OTP steps of POST /api/v1/accounts; direct: created at once',
      ),
  })
  .meta({
    id: 'Provider',
    description: 'A bank or e-wallet provider the service can link',
    examples: [
      {
        providerCode: 'WALLET-A',
        name: 'Wallet A',
        type: 'ewallet',
        paymentTypes: ['DIRECT', 'VA-BANK1', 'VA-BANK2', 'VA-BANK3'],
        loginFlow: 'otp',
      },
    ],
  });

const _named: NamesAll<Provider, z.output<typeof provider>> = true;

export const providerOperations: Record<string, DocumentedOperation> = {
  'GET /api/v1/providers': { responses: { 200: successList('ProviderListResponse', provider) } },
};

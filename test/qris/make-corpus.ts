// writes test/qris/corpus.json: npx tsx test/qris/make-corpus.ts (the file is committed; this says how it was made)
import { writeFileSync } from 'node:fs';
import { qrisPayload } from './build.ts';

const breakCrc = (p: string) => `${p.slice(0, -1)}${p.endsWith('0') ? '1' : '0'}`;
const corpus = [
  { name: 'static', payload: qrisPayload(), expect: { ok: true, kind: 'static', amount: null, tip: null } },
  {
    name: 'dynamic 25,000',
    payload: qrisPayload({ amount: '25000' }),
    expect: { ok: true, kind: 'dynamic', amount: 25000, tip: null },
  },
  {
    name: 'dynamic with a zero fraction',
    payload: qrisPayload({ amount: '25000.00' }),
    expect: { ok: true, kind: 'dynamic', amount: 25000, tip: null },
  },
  {
    name: 'dynamic, the payer asked for a tip',
    payload: qrisPayload({ amount: '25000', tip: { indicator: '01' } }),
    expect: { ok: true, kind: 'dynamic', amount: 25000, tip: { kind: 'prompt' } },
  },
  {
    name: 'dynamic, a fixed tip of 2,000',
    payload: qrisPayload({ amount: '25000', tip: { indicator: '02', fixed: '2000' } }),
    expect: { ok: true, kind: 'dynamic', amount: 25000, tip: { kind: 'fixed', amount: 2000 } },
  },
  {
    name: 'static, a 5% tip',
    payload: qrisPayload({ tip: { indicator: '03', percent: '5' } }),
    expect: { ok: true, kind: 'static', amount: null, tip: { kind: 'percent', basisPoints: 500 } },
  },
  {
    name: 'static, a 2.5% tip',
    payload: qrisPayload({ tip: { indicator: '03', percent: '2.5' } }),
    expect: { ok: true, kind: 'static', amount: null, tip: { kind: 'percent', basisPoints: 250 } },
  },
  {
    name: 'merchant account in tag 51',
    payload: qrisPayload({ accountTag: '51' }),
    expect: { ok: true, kind: 'static', amount: null, tip: null },
  },
  { name: 'broken CRC (static)', payload: breakCrc(qrisPayload()), expect: { ok: false } },
  { name: 'broken CRC (dynamic)', payload: breakCrc(qrisPayload({ amount: '10000' })), expect: { ok: false } },
  { name: 'dynamic without an amount', payload: qrisPayload({ initiation: '12' }), expect: { ok: false } },
  { name: 'an amount with cents', payload: qrisPayload({ amount: '25000.50' }), expect: { ok: false } },
  {
    name: 'tip 02 without its fixed amount',
    payload: qrisPayload({ tip: { indicator: '02' } }),
    expect: { ok: false },
  },
  { name: 'tip indicator 09', payload: qrisPayload({ tip: { indicator: '09' } }), expect: { ok: false } },
  { name: 'Singapore (58 = SG)', payload: qrisPayload({ country: 'SG' }), expect: { ok: false } },
  { name: 'another currency (53 = 702)', payload: qrisPayload({ currency: '702' }), expect: { ok: false } },
  { name: 'no merchant account tag', payload: qrisPayload({ accountTag: null }), expect: { ok: false } },
  { name: 'a URL', payload: 'https://example.com/pay?amount=25000&to=toko-maju', expect: { ok: false } },
  { name: 'plain text', payload: 'Hello from the QR on the table', expect: { ok: false } },
  { name: 'empty', payload: '', expect: { ok: false } },
];
writeFileSync(new URL('./corpus.json', import.meta.url), `${JSON.stringify(corpus, null, 2)}\n`);

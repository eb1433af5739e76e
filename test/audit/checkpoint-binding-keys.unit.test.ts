import { describe, expect, it } from 'vitest';
import { chainKeysProblem } from '../../src/audit/checkpoint-binding.ts';
import { digestSigner, type DigestSigner } from '../../src/audit/digest-signer.ts';
import { checkpointHash, genesisHash, signCheckpoint, type LedgerCheckpoint } from '../../src/audit/ledger-format.ts';
import { testSigningKey } from '../support/signing-key.ts';

/**
 * balance-as-of checks the chain's signatures with the service's key, followed back through its rotations: the keys
 * taken from the chain's first key through each rotation (signed by the old key and the new) must lead to the service's.
 */

const [a, b, c] = ['first', 'second', 'forger'].map(name => digestSigner(testSigningKey(name))) as [
  DigestSigner,
  DigestSigner,
  DigestSigner,
];

/** Checkpoints 0..n-1, each signed by its signer; `rotateAt` hands over from a to b there. */
function chain(signers: DigestSigner[], rotateAt?: number): LedgerCheckpoint[] {
  const out: LedgerCheckpoint[] = [];
  signers.forEach((signer, seq) => {
    const before = out.at(-1);
    const rotation = seq === rotateAt ? { nextKey: b.publicKey } : {};
    const unsigned = {
      v: 1 as const,
      ...{ seq, from: seq, to: seq + 1, events: 1, root: genesisHash, at: '2026-01-05T03:00:00.000Z' },
      prev: before ? checkpointHash(before) : genesisHash,
      lastPosition: `${seq}/${seq}`,
      keyId: signer.keyId,
      ...rotation,
    };
    out.push(signCheckpoint(unsigned, signer, seq === rotateAt ? b : undefined));
  });
  return out;
}

describe("balance-as-of's keys", () => {
  it("follow a rotation from the chain's first key to the service's", () => {
    expect(chainKeysProblem(chain([a, a, b, b], 1), a.publicKey, [b.publicKey])).toBeNull();
    expect(chainKeysProblem(chain([b, b]), b.publicKey, [b.publicKey])).toBeNull();
  });

  it('refuse a chain whose keys do not lead to the service’s, a key no rotation introduced, a bad signature', () => {
    expect(chainKeysProblem(chain([a, a, b], 1), a.publicKey, [a.publicKey])).toMatch(/not the service's/);
    expect(chainKeysProblem(chain([c, c]), c.publicKey, [b.publicKey])).toMatch(/not the service's/);
    expect(chainKeysProblem(chain([a, b]), a.publicKey, [b.publicKey])).toMatch(/which no rotation introduced/);
    const resigned = chain([b, b]);
    resigned[1] = { ...resigned[1]!, signature: c.sign('something else') };
    expect(chainKeysProblem(resigned, b.publicKey, [b.publicKey])).toMatch(
      /checkpoint 1: its signature does not verify/,
    );
    expect(chainKeysProblem(chain([a]), null, [b.publicKey])).toMatch(/which the database does not hold/);
  });
});

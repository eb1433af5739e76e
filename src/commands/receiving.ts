// moved to src/domain (issue 29): remove when create-payment.ts, payable-claims.ts and bench/receiving-payables.ts import it there
export * from '../domain/receiving.ts';

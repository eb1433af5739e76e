// moved to src/domain (issue 29): remove when create-payment.ts and payable-claims.ts import it there
export * from '../domain/payment.ts';

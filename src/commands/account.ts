// moved to src/domain (issue 29): remove when create-payment.ts imports it there
export * from '../domain/account.ts';

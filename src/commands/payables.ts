// moved to src/domain (issue 29): remove when payable-claims.ts imports it there
export * from '../domain/payables.ts';

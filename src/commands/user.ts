// moved to src/domain (issue 29): remove when bench/account-sync.ts imports it there
export * from '../domain/user.ts';

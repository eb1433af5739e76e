import type { CommandDeps } from './deps.ts';
import { handleCommand } from '../store/commands/handle.ts';
import { userStream } from '../domain/user.ts';
import { gatewayAccess, type GatewayAccessCommand } from '../domain/gateway-access.ts';
import { gatewayAccessProjection } from '../projections/gateway-access.ts';

/** Runs one access command on the merchant's user stream, recorded as done by `actor`. */
export async function decideGatewayAccess(
  deps: CommandDeps,
  merchantId: string,
  command: GatewayAccessCommand,
  actor: string,
) {
  const done = await handleCommand(deps, userStream(merchantId), gatewayAccess, command, { actor, now: command.now });
  await deps.readModels.waitFor(done.position, undefined, [gatewayAccessProjection]); // whoever asked reads the decision next
  return done;
}

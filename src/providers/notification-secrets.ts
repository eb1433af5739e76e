import { ConfigError, type Config, type ProviderNotificationSettings } from '../config.ts';
import { offersNotifications, providers } from './catalogue.ts';
import { sandboxNotificationSecret } from './notification-signature.ts';
import { httpSender, type SandboxPush } from './sandbox/notifications.ts';

/**
 * The secret of every provider the service hears notifications from: those configured (PROVIDER_NOTIFICATION_SECRETS,
 * each a provider that offers notifications), and, when the service's provider is the sandbox, every other one that
 * offers them under the secret derived from the service's (sandboxNotificationSecret), which the sandbox it starts is
 * given too.
 */
export function notificationSettings(
  config: Pick<Config, 'providerNotifications' | 'jwtSecret'>,
  sandboxPlays: boolean,
): ProviderNotificationSettings {
  const configured = config.providerNotifications.secrets;
  for (const code of Object.keys(configured))
    if (!offersNotifications(code))
      throw new ConfigError(
        `Invalid configuration:\n  PROVIDER_NOTIFICATION_SECRETS: ${code} is not a provider that sends notifications (the e-wallets do)`,
      );
  const derived = sandboxPlays
    ? Object.fromEntries(
        providers
          .filter(p => offersNotifications(p.providerCode))
          .map(p => [p.providerCode, sandboxNotificationSecret(config.jwtSecret, p.providerCode)]),
      )
    : {};
  return { ...config.providerNotifications, secrets: { ...derived, ...configured } };
}

/**
 * What the embedded sandbox pushes: the providers SANDBOX_PUSH names (unset: all that offer notifications) that have
 * a secret, to SANDBOX_PUSH_URL over HTTP, or else to `inProcess` (the service that started it).
 */
export function sandboxPushOf(
  config: Pick<Config, 'sandbox'>,
  settings: ProviderNotificationSettings,
  inProcess: SandboxPush['send'],
): SandboxPush {
  const wanted = config.sandbox.push.providers ?? providers.map(p => p.providerCode);
  const url = config.sandbox.push.url;
  return {
    providers: wanted.filter(code => offersNotifications(code) && Object.hasOwn(settings.secrets, code)),
    secretOf: code => settings.secrets[code]!,
    send: url ? httpSender(url) : inProcess,
  };
}

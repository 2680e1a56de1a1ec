/**
 * Stands in for `@aws-sdk/client-secrets-manager` inside the bundles of the functions that serve
 * no HTTP request — the import worker, the DLQ consumer, the reconciler (see
 * lib/constructs/service-function.ts `apiKeys`). The client is there only to read the API-keys
 * secret (functions/config/base.ts), which the stack binds to the route functions alone, so in a
 * worker it is ~29 KB of bundle and ~5 ms of every cold start's import for nothing. Should one be
 * given the secret anyway, reading it fails at once, saying why (a base config error, never a
 * silent lack of API keys).
 */
function refuse(): never {
  throw new Error('This function serves no HTTP request (apiKeys: false): no Secrets Manager client');
}

export class SecretsManagerClient {
  constructor() {
    refuse();
  }
}

export class GetSecretValueCommand {
  constructor() {
    refuse();
  }
}

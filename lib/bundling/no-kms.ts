/**
 * Stands in for `@aws-sdk/client-kms` inside the bundles of functions WITHOUT credentials access
 * (no `access.credentials` in their manifest entry; see lib/constructs/service-function.ts). They
 * have no grant on the credentials key and never make a KMS key provider — the key ARN that would
 * select one is set only on the functions that have the grant (functions/wiring/credentials.ts) —
 * so the client is ~38 KB of their bundles and cold starts for nothing. Should one try anyway, it
 * fails at once, saying why.
 */
function refuse(): never {
  throw new Error('This function has no credentials access (access.credentials in its manifest entry): no KMS client');
}

export class KMSClient {
  constructor() {
    refuse();
  }
}

export class GenerateDataKeyCommand {
  constructor() {
    refuse();
  }
}

export class DecryptCommand {
  constructor() {
    refuse();
  }
}

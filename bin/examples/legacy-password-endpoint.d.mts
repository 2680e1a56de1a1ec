/** Types of the reference legacy endpoint (legacy-password-endpoint.mjs). */
export function hashForStore(password: string, cost?: { N?: number; r?: number; p?: number }): Promise<string>;
export function checkPassword(stored: string, password: string): Promise<boolean>;
export function checkSignature(
  secret: string,
  header: string | undefined,
  rawBody: Buffer | string,
  nowSeconds?: number,
): 'ok' | 'malformed' | 'stale' | 'mismatch';
export function startLegacyEndpoint(options: {
  secret: string;
  hashes: Record<string, string>;
  port?: number;
  host?: string;
  onRequest?: (event: { verdict: string; email?: string }) => void;
}): Promise<{ port: number; close(): Promise<void> }>;

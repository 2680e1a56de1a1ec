import { spawnSync } from 'node:child_process';

const MIN_JAVA_VERSION = 17;

const JAVA_MISSING_MESSAGE =
  `DynamoDB Local needs Java ${MIN_JAVA_VERSION} or newer: install a JDK ` +
  '(e.g. `apt-get install openjdk-17-jre-headless`) and make sure `java` is on PATH';

export type JavaCheck =
  | { readonly ok: true; readonly version: number | undefined }
  | { readonly ok: false; readonly message: string };

/** Major version from `java -version` output: `"17.0.15"` → 17, `"1.8.0_292"` → 8. */
function parseJavaMajorVersion(output: string): number | undefined {
  const match = /version "(\d+)(?:\.(\d+))?/.exec(output);
  if (!match) return undefined;
  const first = Number(match[1]);
  return first === 1 && match[2] !== undefined ? Number(match[2]) : first;
}

/** Is a Java runtime DynamoDB Local can run on on PATH? */
export function checkJava(): JavaCheck {
  const result = spawnSync('java', ['-version'], { encoding: 'utf8', timeout: 20_000 });
  if (result.error || result.status !== 0) return { ok: false, message: JAVA_MISSING_MESSAGE };
  const version = parseJavaMajorVersion(`${result.stderr ?? ''}\n${result.stdout ?? ''}`);
  if (version !== undefined && version < MIN_JAVA_VERSION) {
    return { ok: false, message: `${JAVA_MISSING_MESSAGE} (found Java ${version})` };
  }
  return { ok: true, version };
}

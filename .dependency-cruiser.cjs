/**
 * The dependency rules of the repository, checked by `npm run depcheck` (part of `npm test`) over
 * functions/, bin/, lib/ and bench/ (docs/architecture.md). Type-only imports count as dependencies.
 *
 * functions/ — what Lambda runs, in layers:
 *
 *   http/, workers/  →  wiring/  →  storage/  (the only code that knows keys and the AWS SDK)
 *          ↘            ↘          ↗ (ports and domain types only)
 *                        domain/   (pure use cases; ports injected)
 *
 *   shared/ and config/ are leaves every layer may use; contract/ (the import-payload contract:
 *   wire types, email and phone normalisers, the public tenant, credential fingerprints;
 *   docs/import-payload.md) is below them all and is also what the command shares with the core.
 *
 * Around it, each part reaches functions/ only through its entry points (ENTRY_POINTS below):
 *
 *   bin/auth-core/  the command (its own npm workspace): talks to the core over HTTP only and takes
 *                   from functions/ nothing but the contract, through src/contract.ts, bundled in by
 *                   its build; its packages are its own package.json's (the pack test installs them).
 *   bin/local/      the local runtime (`npm start`): serves the route manifest's handlers, loaded by
 *                   path at run time (not an import), with the manifests, the table definition and
 *                   the leaves; it may take lib/constants.ts (the functions' default timeouts).
 *   lib/, bin/app.ts  the CDK stack: the manifests, the table definition and the leaves.
 *   bin/shared/     what the command and the local runtime share (how a URL is shown); imports nothing.
 *   bench/          measures everything, so it may import anything; nothing imports it.
 *   examples/app/   the example app (its own npm workspace): an application on the official SDKs,
 *                   which reaches the core over HTTP only and imports nothing of the repository.
 */
/** Domain modules that state data and ports, which storage implements (no use case among them). */
const DOMAIN_TYPES = '^functions/domain/.+/(ports|staging-ports|types|model|tenant|merge|names|companions)\\.ts$';

/**
 * The domain's feature folders (functions/domain/<feature>/), lowest first: a feature imports only
 * features listed before it, so no two import each other and every arrow between them points down
 * (docs/architecture.md "The domain's features"). A new folder takes its place here.
 *
 *   passwords, credentials, metadata   leaves: hashing, sealed-secret ports, metadata rules
 *   users             the user, its store, its lookups; what a user write commits with it (companions.ts);
 *                     the sign-in and its PasswordVerifier port
 *   multitenancy, oauth-clients, accounts, sessions, dashboard, password-hook, roles, totp, thirdparty
 *                     features on the users (password-hook: the hook's strategy of PasswordVerifier)
 *   webauthn          on accounts (recovery tokens, email verification)
 *   accountlinking    on sessions (ends a recipe user's sessions)
 *   import            THE import function and its input, ImportUser (on totp, passwords)
 *   passwordless      on webauthn (a user removed with its passkeys)
 *   bulk-import       the bulk-import API, staging and worker batches, on import
 */
const DOMAIN_FEATURES = [
  'passwords',
  'credentials',
  'metadata',
  'users',
  'multitenancy',
  'oauth-clients',
  'accounts',
  'sessions',
  'dashboard',
  'password-hook',
  'roles',
  'totp',
  'thirdparty',
  'webauthn',
  'accountlinking',
  'import',
  'passwordless',
  'bulk-import',
];

/** One rule per feature: nothing listed after it in {@link DOMAIN_FEATURES}. */
const DOMAIN_FEATURE_ORDER = DOMAIN_FEATURES.slice(0, -1).map((feature, index) => ({
  name: `domain-order-${feature}`,
  comment: `${feature}/ is below ${DOMAIN_FEATURES.slice(index + 1).join(', ')} (DOMAIN_FEATURES): it imports none of them.`,
  severity: 'error',
  from: { path: `^functions/domain/${feature}/` },
  to: { path: `^functions/domain/(${DOMAIN_FEATURES.slice(index + 1).join('|')})/` },
}));

/**
 * functions/ as the local runtime, the stack and the repository's scripts may see it:
 * - routes.ts and workers.ts: the route and worker manifests (what to create or serve);
 * - storage/table.ts: the table definition (the stack creates it, the local runtime too);
 * - shared/, contract/: leaves that know no layer (environment names, client settings, metric
 *   names, body-size limits of the platform, the import-payload contract);
 * - config/index.ts: the configuration registry, which bin/config-doc.ts renders;
 * - http/body.ts: API Gateway's and Lambda's body-size limits, which the local server enforces too;
 * - storage/crypto/local-keys.ts: the format of the local runtime's key file;
 * - storage/kit/index.ts: the DynamoDB kit's table checks (the local runtime creates or checks the
 *   table on a DynamoDB of the user's);
 * - storage/kit/shard.ts: the shard function the stack groups routes with.
 */
const ENTRY_POINTS = [
  '^functions/(routes|workers)\\.ts$',
  '^functions/storage/table\\.ts$',
  '^functions/(shared|contract)/',
  '^functions/config/index\\.ts$',
  '^functions/http/body\\.ts$',
  '^functions/storage/crypto/local-keys\\.ts$',
  '^functions/storage/kit/index\\.ts$',
  '^functions/storage/kit/shard\\.ts$',
].join('|');

/** Every kind of package dependency (npm's and Node's own modules). */
const PACKAGES = ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-bundled', 'npm-no-pkg', 'npm-unknown', 'core'];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A cycle makes two modules one: neither can be understood, tested or moved alone.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-not-to-outer-layers',
      comment:
        'The domain is plain TypeScript with its ports injected: it imports no storage, HTTP, worker or wiring code.',
      severity: 'error',
      from: { path: '^functions/domain/' },
      to: { path: '^functions/(storage|http|workers|wiring)/' },
    },
    {
      name: 'domain-features-listed',
      comment:
        'Every code file of the domain is in a feature folder named in DOMAIN_FEATURES, which orders the features.',
      severity: 'error',
      from: { path: '^functions/domain/', pathNot: `^functions/domain/(${DOMAIN_FEATURES.join('|')})/` },
      to: {},
    },
    ...DOMAIN_FEATURE_ORDER,
    {
      name: 'domain-no-aws-or-lambda',
      comment: 'The domain never talks to AWS (SDK, Lambda types): storage and the handlers do.',
      severity: 'error',
      from: { path: '^functions/domain/' },
      to: { path: '^(node_modules/)?(@aws-sdk|@types/aws-lambda|aws-lambda)(/|$)' },
    },
    {
      name: 'domain-no-io',
      comment:
        'The domain does no I/O of its own: files, network, processes, compression, OS (node:crypto is computation).',
      severity: 'error',
      from: { path: '^functions/domain/' },
      to: {
        dependencyTypes: ['core'],
        path: '^(node:)?(fs|fs/promises|net|http|https|http2|child_process|dgram|dns|tls|zlib|worker_threads|cluster|readline|os|process|stream)$',
      },
    },
    {
      name: 'storage-no-use-cases',
      comment: 'Storage implements the domain ports: it may import ports and domain data types, never a use case.',
      severity: 'error',
      from: { path: '^functions/storage/' },
      to: { path: '^functions/domain/', pathNot: DOMAIN_TYPES },
    },
    {
      name: 'storage-not-to-outer-layers',
      comment: 'Storage is below wiring and the handlers.',
      severity: 'error',
      from: { path: '^functions/storage/' },
      to: { path: '^functions/(http|workers|wiring)/' },
    },
    {
      name: 'handlers-not-to-storage',
      comment: 'Handlers and workers reach storage only through wiring (functions/wiring/).',
      severity: 'error',
      from: { path: '^functions/(http|workers)/' },
      to: { path: '^functions/storage/' },
    },
    {
      name: 'shared-and-config-are-leaves',
      comment: 'shared/ and config/ serve every layer, so they import none of them.',
      severity: 'error',
      from: { path: '^functions/(shared|config)/' },
      to: { path: '^functions/(domain|storage|http|workers|wiring)/' },
    },
    {
      name: 'functions-self-contained',
      comment:
        'functions/ is what Lambda runs: it imports nothing from the CDK app, the local runtime, the bench or the tests.',
      severity: 'error',
      from: { path: '^functions/' },
      to: { path: '^(bin|lib|bench|test)/' },
    },
    {
      name: 'contract-is-the-bottom',
      comment:
        'The import-payload contract is shared with the command, which bundles it: it imports nothing else of the repository.',
      severity: 'error',
      from: { path: '^functions/contract/' },
      to: { path: '^(functions|bin|lib|bench|test)/', pathNot: '^functions/contract/' },
    },
    {
      name: 'contract-packages',
      comment:
        'The contract runs in the Lambda functions and in the installed command: it computes (node:crypto) and parses phone numbers (libphonenumber-js, a dependency of both package.json files), nothing else.',
      severity: 'error',
      from: { path: '^functions/contract/' },
      to: { dependencyTypes: PACKAGES, pathNot: '^(node_modules/libphonenumber-js/|(node:)?crypto$)' },
    },
    {
      name: 'command-only-the-contract',
      comment:
        'The command talks to the core over HTTP only: from functions/ it takes the contract alone, and only through its src/contract.ts.',
      severity: 'error',
      from: { path: '^bin/auth-core/', pathNot: '^bin/auth-core/src/contract\\.ts$' },
      to: { path: '^functions/' },
    },
    {
      name: 'command-contract-module',
      comment: 'src/contract.ts re-exports the contract and nothing else of functions/.',
      severity: 'error',
      from: { path: '^bin/auth-core/src/contract\\.ts$' },
      to: { path: '^functions/', pathNot: '^functions/contract/' },
    },
    {
      name: 'command-resolvable',
      comment:
        "The command's build resolves imports from bin/auth-core/package.json, which has no `#functions/*` alias: every import must resolve from there.",
      severity: 'error',
      from: { path: '^bin/auth-core/' },
      to: { couldNotResolve: true },
    },
    {
      name: 'command-stands-alone',
      comment:
        'The command is a package of its own: besides the contract it imports only bin/shared/ (bundled in), never the stack, the local runtime, the bench or the tests.',
      severity: 'error',
      from: { path: '^bin/auth-core/' },
      to: { path: '^(lib|bench|test)/|^bin/(?!auth-core/|shared/)' },
    },
    {
      name: 'command-declared-packages',
      comment:
        "The installed command has its own package.json's dependencies only: no development package, nothing undeclared.",
      severity: 'error',
      from: { path: '^bin/auth-core/src/' },
      to: { dependencyTypes: ['npm-dev', 'npm-no-pkg', 'npm-unknown', 'npm-optional', 'npm-peer'] },
    },
    {
      name: 'local-runtime-through-entry-points',
      comment:
        'The local runtime serves the handlers by path, as Lambda does: it imports functions/ only through its entry points (ENTRY_POINTS).',
      severity: 'error',
      from: { path: '^bin/(local/|local\\.ts$)' },
      to: { path: '^functions/', pathNot: ENTRY_POINTS },
    },
    {
      name: 'local-runtime-not-the-tools',
      comment:
        'The local runtime uses neither the command nor the bench or the tests; of the stack only lib/constants.ts (the default function timeouts).',
      severity: 'error',
      from: { path: '^bin/(local/|local\\.ts$)' },
      to: { path: '^(bench|test)/|^bin/auth-core/|^lib/', pathNot: '^lib/constants\\.ts$' },
    },
    {
      name: 'stack-through-entry-points',
      comment:
        'The stack deploys functions/ from its manifests (bundled by path): it imports functions/ only through its entry points (ENTRY_POINTS).',
      severity: 'error',
      from: { path: '^(lib/|bin/app\\.ts$)' },
      to: { path: '^functions/', pathNot: ENTRY_POINTS },
    },
    {
      name: 'stack-not-the-tools',
      comment: 'The stack imports neither the command, the local runtime, the bench nor the tests.',
      severity: 'error',
      from: { path: '^lib/' },
      to: { path: '^(bin|bench|test)/' },
    },
    {
      name: 'scripts-through-entry-points',
      comment: "The repository's scripts (bin/*.ts) see functions/ as the stack does.",
      severity: 'error',
      from: { path: '^bin/[^/]+\\.ts$' },
      to: { path: '^functions/', pathNot: ENTRY_POINTS },
    },
    {
      name: 'shared-tools-leaf',
      comment: 'bin/shared/ serves the command (bundled) and the local runtime: it imports nothing of the repository.',
      severity: 'error',
      from: { path: '^bin/shared/' },
      to: { path: '^(functions|bin|lib|bench|test)/', pathNot: '^bin/shared/' },
    },
    {
      name: 'example-app-stands-alone',
      comment:
        'The example app is what a team would write on the SDKs: it reaches the core over HTTP only and imports nothing of the repository.',
      severity: 'error',
      from: { path: '^examples/' },
      to: { path: '^(functions|bin|lib|bench|test)/' },
    },
    {
      name: 'example-app-declared-packages',
      comment: "The example app uses only its own package.json's packages (and Node's): nothing undeclared.",
      severity: 'error',
      from: { path: '^examples/app/' },
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown', 'npm-optional', 'npm-peer'] },
    },
    {
      name: 'nothing-imports-the-examples',
      comment: 'The example app is a user of the core, not a part of it.',
      severity: 'error',
      from: { path: '^(functions|bin|lib|bench)/' },
      to: { path: '^examples/' },
    },
    {
      name: 'nothing-imports-the-bench',
      comment: 'The bench measures; no code that ships or runs the core depends on it.',
      severity: 'error',
      from: { path: '^(functions|bin|lib)/' },
      to: { path: '^bench/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(bin/auth-core|examples/app)/dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};

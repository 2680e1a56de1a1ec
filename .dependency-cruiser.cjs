/**
 * The layering of functions/ (README "Architecture"), checked by `npm run depcheck` in `npm test`:
 *
 *   http/, workers/  →  wiring/  →  storage/  (the only code that knows keys and the AWS SDK)
 *          ↘            ↘          ↗ (ports and domain types only)
 *                        domain/   (pure use cases; ports injected)
 *
 * shared/ and config/ are leaves every layer may use. Type-only imports count as dependencies.
 */
/** Domain modules that state data and ports, which storage implements (no use case among them). */
const DOMAIN_TYPES = '^functions/domain/.+/(ports|staging-ports|types|model|tenant|merge|names)\\.ts$';

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
      name: 'domain-no-aws-or-lambda',
      comment: 'The domain never talks to AWS (SDK, Lambda types, middy): storage and the handlers do.',
      severity: 'error',
      from: { path: '^functions/domain/' },
      to: { path: '^(node_modules/)?(@aws-sdk|@types/aws-lambda|aws-lambda|@middy)(/|$)' },
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
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
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

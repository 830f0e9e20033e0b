/**
 * Dependency rules of the code base (`npm run depcheck`, run by .ci/run). Any violation fails,
 * except those listed in .dependency-cruiser-known-violations.json (known debt, reported but
 * not failing; empty today). Shrink the list with `npm run depcheck:baseline` after removing
 * debt. See docs/architecture-rules.md.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycles-in-src',
      comment: 'Folders under src/ depend on each other one way: no cycle between two src/ folders, direct or through others.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { path: '^src/', circular: true },
    },
    {
      name: 'adapters-only-use-channel',
      comment:
        'A channel adapter uses the core only through its one entry src/channel/index.ts (and the logger type in src/log/logger.ts).',
      severity: 'error',
      from: { path: '^adapters/(?!contract/)([^/]+)/' }, // every adapter folder, present or future; the contract kit is test support
      to: {
        path: '^(src|adapters|test|bin|skills)/',
        pathNot: ['^adapters/$1/', '^src/channel/index\\.ts$', '^src/log/logger\\.ts$'],
      },
    },
    {
      name: 'adapters-logger-type-only',
      comment: 'An adapter is given its logger (ChannelFactoryContext.log); it imports only the Logger type, never the logger itself.',
      severity: 'error',
      from: { path: '^adapters/(?!contract/)[^/]+/' },
      to: { path: '^src/log/logger\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'adapter-list-uses-channel-entry',
      comment: 'The list of channels (adapters/index.ts) reaches the core only through src/channel/index.ts, like the adapters it lists.',
      severity: 'error',
      from: { path: '^adapters/index\\.ts$' },
      to: { path: '^src/', pathNot: '^src/channel/index\\.ts$' },
    },
    {
      name: 'adapters-only-from-wiring',
      comment:
        'The core reaches adapters/ only where it is wired: src/gateway.ts (start-up) and src/cli/ (the channel list for settings and the directory import).',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/gateway\\.ts$', '^src/cli/'] },
      to: { path: '^adapters/' },
    },
    {
      name: 'no-cli-from-src',
      comment: 'src/cli/ is the command line on top of the core; nothing else under src/ imports it.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|test/fixtures|data)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};

#!/usr/bin/env node
// `auth-core`: runs the command's bundle, dist/auth-core.js (built from src/ by `npm run build`: on
// `npm ci` in the repository, and before `npm pack`). This launcher is what package.json's `bin`
// names, so npm links it even before the first build.
await import('./dist/auth-core.js');

#!/usr/bin/env node
// Entry point of `npx auth-core`: the command is written in TypeScript, so this shim registers
// tsx's loader (a dependency of the repository) and hands over to bin/auth-core.ts.
import { register } from 'tsx/esm/api';

register();
await import('./auth-core.ts');

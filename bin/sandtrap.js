#!/usr/bin/env -S node --max-semi-space-size=4
// Entry point of the `sandtrap` command; the TypeScript sources run directly on Node 24's type stripping.
import module from 'node:module';

// Reusing compiled code (and stripped types) from earlier runs saves about a third of a second at startup.
module.enableCompileCache?.();
await import('../src/cli/main.ts');

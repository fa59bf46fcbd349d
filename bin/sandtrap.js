#!/usr/bin/env -S node --max-semi-space-size=4
// Entry point of the `sandtrap` command; the TypeScript sources run directly on Node 24's type stripping.
import '../src/cli/main.ts';

#!/usr/bin/env node
// Entry point of the `sandtrap` command; the TypeScript sources run directly on Node 24's type stripping.
import '../src/cli/main.ts';

// The Agent Skill shipped in skills/sandtrap: valid frontmatter in the Agent Skills format, and every tool and
// argument it tells an agent to use exists in the tool table, so the skill cannot drift from the server.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { tools } from '../../src/mcp/tools/index.ts';

const text = readFileSync(new URL('../../skills/sandtrap/SKILL.md', import.meta.url), 'utf8');

describe('skills/sandtrap/SKILL.md', () => {
  it('has Agent Skills frontmatter: a name matching its folder and a description of when to use it', () => {
    const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
    assert.ok(match !== null, 'frontmatter between --- lines at the top');
    const meta = parse(match[1] as string) as { name?: unknown; description?: unknown };
    assert.equal(meta.name, 'sandtrap');
    assert.match(String(meta.name), /^[a-z0-9-]{1,64}$/);
    assert.equal(typeof meta.description, 'string');
    const description = meta.description as string;
    assert.ok(
      description.length > 50 && description.length <= 1024,
      `description is ${description.length} chars`,
    );
    assert.match(description, /Use when/);
  });

  it('names only tools and arguments the server has', () => {
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of [
      'create_sandbox',
      'wait_for_email',
      'wait_for_request',
      'extract_otp',
      'extract_from_body',
    ]) {
      assert.ok(text.includes(`\`${name}`), `the skill shows ${name}`);
    }
    // `tool { arg: ..., arg2: ... }` calls in the text: the tool exists and takes those arguments.
    const calls = [...text.matchAll(/`([a-z]+_[a-z_]+) \{([^`}]*)\}?`/g)];
    assert.ok(calls.length >= 4, 'the skill shows calls with arguments');
    for (const [, name, args] of calls) {
      const tool = byName.get(name as string);
      assert.ok(tool !== undefined, `${name} is a tool`);
      const known = Object.keys(tool.inputSchema.shape);
      for (const [, arg] of (args as string).matchAll(/([a-z_]+):/g)) {
        assert.ok(known.includes(arg as string), `${name} takes ${arg}`);
      }
    }
  });
});

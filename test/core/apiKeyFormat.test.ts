// Key format: prefix, length, checksum, hashing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  displayPrefix,
  generateApiKey,
  hashApiKey,
  isValidApiKeyFormat,
} from '../../src/core/apiKeyFormat.ts';

describe('API key format', () => {
  it('generates stk_ + 38 base62 characters that pass the checksum', () => {
    for (let i = 0; i < 200; i++) {
      const key = generateApiKey();
      assert.match(key, /^stk_[0-9A-Za-z]{38}$/);
      assert.ok(isValidApiKeyFormat(key), key);
    }
  });

  it('refuses a key with one character changed (checksum)', () => {
    const key = generateApiKey();
    const pos = 10;
    const swapped = key.slice(0, pos) + (key[pos] === 'a' ? 'b' : 'a') + key.slice(pos + 1);
    assert.equal(isValidApiKeyFormat(swapped), false);
  });

  it('refuses wrong prefix, length and alphabet', () => {
    const key = generateApiKey();
    assert.equal(isValidApiKeyFormat(`sk_${key.slice(4)}`), false);
    assert.equal(isValidApiKeyFormat(key.slice(0, -1)), false);
    assert.equal(isValidApiKeyFormat(`${key}A`), false);
    assert.equal(isValidApiKeyFormat(`${key.slice(0, -2)}-_`), false);
    assert.equal(isValidApiKeyFormat(''), false);
  });

  it('hashes with SHA-256 hex and shows only stk_ + 8 characters', () => {
    const key = generateApiKey();
    assert.match(hashApiKey(key), /^[0-9a-f]{64}$/);
    assert.notEqual(hashApiKey(key), hashApiKey(generateApiKey()));
    assert.equal(displayPrefix(key), key.slice(0, 12));
  });
});

// The dashboard's address splitter (src/web/views/mail/addresses.ts) on the header values the API serves.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAddress, parseAddressList } from '../../src/web/views/mail/addresses.ts';

describe('parseAddress', () => {
  it('splits a display name from its address, unquoting a quoted name', () => {
    assert.deepEqual(parseAddress('Acme <no-reply@acme.example>'), {
      name: 'Acme',
      address: 'no-reply@acme.example',
    });
    assert.deepEqual(parseAddress('"Acme, Inc." <a@acme.example>'), {
      name: 'Acme, Inc.',
      address: 'a@acme.example',
    });
    assert.deepEqual(parseAddress('"Say \\"hi\\"" <h@x.example>'), {
      name: 'Say "hi"',
      address: 'h@x.example',
    });
  });

  it('a bare address has no name; text without @ is a name without an address', () => {
    assert.deepEqual(parseAddress(' user@example.com '), { name: '', address: 'user@example.com' });
    assert.deepEqual(parseAddress('undisclosed-recipients'), { name: 'undisclosed-recipients', address: '' });
  });
});

describe('parseAddressList', () => {
  it('commas inside quotes, angle brackets and comments do not split', () => {
    assert.deepEqual(parseAddressList('"Doe, Jane" <j@x.example>, b@y.example (Bob, from sales)'), [
      { name: 'Doe, Jane', address: 'j@x.example' },
      { name: '', address: 'b@y.example' },
    ]);
    assert.deepEqual(parseAddressList('<"odd,local"@x.example>'), [
      { name: '', address: '"odd,local"@x.example' },
    ]);
  });

  it("a group gives its members, without the group's label", () => {
    assert.deepEqual(parseAddressList('Team: a@x.example, Bee <b@x.example>;, c@y.example'), [
      { name: '', address: 'a@x.example' },
      { name: 'Bee', address: 'b@x.example' },
      { name: '', address: 'c@y.example' },
    ]);
    assert.deepEqual(parseAddressList('undisclosed-recipients:;'), []);
  });

  it('a decoded name with a bare comma stays one person', () => {
    assert.deepEqual(parseAddressList('Doe, Jane Ü <j@x.example>, k@x.example'), [
      { name: 'Doe, Jane Ü', address: 'j@x.example' },
      { name: '', address: 'k@x.example' },
    ]);
  });
});

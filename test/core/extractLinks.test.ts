// Link kinds and the primary link (issue 35): the link corpus (test/fixtures/links, a tune part and a held-out
// part) scored for kind accuracy and primary-link accuracy, and the rules one by one: invites, magic links,
// logo-first mails, notices with nothing to click, words in other languages, and linear time on hostile input.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { extractLinks, primaryLink, type LinkKind } from '../../src/core/extract/index.ts';

interface LinkFixture {
  id: string;
  lang: string;
  text: string | null;
  html: string | null;
  expectedLinks: Array<{ urlContains: string; kind: LinkKind }>;
  expectedPrimary: { urlContains: string; kind: LinkKind } | null;
}

const load = (name: string): LinkFixture[] =>
  JSON.parse(readFileSync(new URL(`../fixtures/links/${name}`, import.meta.url), 'utf8')) as LinkFixture[];

interface LinkFigures {
  kinds: number;
  kindsRight: number;
  mails: number;
  primaryRight: number;
  misses: string[];
}

function score(items: LinkFixture[]): LinkFigures {
  const figures: LinkFigures = { kinds: 0, kindsRight: 0, mails: items.length, primaryRight: 0, misses: [] };
  for (const item of items) {
    const input = { text: item.text, html: item.html };
    const links = extractLinks(input);
    for (const want of item.expectedLinks) {
      figures.kinds++;
      const link = links.find((l) => l.url.includes(want.urlContains));
      if (link?.kind === want.kind) figures.kindsRight++;
      else
        figures.misses.push(
          `kind ${item.id}: ${want.urlContains} want ${want.kind}, got ${link?.kind ?? 'no link'}`,
        );
    }
    const got = primaryLink(input);
    const want = item.expectedPrimary;
    const right =
      want === null
        ? got === null
        : got !== null && got.url.includes(want.urlContains) && got.kind === want.kind;
    if (right) figures.primaryRight++;
    else
      figures.misses.push(
        `primary ${item.id}: want ${want?.urlContains ?? 'null'}, got ${got?.url ?? 'null'}`,
      );
  }
  return figures;
}

function report(title: string, f: LinkFigures): void {
  const pct = (a: number, b: number): string => `${((a / b) * 100).toFixed(1)}% (${a}/${b})`;
  console.log(
    [
      title,
      `  kind accuracy     ${pct(f.kindsRight, f.kinds)}`,
      `  primary accuracy  ${pct(f.primaryRight, f.mails)}`,
      ...f.misses.map((m) => `  miss ${m}`),
    ].join('\n'),
  );
}

const tune = load('tune-a.json');
/** Never tuned on (test/fixtures/links/README.md). */
const heldOut = load('heldout-a.json');

describe('link corpus', () => {
  it('has 60+ mails in several languages, logo-first ones and ones with nothing to click', () => {
    const all = [...tune, ...heldOut];
    assert.ok(all.length >= 60, `${all.length} mails`);
    assert.equal(new Set(all.map((m) => m.id)).size, all.length);
    assert.ok(new Set(all.map((m) => m.lang)).size >= 20);
    assert.ok(all.filter((m) => m.expectedPrimary === null).length >= 8);
    assert.ok(all.some((m) => m.expectedPrimary?.kind === 'invite'));
    assert.ok(all.some((m) => m.expectedPrimary?.kind === 'magic_login'));
  });

  it('tune part: kind and primary-link accuracy >= 95%', () => {
    const f = score(tune);
    report('Link tune part (tune-a.json)', f);
    assert.ok(f.kindsRight / f.kinds >= 0.95, `kinds ${f.kindsRight}/${f.kinds}`);
    assert.ok(f.primaryRight / f.mails >= 0.95, `primary ${f.primaryRight}/${f.mails}`);
  });

  it('held-out part: kind and primary-link accuracy >= 90%', () => {
    const f = score(heldOut);
    report('Link held-out part (heldout-a.json)', f);
    assert.ok(f.kindsRight / f.kinds >= 0.9, `kinds ${f.kindsRight}/${f.kinds}`);
    assert.ok(f.primaryRight / f.mails >= 0.9, `primary ${f.primaryRight}/${f.mails}`);
  });
});

const logo = (href: string): string =>
  `<a href="${href}"><img src="https://cdn.example/logo.png" alt="Example"></a>`;

describe('link kinds', () => {
  it('reads invitations, magic links and sign-in links with a secret', () => {
    const kinds = extractLinks({
      html:
        '<p>Ana invited you to the Acme workspace.</p>' +
        '<a href="https://x.example/invitations/accept/5f2a9c">Accept invitation</a>' +
        '<a href="https://x.example/j/9f9f">Join the team</a>' +
        '<a href="https://x.example/login?token=9Xk2LpQzz">Sign in</a>' +
        '<a href="https://x.example/magic/abc">Open</a>' +
        '<a href="https://x.example/signin/link/Pq3">Sign in</a>' +
        '<a href="https://x.example/login">Log in</a>' +
        '<a href="https://x.example/login?utm_source=mail&amp;utm_medium=email">Log in to read more</a>',
    }).map((l) => l.kind);
    assert.deepEqual(kinds, [
      'invite',
      'invite',
      'magic_login',
      'magic_login',
      'magic_login',
      'other',
      'other',
    ]);
  });

  it('does not read "join" or "confirmation" outside an invitation or an account as an action', () => {
    const kinds = extractLinks({
      html:
        '<p>Our team goes live next week.</p><a href="https://x.example/webinar">Join the webinar</a>' +
        '<a href="https://x.example/orders/20991/confirmation">View order confirmation</a>',
    }).map((l) => l.kind);
    assert.deepEqual(kinds, ['other', 'other']);
  });

  it('reads reset, verify and sign-in words in other languages, in anchors and in URL paths', () => {
    for (const [href, text, kind] of [
      ['https://x.example/sifre-sifirla?t=Qk82x', 'Şifremi sıfırla', 'reset'],
      ['https://x.example/a/1', 'Сбросить пароль', 'reset'],
      ['https://x.example/vosstanovlenie?key=7fQ2', 'Продолжить', 'reset'],
      ['https://x.example/u/x7Yq', 'بازیابی رمز عبور', 'reset'],
      ['https://x.example/b/2', 'Thibitisha barua pepe', 'verify'],
      ['https://x.example/aktywacja/55aa', 'Aktywuj konto', 'verify'],
      ['https://x.example/c/3', 'E-mail cím megerősítése', 'verify'],
      ['https://x.example/inloggning?token=88ffaa', 'Logga in', 'magic_login'],
      ['https://x.example/d/4', 'Daveti kabul et', 'invite'],
      ['https://x.example/e/5', 'Принять приглашение', 'invite'],
    ] as const) {
      const [link] = extractLinks({ html: `<a href="${href}">${text}</a>` });
      assert.equal(link?.kind, kind, `${text} ${href}`);
    }
  });

  it('lets the sentence decide for an anchor that says nothing', () => {
    const [link] = extractLinks({
      html: '<p>To reset your password, <a href="https://x.example/r/AbCdEf123456">click here</a>.</p>',
    });
    assert.equal(link?.kind, 'reset');
  });
});

describe('primaryLink', () => {
  it('names the sign-in link of a logo-first mail, never the logo or home link', () => {
    const html =
      logo('https://kestrel.example/') +
      '<p>Click below to sign in. The link works once.</p>' +
      '<a href="https://kestrel.example/login?token=9Xk2LpQ7">Sign in to Kestrel</a>' +
      '<a href="https://kestrel.example/help">Help</a>';
    assert.deepEqual(primaryLink({ html }), {
      url: 'https://kestrel.example/login?token=9Xk2LpQ7',
      kind: 'magic_login',
      text: 'Sign in to Kestrel',
    });
  });

  it('never names an image-only link, even one whose URL reads as an action', () => {
    const html =
      logo('https://app.example/login?token=abcdef123456') +
      '<p>Confirm your email.</p><a href="https://app.example/verify?t=zzzzzzzz">Confirm email</a>';
    assert.equal(primaryLink({ html })?.url, 'https://app.example/verify?t=zzzzzzzz');
    assert.equal(primaryLink({ html: logo('https://app.example/login?token=abcdef123456') }), null);
  });

  it('prefers the kind the mail is about over a side link of another kind', () => {
    const html =
      '<p>Confirm your email address to finish setting up your account.</p>' +
      '<a href="https://x.example/email/confirm/8f2a1c9d">Confirm email</a>' +
      '<p>Forgot your password? <a href="https://x.example/password/forgot">Reset it here</a></p>';
    assert.equal(primaryLink({ html })?.kind, 'verify');
    const reset =
      '<p>Click below to choose a new password.</p>' +
      '<a href="https://x.example/reset-password?token=bf81c0aa9921e7">Reset password</a>' +
      '<p>Remembered it? <a href="https://x.example/signin">Back to sign in</a></p>';
    assert.equal(primaryLink({ html: reset })?.kind, 'reset');
  });

  it('is null for mails whose links are home, help, privacy, unsubscribe or tracking only', () => {
    const html =
      logo('https://x.example/') +
      '<p>We noticed a new sign-in to your account.</p>' +
      '<a href="https://x.example/help">Help</a><a href="https://x.example/privacy">Privacy</a>' +
      '<a href="https://x.example/unsubscribe?u=1">Unsubscribe</a>' +
      '<img src="https://x.example/open.gif?u=1" width="1" height="1">';
    assert.equal(primaryLink({ html }), null);
    assert.equal(primaryLink({ text: 'Your order shipped. Track it: https://x.example/track/1' }), null);
    assert.equal(primaryLink({}), null);
  });

  it('reads a text-only mail, labelling the link with the sentence before it', () => {
    const text =
      'Hi,\n\nUse this link to log in to Driftwood:\nhttps://driftwood.example/auth/magic/c2VjcmV0\n';
    assert.deepEqual(primaryLink({ text }), {
      url: 'https://driftwood.example/auth/magic/c2VjcmV0',
      kind: 'magic_login',
      text: 'Use this link to log in to Driftwood',
    });
  });

  it('stays linear on hostile input, finding what is there', { timeout: 60_000 }, () => {
    const many = 'x<a href="https://x.example/verify?t=abcdefgh">v</a>'.repeat(20_000);
    assert.equal(primaryLink({ html: many })?.kind, 'verify');
    const bare = 'https://x.example/reset?token=abcdefghijkl '.repeat(20_000);
    assert.equal(primaryLink({ text: bare })?.kind, 'reset');
    const icons = `${'<a href="https://x.example/i"><img src="i.png"></a>'.repeat(2_000)}${'a<b>'.repeat(50_000)}`;
    assert.equal(primaryLink({ html: icons }), null);
  });
});

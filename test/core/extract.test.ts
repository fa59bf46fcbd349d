// OTP and link extraction (design section 6): accuracy and false codes over the tune part of the fixtures, the
// negative rules one by one, the code shapes of outside mail, 28 languages, the pattern override, ambiguity, and
// linear-time inputs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { AppError } from '../../src/core/errors.ts';
import { extractLinks, extractOtp, type OtpResult } from '../../src/core/extract/index.ts';
import { digitsAndSpaces, PATHOLOGICAL_SHAPES } from '../helpers/hostileText.ts';
import { printOtpReport, type OtpFixture } from '../helpers/otpReport.ts';

/** The part of the OTP fixtures the extractor is tuned on; heldout-*.json is never read here. */
const TUNE_FILES = [
  'corpus.json',
  'tune-a.json',
  'tune-b.json',
  'tune-c.json',
  'tune-d.json',
  'tune-e.json',
  'tune-f.json',
];

interface CorpusItem extends OtpFixture {
  expectedLinks?: Array<{ urlContains: string; kind: string }>;
}

const fixture = (name: string): CorpusItem[] =>
  JSON.parse(readFileSync(new URL(`../fixtures/otp/${name}`, import.meta.url), 'utf8')) as CorpusItem[];

const corpus = TUNE_FILES.flatMap(fixture);

const otpOf = (item: OtpFixture): OtpResult =>
  extractOtp({ subject: item.subject, text: item.text, html: item.html });

/** Codes among the candidates, so a rule can be checked without depending on the threshold. */
const candidateCodes = (text: string): string[] => extractOtp({ text }).candidates.map((c) => c.code);

describe('OTP corpus (tune part)', () => {
  it('has realistic messages with unique ids, some with no code and some ambiguous', () => {
    assert.ok(corpus.length >= 74, `tune part has ${corpus.length} items`);
    assert.equal(new Set(corpus.map((c) => c.id)).size, corpus.length);
    assert.ok(corpus.some((c) => c.expected.code === null));
    assert.ok(corpus.some((c) => c.expected.status === 'ambiguous'));
  });

  it('finds the exact code on >= 95% of code mails with <= 2% false codes', () => {
    const report = printOtpReport(`OTP tune part (${TUNE_FILES.join(', ')})`, corpus, otpOf);
    assert.ok(report.overall.accuracy >= 0.95, `accuracy ${report.overall.accuracy}`);
    assert.ok(report.overall.falseCodeRate <= 0.02, `false-code rate ${report.overall.falseCodeRate}`);
  });

  it('reports the genuinely ambiguous messages as ambiguous, with their candidates', () => {
    for (const item of corpus.filter((c) => c.expected.status === 'ambiguous')) {
      const result = otpOf(item);
      assert.equal(result.status, 'ambiguous', item.id);
      assert.equal(result.code, null);
      assert.ok(result.candidates.length >= 2, item.id);
    }
  });

  it('finds every expected link with its kind', () => {
    for (const item of corpus) {
      if (item.expectedLinks === undefined) continue;
      const links = extractLinks({ text: item.text, html: item.html });
      for (const want of item.expectedLinks) {
        const link = links.find((l) => l.url.includes(want.urlContains));
        assert.ok(link !== undefined, `${item.id}: no link containing ${want.urlContains}`);
        assert.equal(link.kind, want.kind, `${item.id}: ${link.url} ("${link.text}")`);
      }
    }
  });

  it('returns well-formed results for every message', () => {
    for (const item of corpus) {
      const result = otpOf(item);
      assert.ok(result.confidence >= 0 && result.confidence <= 1);
      assert.ok(result.candidates.length <= 5);
      const confidences = result.candidates.map((c) => c.confidence);
      assert.deepEqual(
        confidences,
        [...confidences].sort((a, b) => b - a),
      );
      if (result.status === 'found') {
        assert.equal(result.code, result.candidates[0]?.code);
        assert.ok(result.source !== null && result.context !== null);
      } else {
        assert.equal(result.code, null);
      }
    }
  });
});

describe('extractOtp negative rules', () => {
  it('drops years in dates and copyright lines', () => {
    const codes = candidateCodes(
      'Your code is 482913.\nSent on March 4, 2025.\n© 2024 Example Inc.\nMember since 2019.',
    );
    assert.deepEqual(codes, ['482913']);
    assert.equal(extractOtp({ text: 'Member since 2019. Season 2025 starts soon.' }).status, 'not_found');
  });

  it('drops times and dates', () => {
    assert.deepEqual(
      candidateCodes('The sale starts at 10:45 and ends at 23:59:59 on 2025-03-04 or 04.03.2025.'),
      [],
    );
    assert.equal(extractOtp({ text: 'Sign-in at 09:41 on 12/03/2025. Code: 661530' }).code, '661530');
  });

  it('drops prices in any currency', () => {
    const text = 'Total $1234, or 1234 €, USD 4999, 4.999,00 €, R$ 1.299,90, 12800円, £2500, 4990 JPY.';
    assert.deepEqual(candidateCodes(text), []);
    assert.equal(extractOtp({ text: 'Confirm your payment of €49.99 with code 7731.' }).code, '7731');
  });

  it('drops phone numbers', () => {
    const text =
      'Call +1 (415) 555-0132, +44 20 7946 0321, 0800 123 4567, 01 23 45 67 89 or 1-800-555-0199 today.';
    assert.deepEqual(candidateCodes(text), []);
    assert.equal(
      extractOtp({ text: 'Your code is 448120. Questions? Call +1 (415) 555-0132.' }).code,
      '448120',
    );
  });

  it('scores order, invoice, ticket and account numbers down', () => {
    for (const text of [
      'Order #5512093 has shipped.',
      'Order number: 5512093',
      'Invoice INV-2025-00123 is attached.',
      'Ticket #4821 was updated.',
      'Your account number is 44120983.',
      'Customer ID: 88412093',
      'Bestellnummer: 30214455',
      'ご注文番号：20250304',
    ]) {
      assert.equal(extractOtp({ text }).status, 'not_found', text);
    }
    assert.equal(extractOtp({ text: 'For order 5512093, your verification code is 771204.' }).code, '771204');
  });

  it('drops hex colours', () => {
    const codes = candidateCodes('Your code is 482913. Brand colours: #204060, #A1B2C3 and #a1b2c3.');
    assert.deepEqual(codes, ['482913']);
  });

  it('drops numbers inside URLs and email addresses', () => {
    const text = 'Open https://example.com/verify/482913?code=771204 or write to user4821@example.com.';
    assert.deepEqual(candidateCodes(text), []);
    assert.deepEqual(candidateCodes('See www.example.com/tickets/551203 and example.org/p/88213'), []);
  });

  it('drops the last four digits of a card, but not the code after them', () => {
    assert.deepEqual(candidateCodes('Your card ending in 4417 was charged. Visa •••• 8812, ****1234.'), []);
    assert.equal(extractOtp({ text: 'Your passcode for the card ending in 4417 is 604215.' }).code, '604215');
  });

  it('drops postcodes and numbers that are part of longer digit runs', () => {
    assert.deepEqual(candidateCodes('Example, 548 Market St, San Francisco, CA 94104'), []);
    assert.equal(extractOtp({ text: 'Your code is 1234567890123' }).status, 'not_found');
    assert.deepEqual(candidateCodes('Tracking 00340434161094042557 and SKU-12345'), []);
  });

  it('ignores promo codes and letter+digit strings that are not near a code word', () => {
    assert.equal(extractOtp({ text: 'Use promo code WELCOME10 for 10% off.' }).status, 'not_found');
    assert.equal(
      extractOtp({ text: 'The Example TV QN65Q80C ships with an AB12CD remote.' }).status,
      'not_found',
    );
  });
});

describe('extractOtp codes and scoring', () => {
  it('reads codes written with a space or a dash as one code', () => {
    assert.equal(extractOtp({ text: 'Your verification code: 482 913' }).code, '482913');
    assert.equal(extractOtp({ text: 'Your verification code: 482-913' }).code, '482913');
    assert.equal(extractOtp({ text: 'Your verification code: 4821 9912' }).code, '48219912');
    assert.equal(extractOtp({ text: 'Your verification code: 482\u00a0913' }).code, '482913');
    assert.equal(extractOtp({ text: 'Your verification code: X7K-92P' }).code, 'X7K92P');
    assert.equal(extractOtp({ text: 'Your verification code: AB12 CD34' }).code, 'AB12CD34');
  });

  it('finds letter+digit codes only next to a code word', () => {
    assert.equal(extractOtp({ text: 'Your sign-in code is AB12CD' }).code, 'AB12CD');
    assert.equal(extractOtp({ text: 'Model AB12CD is back in stock.' }).status, 'not_found');
  });

  it('scores up bold or large HTML, a line of its own, and the subject', () => {
    const bold = extractOtp({ html: '<p>Enter this in the app:</p><p><b>661530</b></p>' });
    const plain = extractOtp({ text: 'Enter this in the app: 661530 and carry on' });
    assert.equal(bold.code, '661530');
    assert.ok(bold.confidence > (plain.candidates[0]?.confidence ?? 0));
    const both = extractOtp({ subject: '482913 is your code', text: 'Use 482913 to sign in.' });
    const subjectOnly = extractOtp({ subject: '482913 is your code', text: 'Use the code in the subject.' });
    assert.ok(both.confidence > subjectOnly.confidence);
    assert.equal(subjectOnly.code, '482913');
    assert.equal(subjectOnly.source, 'subject');
  });

  it('understands code words in other languages', () => {
    for (const [text, code] of [
      ['Votre code de vérification est : 284615', '284615'],
      ['Ihr Bestätigungscode lautet 908172', '908172'],
      ['Tu código de verificación es 662910.', '662910'],
      ['Seu código de segurança é 4471', '4471'],
      ['Il tuo codice di verifica è 830174', '830174'],
      ['Je verificatiecode is 551208', '551208'],
      ['認証コード：７３９２０１', '739201'],
      ['您的验证码是482193，5分钟内有效', '482193'],
    ] as const) {
      assert.equal(extractOtp({ text }).code, code, text);
    }
  });

  it('respects minDigits and maxDigits and refuses impossible values', () => {
    assert.equal(extractOtp({ text: 'Your code: 4821' }, { minDigits: 6 }).status, 'not_found');
    assert.equal(extractOtp({ text: 'Your code: 1234567890' }, { maxDigits: 10 }).code, '1234567890');
    assert.throws(() => extractOtp({ text: 'x' }, { minDigits: 0 }), AppError);
    assert.throws(() => extractOtp({ text: 'x' }, { minDigits: 8, maxDigits: 4 }), /minDigits/);
  });

  it('is ambiguous when the top two candidates are close', () => {
    const result = extractOtp({ text: 'Code for the iPad: 120934\nCode for the laptop: 887120' });
    assert.equal(result.status, 'ambiguous');
    assert.equal(result.code, null);
    assert.deepEqual(result.candidates.map((c) => c.code).sort(), ['120934', '887120']);
  });

  it('is not_found for empty or missing parts', () => {
    assert.equal(extractOtp({}).status, 'not_found');
    assert.equal(extractOtp({ subject: null, text: '', html: '   ' }).status, 'not_found');
  });
});

/** A mail laid out as services send it: a table of rows, a footer with an address and a year. */
const mail = (rows: string): string =>
  '<html><body><table width="100%" cellpadding="0"><tr><td align="center"><table width="600">' +
  rows +
  '<tr><td style="font-size:11px;color:#999">© 2026 Example Ltd · 548 Market St, San Francisco, CA 94104</td></tr>' +
  '</table></td></tr></table></body></html>';
const row = (text: string): string => `<tr><td style="font-size:14px">${text}</td></tr>`;
const bigRow = (code: string): string =>
  `<tr><td align="center" style="font-size:30px;font-weight:bold;letter-spacing:6px">${code}</td></tr>`;

describe('extractOtp on the shapes of outside mail', () => {
  it('reads digit codes in groups of any one size, returned without separators', () => {
    assert.equal(extractOtp({ text: 'Your security code: 48-29-13' }).code, '482913');
    assert.equal(extractOtp({ text: 'Your code: 4 8 2 9 1 3' }).code, '482913');
    assert.equal(extractOtp({ text: 'Sicherheitscode: 77 31 05 96' }).code, '77310596');
    assert.equal(extractOtp({ text: 'Ihr Sicherheitscode: 81 40 27\nKundennummer 30571846' }).code, '814027');
    // A dashed triple that reads as a date stays a date.
    assert.deepEqual(candidateCodes('Your code was sent on 12-05-24.'), []);
  });

  it('joins a code written one digit per table cell or block', () => {
    const cells = [...'804517']
      .map((d) => `<td style="font-family:monospace;font-size:28px">${d}</td>`)
      .join('');
    const html = mail(
      row('Hi Jordan, enter the code below on the sign-in page. It expires in 10 minutes.') +
        `<tr><td><table><tr>${cells}</tr></table></td></tr>` +
        row('Requested at 14:05 on 12 March 2026.'),
    );
    assert.equal(extractOtp({ subject: 'Your sign-in code', html }).code, '804517');
    const divs = [...'7305'].map((d) => `<div class="digit">${d}</div>`).join('');
    assert.equal(extractOtp({ html: `<p>Your one-time passcode:</p>${divs}` }).code, '7305');
  });

  it('reads letter+digit codes in any case, upper-cased without separators unless a pattern asks', () => {
    assert.equal(
      extractOtp({ text: 'Enter the verification code k3m9-x2q7 on the sign-in page.' }).code,
      'K3M9X2Q7',
    );
    assert.equal(
      extractOtp({
        html: '<h2>Verify your email</h2><p>Your temporary login code:</p><code>mxq4-p8zt</code>',
      }).code,
      'MXQ4P8ZT',
    );
    assert.equal(extractOtp({ text: 'Your confirmation code is QX7-M2P' }).code, 'QX7M2P');
    const asWritten = extractOtp({ text: 'Code: k3m9-x2q7' }, { pattern: 'Code: ([a-z0-9]{4}-[a-z0-9]{4})' });
    assert.equal(asWritten.code, 'k3m9-x2q7');
    // Words with a digit in prose are not codes.
    assert.equal(extractOtp({ text: 'Your code plays mp3 and web3 files.' }).status, 'not_found');
  });

  it('tells discount codes (a word and a number) from one-time codes', () => {
    for (const text of [
      'Get 15% off your next shipment with code SHIP15.',
      'Use code TRAIL25 at checkout. Ends 31 March 2026, 23:59.',
      'Rabattkod: REA10 gäller hela veckan.',
    ]) {
      assert.equal(extractOtp({ text }).status, 'not_found', text);
    }
    assert.equal(extractOtp({ text: 'Your verification code: ABCD12' }).code, 'ABCD12');
  });

  it('reads a keyword in another cell or line than the code', () => {
    const table = mail(
      '<tr><td>Account number</td><td>44120983</td></tr>' +
        '<tr><td>Sign-in code (valid for this account only)</td><td><b>90817263</b></td></tr>' +
        '<tr><td>Reference</td><td>55102934</td></tr>',
    );
    assert.equal(extractOtp({ html: table }).code, '90817263');
    const after = mail(bigRow('603918') + row('is your Example verification code'));
    assert.equal(extractOtp({ html: after }).code, '603918');
  });

  it('lets the strongest code word on a line count, not merely the nearest', () => {
    const text =
      'Nº de cliente: 40981726\nNº de solicitud: 10092377\nCódigo para restablecer la contraseña: 27640918';
    assert.equal(extractOtp({ text }).code, '27640918');
  });

  it('reads a line above as a label only when it ends like one', () => {
    // A sentence that ends with "account." names no number; "Order number:" does.
    const html = mail(
      row('Enter this verification code to finish setting up your account.') + bigRow('294068'),
    );
    assert.equal(extractOtp({ html }).code, '294068');
    const receipt = mail(row('Order number:') + bigRow('88120934') + row('Total: $149.90'));
    assert.equal(extractOtp({ html: receipt }).status, 'not_found');
  });

  it('finds 4-digit PINs beside years and times, and never the years or times', () => {
    const text = 'Your verification PIN is 1987.\nSent at 14:05.\nMember since 2019.\n© 2026 Example Bank';
    const result = extractOtp({ text });
    assert.equal(result.code, '1987');
    assert.deepEqual(
      result.candidates.map((c) => c.code).filter((c) => ['2019', '2026', '1405'].includes(c)),
      [],
    );
    const hu = 'A fiókod jelszavát 2026. március 12-én 21:47-kor megváltoztatták.';
    assert.equal(extractOtp({ text: hu }).status, 'not_found');
  });

  it('lets a footer word count only near the number', () => {
    // " avec" once read as the footer word " ave".
    assert.equal(
      extractOtp({ text: 'Votre code à usage unique est 739104. Ne le partagez avec personne.' }).code,
      '739104',
    );
  });
});

describe('extractOtp on numbers that only look like codes', () => {
  it('lets a code word reach past numbers that cannot be the code', () => {
    // A price, a card's last digits and a digit inside a name stand between the code word and the code.
    const text =
      'Your one-time passcode for the payment of EUR 1,204.50 to NORTHWIND HOTELS with the card ending 7719 ' +
      'is 562390 (Ref: KQ2W).';
    assert.equal(extractOtp({ text }).code, '562390');
    const html =
      '<p>Your login code for the acme-prod3 project:</p><p><b>QM4-7XT</b></p><p>It expires soon.</p>';
    assert.equal(extractOtp({ html }).code, 'QM47XT');
    // A number that could be the code still stands in the way.
    const past = (t: string): number =>
      extractOtp({ text: t }).candidates.find((c) => c.code === '562390')?.confidence ?? 0;
    assert.ok(
      past('Your passcode for EUR 1,204.50 is 562390') > past('Your passcode for device 44718 is 562390'),
    );
  });

  it("drops a card's last digits in other languages", () => {
    for (const text of [
      'Zahlung mit der Karte mit den Endziffern 5530 bestätigt.',
      'Pagamento con la carta che termina con 5530.',
      'Płatność kartą o końcówce 5530.',
      'Оплата картой, оканчивающейся на 5530.',
      'Plata cu cardul care se termină în 5530.',
      'ชำระด้วยบัตรลงท้าย 5530 เรียบร้อยแล้ว',
      'Pembayaran dengan kartu berakhiran 5530.',
    ]) {
      assert.ok(!candidateCodes(text).includes('5530'), text);
    }
    const th = 'รหัส OTP สำหรับการชำระเงินที่ร้าน NORTHWIND ด้วยบัตรลงท้าย 5530 คือ 381904 (Ref: HQZT)';
    assert.equal(extractOtp({ subject: 'รหัส OTP', text: th }).code, '381904');
  });

  it('never reads the groups of an IBAN as a code', () => {
    assert.deepEqual(candidateCodes('IBAN: GB29 NWBK 6016 1331 9268 19'), []);
    const text = 'Ihre TAN für die Überweisung von 80,00 EUR an NL91 ABNA 0417 1643 00 lautet: 305718';
    assert.equal(extractOtp({ text }).code, '305718');
  });

  it('reads a word that only starts like "pin" as that word', () => {
    const text =
      'Thanks for your order!\nShip to:\nDana Ruiz\n3310 Pinecrest Drive, Unit 2\nPortland, OR 97205';
    assert.equal(extractOtp({ subject: 'Your order is on its way', text }).status, 'not_found');
  });

  it('reads product codes, bank identifier codes and company registration numbers as what they are', () => {
    const footer =
      'Banco Norte, S.A. – Avenida del Puerto 12, 46021 Valencia – Registro Mercantil de Valencia, Tomo 4821, ' +
      'Folio 112, Hoja V-305917 – Código SWIFT: BNORESVVXXX';
    assert.equal(
      extractOtp({ html: mail(row('Hemos actualizado tu dirección postal.') + row(footer)) }).status,
      'not_found',
    );
    for (const text of [
      'Aspirator robot, cod produs 55120-RO, 1 buc.',
      'Codice prodotto: 7Q4X92',
      'Lampe de bureau, code article 4X7Q92',
      'Northwind GmbH · Amtsgericht München HRB 204817 · USt-IdNr. DE 129273398',
    ]) {
      assert.equal(extractOtp({ text }).status, 'not_found', text);
    }
  });
});

describe('extractOtp in 28 languages', () => {
  const positives: Array<[string, string]> = [
    ['en', 'Your one-time passcode is 551209. Do not share it.'],
    ['de', 'Ihr Einmalpasswort lautet 551209. Geben Sie es nicht weiter.'],
    ['fr', 'Votre code à usage unique est 551209.'],
    ['es', 'Tu código de un solo uso es 551209. Caduca en 10 minutos.'],
    ['pt', 'Seu código de verificação: 551209. Não compartilhe.'],
    ['it', 'Il tuo codice OTP è 551209.'],
    ['nl', 'Je eenmalige code is 551209.'],
    ['pl', 'Twój kod weryfikacyjny to 551209. Nie udostępniaj go nikomu.'],
    ['cs', 'Váš ověřovací kód je 551209. Kód nikomu nesdělujte.'],
    ['sv', 'Din verifieringskod är 551209. Dela inte koden med någon.'],
    ['da', 'Din bekræftelseskode er 551209. Del ikke koden med andre.'],
    ['no', 'Engangskoden din er 551209. Ikke del denne koden med noen.'],
    ['fi', 'Vahvistuskoodisi on 551209. Älä jaa koodia kenellekään.'],
    ['tr', 'Doğrulama kodunuz: 551209. Bu kodu kimseyle paylaşmayın.'],
    ['ru', 'Ваш код подтверждения: 551209. Никому не сообщайте этот код.'],
    ['uk', 'Ваш код підтвердження: 551209. Нікому не повідомляйте цей код.'],
    ['el', 'Ο κωδικός επαλήθευσης σας είναι 551209. Μην τον κοινοποιήσετε.'],
    ['hu', 'Az ellenőrző kódod: 551209. Ne oszd meg senkivel.'],
    ['ro', 'Codul tău de verificare este 551209. Nu îl distribui nimănui.'],
    ['ja', 'ワンタイムパスワード：551209\n有効期限は10分です。'],
    ['zh', '您的验证码为551209，10分钟内有效，请勿泄露给他人。'],
    ['ko', '인증번호는 [551209] 입니다. 타인에게 알려주지 마세요.'],
    ['ar', 'رمز التحقق الخاص بك هو 551209. لا تشاركه مع أي شخص.'],
    ['he', 'קוד האימות שלך הוא 551209. אין לשתף קוד זה.'],
    ['hi', 'आपका सत्यापन कोड 551209 है। इसे किसी के साथ साझा न करें।'],
    ['th', 'รหัสยืนยันของคุณคือ 551209 กรุณาอย่าเปิดเผยรหัสนี้แก่ผู้อื่น'],
    ['vi', 'Mã xác minh của bạn là 551209. Không chia sẻ mã này với bất kỳ ai.'],
    ['id', 'Kode verifikasi Anda adalah 551209. Jangan berikan kode ini kepada siapa pun.'],
  ];

  it("finds the code after each language's own words for it", () => {
    assert.equal(new Set(positives.map(([lang]) => lang)).size, 28);
    for (const [lang, text] of positives)
      assert.equal(extractOtp({ text }).code, '551209', `${lang}: ${text}`);
  });

  it('tells a code set apart below a code label from a number below an order label', () => {
    for (const [lang, label, orderLabel] of [
      ['ja', '以下の確認コードを入力してください。', 'ご注文番号'],
      ['ko', '아래 인증번호를 입력해 주세요.', '주문번호'],
      ['ar', 'استخدم الرمز التالي لتسجيل الدخول إلى حسابك:', 'رقم الطلب:'],
      ['he', 'להשלמת ההתחברות הזינו את הקוד הבא:', 'מספר הזמנה:'],
      ['hi', 'लॉग इन करने के लिए नीचे दिया गया ओटीपी दर्ज करें:', 'ऑर्डर नंबर:'],
      ['th', 'กรุณากรอกรหัสยืนยันด้านล่างเพื่อเข้าสู่ระบบ', 'หมายเลขคำสั่งซื้อ'],
      ['el', 'Χρησιμοποιήστε τον παρακάτω κωδικό για να συνδεθείτε:', 'Αριθμός παραγγελίας:'],
      ['fi', 'Syötä alla oleva koodi kirjautuaksesi:', 'Tilausnumero:'],
      ['vi', 'Vui lòng nhập mã dưới đây để đăng nhập:', 'Mã đơn hàng:'],
      ['id', 'Masukkan kode berikut untuk masuk ke akun Anda:', 'Nomor pesanan:'],
    ] as const) {
      const code = extractOtp({ html: mail(row(label) + bigRow('482913')) });
      assert.equal(code.code, '482913', `${lang}: ${label}`);
      const order = extractOtp({ html: mail(row(orderLabel) + bigRow('482913')) });
      assert.equal(order.status, 'not_found', `${lang}: ${orderLabel}`);
    }
  });

  it('reads codes written in Arabic-Indic, Devanagari and Thai digits as ASCII', () => {
    for (const text of [
      'رمز التحقق الخاص بك هو ٥٥١٢٠٩. لا تشاركه مع أي شخص.',
      'आपका ओटीपी ५५१२०९ है।',
      'รหัสยืนยันของคุณคือ ๕๕๑๒๐๙',
    ]) {
      assert.equal(extractOtp({ text }).code, '551209', text);
    }
  });

  it('reads order, invoice, tracking and postal numbers as what they are', () => {
    for (const text of [
      'Номер заказа: 88120934. Трек-номер: 44120983.',
      'Numer zamówienia: 30214455. Numer przesyłki: 44120983. Kod pocztowy: 00-950.',
      'Numéro de commande : 30214455. Numéro de suivi : 44120983. Code postal : 75008.',
      'Sipariş numarası: 30214455',
      'ご注文番号：30214455\nお届け予定日：5月12日',
      '订单号：2026051288',
      '주문번호 20260512',
      'رقم الفاتورة: 88120934',
      'מספר הזמנה: 88120934',
      'ऑर्डर नंबर: 88120934',
      'หมายเลขคำสั่งซื้อ 88120934',
      'Mã đơn hàng: 88120934',
      'Nomor pesanan: 88120934. Nomor resi: 44120983.',
      'Αριθμός παραγγελίας: 88120934',
      'Rendelésszám: 88120934',
    ]) {
      assert.equal(extractOtp({ text }).status, 'not_found', text);
    }
  });
});

describe('extractOtp pattern override', () => {
  it('returns the first match of its single group with confidence 1', () => {
    const result = extractOtp(
      { subject: 'Hello', text: 'Order 5512093\nPIN=0042 and PIN=9999' },
      { pattern: 'PIN=([0-9]{4})' },
    );
    assert.equal(result.status, 'found');
    assert.equal(result.code, '0042');
    assert.equal(result.confidence, 1);
    assert.equal(result.source, 'text');
    assert.match(result.context ?? '', /PIN=0042/);
  });

  it('searches the subject first and the visible HTML last', () => {
    assert.equal(extractOtp({ subject: 'ref ZX-1', text: 'ref ZX-2' }, { pattern: 'ZX-(\\d)' }).code, '1');
    const html = extractOtp({ html: '<p>token: <b>abc-77</b></p>' }, { pattern: 'token: ([a-z]+-[0-9]+)' });
    assert.equal(html.code, 'abc-77');
    assert.equal(html.source, 'html');
  });

  it('is not_found when nothing matches', () => {
    const result = extractOtp({ text: 'Your code is 482913' }, { pattern: 'PIN=(\\d+)' });
    assert.equal(result.status, 'not_found');
    assert.deepEqual(result.candidates, []);
  });

  it('refuses patterns without exactly one capture group', () => {
    for (const pattern of ['PIN=[0-9]{4}', '(PIN)=([0-9]{4})']) {
      assert.throws(
        () => extractOtp({ text: 'PIN=0042' }, { pattern }),
        (err: unknown) =>
          err instanceof AppError &&
          err.code === 'invalid_input' &&
          /exactly one capture group/.test(err.message),
      );
    }
    assert.equal(extractOtp({ text: 'PIN=0042' }, { pattern: '(?:PIN|pin)=([0-9]{4})' }).code, '0042');
  });

  it('refuses expressions RE2 cannot compile, saying why', () => {
    assert.throws(
      () => extractOtp({ text: 'x' }, { pattern: '(?<=PIN=)(\\d+)' }),
      (err: unknown) =>
        err instanceof AppError && /not a valid RE2/.test(err.message) && /lookbehind/.test(err.message),
    );
    assert.throws(() => extractOtp({ text: 'x' }, { pattern: '(\\d+' }), /not a valid RE2/);
    assert.throws(() => extractOtp({ text: 'x' }, { pattern: '' }), /empty/);
  });
});

describe('extraction stays linear on hostile input', () => {
  // A quadratic scan of these inputs takes minutes and a linear one milliseconds, so the test's timeout is
  // the bound (generous for a busy machine); the timings are rows of bench/linearTime.ts.
  const LINEAR = { timeout: 60_000 };

  it('handles a 200 KB body of digits and spaces: no code stands out', LINEAR, () => {
    const body = digitsAndSpaces(200_000);
    const result = extractOtp({ subject: 'Your code', text: body, html: `<p>${body}</p>` });
    assert.equal(result.status, 'not_found');
    assert.ok(result.candidates.length > 0, 'the candidates were scored, not skipped');
  });

  it('handles other pathological shapes, finding what is there', LINEAR, () => {
    for (const { shape, code, links } of PATHOLOGICAL_SHAPES) {
      const label = `${shape.slice(0, 12)}…`;
      const otp = extractOtp({ text: shape, html: shape });
      assert.equal(otp.status, code === null ? 'not_found' : 'found', label);
      assert.equal(otp.code, code, label);
      assert.equal(extractLinks({ text: shape, html: shape }).length, links, label);
    }
  });
});

describe('extractLinks', () => {
  it('reads a and area hrefs, decoding entities, with anchor text', () => {
    const links = extractLinks({
      html:
        '<a href="https://shop.example/track?id=1&amp;lang=en">Track&nbsp;your <b>order</b></a>' +
        '<map><area href="https://shop.example/map" alt="Store map"></map>' +
        '<a href="https://shop.example/logo"><img src="logo.png" alt="Example Shop"></a>',
    });
    assert.deepEqual(links, [
      { url: 'https://shop.example/track?id=1&lang=en', text: 'Track your order', kind: 'other' },
      { url: 'https://shop.example/map', text: 'Store map', kind: 'other' },
      { url: 'https://shop.example/logo', text: 'Example Shop', kind: 'other' },
    ]);
  });

  it('skips mailto, tel, javascript, cid, in-page anchors and relative links', () => {
    const links = extractLinks({
      html:
        '<a href="mailto:help@example.com">Mail</a><a href="tel:+14155550132">Call</a>' +
        '<a href="javascript:void(0)">JS</a><a href="cid:logo@x">img</a><a href="#top">Top</a>' +
        '<a href="/relative/path">Rel</a><a href="  https://ok.example/  ">OK</a>',
    });
    assert.deepEqual(
      links.map((l) => l.url),
      ['https://ok.example/'],
    );
  });

  it('finds bare URLs in text and strips trailing punctuation', () => {
    const links = extractLinks({
      text:
        'Visit https://a.example/x. Or (https://b.example/y), <https://c.example/z>.\n' +
        'Wiki: https://en.example.org/wiki/Foo_(bar)!',
    });
    assert.deepEqual(
      links.map((l) => l.url),
      [
        'https://a.example/x',
        'https://b.example/y',
        'https://c.example/z',
        'https://en.example.org/wiki/Foo_(bar)',
      ],
    );
  });

  it('de-duplicates by URL, keeping the first place and the most telling text', () => {
    const links = extractLinks({
      html: '<a href="https://x.example/verify?token=abcdef123">click here</a>',
      text: 'Verify your email: https://x.example/verify?token=abcdef123\nhttps://x.example/other',
    });
    assert.equal(links.length, 2);
    assert.deepEqual(links[0], {
      url: 'https://x.example/verify?token=abcdef123',
      text: 'Verify your email',
      kind: 'verify',
    });
  });

  it('classifies verify, reset, magic login and unsubscribe links', () => {
    const kinds = extractLinks({
      html:
        '<a href="https://x.example/account/activate?t=123456789">Activate account</a>' +
        '<a href="https://x.example/u/1">Réinitialiser le mot de passe</a>' +
        '<a href="https://x.example/auth/callback?token=Zk3Pq9Lm2X">Sign in to Example</a>' +
        '<a href="https://x.example/magic/abc">Open</a>' +
        '<a href="https://x.example/login">Log in</a>' +
        '<a href="https://x.example/email/opt-out?u=1">Manage</a>' +
        '<a href="https://login.example.com/unsubscribe?token=abcdefgh">Unsubscribe</a>',
    }).map((l) => l.kind);
    assert.deepEqual(kinds, [
      'verify',
      'reset',
      'magic_login',
      'magic_login',
      'other',
      'unsubscribe',
      'unsubscribe',
    ]);
  });

  it('returns nothing for empty input', () => {
    assert.deepEqual(extractLinks({}), []);
    assert.deepEqual(extractLinks({ text: null, html: '' }), []);
  });
});

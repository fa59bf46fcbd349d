// The OTP misses issue 35 lists, one rule each: a code in the next line, table cell or row; a code shown
// before the words naming it; digits split by runs of spaces; "to verify your account:" before the code; old and
// new codes in one mail; and numbers that are labelled as something else (request, reference, booking,
// approval, confirmation or ticket numbers) or listed as backup codes, which are no code to type.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractOtp } from '../../src/core/extract/index.ts';

const cells = (...rows: string[][]): string =>
  `<table>${rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('')}</table>`;
const big = (code: string): string => `<div style="font-size:28px;font-weight:bold">${code}</div>`;

describe('extractOtp: where the code sits', () => {
  it('reads a code in the next line, cell or row after its keyword', () => {
    assert.equal(extractOtp({ text: 'Your sign-in code:\n\n  280 736\n\nIt expires soon.' }).code, '280736');
    assert.equal(
      extractOtp({ html: cells(['Verification code', '620 481'], ['Expires', 'in 30 minutes']) }).code,
      '620481',
    );
    assert.equal(extractOtp({ html: cells(['Prisijungimo kodas'], ['308 415']) }).code, '308415');
  });

  it('reads a letter+digit code alone on its line with the words naming it after', () => {
    for (const [html, code] of [
      [`${big('K7M2Q9')}<p>Enter the code above on the sign-in page.</p>`, 'K7M2Q9'],
      [`${big('WX4-7KD')}<p>This is your one-time code. It expires in 10 minutes.</p>`, 'WX47KD'],
      [`${big('H4K9T2')}<p>Acesta este codul tău de autentificare.</p>`, 'H4K9T2'],
    ] as const) {
      assert.equal(extractOtp({ html }).code, code, html);
    }
    // A model name before a sentence about something else stays a model name.
    assert.equal(
      extractOtp({ html: `${big('XR500')}<p>Our newest router is here.</p>` }).status,
      'not_found',
    );
  });

  it('joins digits separated by any short run of spaces, the same run throughout', () => {
    assert.equal(extractOtp({ text: 'Your security code:\n\n7   2   0   9   1   5' }).code, '720915');
    assert.equal(extractOtp({ text: 'Votre code de vérification : 48  19  20' }).code, '481920');
    assert.equal(extractOtp({ text: 'Your login code:\n\n    481   207\n' }).code, '481207');
    // Columns of a text table are separate numbers, not one code.
    const grid = extractOtp({ text: 'Your backup codes:\n4471 2093    1180 5536\n6629 0417    3308 9925' });
    assert.equal(grid.status, 'not_found');
  });

  it('reads "to verify your account:" and "sent to your phone:" as about the code, not as labels', () => {
    assert.equal(
      extractOtp({ text: 'Use the following code to verify your account: 508211' }).code,
      '508211',
    );
    assert.equal(extractOtp({ text: 'Enter the code we sent to your phone: 482913' }).code, '482913');
    assert.equal(
      extractOtp({ text: 'Please enter the digits below to confirm your account:\n\n90 41 27' }).code,
      '904127',
    );
    // A label that opens its line still names its number.
    assert.equal(extractOtp({ text: 'Your account number: 48291307' }).status, 'not_found');
  });
});

describe('extractOtp: old and new codes', () => {
  it('returns the new code when the wording calls the other one old', () => {
    for (const [text, code] of [
      ['Your previous code 712004 no longer works. Your new code is 508913.', '508913'],
      ['Here is your new code: 602 884. The code we sent earlier (119 303) has been cancelled.', '602884'],
      ['The code 220915 has expired. Use this code instead: 330184', '330184'],
      ['Ihr bisheriger Code 220 941 ist ungültig. Ihr neuer Code lautet: 448 102', '448102'],
      ['Ваш новый код: 662 019. Предыдущий код 118 273 больше не действует.', '662019'],
      ['您的新验证码是 725 013，之前的验证码 338 104 已失效。', '725013'],
      ['รหัสยืนยันใหม่ของคุณคือ 771 203 (รหัสเดิม 220 981 ใช้ไม่ได้แล้ว)', '771203'],
    ] as const) {
      const result = extractOtp({ text });
      assert.equal(result.status, 'found', text);
      assert.equal(result.code, code, text);
    }
  });

  it('reads an old code in a label cell above it as old', () => {
    const html = cells(['Old code (expired)'], ['112233'], ['New code'], ['445566']);
    assert.equal(extractOtp({ html }).code, '445566');
  });

  it('stays ambiguous when nothing says which of two codes is current', () => {
    const text = 'Your verification code is 443201.\n\nYour verification code is 118730.';
    assert.equal(extractOtp({ text }).status, 'ambiguous');
  });
});

describe('extractOtp: numbers that are not one-time codes', () => {
  it('reads request, reference, booking, confirmation and ticket numbers as what they are', () => {
    for (const text of [
      'We received a request to reset your password.\nRequest number: 77120934\nReset: https://x.example/r',
      'Thanks for contacting us. Your ticket number is 482913.',
      'Your booking reference is QX7T4M. Show it at check-in.',
      'Hotel confirmation number: 883104\nCheck-in: Dec 18',
      'Reference number: 402918',
      'Número de solicitud: 2026118834',
      'Numer zgłoszenia: 482913',
      'Номер заявки: 58213',
      'Talep numarası: 4418203',
      '予約番号：A48K2Q',
    ]) {
      const result = extractOtp({ text });
      assert.notEqual(result.status, 'found', `${text}: ${result.code}`);
    }
  });

  it("reads a receipt's approval or authorisation code as a receipt number, and the same words asking for a code as a code", () => {
    for (const text of [
      'Receipt\nAmount: $14.60\nCard: Visa •••• 4412\nApproval code: 04821B',
      'TOTAL $41.87\nVISA ****1204\nAUTH CODE: 08712C\nAPPROVED',
      'Importo: € 42,50\nCodice di autorizzazione: 058821',
      '결제금액: 12,000원\n승인번호: 30412877',
      'Your trip is booked!\nConfirmation code: QX7T4M\nFlight: SK 1803',
    ]) {
      assert.equal(extractOtp({ text }).status, 'not_found', text);
    }
    assert.equal(
      extractOtp({
        text: 'Approve your payment of $42.00.\nYour approval code: 7316\nIt expires in 5 minutes.',
      }).code,
      '7316',
    );
    assert.equal(extractOtp({ text: 'Your confirmation code is QX7-M2P' }).code, 'QX7M2P');
  });

  it('gives not_found, not a code, for a list of backup or recovery codes', () => {
    for (const text of [
      'Here are your backup codes. Each can be used once:\n  8271 5520\n  6619 0042\n  3390 1178\n  5521 9063',
      'Your recovery codes:\na1b2c-3d4e5\nf6g7h-8j9k0\nm2n3p-4q5r6',
      'Ihre Backup-Codes:\n4821-9930\n1174-5528\n6603-2219',
      '您的备用验证码：\n2841 0937\n5520 1186\n7739 4402',
    ]) {
      assert.equal(extractOtp({ text }).status, 'not_found', text);
    }
  });
});

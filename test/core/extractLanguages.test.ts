// OTP extraction in the languages added for issue 35 (Persian, Bengali, Swahili, Urdu, Tamil, Malay, Tagalog,
// the Balkan, Baltic and Caucasian languages and more): each language's own words for a code, for an order or
// request number, and its digits, so the vocabulary covers 40+ languages and each entry is exercised.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractOtp } from '../../src/core/extract/index.ts';
import { LEXICONS } from '../../src/core/extract/vocabulary.ts';

const positives: Array<[string, string]> = [
  ['fa', 'کد تأیید شما: 551209\nاین کد را در اختیار دیگران قرار ندهید.'],
  ['ur', 'آپ کا تصدیقی کوڈ 551209 ہے۔ یہ کوڈ کسی کو نہ بتائیں۔'],
  ['bn', 'আপনার ওটিপি হল 551209। এটি কারো সাথে শেয়ার করবেন না।'],
  ['ta', 'உங்கள் சரிபார்ப்புக் குறியீடு 551209. யாருடனும் பகிர வேண்டாம்.'],
  ['te', 'మీ ధృవీకరణ కోడ్ 551209. దీన్ని ఎవరితోనూ పంచుకోవద్దు.'],
  ['mr', 'तुमचा पडताळणी कोड 551209 आहे.'],
  ['gu', 'તમારો ચકાસણી કોડ 551209 છે.'],
  ['kn', 'ನಿಮ್ಮ ಪರಿಶೀಲನಾ ಕೋಡ್ 551209.'],
  ['ml', 'നിങ്ങളുടെ സ്ഥിരീകരണ കോഡ് 551209 ആണ്.'],
  ['pa', 'ਤੁਹਾਡਾ ਪੁਸ਼ਟੀਕਰਨ ਕੋਡ 551209 ਹੈ।'],
  ['ne', 'तपाईंको प्रमाणीकरण कोड 551209 हो।'],
  ['si', 'ඔබගේ සත්‍යාපන කේතය 551209 වේ.'],
  ['sk', 'Váš overovací kód je 551209. Nikomu ho neposielajte.'],
  ['sl', 'Vaša enkratna koda je 551209.'],
  ['hr', 'Vaš jednokratni kod je 551209. Ne dijelite ga ni s kim.'],
  ['sr', 'Ваш код за потврду је 551209.'],
  ['bg', 'Вашият код за потвърждение е 551209. Не го споделяйте.'],
  ['mk', 'Вашиот код за потврда е 551209.'],
  ['sq', 'Kodi juaj i verifikimit është 551209.'],
  ['be', 'Ваш код пацвярджэння: 551209'],
  ['lt', 'Jūsų vienkartinis kodas: 551209. Niekam jo nesakykite.'],
  ['lv', 'Jūsu vienreizējais kods ir 551209.'],
  ['et', 'Teie ühekordne kood on 551209.'],
  ['sw', 'Msimbo wako wa kuingia ni 551209. Usimpe mtu yeyote.'],
  ['ms', 'Kod pengesahan anda ialah 551209. Jangan kongsi kod ini.'],
  ['tl', 'Ang iyong one-time PIN ay 551209. Huwag itong ibahagi.'],
  ['ca', "El vostre codi d'un sol ús és 551209."],
  ['eu', 'Zure egiaztapen-kodea 551209 da.'],
  ['gl', 'O teu código de seguranza é 551209.'],
  ['is', 'Staðfestingarkóðinn þinn er 551209.'],
  ['af', 'Jou eenmalige PIN is 551209. Moenie dit deel nie.'],
  ['kk', 'Бір реттік код: 551209. Ешкімге айтпаңыз.'],
  ['az', 'Birdəfəlik kodunuz: 551209'],
  ['uz', 'Bir martalik kod: 551209. Hech kimga bermang.'],
  ['ka', 'თქვენი შესვლის კოდია 551209'],
  ['hy', 'Ձեր միանգամյա կոդը՝ 551209'],
  ['mn', 'Таны нэг удаагийн код: 551209'],
  ['km', 'លេខកូដផ្ទៀងផ្ទាត់របស់អ្នក៖ 551209'],
  ['my', 'သင်၏ အတည်ပြုကုဒ် 551209'],
  ['lo', 'ລະຫັດຢືນຢັນຂອງທ່ານ: 551209'],
  ['am', 'የእርስዎ የማረጋገጫ ኮድ 551209 ነው።'],
];

describe('extractOtp in 40+ languages', () => {
  it('knows the words of 40 or more languages', () => {
    const langs = Object.keys(LEXICONS);
    assert.ok(langs.length >= 40, `${langs.length} languages`);
    for (const lang of [
      'fa',
      'bn',
      'sw',
      'ur',
      'ta',
      'ms',
      'tl',
      'hu',
      'ro',
      'bg',
      'sr',
      'hr',
      'sk',
      'lt',
      'lv',
      'et',
    ]) {
      assert.ok(langs.includes(lang), lang);
    }
  });

  it("finds the code after each added language's own words for it", () => {
    for (const [lang, text] of positives) {
      assert.ok(lang in LEXICONS, lang);
      assert.equal(extractOtp({ text }).code, '551209', `${lang}: ${text}`);
    }
  });

  it('reads order, request and booking numbers of the added languages as what they are', () => {
    for (const text of [
      'شماره سفارش: 88120934',
      'آرڈر نمبر: 88120934',
      'অর্ডার নম্বর: 88120934',
      'Nambari ya agizo: 88120934',
      'Nombor rujukan: 88120934',
      'Číslo žiadosti: 88120934',
      'Broj rezervacije: 88120934',
      'Номер на поръчка: 88120934',
      'Užsakymo numeris: 88120934',
      'Pieteikuma numurs: 88120934',
      'Broneeringu number: 88120934',
      'Numărul cererii: 88120934',
      'Foglalási szám: 88120934',
    ]) {
      assert.equal(extractOtp({ text }).status, 'not_found', text);
    }
  });

  it('reads codes in Bengali, Tamil, Gujarati, Khmer and Myanmar digits as ASCII', () => {
    for (const text of [
      'আপনার ওটিপি ৫৫১২০৯',
      'ஒருமுறை கடவுச்சொல்: ௫௫௧௨௦௯',
      'તમારો ચકાસણી કોડ ૫૫૧૨૦૯ છે.',
      'លេខកូដផ្ទៀងផ្ទាត់: ៥៥១២០៩',
      'အတည်ပြုကုဒ် ၅၅၁၂၀၉',
    ]) {
      assert.equal(extractOtp({ text }).code, '551209', text);
    }
  });

  it('gives no code for a bold number in a mail that names no code in any known language', () => {
    const html =
      '<p>Xyzzy plugh frobozz:</p><p style="font-size:28px;font-weight:bold">482913</p><p>Quux.</p>';
    assert.equal(extractOtp({ html }).status, 'not_found');
    assert.equal(extractOtp({ subject: 'Your code', html }).code, '482913');
  });
});

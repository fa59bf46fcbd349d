// For the languages of west.ts, north.ts, east.ts and asia.ts: the words that tell an old code from the new
// one, the words asking to type a code in, and the labels that are a code only when a mail asks for one (see
// types.ts). The newer lexicons carry these fields themselves.
import type { Lexicon } from './types.ts';

type Markers = Pick<Lexicon, 'old' | 'fresh' | 'entry' | 'ambivalent'>;

export const MARKERS: Record<string, Markers> = {
  en: {
    old: [
      'previous', 'old', 'older', 'earlier', 'expired', 'no longer valid', 'no longer works', 'no longer work',
      'not valid anymore', 'invalid', 'cancelled', 'canceled', 'replaced', 'superseded', 'deactivated', 'prior',
    ],
    fresh: ['new', 'newest', 'latest', 'fresh', 'instead', 'current'],
    entry: [
      'enter', 'type', 'input', 'paste', 'expire', 'expires', 'valid for', 'valid until', 'do not share',
      "don't share", 'never share', 'use this code', 'use the code', 'use the following', 'provide this code',
    ],
    ambivalent: [
      'approval code', 'approval number', 'authorization code', 'authorisation code', 'auth code', 'auth. code',
      'confirmation code',
    ],
  },
  de: {
    old: ['bisherig*', 'alte', 'alter', 'alten', 'vorherig*', 'frühere*', 'abgelaufen', 'ungültig', 'nicht mehr gültig', 'verfallen', 'ersetzt'],
    fresh: ['neue', 'neuer', 'neuen', 'neues', 'aktuelle*', 'stattdessen'],
    entry: ['geben sie', 'gib', 'eingeben', 'einzugeben', 'gültig', 'läuft ab', 'nicht weiter', 'teilen sie', 'teile'],
    ambivalent: ['autorisierungscode', 'genehmigungscode', 'genehmigungsnummer', 'autorisierungsnummer'],
  },
  fr: {
    old: ['ancien', 'ancienne', 'précédent', 'précédente', 'expiré', 'expirée', "n'est plus valable", 'n’est plus valable', "n'est plus valide", 'invalide', 'annulé', 'remplacé'],
    fresh: ['nouveau', 'nouvelle', 'nouvel', 'à la place'],
    entry: ['saisissez', 'saisir', 'entrez', 'expire', 'valable', 'ne le partagez', 'ne partagez', 'utilisez ce code'],
    ambivalent: ["code d'autorisation", 'code d’autorisation', "numéro d'autorisation", 'numéro d’autorisation'],
  },
  es: {
    old: ['anterior', 'antiguo', 'viejo', 'caducado', 'expirado', 'ya no es válido', 'ya no es valido', 'inválido', 'cancelado', 'reemplazado'],
    fresh: ['nuevo', 'nueva', 'en su lugar'],
    entry: ['introduce', 'introduzca', 'ingresa', 'ingrese', 'escribe', 'caduca', 'vence', 'expira', 'válido', 'no compartas', 'no comparta', 'usa este código', 'utiliza este código'],
    ambivalent: ['código de autorización', 'número de autorización', 'código de aprobación', 'código de confirmación', 'codigo de confirmacion'],
  },
  pt: {
    old: ['anterior', 'antigo', 'expirado', 'expirou', 'não é mais válido', 'já não é válido', 'inválido', 'cancelado', 'substituído'],
    fresh: ['novo', 'nova'],
    entry: ['digite', 'insira', 'introduza', 'informe', 'expira', 'válido', 'não compartilhe', 'não partilhe', 'use este código', 'utilize este código'],
    ambivalent: ['código de autorização', 'código de aprovação'],
  },
  it: {
    old: ['precedente', 'vecchio', 'scaduto', 'non è più valido', 'non valido', 'annullato', 'sostituito'],
    fresh: ['nuovo', 'nuova'],
    entry: ['inserisci', 'inserire', 'digita', 'scade', 'valido', 'non condividere', 'utilizza questo codice', 'usa questo codice'],
    ambivalent: ['codice di autorizzazione', 'codice autorizzazione', 'numero di autorizzazione'],
  },
  nl: {
    old: ['vorige', 'oude', 'eerdere', 'verlopen', 'niet meer geldig', 'ongeldig', 'vervangen', 'geannuleerd'],
    fresh: ['nieuwe', 'in plaats daarvan'],
    entry: ['voer', 'vul', 'verloopt', 'geldig', 'niet delen', 'deel deze code', 'gebruik deze code'],
    ambivalent: ['autorisatiecode', 'goedkeuringscode'],
  },
  pl: {
    old: ['poprzedni*', 'stary', 'starszy', 'wygasł*', 'nieważn*', 'nie jest już ważny', 'unieważnion*', 'zastąpion*'],
    fresh: ['nowy', 'nowa', 'nowe', 'nowego', 'nowym'],
    entry: ['wpisz', 'wprowadź', 'podaj', 'wygaśnie', 'ważny', 'nie udostępniaj', 'nikomu'],
    ambivalent: ['kod autoryzacyjny', 'kod autoryzacji', 'numer autoryzacji'],
  },
  cs: {
    old: ['předchozí', 'starý', 'staré', 'vypršel', 'neplatný', 'již neplatí', 'zrušen'],
    fresh: ['nový', 'nová', 'nové'],
    entry: ['zadejte', 'vyprší', 'platnost', 'platný', 'nesdělujte', 'nikomu'],
    ambivalent: ['autorizační kód'],
  },
  sv: {
    old: ['tidigare', 'föregående', 'gamla', 'utgången', 'har gått ut', 'ogiltig', 'inte längre giltig', 'ersatt'],
    fresh: ['ny', 'nya', 'istället'],
    entry: ['ange', 'skriv in', 'går ut', 'giltig', 'dela inte'],
  },
  da: {
    old: ['tidligere', 'forrige', 'gamle', 'udløbet', 'ugyldig', 'ikke længere gyldig', 'erstattet'],
    fresh: ['ny', 'nye', 'i stedet'],
    entry: ['indtast', 'udløber', 'gyldig', 'del ikke'],
  },
  no: {
    old: ['tidligere', 'forrige', 'gamle', 'utløpt', 'ugyldig', 'ikke lenger gyldig', 'erstattet'],
    fresh: ['ny', 'nye', 'i stedet'],
    entry: ['skriv inn', 'oppgi', 'utløper', 'gyldig', 'ikke del'],
  },
  fi: {
    old: ['edellinen', 'edellisen', 'vanha', 'vanhentunut', 'vanhentui', 'ei ole enää voimassa', 'ei enää kelpaa', 'mitätön', 'korvattu'],
    fresh: ['uusi', 'uuden'],
    entry: ['syötä', 'vanhenee', 'voimassa', 'älä jaa', 'älä kerro'],
  },
  hu: {
    old: ['korábbi', 'előző', 'régi', 'lejárt', 'érvénytelen', 'már nem érvényes', 'visszavont'],
    fresh: ['új', 'újabb'],
    entry: ['add meg', 'adja meg', 'írd be', 'írja be', 'lejár', 'érvényes', 'ne oszd meg', 'ne ossza meg'],
    ambivalent: ['engedélyezési kód*', 'jóváhagyási kód*'],
  },
  ro: {
    old: ['anterior', 'vechi', 'vechiul', 'expirat', 'nu mai este valabil', 'invalid', 'anulat', 'înlocuit'],
    fresh: ['nou', 'noul', 'nouă'],
    entry: ['introdu', 'introduceți', 'expiră', 'valabil', 'nu distribui', 'nu comunica'],
  },
  tr: {
    old: ['önceki', 'eski', 'süresi dolmuş', 'süresi doldu', 'geçersiz', 'artık geçerli değil', 'iptal'],
    fresh: ['yeni'],
    entry: ['girin', 'giriniz', 'gir', 'geçerli', 'paylaşmayın', 'paylaşmayınız', 'süresi', 'sona erecek'],
    ambivalent: ['provizyon kod*', 'provizyon numara*'],
  },
  ru: {
    old: ['предыдущ*', 'старый', 'старого', 'прежний', 'истёк', 'истек', 'больше не действует', 'недействител*', 'аннулирован', 'заменён', 'заменен'],
    fresh: ['новый', 'новая', 'нового', 'новым'],
    entry: ['введите', 'действителен', 'действует', 'истекает', 'не сообщайте', 'не передавайте'],
    ambivalent: ['код авторизации', 'код одобрения'],
  },
  uk: {
    old: ['попередн*', 'старий', 'більше не дійсний', 'недійсн*', 'скасован*'],
    fresh: ['новий', 'нова', 'нового'],
    entry: ['введіть', 'дійсний', 'діє', 'не повідомляйте', 'не передавайте'],
    ambivalent: ['код авторизації'],
  },
  el: {
    old: ['προηγούμεν*', 'παλιό*', 'έληξε', 'ληγμένο*', 'δεν ισχύει πλέον', 'άκυρο*'],
    fresh: ['νέο*', 'καινούργιο*'],
    entry: ['εισάγετε', 'εισαγάγετε', 'πληκτρολογήστε', 'λήγει', 'ισχύει', 'μην τον κοινοποιήσετε', 'μην κοινοποιήσετε'],
  },
  ar: {
    old: ['السابق', 'القديم', 'منتهي الصلاحية', 'انتهت صلاحيته', 'لم يعد صالحاً', 'لم يعد صالحا', 'غير صالح', 'ملغى'],
    fresh: ['الجديد', 'جديد'],
    entry: ['أدخل', 'ادخل', 'صالح', 'تنتهي', 'لا تشارك', 'لا تشاركه'],
    ambivalent: ['رمز الموافقة', 'رقم الموافقة', 'رقم التفويض'],
  },
  he: {
    old: ['הקודם', 'ישן', 'הישן', 'פג תוקף', 'פג תוקפו', 'אינו בתוקף', 'לא בתוקף', 'בוטל'],
    fresh: ['חדש', 'החדש'],
    entry: ['הזן', 'הזינו', 'הקלד', 'בתוקף', 'אין לשתף', 'אל תשתף'],
    ambivalent: ['מספר אישור'],
  },
  hi: {
    old: ['पिछला', 'पिछले', 'पुराना', 'समाप्त हो गया', 'अमान्य', 'रद्द'],
    fresh: ['नया', 'नए'],
    entry: ['दर्ज करें', 'मान्य', 'साझा न करें', 'शेयर न करें'],
  },
  ja: {
    old: ['以前の', '前回の', '古い', '無効になりました', '無効です', '期限切れ', '失効しました'],
    fresh: ['新しい', '新たな', '最新の'],
    entry: ['入力', '有効期限', '他人に', '教えない', '共有しない'],
    ambivalent: ['承認番号', '承認コード'],
  },
  zh: {
    old: ['之前的', '之前', '旧的', '旧验证码', '舊的', '已失效', '已过期', '已過期', '作废', '作廢', '上一个', '上一個'],
    fresh: ['新的', '新验证码', '新驗證碼', '最新'],
    entry: ['输入', '輸入', '有效期', '请勿', '請勿', '泄露', '洩露'],
  },
  ko: {
    old: ['이전', '기존', '예전', '만료된', '만료되었습니다', '더 이상 사용할 수 없', '무효'],
    fresh: ['새 ', '새로운', '신규'],
    entry: ['입력', '유효', '타인에게', '공유하지'],
    ambivalent: ['승인번호', '승인 번호', '승인코드'],
  },
  th: {
    old: ['เดิม', 'ก่อนหน้า', 'เก่า', 'หมดอายุแล้ว', 'ใช้ไม่ได้แล้ว', 'ยกเลิก'],
    fresh: ['ใหม่'],
    entry: ['กรอก', 'ป้อน', 'หมดอายุ', 'อย่าเปิดเผย', 'ห้ามเปิดเผย'],
    ambivalent: ['รหัสอนุมัติ', 'เลขที่อนุมัติ'],
  },
  vi: {
    old: ['cũ', 'trước đó', 'đã hết hạn', 'hết hiệu lực', 'không còn hiệu lực', 'không còn hợp lệ', 'đã bị hủy'],
    fresh: ['mới'],
    entry: ['nhập', 'hết hạn', 'hiệu lực', 'không chia sẻ', 'không cung cấp'],
    ambivalent: ['mã chuẩn chi', 'mã phê duyệt'],
  },
  id: {
    old: ['sebelumnya', 'lama', 'sudah kedaluwarsa', 'telah kedaluwarsa', 'tidak berlaku lagi', 'dibatalkan', 'diganti'],
    fresh: ['baru', 'terbaru'],
    entry: ['masukkan', 'berlaku', 'jangan berikan', 'jangan bagikan'],
    ambivalent: ['kode otorisasi', 'kode persetujuan', 'approval code'],
  },
}; // prettier-ignore

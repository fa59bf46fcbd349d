// Words that tell an OTP apart from other numbers in mail, in the languages senders commonly use.
// Lower case; matching is done on a lower-cased line of the same length. The words of each language are in
// lexicon/; this module joins them and holds the lists that are not about codes.
import { ASIA } from './lexicon/asia.ts';
import { CENTRAL } from './lexicon/central.ts';
import { EAST } from './lexicon/east.ts';
import { MARKERS } from './lexicon/markers.ts';
import { NORTH } from './lexicon/north.ts';
import { SOUTH } from './lexicon/south.ts';
import type { Lexicon } from './lexicon/types.ts';
import { WEST } from './lexicon/west.ts';
import { WORLD } from './lexicon/world.ts';

const withMarkers = (lexicons: Record<string, Lexicon>): Record<string, Lexicon> =>
  Object.fromEntries(Object.entries(lexicons).map(([lang, l]) => [lang, { ...l, ...MARKERS[lang] }]));

/** The languages whose words the extractor knows; each lexicon names its own. */
export const LEXICONS: Readonly<Record<string, Lexicon>> = {
  ...withMarkers({ ...WEST, ...NORTH, ...EAST, ...ASIA }),
  ...SOUTH,
  ...CENTRAL,
  ...WORLD,
};

const all = (pick: (l: Lexicon) => readonly string[]): string[] => Object.values(LEXICONS).flatMap(pick);

/** Said right next to a one-time code. Weight 1 is decisive, 0.8 strong, 0.45 a hint. */
export const CODE_WORDS: ReadonlyArray<readonly [string, number]> = [
  ...all((l) => l.strong).map((w) => [w, 1] as const),
  ...all((l) => l.code).map((w) => [w, 0.8] as const),
  ...all((l) => l.hint).map((w) => [w, 0.45] as const),
];

/**
 * Kinds of "code" that are not one-time codes. A hit here also hides any code word inside it, so
 * "promo code" never counts as "code".
 */
export const NOT_OTP_CODES: readonly string[] = all((l) => l.notOtp);

/** Labels of numbers that identify something else: orders, accounts, phones, addresses, amounts. */
export const OTHER_NUMBER_WORDS: readonly string[] = all((l) => l.other);

/** Words that mark the code in their clause as no longer usable ("your previous code"). */
export const OLD_WORDS: readonly string[] = all((l) => l.old ?? []);

/** Words that mark the code in their clause as the one to use now ("your new code"). */
export const FRESH_WORDS: readonly string[] = all((l) => l.fresh ?? []);

/** Words asking the reader to type a code in; they make an ambivalent label a code word. */
export const ENTRY_WORDS: readonly string[] = all((l) => l.entry ?? []);

/** Labels that are a one-time code in a mail asking for one, and an approval or booking number elsewhere. */
export const AMBIVALENT_WORDS: readonly string[] = all((l) => l.ambivalent ?? []);

/** Phrases that put a card or phone's last digits right after them. */
export const LAST_DIGITS_WORDS: readonly string[] = [
  'ending in', 'ending with', 'ends in', 'ends with', 'last 4', 'last four', 'last digits',
  'terminant par', 'se terminant', 'finissant par', 'endet auf', 'endend auf', 'endend mit',
  'endet mit', 'termina en', 'terminada en', 'terminado en', 'terminado em', 'terminada em',
  'que termina', 'final', '末尾', '下4桁', '下四桁', '尾号', 'ending', 'ends', 'endziffern',
  'mit den endziffern', 'termina con', 'che termina con', 'terminante con', 'eindigend op', 'eindigt op',
  'eindigend met', 'kończącej się na', 'kończącą się na', 'zakończonej', 'o końcówce', 'končící na',
  'končící', 'slutar på', 'slutsiffror', 'ender på', 'slutter på', 'slutter med', 'päättyy', 'son 4 hanesi',
  'son dört hanesi', 'оканчивающейся на', 'заканчивающейся на', 'оканчивается на', 'заканчивается на',
  'последние 4 цифры', 'що закінчується на', 'закінчується на', 'λήγει σε', 'που λήγει σε',
  'με κατάληξη', 'utolsó 4 számjegye', 'se termină în', 'se termina in', 'terminat în', 'terminat in',
  '尾號', '末四位', '后四位', '後四位', '끝자리', '뒷자리', 'المنتهية بـ', 'المنتهية ب', 'تنتهي بـ',
  'تنتهي ب', 'آخر 4 أرقام', 'המסתיים ב', 'שמסתיים ב', 'המסתיים בספרות', 'अंतिम 4 अंक', 'ลงท้าย',
  'ลงท้ายด้วย', 'เลขท้าย', '4 หลักสุดท้าย', 'kết thúc bằng', 'có đuôi', 'đuôi', 'berakhiran',
  'berakhir dengan', 'akhiran',
]; // prettier-ignore

/** Words near a year that make it a date. */
export const DATE_WORDS: readonly string[] = [
  'january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october',
  'november', 'december', 'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct',
  'nov', 'dec', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday', 'mon',
  'tue', 'wed', 'thu', 'fri', 'sat', 'sun', 'janvier', 'février', 'mars', 'avril', 'mai', 'juin',
  'juillet', 'août', 'septembre', 'octobre', 'novembre', 'décembre', 'januar', 'februar', 'märz',
  'juni', 'juli', 'oktober', 'dezember', 'enero', 'febrero', 'marzo', 'abril', 'mayo', 'junio',
  'julio', 'agosto', 'septiembre', 'octubre', 'noviembre', 'diciembre', 'janeiro', 'fevereiro',
  'março', 'maio', 'junho', 'julho', 'setembro', 'outubro', 'novembro', 'dezembro', 'gennaio',
  'febbraio', 'aprile', 'maggio', 'giugno', 'luglio', 'settembre', 'ottobre', 'dicembre', 'januari',
  'februari', 'maart', 'mei', 'augustus', '年', '月', '©', '(c)', 'copyright', 'since', 'year',
  'jahr', 'année', 'año', 'ano', 'anno', 'jaar', 'fy', 'q1', 'q2', 'q3', 'q4',
  'seit', 'depuis', 'desde', 'dal', 'sinds', 'od roku', 'sedan', 'siden', 'vuodesta', 'beri', 'с', 'від',
  'από το', 'óta', 'din', 'sejak', 'từ năm', 'stycznia', 'lutego', 'marca', 'kwietnia', 'maja', 'czerwca',
  'lipca', 'sierpnia', 'września', 'października', 'listopada', 'grudnia', 'ledna', 'února', 'března',
  'dubna', 'května', 'června', 'července', 'srpna', 'září', 'října', 'listopadu', 'prosince', 'januari',
  'februari', 'mars', 'maj', 'augusti', 'oktober', 'tammikuuta', 'helmikuuta', 'maaliskuuta',
  'huhtikuuta', 'toukokuuta', 'kesäkuuta', 'heinäkuuta', 'elokuuta', 'syyskuuta', 'lokakuuta',
  'marraskuuta', 'joulukuuta', 'ocak', 'şubat', 'mart', 'nisan', 'mayıs', 'haziran', 'temmuz', 'ağustos',
  'eylül', 'ekim', 'kasım', 'aralık', 'января', 'февраля', 'марта', 'апреля', 'мая', 'июня', 'июля',
  'августа', 'сентября', 'октября', 'ноября', 'декабря', 'г.', 'года', 'году', 'січня', 'лютого',
  'березня', 'квітня', 'травня', 'червня', 'липня', 'серпня', 'вересня', 'жовтня', 'листопада', 'грудня',
  'ιανουαρίου', 'φεβρουαρίου', 'μαρτίου', 'απριλίου', 'μαΐου', 'ιουνίου', 'ιουλίου', 'αυγούστου',
  'σεπτεμβρίου', 'οκτωβρίου', 'νοεμβρίου', 'δεκεμβρίου', 'január', 'február', 'március', 'április',
  'május', 'június', 'július', 'augusztus', 'szeptember', 'október', 'november', 'december', 'ianuarie',
  'februarie', 'martie', 'aprilie', 'iunie', 'iulie', 'septembrie', 'octombrie', 'noiembrie',
  'decembrie', 'januari', 'februari', 'maret', 'juni', 'juli', 'agustus', 'desember', 'tháng', 'năm',
  'يناير', 'فبراير', 'مارس', 'أبريل', 'مايو', 'يونيو', 'يوليو', 'أغسطس', 'سبتمبر', 'أكتوبر', 'نوفمبر',
  'ديسمبر', 'ינואר', 'פברואר', 'מרץ', 'אפריל', 'מאי', 'יוני', 'יולי', 'אוגוסט', 'ספטמבר', 'אוקטובר',
  'נובמבר', 'דצמבר', 'जनवरी', 'फ़रवरी', 'मार्च', 'अप्रैल', 'मई', 'जून', 'जुलाई', 'अगस्त', 'सितंबर',
  'अक्टूबर', 'नवंबर', 'दिसंबर', 'มกราคม', 'กุมภาพันธ์', 'มีนาคม', 'เมษายน', 'พฤษภาคม', 'มิถุนายน',
  'กรกฎาคม', 'สิงหาคม', 'กันยายน', 'ตุลาคม', 'พฤศจิกายน', 'ธันวาคม', '년', '월', 'พ.ศ.',
]; // prettier-ignore

/** Words after a number that make it a quantity. */
export const UNIT_WORDS: readonly string[] = [
  'px', 'pt', 'em', 'kb', 'mb', 'gb', 'tb', 'km', 'kg', 'mi', 'miles', 'ms', 'points', 'pts', 'items',
  'users', 'people', 'members', 'steps', 'calories', 'followers', 'views', 'stars', 'min', 'mins',
  'minutes', 'hours', 'days', 'seconds', 'sec', 'minuten', 'stunden', 'tage', 'minutos', 'horas',
  'días', 'dias', 'minuti', 'ore', 'giorni', 'jours', 'heures', 'am', 'pm', 'uhr', 'h', 'hrs',
  '分', '秒', '時', '時間', '日', '件', '個', '人', '点', '円', '元', '年', '%', 'mal', 'times', 'x',
]; // prettier-ignore

export const CURRENCY_SYMBOLS = '$€£¥₹₩₽₺¢฿₫₪₱₴₦￥＄';

export const CURRENCY_CODES: readonly string[] = [
  'usd', 'eur', 'gbp', 'jpy', 'chf', 'cad', 'aud', 'nzd', 'brl', 'mxn', 'inr', 'cny', 'rmb', 'sek',
  'nok', 'dkk', 'pln', 'czk', 'huf', 'zar', 'sgd', 'hkd', 'krw', 'try', 'rub', 'ars', 'clp', 'cop',
  'euro', 'euros', 'dollar', 'dollars', 'yen', 'pounds', 'reais', 'pesos', 'francs', 'kr',
  'lei', 'ron', 'zł', 'kč', 'ft', 'forint', 'tl', 'lira', 'руб', 'рублей', 'грн', 'uah', 'thb', 'baht', 'บาท',
  'idr', 'rp', 'vnd', 'đồng', 'rs', 'rupees', 'won', '원', 'ils', 'aed', 'sar', 'egp',
  'ریال', 'تومان', 'روپے', 'روپیہ', 'টাকা', 'ksh', 'kes', 'tsh', 'tzs', 'ugx', 'rm', 'myr', 'php', 'лв', 'дин',
  'kn', 'тг', 'тенге', 'kzt', 'azn', 'manat', 'gel', 'lari', 'amd', 'драм', 'сум', 'сўм', 'mnt',
  'kyat', 'ကျပ်', 'riel', 'kip', 'ກີບ', 'birr', 'ብር', 'lkr', 'npr', 'pkr', 'bdt', 'ngn', 'naira', 'ghs',
  'cedi', 'rsd', 'bgn', 'mkd', 'isk', 'uzs',
]; // prettier-ignore

/** Markers of footers and postal addresses, whose numbers are never codes. */
export const FOOTER_WORDS: readonly string[] = [
  '©', 'copyright', 'all rights reserved', 'inc.', 'llc', 'ltd', 'ltd.', 'gmbh', 's.a.', 'sarl', 'b.v.',
  'street', 'st.', 'avenue', 'ave', 'ave.', 'road', 'rd.', 'blvd', 'boulevard', 'floor', 'suite', 'straße',
  'strasse', '*straße', '*strasse', '*str.', 'rue', 'calle', 'avenida', 'rua', 'p.o. box', 'po box',
  'postfach', 'unsubscribe', 'privacy policy', 'ag', 's.r.l.', 's.l.', 'ltda', 'sp. z o.o.',
  's.r.o.', 'a.s.', 'a/s', 'oy', 'kft.', 'zrt.', 'srl', 'a.ş.', 'ооо', 'тов', 'tbk',
  'alle rechte vorbehalten', 'tous droits réservés', 'todos los derechos reservados',
  'todos os direitos reservados', 'tutti i diritti riservati', 'alle rechten voorbehouden',
  'wszelkie prawa zastrzeżone', 'všechna práva vyhrazena', 'alla rättigheter förbehållna',
  'alle rettigheder forbeholdes', 'alle rettigheter reservert', 'kaikki oikeudet pidätetään',
  'tüm hakları saklıdır', 'все права защищены', 'всі права захищені', 'με την επιφύλαξη', 'minden jog fenntartva',
  'toate drepturile rezervate', 'جميع الحقوق محفوظة', 'כל הזכויות שמורות', 'सर्वाधिकार सुरक्षित',
  'สงวนลิขสิทธิ์', 'bảo lưu mọi quyền', 'hak cipta', 'abmelden', 'désabonner', 'désinscrire',
  'darse de baja', 'cancelar inscrição', 'annulla iscrizione', 'afmelden', 'wypisz', 'odhlásit',
  'avregistrera', 'afmeld', 'meld deg av', 'peruuta tilaus', 'abonelikten çık', 'отписаться', 'відписатися',
  'leiratkozás', 'dezabonare', 'impressum', 'datenschutz', 'mentions légales', 'aviso legal', 'privacidad',
  '株式会社', '〒', '有限公司', '股份有限公司', '版权所有', '版權所有', '配信停止', '退订', '수신거부',
  '(주)', '주식회사', 'icp备',
]; // prettier-ignore

/** Letter+digit tokens that are names of things, not codes. */
export const NOT_CODE_TOKENS: ReadonlySet<string> = new Set([
  'SHA256', 'SHA512', 'SHA1', 'UTF8', 'UTF16', 'ISO8601', 'IPV4', 'IPV6', 'HTML5', 'MP3', 'MP4', 'H264',
  'COVID19', 'WIN10', 'WIN11', 'B2B', 'B2C', 'P2P', 'ES2024', 'ES6', 'OAUTH2', 'X509', 'AES256',
  'TLS13', 'HTTP2', 'HTTP3', 'W3C', 'A4', 'G7', 'G20', 'Q1', 'Q2', 'Q3', 'Q4', 'FY24', 'FY25', 'FY26',
]); // prettier-ignore

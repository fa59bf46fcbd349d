// Words that tell an OTP apart from other numbers in mail, in the languages senders commonly use.
// Lower case; matching is done on a lower-cased line of the same length.

/** Said right next to a one-time code. Weight 1 is decisive, 0.8 strong, 0.45 a hint. */
export const CODE_WORDS: ReadonlyArray<readonly [string, number]> = [
  ...[
    'verification code', 'verify code', 'security code', 'login code', 'log-in code', 'sign-in code',
    'signin code', 'sign in code', 'one-time', 'one time', 'onetime', 'otp', 'passcode', 'pass code',
    'auth code', 'authentication code', 'confirmation code', 'access code', '2fa code', 'mfa code',
    'two-factor code', 'temporary code', 'device code', 'activation code', 'activation key', 'code de vérification', 'code de verification',
    'code de sécurité', 'code de confirmation', "code d'accès", 'code de connexion', 'usage unique',
    'bestätigungscode', 'sicherheitscode', 'verifizierungscode', 'einmalcode', 'einmalpasswort',
    'anmeldecode', 'zugangscode', 'código de verificación', 'código de seguridad', 'código de acceso',
    'código de confirmación', 'código de verificação', 'código de segurança', 'código de acesso',
    'código de confirmação', 'codice di verifica', 'codice di sicurezza', 'codice di accesso',
    'verificatiecode', 'beveiligingscode', 'toegangscode', 'bevestigingscode', 'eenmalige',
    '認証コード', '確認コード', 'ワンタイム', '認証番号', '確認番号', 'セキュリティコード', 'パスコード',
    '验证码', '驗證碼', '校验码', '动态码', '动态密码', '인증번호', '인증 코드', '인증코드',
    'код подтверждения', 'проверочный код', 'kod weryfikacyjny', 'kod jednorazowy', 'engångskod',
    'verifieringskod', 'bekräftelsekod',
  ].map((w) => [w, 1] as const),
  ...[
    'code', 'código', 'codigo', 'codice', 'kod', 'код', 'pin', 'tan', 'コード', 'verification',
    'vérification', 'verificación', 'verificação', 'verifica', 'verificatie', 'bestätigung',
    'authentication', 'authentification', 'authentifizierung', 'autenticación', 'autenticação', '2fa',
    'mfa', 'two-factor', 'two factor', '2-step', 'zweistufig',
  ].map((w) => [w, 0.8] as const),
  ...[
    'verify', 'vérifier', 'confirm', 'sign in', 'sign-in', 'log in', 'log-in', 'login', 'signin',
    'password', 'mot de passe', 'passwort', 'contraseña', 'senha', 'パスワード', 'enter', 'saisissez',
    'saisir', 'eingeben', 'introduce', 'ingresa', 'ingrese', 'digite', 'insira', 'inserisci', '入力',
    '输入', 'connexion', 'anmelden', 'anmeldung', 'iniciar sesión', 'ログイン', '登录',
  ].map((w) => [w, 0.45] as const),
]; // prettier-ignore

/**
 * Kinds of "code" that are not one-time codes. A hit here also hides any code word inside it, so
 * "promo code" never counts as "code".
 */
export const NOT_OTP_CODES: readonly string[] = [
  'promo code', 'promotional code', 'discount code', 'coupon code', 'coupon', 'voucher code', 'voucher',
  'gift code', 'gift card', 'referral code', 'zip code', 'zipcode', 'postal code', 'post code',
  'postcode', 'area code', 'country code', 'tracking code', 'booking code', 'reservation code',
  'error code', 'status code', 'product code', 'qr code', 'source code', 'colour code', 'color code',
  'dress code', 'code review', 'code change', 'code owner', 'discount', 'code promo', 'code postal', 'code promotionnel', 'code de réduction',
  'código postal', 'código de descuento', 'código promocional', 'cupón', 'código de desconto', 'cupom',
  'gutscheincode', 'gutschein', 'rabattcode', 'aktionscode', 'postleitzahl', 'codice sconto',
  'codice promozionale', 'codice postale', 'kortingscode', 'クーポン', '割引コード', '郵便番号',
  '优惠码', '邮编', 'booking reference', 'record locator',
]; // prettier-ignore

/** Labels of numbers that identify something else: orders, accounts, phones, addresses, amounts. */
export const OTHER_NUMBER_WORDS: readonly string[] = [
  'order', 'order number', 'order no', 'order id', 'invoice', 'invoice number', 'receipt', 'reference',
  'ref', 'ticket', 'case number', 'case id', 'case #', 'account', 'acct', 'account number', 'customer',
  'customer number', 'customer id', 'member', 'membership', 'user id', 'booking', 'reservation', 'pnr',
  'confirmation number', 'tracking', 'tracking number', 'shipment', 'parcel', 'transaction', 'txn',
  'id', 'no.', 'nr.', 'nº', 'n°', 'zip', 'postal', 'plz', 'phone', 'call', 'tel', 'telephone', 'fax',
  'mobile', 'whatsapp', 'hotline', 'amount', 'total', 'subtotal', 'price', 'balance', 'qty',
  'quantity', 'version', 'release', 'model', 'serial', 'sku', 'item', 'product', 'flight', 'seat',
  'gate', 'room', 'street', 'suite', 'apt', 'box', 'issue', 'pull request', 'pr', 'merge request', 'run', 'commit', 'build',
  'pipeline', 'job', 'bestellung', 'bestellnummer', 'auftragsnummer', 'auftrag', 'rechnung',
  'rechnungsnummer', 'kundennummer', 'buchung', 'buchungsnummer', 'vorgangsnummer', 'sendungsnummer',
  'telefon', 'commande', 'numéro de commande', 'facture', 'référence', 'réservation', 'dossier',
  'téléphone', 'pedido', 'número de pedido', 'factura', 'reserva', 'referencia', 'teléfono',
  'encomenda', 'fatura', 'telefone', 'ordine', 'fattura', 'prenotazione', 'telefono', 'bestelling',
  'factuur', 'reservering', '注文番号', '注文', '予約番号', '予約', 'お問い合わせ番号', '会員番号',
  '電話', '订单', '订单号', '快递', '电话', '会员', 'off', 'save', 'sale',
]; // prettier-ignore

/** Phrases that put a card or phone's last digits right after them. */
export const LAST_DIGITS_WORDS: readonly string[] = [
  'ending in', 'ending with', 'ends in', 'ends with', 'last 4', 'last four', 'last digits',
  'terminant par', 'se terminant', 'finissant par', 'endet auf', 'endend auf', 'endend mit',
  'endet mit', 'termina en', 'terminada en', 'terminado en', 'terminado em', 'terminada em',
  'que termina', 'final', '末尾', '下4桁', '下四桁', '尾号',
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
]; // prettier-ignore

/** Markers of footers and postal addresses, whose numbers are never codes. */
export const FOOTER_WORDS: readonly string[] = [
  '©', 'copyright', 'all rights reserved', 'inc.', 'llc', 'ltd', 'gmbh', ' s.a.', 'sarl', 'b.v.',
  'street', ' st.', ' st,', 'avenue', ' ave', 'road', ' rd.', 'blvd', 'boulevard', 'floor', 'straße',
  'strasse', 'rue ', 'calle', 'avenida', 'rua ', 'via ', 'p.o. box', 'po box', 'postfach',
  'unsubscribe', 'privacy policy', '株式会社', '〒',
]; // prettier-ignore

/** Letter+digit tokens that are names of things, not codes. */
export const NOT_CODE_TOKENS: ReadonlySet<string> = new Set([
  'SHA256', 'SHA512', 'SHA1', 'UTF8', 'UTF16', 'ISO8601', 'IPV4', 'IPV6', 'HTML5', 'MP3', 'MP4', 'H264',
  'COVID19', 'WIN10', 'WIN11', 'B2B', 'B2C', 'P2P', 'ES2024', 'ES6', 'OAUTH2', 'X509', 'AES256',
  'TLS13', 'HTTP2', 'HTTP3', 'W3C', 'A4', 'G7', 'G20', 'Q1', 'Q2', 'Q3', 'Q4', 'FY24', 'FY25', 'FY26',
]); // prettier-ignore

// OTP vocabulary of English, German, French, Spanish, Portuguese, Italian and Dutch, as services write it.
import type { Lexicon } from './types.ts';

export const WEST: Record<string, Lexicon> = {
  en: {
    strong: [
      'verification code', 'verify code', 'security code', 'login code', 'log-in code', 'log in code',
      'sign-in code', 'signin code', 'sign in code', 'one-time', 'one time', 'onetime', 'otp', 'passcode',
      'pass code', 'auth code', 'authentication code', 'authorization code', 'confirmation code', 'access code',
      '2fa code', 'mfa code', 'two-factor code', 'temporary code', 'device code', 'activation code',
      'activation key', 'approval code', 'single-use code', 'magic code', 'backup code', 'recovery code',
      'validation code', 'unlock code', 'transaction code', 'authentication pin', 'security pin', 'login pin',
    ],
    code: [
      'code', 'pin', 'verification', 'authentication', '2fa', 'mfa', 'two-factor', 'two factor',
      '2-step', 'two-step',
    ],
    hint: [
      'verify', 'confirm', 'sign in', 'sign-in', 'log in', 'log-in', 'login', 'signin', 'password', 'enter',
      'type in', 'expires', 'expire', 'valid for', 'do not share', "don't share", 'never share', 'approve',
      'authorize', 'authorise', 'identity', 'new device', 'token',
    ],
    notOtp: [
      'promo code', 'promotional code', 'promo', 'discount code', 'coupon code', 'coupon', 'voucher code',
      'voucher', 'gift code', 'gift card', 'referral code', 'invite code', 'zip code', 'zipcode', 'postal code',
      'post code', 'postcode', 'area code', 'country code', 'tracking code', 'booking code', 'reservation code',
      'error code', 'status code', 'product code', 'qr code', 'source code', 'colour code', 'color code',
      'dress code', 'code review', 'code change', 'code owner', 'discount', 'sort code', 'bank code',
      'swift code', 'bic code', 'routing number', 'unicode', 'decode', 'encode', 'transcode', 'opcode', 'geocode', 'booking reference', 'record locator', 'offer code',
    ],
    other: [
      'order', 'order number', 'order no', 'order id', 'invoice', 'invoice number', 'receipt', 'reference',
      'reference number', 'ref', 'ticket', 'case number', 'case id', 'case #', 'account', 'acct',
      'account number', 'customer', 'customer number', 'customer id', 'member', 'membership', 'member id',
      'user id', 'booking', 'reservation', 'pnr', 'confirmation number', 'confirmation #', 'tracking',
      'tracking number', 'tracking id', 'shipment', 'parcel', 'package', 'transaction', 'transaction id',
      'txn', 'id', 'no.', 'nr.', 'nº', 'n°', 'zip', 'postal', 'phone', 'call', 'tel', 'telephone', 'fax',
      'mobile', 'whatsapp', 'hotline', 'sms to', 'amount', 'total', 'subtotal', 'price', 'balance',
      'qty', 'quantity', 'version', 'release', 'model', 'serial', 'sku', 'item', 'product', 'flight', 'seat',
      'gate', 'room', 'street', 'suite', 'apt', 'box', 'issue', 'pull request', 'pr', 'merge request', 'run',
      'commit', 'build', 'pipeline', 'job', 'off', 'save', 'sale', 'iban', 'bic', 'swift', 'card number',
      'policy number', 'claim number', 'loyalty', 'points', 'vat', 'tax id', 'license', 'licence', 'plate',
      'routing', 'patient', 'employee id', 'student id', 'due', 'paid', 'charged', 'refund', 'visa',
      'mastercard', 'amex',
    ],
  },
  de: {
    strong: [
      'bestätigungscode', 'sicherheitscode', 'verifizierungscode', 'verifikationscode', 'einmalcode',
      'einmal-code', 'einmalpasswort', 'einmal-passwort', 'einmalkennwort', 'anmeldecode', 'zugangscode',
      'freigabecode', 'authentifizierungscode', 'aktivierungscode', 'login-code', 'logincode',
      'bestätigungs-code', 'mtan', 'smstan', 'sms-tan', 'pushtan', 'einmal-pin', 'transaktionsnummer',
    ],
    code: ['*code', 'tan', 'bestätigung', 'authentifizierung', 'verifizierung', 'zwei-faktor', 'zweistufig', 'pin*'],
    hint: [
      'bestätigen', 'bestätige', 'anmelden', 'anmeldung', 'passwort', 'kennwort', 'eingeben', 'gib',
      'geben sie', 'gültig', 'läuft ab', 'nicht weiter', 'teile', 'teilen sie', 'einloggen', 'freigeben',
      'neues gerät',
    ],
    notOtp: [
      'gutscheincode', 'gutschein', 'rabattcode', 'aktionscode', 'postleitzahl', 'plz', 'rabatt',
      'promocode', 'promo-code', 'bankleitzahl', 'blz', 'fehlercode', 'qr-code', 'barcode', 'strichcode',
    ],
    other: [
      'bestellung', 'bestellnummer', 'auftragsnummer', 'auftrag', 'rechnung', 'rechnungsnummer',
      'kundennummer', 'kunden-nr', 'kundenkonto', 'konto', 'kontonummer', 'buchung', 'buchungsnummer',
      'vorgangsnummer', 'sendungsnummer', 'sendung', 'paket', 'telefon', 'tel.', 'betrag', 'summe',
      'gesamt', 'gesamtbetrag', 'preis', 'mitgliedsnummer', 'vertragsnummer', 'referenz', 'aktenzeichen',
      'steuernummer', 'ust-idnr', 'artikelnummer', 'artikel', 'menge', 'lieferung', 'zahlung', 'hausnummer',
    ],
  },
  fr: {
    strong: [
      'code de vérification', 'code de verification', 'code de sécurité', 'code de securite',
      'code de confirmation', "code d'accès", "code d’accès", 'code de connexion', 'usage unique',
      'code temporaire', "code d'authentification", "code d’authentification", "code d'activation",
      "code d’activation", 'code à usage unique', 'mot de passe à usage unique', 'code de validation',
      'code pin', 'code secret', 'code otp',
    ],
    code: ['code', 'vérification', 'authentification', 'double authentification', 'deux facteurs'],
    hint: [
      'vérifier', 'vérifiez', 'confirmer', 'confirmez', 'se connecter', 'connexion', 'connectez',
      'mot de passe', 'saisissez', 'saisir', 'entrez', 'expire', 'valable', 'ne le partagez', 'ne partagez',
      'nouvel appareil', 'valider', 'validez',
    ],
    notOtp: [
      'code promo', 'code postal', 'code promotionnel', 'code de réduction', 'code de reduction', 'bon de réduction',
      'code cadeau', 'carte cadeau', 'code de parrainage', 'code erreur', "code d'erreur", 'code barre',
      'code-barres', 'réduction', 'remise', 'code banque', 'code guichet',
    ],
    other: [
      'commande', 'numéro de commande', 'n° de commande', 'facture', 'numéro de facture', 'référence',
      'réservation', 'dossier', 'téléphone', 'tél', 'numéro de suivi', 'suivi', 'colis', 'numéro client',
      'client', 'compte', 'numéro de compte', 'montant', 'total', 'prix', 'adhérent', 'contrat',
      'numéro de contrat', 'transaction', 'livraison', 'quantité', 'siret', 'siren', 'tva',
    ],
  },
  es: {
    strong: [
      'código de verificación', 'codigo de verificacion', 'código de seguridad', 'codigo de seguridad',
      'código de acceso', 'codigo de acceso', 'código de confirmación', 'codigo de confirmacion',
      'código de un solo uso', 'contraseña de un solo uso', 'clave de un solo uso', 'código temporal',
      'código de inicio de sesión', 'código de autenticación', 'código de activación', 'clave dinámica',
      'clave de seguridad', 'código otp', 'código de validación', 'código de autorización', 'código pin',
      'clave temporal', 'código de ingreso',
    ],
    code: ['código', 'codigo', 'verificación', 'autenticación', 'doble factor', 'dos pasos', 'clave'],
    hint: [
      'verificar', 'verifica', 'confirmar', 'confirma', 'iniciar sesión', 'inicio de sesión', 'contraseña',
      'introduce', 'introduzca', 'ingresa', 'ingrese', 'caduca', 'vence', 'expira', 'válido', 'no compartas',
      'no comparta', 'nuevo dispositivo', 'acceder',
    ],
    notOtp: [
      'código postal', 'codigo postal', 'código de descuento', 'código promocional', 'cupón', 'cupon',
      'código de cupón', 'descuento', 'código de regalo', 'tarjeta regalo', 'código de error',
      'código de barras', 'código de referido',
    ],
    other: [
      'pedido', 'número de pedido', 'factura', 'número de factura', 'reserva', 'referencia', 'teléfono',
      'telefono', 'tel.', 'número de seguimiento', 'seguimiento', 'envío', 'paquete', 'número de cliente',
      'cliente', 'cuenta', 'número de cuenta', 'importe', 'total', 'precio', 'monto', 'transacción',
      'cantidad', 'nif', 'cif', 'rfc', 'socio', 'localizador', 'expediente',
    ],
  },
  pt: {
    strong: [
      'código de verificação', 'codigo de verificacao', 'código de segurança', 'codigo de seguranca',
      'código de acesso', 'codigo de acesso', 'código de confirmação', 'codigo de confirmacao',
      'senha de uso único', 'código de uso único', 'código temporário', 'código de autenticação',
      'código de ativação', 'senha temporária', 'código de validação', 'código otp', 'token de acesso',
      'código de login', 'senha única',
    ],
    code: ['código', 'codigo', 'verificação', 'autenticação', 'dois fatores', 'duas etapas'],
    hint: [
      'verificar', 'verifique', 'confirmar', 'confirme', 'entrar', 'iniciar sessão', 'acessar', 'aceder',
      'senha', 'palavra-passe', 'digite', 'insira', 'introduza', 'expira', 'válido', 'não compartilhe',
      'não partilhe', 'novo dispositivo', 'token',
    ],
    notOtp: [
      'código postal', 'cep', 'código de desconto', 'código promocional', 'cupom', 'cupão', 'desconto',
      'vale-presente', 'cartão-presente', 'código de barras', 'código de erro', 'código de indicação',
    ],
    other: [
      'pedido', 'número do pedido', 'encomenda', 'fatura', 'factura', 'nota fiscal', 'reserva',
      'referência', 'telefone', 'tel.', 'código de rastreio', 'rastreio', 'rastreamento', 'envio', 'pacote',
      'cliente', 'número de cliente', 'conta', 'número da conta', 'valor', 'total', 'preço', 'cpf', 'cnpj',
      'nif', 'quantidade', 'transação', 'protocolo',
    ],
  },
  it: {
    strong: [
      'codice di verifica', 'codice di sicurezza', 'codice di accesso', 'codice di conferma', 'codice monouso',
      'password monouso', 'codice temporaneo', 'codice otp', "codice d'accesso", 'codice di autenticazione',
      'codice di attivazione', 'codice usa e getta', 'codice di autorizzazione', 'codice di login',
      'codice pin', 'password temporanea',
    ],
    code: ['codice', 'verifica', 'autenticazione', 'due fattori', 'due passaggi'],
    hint: [
      'verificare', 'confermare', 'conferma', 'accedere', 'accesso', 'accedi', 'password', 'inserisci',
      'inserire', 'digita', 'scade', 'valido', 'non condividere', 'non condividerlo', 'nuovo dispositivo',
    ],
    notOtp: [
      'codice sconto', 'codice promozionale', 'codice postale', 'buono', 'coupon', 'sconto',
      'codice regalo', 'carta regalo', 'codice fiscale', 'codice errore', 'codice a barre', 'codice cliente',
    ],
    other: [
      'ordine', 'numero ordine', "numero d'ordine", 'fattura', 'prenotazione', 'riferimento', 'telefono',
      'tel.', 'numero di tracciamento', 'tracking', 'spedizione', 'pacco', 'cliente', 'conto',
      'numero di conto', 'importo', 'totale', 'prezzo', 'quantità', 'partita iva', 'pratica', 'transazione',
    ],
  },
  nl: {
    strong: [
      'verificatiecode', 'beveiligingscode', 'toegangscode', 'bevestigingscode', 'eenmalige code',
      'eenmalig wachtwoord', 'inlogcode', 'aanmeldcode', 'sms-code', 'authenticatiecode', 'activatiecode',
      'controlecode', 'verificatie-code', 'tijdelijke code', 'eenmalige', 'pincode',
    ],
    code: ['*code', 'verificatie', 'authenticatie', 'tweestapsverificatie', 'twee-factor'],
    hint: [
      'verifiëren', 'verifieer', 'bevestigen', 'bevestig', 'inloggen', 'log in', 'aanmelden', 'wachtwoord',
      'voer', 'vul', 'verloopt', 'geldig', 'deel deze code', 'deel de code', 'niet delen', 'nieuw apparaat',
    ],
    notOtp: [
      'kortingscode', 'actiecode', 'postcode', 'cadeaucode', 'cadeaukaart', 'tegoedbon', 'korting',
      'promotiecode', 'foutcode', 'qr-code', 'barcode', 'streepjescode',
    ],
    other: [
      'bestelling', 'bestelnummer', 'factuur', 'factuurnummer', 'reservering', 'referentie', 'kenmerk',
      'telefoon', 'tel.', 'track-and-trace', 'zending', 'pakket', 'klantnummer', 'klant', 'rekening',
      'rekeningnummer', 'bedrag', 'totaal', 'prijs', 'aantal', 'btw', 'kvk', 'lidnummer', 'ordernummer',
    ],
  },
}; // prettier-ignore

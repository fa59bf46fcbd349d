// OTP vocabulary of Polish, Czech, Swedish, Danish, Norwegian, Finnish, Hungarian, Romanian and Turkish,
// whose words take endings or join into compounds: stems carry a "*" (see types.ts).
import type { Lexicon } from './types.ts';

export const NORTH: Record<string, Lexicon> = {
  pl: {
    strong: [
      'kod weryfikacyjny', 'kodu weryfikacyjnego', 'kod jednorazowy', 'jednorazowy kod', 'kod potwierdzający',
      'kod bezpieczeństwa', 'kod dostępu', 'hasło jednorazowe', 'jednorazowe hasło', 'kod autoryzacyjny',
      'kod sms', 'kod logowania', 'kod do logowania', 'kod aktywacyjny', 'kod uwierzytelniający',
      'kod autoryzacji', 'kod pin',
    ],
    code: ['kod*', 'weryfikacj*', 'uwierzytelnian*', 'dwuetapow*'],
    hint: [
      'zweryfikuj', 'potwierdź', 'potwierdzenia', 'zaloguj', 'logowanie', 'logowania', 'hasło', 'wpisz',
      'wprowadź', 'podaj', 'wygaśnie', 'ważny', 'nie udostępniaj', 'nikomu', 'nowe urządzenie',
    ],
    notOtp: [
      'kod pocztowy', 'kod rabatowy', 'kod promocyjny', 'kodu rabatowego', 'kodu promocyjnego', 'kupon',
      'rabat', 'zniżka', 'kod kreskowy', 'kod błędu', 'karta podarunkowa',
    ],
    other: [
      'zamówienie', 'zamówienia', 'numer zamówienia', 'faktura', 'faktury', 'numer faktury', 'przesyłka',
      'przesyłki', 'numer przesyłki', 'numer śledzenia', 'paczka', 'klient', 'numer klienta', 'konto',
      'numer konta', 'rachunek', 'telefon', 'tel.', 'kwota', 'suma', 'razem', 'cena', 'nip', 'regon',
      'rezerwacja', 'rezerwacji', 'transakcja', 'ilość', 'zgłoszenie',
    ],
  },
  cs: {
    strong: [
      'ověřovací kód', 'potvrzovací kód', 'bezpečnostní kód', 'jednorázový kód', 'jednorázové heslo',
      'přihlašovací kód', 'autorizační kód', 'aktivační kód', 'kód pro přihlášení', 'sms kód', 'kód sms',
      'ověřovacího kódu', 'jednorázového kódu',
    ],
    code: ['kód*', 'ověření', 'ověřovací', 'dvoufázov*', 'dvoufaktorov*', 'pin'],
    hint: [
      'ověřit', 'ověřte', 'potvrdit', 'potvrďte', 'přihlásit', 'přihlášení', 'heslo', 'zadejte', 'vyprší',
      'platnost', 'platný', 'nesdělujte', 'nikomu', 'nové zařízení',
    ],
    notOtp: ['psč', 'slevový kód', 'slevový', 'promo kód', 'kupón', 'kupon', 'sleva', 'čárový kód', 'dárkový'],
    other: [
      'objednávka', 'objednávky', 'číslo objednávky', 'faktura', 'faktury', 'číslo faktury', 'zásilka',
      'zásilky', 'číslo zásilky', 'sledování', 'zákazník', 'číslo zákazníka', 'účet', 'číslo účtu', 'telefon',
      'tel.', 'částka', 'celkem', 'cena', 'ičo', 'dič', 'rezervace', 'variabilní symbol', 'množství',
    ],
  },
  sv: {
    strong: [
      'verifieringskod', 'bekräftelsekod', 'säkerhetskod', 'engångskod', 'inloggningskod', 'engångslösenord',
      'aktiveringskod', 'verifikationskod', 'autentiseringskod', 'behörighetskod', 'tillfällig kod',
    ],
    code: ['kod', 'koden', 'koder', '*skod', '*skoden', 'pinkod', 'verifiering', 'tvåstegsverifiering', 'tvåfaktor*', 'pin', 'pin-kod', 'bankid'],
    hint: [
      'verifiera', 'bekräfta', 'logga in', 'inloggning', 'lösenord', 'ange', 'skriv in', 'går ut', 'giltig',
      'dela inte', 'ny enhet',
    ],
    notOtp: ['rabattkod', 'kampanjkod', 'postnummer', 'presentkort', 'rabatt', 'kupong', 'felkod', 'streckkod'],
    other: [
      'beställning', 'ordernummer', 'order', 'faktura', 'fakturanummer', 'bokning', 'bokningsnummer',
      'referens', 'telefon', 'tel.', 'spårningsnummer', 'sändningsnummer', 'paket', 'försändelse',
      'kundnummer', 'kund', 'konto', 'kontonummer', 'belopp', 'summa', 'totalt', 'pris', 'personnummer',
      'organisationsnummer', 'ocr', 'antal', 'medlemsnummer',
    ],
  },
  da: {
    strong: [
      'bekræftelseskode', 'verifikationskode', 'sikkerhedskode', 'engangskode', 'loginkode', 'login-kode',
      'aktiveringskode', 'godkendelseskode', 'midlertidig kode', 'engangsadgangskode',
    ],
    code: ['kode', 'koden', '*skode', '*skoden', 'bekræftelse', 'totrinsbekræftelse', 'to-faktor*', 'pinkode', 'mitid'],
    hint: [
      'bekræft', 'log ind', 'login', 'adgangskode', 'indtast', 'skriv', 'udløber', 'gyldig', 'del ikke',
      'ny enhed', 'godkend',
    ],
    notOtp: ['rabatkode', 'kampagnekode', 'postnummer', 'gavekort', 'rabat', 'kupon', 'fejlkode', 'stregkode'],
    other: [
      'ordre', 'ordrenummer', 'bestilling', 'faktura', 'fakturanummer', 'booking', 'reference', 'telefon',
      'tlf', 'sporingsnummer', 'pakke', 'forsendelse', 'kundenummer', 'kunde', 'konto', 'kontonummer',
      'beløb', 'i alt', 'pris', 'cpr', 'cvr', 'antal', 'medlemsnummer',
    ],
  },
  no: {
    strong: [
      'bekreftelseskode', 'verifiseringskode', 'verifikasjonskode', 'sikkerhetskode', 'engangskode',
      'påloggingskode', 'innloggingskode', 'aktiveringskode', 'engangspassord', 'midlertidig kode',
    ],
    code: ['kode', 'koden', '*skode', '*skoden', 'bekreftelse', 'tofaktor*', 'to-faktor*', 'totrinns*', 'pinkode', 'bankid'],
    hint: [
      'bekreft', 'logg inn', 'pålogging', 'innlogging', 'passord', 'skriv inn', 'oppgi', 'utløper', 'gyldig',
      'ikke del', 'ny enhet', 'godkjenn',
    ],
    notOtp: ['rabattkode', 'kampanjekode', 'postnummer', 'gavekort', 'rabatt', 'kupong', 'feilkode', 'strekkode'],
    other: [
      'ordre', 'ordrenummer', 'bestilling', 'faktura', 'fakturanummer', 'referanse', 'telefon', 'tlf',
      'sporingsnummer', 'pakke', 'sending', 'kundenummer', 'kunde', 'konto', 'kontonummer', 'beløp', 'totalt',
      'sum', 'pris', 'antall', 'medlemsnummer', 'organisasjonsnummer', 'fødselsnummer',
    ],
  },
  fi: {
    strong: [
      'vahvistuskoodi*', 'turvakoodi*', 'kertakäyttöinen', 'kertakäyttökoodi*', 'kertakäyttösalasana*',
      'tunnistuskoodi*', 'kirjautumiskoodi*', 'varmennuskoodi*', 'aktivointikoodi*', 'todennuskoodi*',
      'sisäänkirjautumiskoodi*', 'kertatunnus*',
    ],
    code: ['*koodi*', 'vahvistus', 'kaksivaiheinen', 'tunnistautuminen', 'pin*'],
    hint: [
      'vahvista', 'kirjaudu', 'kirjautuminen', 'kirjautumista', 'salasana*', 'syötä', 'vanhenee',
      'voimassa', 'älä jaa', 'älä kerro', 'uusi laite',
    ],
    notOtp: ['alennuskoodi*', 'kampanjakoodi*', 'postinumero*', 'lahjakortti*', 'alennus*', 'kuponki*', 'viivakoodi*', 'virhekoodi*'],
    other: [
      'tilaus*', 'tilausnumero*', 'lasku*', 'laskun numero', 'varaus*', 'viite*', 'viitenumero*', 'puhelin*',
      'puh.', 'seurantanumero*', 'lähetys*', 'paketti*', 'asiakasnumero*', 'asiakas*', 'tili*', 'tilinumero*',
      'summa', 'yhteensä', 'hinta', 'määrä', 'y-tunnus', 'jäsennumero*',
    ],
  },
  hu: {
    strong: [
      'ellenőrző kód*', 'ellenőrzőkód*', 'biztonsági kód*', 'egyszer használatos', 'egyszeri jelszó*',
      'egyszeri kód*', 'megerősítő kód*', 'hitelesítő kód*', 'belépési kód*', 'bejelentkezési kód*',
      'azonosító kód*', 'aktiváló kód*', 'megerősítési kód*', 'hitelesítési kód*', 'sms-kód*',
    ],
    code: ['kód*', 'ellenőrzés', 'hitelesítés', 'kétlépcsős', 'kétfaktoros', 'pin*'],
    hint: [
      'erősítsd meg', 'erősítse meg', 'megerősítés', 'bejelentkezés', 'jelszó*', 'add meg', 'adja meg',
      'írd be', 'írja be', 'lejár', 'érvényes', 'ne oszd meg', 'ne ossza meg', 'ne add ki', 'ne adja ki',
      'új eszköz',
    ],
    notOtp: ['irányítószám*', 'kuponkód*', 'kedvezménykód*', 'promóciós kód*', 'kupon*', 'kedvezmény*', 'vonalkód*', 'hibakód*', 'ajándékkártya*'],
    other: [
      'rendelés*', 'rendelésszám*', 'megrendelés*', 'számla*', 'számlaszám*', 'foglalás*', 'hivatkozás*',
      'telefon*', 'tel.', 'nyomkövetési szám*', 'csomag*', 'küldemény*', 'ügyfélszám*', 'ügyfél*',
      'összeg*', 'összesen', 'végösszeg*', 'ár', 'adószám*', 'mennyiség*', 'tranzakció*',
    ],
  },
  ro: {
    strong: [
      'cod de verificare', 'codul de verificare', 'cod de securitate', 'codul de securitate', 'cod unic',
      'codul unic', 'parolă unică', 'parola unică', 'parola de unică folosință', 'cod de unică folosință',
      'cod de confirmare', 'codul de confirmare', 'cod de acces', 'codul de acces', 'cod de autentificare',
      'codul de autentificare', 'cod de activare', 'cod otp', 'codul otp', 'cod pin', 'codul pin',
    ],
    code: ['cod', 'codul', 'codului', 'verificare', 'autentificare', 'doi factori', 'doi pași'],
    hint: [
      'verifică', 'verificați', 'confirmă', 'confirmați', 'conectare', 'conectează', 'autentifică', 'parolă',
      'parola', 'introdu', 'introduceți', 'expiră', 'valabil', 'nu distribui', 'nu comunica', 'nu divulga',
      'dispozitiv nou',
    ],
    notOtp: [
      'cod poștal', 'codul poștal', 'cod postal', 'cod promoțional', 'codul promoțional', 'cod de reducere',
      'cod de discount', 'cupon', 'reducere', 'voucher', 'cod de bare', 'card cadou', 'cod fiscal',
    ],
    other: [
      'comandă', 'comanda', 'număr comandă', 'numărul comenzii', 'factură', 'factura', 'rezervare',
      'referință', 'telefon', 'tel.', 'număr de urmărire', 'awb', 'colet', 'client', 'cod client',
      'număr client', 'cont', 'iban', 'sumă', 'suma', 'total', 'preț', 'cui', 'cnp', 'cantitate', 'tranzacție',
    ],
  },
  tr: {
    strong: [
      'doğrulama kod*', 'dogrulama kod*', 'güvenlik kod*', 'onay kod*', 'tek kullanımlık', 'tek seferlik',
      'giriş kod*', 'aktivasyon kod*', 'kimlik doğrulama kod*', 'sms kod*', 'otp kod*', 'tek kullanımlık şifre*',
      'geçici şifre*', 'geçici kod*',
    ],
    code: ['kod*', 'şifre*', 'doğrulama', 'iki adımlı', 'iki faktörlü', 'pin*'],
    hint: [
      'doğrula', 'onayla', 'giriş yap', 'oturum aç', 'giriş', 'gir', 'girin', 'giriniz', 'geçerli',
      'paylaşmayın', 'paylaşmayınız', 'kimseyle', 'sona erecek', 'süresi', 'yeni cihaz',
    ],
    notOtp: [
      'posta kod*', 'indirim kod*', 'promosyon kod*', 'kupon*', 'indirim*', 'hediye çeki', 'hediye kartı',
      'barkod*', 'hata kod*',
    ],
    other: [
      'sipariş*', 'sipariş numara*', 'sipariş no', 'fatura*', 'rezervasyon*', 'referans*', 'telefon*', 'tel:',
      'kargo*', 'takip numara*', 'takip no', 'gönderi*', 'müşteri numara*', 'müşteri*', 'hesap*',
      'hesap numara*', 'tutar*', 'toplam', 'fiyat*', 'vergi*', 'tc kimlik', 'adet', 'işlem numara*',
    ],
  },
}; // prettier-ignore

// OTP vocabulary of Slovak, Slovenian, Croatian (and Bosnian), Serbian (Latin and Cyrillic), Bulgarian,
// Macedonian, Albanian, Belarusian and the Baltic languages (Lithuanian, Latvian, Estonian), whose nouns
// decline: stems carry a "*" (see types.ts).
import type { Lexicon } from './types.ts';

export const CENTRAL: Record<string, Lexicon> = {
  sk: {
    strong: [
      'overovací kód', 'overovacieho kódu', 'potvrdzovací kód', 'bezpečnostný kód', 'jednorazový kód',
      'jednorazové heslo', 'prihlasovací kód', 'aktivačný kód', 'sms kód', 'kód na prihlásenie',
    ],
    code: ['kód*', 'overenie', 'overovac*', 'dvojfázov*', 'dvojfaktorov*', 'pin'],
    hint: [
      'overte', 'overiť', 'potvrďte', 'potvrdiť', 'prihlásiť', 'prihlásenie', 'heslo', 'zadajte', 'platný',
      'platnosť', 'vyprší', 'neposielajte', 'nezdieľajte', 'nikomu', 'nové zariadenie',
    ],
    notOtp: [
      'zľavový kód', 'promo kód', 'kupón', 'zľava', 'psč', 'čiarový kód', 'darčekov*', 'kód produktu',
      'záložné kódy', 'záložný kód',
    ],
    other: [
      'číslo objednávky', 'objednávka', 'objednávky', 'faktúra', 'číslo faktúry', 'zásielka', 'číslo zásielky',
      'zákazník', 'číslo zákazníka', 'účet', 'číslo účtu', 'telefón', 'suma', 'celkom', 'cena', 'rezervácia',
      'číslo rezervácie', 'žiadosť', 'číslo žiadosti', 'tiket', 'číslo tiketu', 'variabilný symbol', 'ičo',
      'dič', 'požiadavka', 'číslo požiadavky', 'referenčné číslo', 'transakcia',
    ],
    old: ['predchádzajúci', 'starý', 'staré', 'vypršal', 'neplatný', 'už neplatí', 'zrušený'],
    fresh: ['nový', 'nová', 'nové'],
    entry: ['zadajte', 'vyprší', 'platný', 'platnosť', 'neposielajte', 'nezdieľajte', 'nikomu'],
  },
  sl: {
    strong: [
      'potrditvena koda', 'potrditveno kodo', 'varnostna koda', 'varnostno kodo', 'enkratna koda',
      'enkratno kodo', 'enkratno geslo', 'koda za prijavo', 'kodo za prijavo', 'verifikacijska koda',
      'verifikacijsko kodo', 'aktivacijska koda',
    ],
    code: ['koda', 'kodo', 'kode', 'preverjanje', 'dvostopenjsk*', 'pin'],
    hint: [
      'potrdite', 'prijava', 'prijavo', 'prijavite', 'geslo', 'vnesite', 'veljavna', 'velja', 'poteče',
      'ne delite', 'nikomur', 'nova naprava',
    ],
    notOtp: ['koda za popust', 'kupon', 'popust', 'poštna številka', 'promocijska koda', 'darilni bon', 'črtna koda', 'rezervne kode'],
    other: [
      'številka naročila', 'naročilo', 'račun', 'številka računa', 'rezervacija', 'številka rezervacije',
      'referenca', 'sklic', 'pošiljka', 'stranka', 'telefon', 'znesek', 'skupaj', 'cena', 'zahtevek',
      'številka zahtevka', 'transakcija', 'davčna številka',
    ],
    old: ['prejšnja', 'prejšnjo', 'stara', 'staro', 'potekla', 'neveljavna', 'ne velja več'],
    fresh: ['nova', 'novo'],
    entry: ['vnesite', 'velja', 'poteče', 'ne delite', 'nikomur'],
  },
  hr: {
    strong: [
      'verifikacijski kod', 'kod za potvrdu', 'potvrdni kod', 'sigurnosni kod', 'jednokratni kod',
      'jednokratna lozinka', 'jednokratnu lozinku', 'kod za prijavu', 'aktivacijski kod', 'kontrolni kod',
      'sms kod', 'otp kod',
    ],
    code: ['kod', 'koda', 'kodom', 'provjera', 'dvofaktorsk*', 'pin'],
    hint: [
      'potvrdite', 'prijava', 'prijavu', 'prijavite', 'lozinka', 'lozinku', 'unesite', 'upišite', 'vrijedi',
      'istječe', 'ne dijelite', 'nikome', 'novi uređaj',
    ],
    notOtp: ['kod za popust', 'promo kod', 'kupon', 'popust', 'poštanski broj', 'bar kod', 'barkod', 'poklon bon', 'rezervni kodovi', 'rezervne kodove'],
    other: [
      'broj narudžbe', 'narudžba', 'narudžbe', 'račun', 'broj računa', 'rezervacija', 'broj rezervacije',
      'referenca', 'poziv na broj', 'pošiljka', 'broj pošiljke', 'kupac', 'telefon', 'iznos', 'ukupno',
      'cijena', 'zahtjev', 'broj zahtjeva', 'broj prijave', 'transakcija', 'oib',
    ],
    old: ['prethodni', 'stari', 'istekao', 'nevažeći', 'više ne vrijedi', 'poništen'],
    fresh: ['novi', 'nova'],
    entry: ['unesite', 'upišite', 'vrijedi', 'istječe', 'ne dijelite', 'nikome'],
  },
  sr: {
    strong: [
      'verifikacioni kod', 'kod za potvrdu', 'sigurnosni kod', 'jednokratni kod', 'jednokratna lozinka',
      'kod za prijavu', 'aktivacioni kod', 'kod za verifikaciju', 'верификациони код', 'код за потврду',
      'сигурносни код', 'једнократни код', 'једнократна лозинка', 'код за пријаву', 'активациони код',
    ],
    code: ['kod', 'verifikacija', 'pin', 'код', 'верификација', 'потврда'],
    hint: [
      'potvrdite', 'prijavite', 'prijava', 'lozinka', 'lozinku', 'unesite', 'važi', 'ističe', 'ne delite',
      'nikome', 'novi uređaj', 'потврдите', 'пријавите', 'пријава', 'лозинка', 'лозинку', 'унесите', 'важи',
      'истиче', 'не делите', 'никоме',
    ],
    notOtp: ['kod za popust', 'promo kod', 'kupon', 'popust', 'poštanski broj', 'poklon kartica', 'попуст', 'купон', 'поштански број'],
    other: [
      'broj porudžbine', 'porudžbina', 'račun', 'broj računa', 'rezervacija', 'broj rezervacije', 'pošiljka',
      'iznos', 'ukupno', 'cena', 'zahtev', 'broj zahteva', 'tiket', 'broj tiketa', 'pib', 'matični broj',
      'број поруџбине', 'поруџбина', 'рачун', 'број рачуна', 'резервација', 'број резервације', 'пошиљка',
      'износ', 'укупно', 'цена', 'захтев', 'број захтева', 'телефон', 'пиб',
    ],
    old: ['prethodni', 'stari', 'istekao', 'nevažeći', 'više ne važi', 'претходни', 'стари', 'истекао', 'више не важи'],
    fresh: ['novi', 'нови'],
    entry: ['unesite', 'važi', 'ističe', 'ne delite', 'nikome', 'унесите', 'важи', 'истиче', 'не делите'],
  },
  bg: {
    strong: [
      'код за потвърждение', 'кода за потвърждение', 'код за проверка', 'код за верификация', 'еднократен код',
      'еднократна парола', 'код за достъп', 'код за вход', 'код за сигурност', 'код за активация',
      'код за удостоверяване', 'верификационен код',
    ],
    code: ['код', 'кода', 'потвърждение', 'удостоверяване', 'двуфакторн*', 'пин'],
    hint: [
      'потвърдете', 'вход', 'влезте', 'въведете', 'парола', 'валиден', 'изтича', 'не споделяйте', 'никого',
      'ново устройство',
    ],
    notOtp: [
      'промо код', 'промокод', 'код за отстъпка', 'отстъпка', 'купон', 'пощенски код', 'баркод', 'ваучер',
      'подаръчн*', 'резервни кодове', 'резервен код',
    ],
    other: [
      'номер на поръчка', 'поръчка', 'поръчката', 'фактура', 'номер на фактура', 'резервация',
      'номер на резервация', 'товарителница', 'пратка', 'клиент', 'клиентски номер', 'сметка', 'телефон',
      'сума', 'общо', 'цена', 'запитване', 'номер на запитването', 'номер на запитване', 'заявка',
      'номер на заявка', 'транзакция', 'еик', 'булстат',
    ],
    old: ['предишния', 'предишният', 'стария', 'старият', 'изтекъл', 'невалиден', 'вече не е валиден'],
    fresh: ['новият', 'новия', 'нов'],
    entry: ['въведете', 'валиден', 'изтича', 'не споделяйте', 'никого'],
  },
  mk: {
    strong: ['код за потврда', 'верификациски код', 'безбедносен код', 'еднократен код', 'еднократна лозинка', 'код за најава'],
    code: ['код', 'потврда', 'верификација', 'пин'],
    hint: ['внесете', 'најава', 'најавете', 'лозинка', 'важи', 'истекува', 'не споделувајте', 'никому'],
    notOtp: ['код за попуст', 'промо код', 'купон', 'попуст', 'поштенски код'],
    other: ['број на нарачка', 'нарачка', 'фактура', 'резервација', 'пратка', 'износ', 'вкупно', 'цена', 'барање', 'број на барање', 'телефон', 'сметка'],
    old: ['претходниот', 'стариот', 'истечен', 'не важи'],
    fresh: ['новиот', 'нов'],
    entry: ['внесете', 'важи', 'истекува', 'не споделувајте'],
  },
  sq: {
    strong: [
      'kodi i verifikimit', 'kodin e verifikimit', 'kod verifikimi', 'kodi i sigurisë', 'kodi njëpërdorimësh',
      'fjalëkalim njëpërdorimësh', 'kodi i hyrjes', 'kodi i konfirmimit', 'kodin e konfirmimit',
      'kodi i aktivizimit',
    ],
    code: ['kodi', 'kodin', 'verifikim*', 'konfirmim*', 'pin'],
    hint: ['futni', 'hyni', 'hyrje', 'fjalëkalim*', 'vlen', 'skadon', 'mos e ndani', 'mos ia jepni', 'askujt', 'pajisje e re'],
    notOtp: ['kodi i zbritjes', 'kod promocional', 'kupon*', 'zbritje', 'kodi postar'],
    other: [
      'numri i porosisë', 'porosi*', 'fatur*', 'rezervim*', 'numri i rezervimit', 'referenc*', 'telefon*', 'shuma',
      'totali', 'çmimi', 'kërkes*', 'numri i kërkesës', 'llogari*', 'transaksion*', 'bileta',
    ],
    old: ['i mëparshëm', 'e mëparshme', 'i vjetër', 'ka skaduar', 'i pavlefshëm', 'nuk është më i vlefshëm'],
    fresh: ['i ri', 'e re'],
    entry: ['futni', 'vlen', 'skadon', 'mos e ndani', 'askujt'],
  },
  be: {
    strong: ['код пацвярджэння', 'аднаразовы код', 'аднаразовы пароль', 'код для ўваходу', 'код бяспекі'],
    code: ['код*', 'пацвярджэнн*'],
    hint: ['увядзіце', 'уваход*', 'пароль', 'дзейнічае', 'не паведамляйце', 'нікому'],
    notOtp: ['прамакод*', 'зніжк*', 'купон*', 'паштовы індэкс'],
    other: ['нумар заказу', 'заказ*', 'рахун*', 'браніраван*', 'сума', 'усяго', 'кошт', 'тэлефон*', 'заяўк*'],
    old: ['папярэдні', 'стары', 'больш не дзейнічае'],
    fresh: ['новы'],
    entry: ['увядзіце', 'дзейнічае', 'не паведамляйце', 'нікому'],
  },
  lt: {
    strong: [
      'patvirtinimo kod*', 'vienkartinis kodas', 'vienkartinį kodą', 'vienkartinis slaptažodis',
      'prisijungimo kod*', 'saugos kod*', 'verifikacijos kod*', 'aktyvavimo kod*', 'sms kod*',
    ],
    code: ['kod*', 'patvirtinim*', 'pin'],
    hint: [
      'patvirtinkite', 'prisijunkite', 'prisijungti', 'slaptažod*', 'įveskite', 'įvesti', 'galioja',
      'nesidalinkite', 'niekam', 'naujas įrenginys',
    ],
    notOtp: [
      'nuolaidos kod*', 'promo kod*', 'kupon*', 'nuolaid*', 'pašto kod*', 'brūkšninis kod*', 'dovanų kort*',
      'asmens kod*', 'įmonės kod*', 'pvm kod*', 'atsarginiai kodai', 'atsarginių kodų',
    ],
    other: [
      'užsakymo numer*', 'užsakym*', 'sąskait*', 'rezervacij*', 'rezervacijos numer*', 'siuntos numer*',
      'siunt*', 'klient*', 'telefon*', 'suma', 'sumą', 'iš viso', 'kaina', 'užklaus*', 'prašym*',
      'bilieto numer*', 'bilieta*', 'mokėjimo paskirtis', 'paštomat*', 'mokėjim*',
    ],
    old: ['ankstesnis', 'ankstesnį', 'senas', 'senasis', 'nebegalioja', 'negalioja', 'pasibaigė'],
    fresh: ['naujas', 'naująjį', 'naujasis'],
    entry: ['įveskite', 'įvesti', 'galioja', 'nesidalinkite', 'niekam'],
  },
  lv: {
    strong: [
      'verifikācijas kod*', 'apstiprinājuma kod*', 'vienreizējais kods', 'vienreizējo kodu', 'vienreizējā parole',
      'vienreizējo paroli', 'drošības kod*', 'pieslēgšanās kod*', 'ielogošanās kod*', 'autorizācijas kod*',
      'aktivizācijas kod*', 'sms kod*',
    ],
    code: ['kods', 'kodu', 'koda', 'verifikācij*', 'apstiprināj*', 'pin'],
    hint: [
      'apstipriniet', 'pieslēgties', 'pieslēdzieties', 'ielogoties', 'parol*', 'ievadiet', 'derīgs', 'derīga',
      'nedalieties', 'nevienam', 'jauna ierīce',
    ],
    notOtp: [
      'atlaides kod*', 'promo kod*', 'kupon*', 'atlaid*', 'pasta indekss', 'svītrkod*', 'dāvanu kart*',
      'personas kod*', 'uzņēmuma kod*', 'rezerves kodi',
    ],
    other: [
      'pasūtījuma numur*', 'pasūtījum*', 'rēķin*', 'rezervācij*', 'rezervācijas numur*', 'sūtījum*', 'klient*',
      'tālru*', 'summa', 'kopā', 'cena', 'pieteikum*', 'pieteikuma numur*', 'pieprasījum*', 'biļet*',
      'reģistrācijas numur*', 'pvn',
    ],
    old: ['iepriekšējais', 'iepriekšējo', 'vecais', 'veco', 'beidzies', 'nederīgs', 'vairs nav derīgs'],
    fresh: ['jaunais', 'jauno', 'jauns'],
    entry: ['ievadiet', 'derīgs', 'derīga', 'nedalieties', 'nevienam'],
  },
  et: {
    strong: [
      'kinnituskood*', 'turvakood*', 'ühekordne kood', 'ühekordse koodi', 'ühekordne parool', 'sisselogimiskood*',
      'sisselogimise kood*', 'verifitseerimiskood*', 'kontrollkood*', 'autentimiskood*', 'aktiveerimiskood*',
      'sms-kood*',
    ],
    code: ['kood', 'koodi', 'koodiga', 'kinnitus', 'kaheastmeline', 'pin'],
    hint: [
      'kinnita', 'kinnitage', 'logi sisse', 'sisselogimine', 'parool*', 'sisesta', 'sisestage', 'kehtib', 'aegub',
      'ära jaga', 'ärge jagage', 'kellelegi', 'uus seade',
    ],
    notOtp: ['sooduskood*', 'promokood*', 'kupong*', 'allahindlus*', 'postiindeks*', 'isikukood*', 'ribakood*', 'kinkekaart*', 'registrikood*', 'varukoodid', 'varukood*'],
    other: [
      'tellimuse number', 'tellimus*', 'arve', 'arve number', 'broneering*', 'broneeringu number', 'saadetis*',
      'klient*', 'kliendinumber', 'telefon*', 'summa', 'kokku', 'hind', 'taotlus*', 'taotluse number',
      'päring*', 'pileti number', 'pilet*', 'viitenumber', 'viide', 'pöördumise number', 'tehing*',
    ],
    old: ['eelmine', 'eelmise', 'vana', 'aegunud', 'kehtetu', 'enam ei kehti'],
    fresh: ['uus', 'uue'],
    entry: ['sisesta', 'sisestage', 'kehtib', 'aegub', 'ära jaga', 'ärge jagage', 'kellelegi'],
  },
}; // prettier-ignore

// Words that say what a link does, in anchor text, in the sentence around it and in URL paths (where senders
// write them in ASCII: "sifre-sifirla", "vosstanovlenie"), for the languages the OTP vocabulary covers. Lower
// case; matched as substrings of a lower-cased, percent-decoded URL or text, so stems suffice.

export const UNSUBSCRIBE_WORDS: readonly string[] = [
  'unsubscribe', 'opt-out', 'optout', 'opt_out', 'opt out', 'email-settings', 'email preferences',
  'notification settings', 'manage subscription', 'list-manage', 'abmelden', 'abbestellen', 'désabonner',
  'desabonner', 'désinscri', 'desinscri', 'darse de baja', 'dar de baja', 'date de baja', '/baja', 'cancelar suscripción',
  'descadastrar', 'cancelar inscrição', 'disiscriviti', 'annulla iscrizione', 'afmelden', 'uitschrijven', 'wypisz',
  'odhlásit', 'odhlasit', 'avregistrera', 'avsluta prenumeration', 'afmeld', 'meld deg av', 'peruuta tilaus',
  'leiratkoz', 'dezabon', 'abonelikten çık', 'abonelikten cik', 'отписаться', 'відписатися', 'απεγγραφή',
  'إلغاء الاشتراك', 'הסרה מרשימת', 'לביטול', 'सदस्यता समाप्त', '配信停止', '配信解除', '退订', '取消订阅',
  '取消訂閱', '수신거부', '수신 거부', 'ยกเลิกการรับ', 'hủy đăng ký', 'huy-dang-ky', 'berhenti berlangganan',
  'henti langganan', 'لغو اشتراک', 'আনসাবস্ক্রাইব', 'jiondoe', 'odjava', 'отписване', 'atsisakyti', 'atteikties',
  'loobu', 'desubscriu', 'donar-se de baixa', "dona't de baixa",
]; // prettier-ignore

/** "Preferences" and "settings" pages are unsubscribe links only in a footer's words, not in a URL alone. */
export const PREFERENCE_WORDS: readonly string[] = [
  'preferences',
  'preferencias',
  'préférences',
  'einstellungen',
];

export const RESET_WORDS: readonly string[] = [
  'reset', 'forgot', 'recover', 'new password', 'password', 'réinitialis', 'reinitialis', 'reinit',
  'mot de passe', 'mot-de-passe', 'mdp', 'passwort', 'kennwort', 'zurücksetzen', 'zuruecksetzen', 'restablecer',
  'contraseña', 'contrasena', 'redefinir', 'senha', 'reimposta', 'wachtwoord', 'hasło', 'haslo', 'heslo',
  'obnovit', 'obnova-hesla', 'lösenord', 'losenord', 'återställ', 'adgangskode', 'passord', 'nulstil',
  'tilbakestill', 'salasana', 'jelszó', 'jelszo', 'parolă', 'parola', 'resetare', 'reseteaz', 'resetează',
  'şifre', 'şifre', 'sifre', 'sıfırla', 'sifirla', 'пароль', 'сбросить', 'сброс', 'восстановлени',
  'vosstanov', 'parol', 'sbros', 'відновити', 'скинути', 'κωδικό πρόσβασης', 'κωδικού πρόσβασης', 'επαναφορά',
  'كلمة المرور', 'إعادة تعيين', 'סיסמה', 'סיסמא', 'איפוס', 'पासवर्ड', 'パスワード', '再設定', '重置', '密码',
  '密碼', '비밀번호', '재설정', 'รหัสผ่าน', 'รีเซ็ต', 'mật khẩu', 'mat-khau', 'đặt lại', 'dat-lai', 'kata sandi',
  'sandi', 'kata laluan', 'atur ulang', 'tetapkan semula', 'رمز عبور', 'گذرواژه', 'بازیابی', 'پاس ورڈ',
  'পাসওয়ার্ড', 'nenosiri', 'weka upya', 'парола', 'lozink', 'лозинк', 'geslo', 'slaptažod', 'slaptazod',
  'paroli', 'parool', 'contrasenya', 'contrasinal', 'lykilorð', 'wagwoord', 'құпиясөз', 'şifrə', 'პაროლ',
  'գաղտնաբառ', 'нууц үг', 'कूटशब्द',
]; // prettier-ignore

/** Said only of links that sign in by themselves. */
export const MAGIC_WORDS: readonly string[] = [
  'magic', 'passwordless', 'one-click', 'one click', 'email-login', 'email_login', 'login link', 'sign-in link',
  'signin link', 'login-link', 'signin-link', 'sign-in-link', 'lien de connexion', 'anmeldelink', 'anmelde-link',
  'login-link', 'enlace de inicio', 'enlace de acceso', 'link de acesso', 'link di accesso', 'inloglink',
  'link do logowania', 'přihlašovací odkaz', 'inloggningslänk', 'kirjautumislinkki', 'bejelentkezési link',
  'link de autentificare', 'giriş bağlantı', 'ссылка для входа', 'посилання для входу', 'ログインリンク',
  '登录链接', '로그인 링크', 'ลิงก์เข้าสู่ระบบ', 'liên kết đăng nhập', 'tautan masuk', 'pautan log masuk',
  'kiungo cha kuingia', 'پیوند ورود', 'لینک ورود',
]; // prettier-ignore

export const LOGIN_WORDS: readonly string[] = [
  'login', 'log-in', 'log in', 'log_in', 'logon', 'signin', 'sign-in', 'sign in', 'sign_in', 'auth', 'session',
  'connexion', 'se connecter', 'connectez', 'anmelden', 'anmeldung', 'einloggen', 'iniciar sesión',
  'iniciar sesion', 'inicio de sesión', 'acceso', 'acceder', 'ingresar', 'entrar', 'iniciar sessão', 'acessar',
  'accedi', 'accesso', 'inloggen', 'aanmelden', 'zaloguj', 'logowani', 'přihlásit', 'prihlasit', 'přihlášení',
  'prihlásiť', 'logga in', 'inloggning', 'log ind', 'logg inn', 'innlogging', 'kirjaudu', 'bejelentkez',
  'belépés', 'autentific', 'conectare', 'giriş', 'giris', 'oturum aç', 'войти', 'вход', 'voiti', 'vhod',
  'увійти', 'вхід', 'σύνδεση', 'συνδεθείτε', 'تسجيل الدخول', 'התחברות', 'להתחבר', 'כניסה', 'लॉग इन',
  'लॉगिन', 'ログイン', 'サインイン', '登录', '登入', '로그인', 'เข้าสู่ระบบ', 'đăng nhập', 'dang-nhap', 'masuk',
  'log masuk', 'ورود', 'ingia', 'prijav', 'пријав', 'prisijung', 'pieslēg', 'pieslegt', 'logi sisse',
  'sisselogimine', 'inicia la sessió', 'skrá inn', 'teken in', 'кіру', 'daxil ol', 'kirish', 'შესვლა', 'մուտք',
  'нэвтрэх', 'লগইন', 'உள்நுழை',
]; // prettier-ignore

export const VERIFY_WORDS: readonly string[] = [
  'verify', 'verification', 'confirm', 'activate', 'activation', 'validate', 'validation', 'vérifi', 'confirmer',
  'confirmez', 'activer', 'valider', 'bestätig', 'bestatig', 'bestaetig', 'verifizier', 'aktivier', 'freischalt',
  'confirmar', 'confirma', 'verificar', 'verifica', 'activar', 'ativar', 'confirme', 'validar', 'convalida',
  'attiva', 'bevestig', 'verifieer', 'activeer', 'potwierdź', 'potwierdz', 'aktywuj', 'aktywacj', 'zweryfikuj',
  'weryfik', 'ověř', 'overit', 'ověřit', 'potvrď', 'potvrd', 'aktivovat', 'aktivac', 'overiť', 'verifiera',
  'bekräfta', 'aktivera', 'bekræft', 'aktivér', 'verificer', 'bekreft', 'verifiser', 'vahvista', 'aktivoi',
  'megerősít', 'megerosit', 'erősítse', 'erősítsd', 'aktivál', 'visszaigazol', 'confirmă', 'verifică',
  'activează', 'confirmare', 'activare', 'verificare', 'doğrula', 'dogrula', 'onayla', 'etkinleştir',
  'etkinlestir', 'aktifleştir', 'aktiflestir', 'подтверд', 'активир', 'активац', 'podtverd', 'aktivac',
  'підтверд', 'активув', 'επιβεβαίω', 'επαλήθευ', 'ενεργοποί', 'تأكيد', 'تفعيل', 'تحقق', 'אימות', 'אישור',
  'אשר', 'הפעלה', 'सत्यापित', 'पुष्टि', 'सक्रिय', '確認', '認証', '有効化', '验证', '驗證', '确认', '激活',
  '啟用', '인증', '확인', '활성화', 'ยืนยัน', 'เปิดใช้งาน', 'xác nhận', 'xác minh', 'xac-nhan', 'xac-minh',
  'kích hoạt', 'verifikasi', 'konfirmasi', 'aktifkan', 'sahkan', 'pengesahan', 'تایید', 'تأیید', 'فعالسازی',
  'تصدیق', 'যাচাই', 'নিশ্চিত', 'thibitisha', 'i-verify', 'kumpirmahin', 'потвърд', 'активир', 'potvrdi',
  'потврди', 'aktiviraj', 'patvirtin', 'aktyvuo', 'apstiprin', 'aktivizē', 'kinnita', 'aktiveeri', 'растау',
  'təsdiq', 'tasdiqla', 'დადასტურ', 'հաստատ', 'баталгаажуул', 'egiaztatu', 'staðfest', 'verifieer', 'bevestig',
]; // prettier-ignore

export const INVITE_WORDS: readonly string[] = [
  'invit', 'einladung', 'eingeladen', 'convite', 'convidou', 'convidado', 'uitnodiging', 'uitgenodigd', 'zaproszeni', 'zaprosił', 'pozvánk',
  'pozval', 'inbjud', 'invitasjon', 'kutsu', 'meghív', 'davet', 'приглаш',
  'приглас', 'запрош', 'запроси', 'πρόσκληση', 'προσκάλεσε', 'دعوة', 'دعاك', 'הזמין', 'הזמינה', 'आमंत्रण',
  'निमंत्रण', 'आमंत्रित', '招待', '邀请', '邀請', '초대', 'คำเชิญ', 'เชิญ', 'lời mời', 'đã mời', 'undangan',
  'mengundang', 'jemputan', 'menjemput', 'دعوت', 'mwaliko', 'amekualika', 'покана', 'pozivnic', 'pozvao',
  'kviet', 'ielūg', 'kutse', 'convidat', 'boð',
]; // prettier-ignore

/** "Join" or "accept" read as an invite only in a mail that speaks of an invitation. */
export const JOIN_WORDS: readonly string[] = [
  'join', 'accept', 'beitreten', 'annehmen', 'rejoindre', 'accepter', 'unirte', 'unirse', 'aceptar', 'aceitar',
  'participar', 'unisciti', 'accetta', 'deelnemen', 'accepteren', 'dołącz', 'akceptuj', 'připojit', 'přijmout',
  'gå med', 'acceptera', 'deltag', 'bli med', 'liity', 'hyväksy', 'csatlakoz', 'elfogad', 'alătură', 'accept',
  'katıl', 'kabul et', 'присоедин', 'принять', 'прийняти', 'приєдна', 'αποδοχή', 'انضم', 'قبول', 'הצטרף',
  'להצטרף', 'לקבל', 'शामिल', 'स्वीकार', '参加', '承諾', '加入', '接受', '참여', '수락', 'เข้าร่วม', 'ยอมรับ',
  'tham gia', 'chấp nhận', 'bergabung', 'terima', 'sertai', 'پیوستن', 'پذیرفتن', 'jiunge', 'kubali', 'mag-join',
]; // prettier-ignore

/** Links about an order, booking, receipt or parcel: "View order confirmation" confirms nothing. */
export const ORDER_WORDS: readonly string[] = [
  'order', 'receipt', 'invoice', 'booking', 'reservation', 'itinerary', 'tracking', 'track', 'shipment',
  'commande', 'facture', 'réservation', 'bestellung', 'rechnung', 'buchung', 'sendung', 'pedido', 'factura',
  'reserva', 'encomenda', 'fatura', 'ordine', 'fattura', 'prenotazione', 'bestelling', 'factuur', 'reservering',
  'zamówien', 'faktur', 'objednávk', 'sipariş', 'siparis', 'заказ', 'замовлення', 'бронир', '注文', '予約',
  '订单', '訂單', '주문', '예약', 'คำสั่งซื้อ', 'đơn hàng', 'don-hang', 'pesanan', 'tempahan', 'سفارش', 'طلب',
  'الحجز', 'הזמנת', 'ऑर्डर', 'agizo', 'narudžb', 'porudžb', 'поръчк', 'užsakym', 'pasūtījum', 'tellimus',
]; // prettier-ignore

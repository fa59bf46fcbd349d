// Classifies a link by what it does for the reader, from its URL and its anchor text.

export type LinkKind = 'verify' | 'reset' | 'magic_login' | 'unsubscribe' | 'other';

const UNSUBSCRIBE = [
  'unsubscribe', 'opt-out', 'optout', 'opt_out', 'opt out', 'preferences', 'email-settings',
  'notification settings', 'manage subscription', 'list-manage', 'abmelden', 'abbestellen',
  'désabonner', 'desabonner', 'désinscri', 'desinscri', 'darse de baja', 'dar de baja', '/baja',
  'cancelar suscripción', 'descadastrar', 'cancelar inscrição', 'disiscriviti', 'afmelden',
  '配信停止', '配信解除', '退订', '取消订阅',
]; // prettier-ignore

const RESET = [
  'reset', 'password', 'forgot', 'recover', 'réinitialiser', 'reinitialiser', 'mot de passe',
  'mot-de-passe', 'passwort', 'zurücksetzen', 'restablecer', 'contraseña', 'redefinir', 'senha',
  'reimposta', 'wachtwoord', 'パスワード', '重置', '密码',
]; // prettier-ignore

const MAGIC = ['magic', 'passwordless', 'one-click', 'one click', 'email-login', 'email_login'];

const LOGIN = [
  'login', 'log-in', 'log in', 'log_in', 'signin', 'sign-in', 'sign in', 'sign_in', 'auth', 'session',
  'connexion', 'se connecter', 'anmelden', 'anmeldung', 'iniciar sesión', 'iniciar sessão', 'entrar',
  'accedi', 'inloggen', 'ログイン', '登录',
]; // prettier-ignore

const VERIFY = [
  'verify', 'verification', 'confirm', 'activate', 'activation', 'validate', 'validation',
  'vérifier', 'verifier', 'confirmer', 'activer', 'bestätigen', 'bestatigen', 'verifizieren',
  'aktivieren', 'confirmar', 'verificar', 'activar', 'ativar', 'conferma', 'verifica', 'attiva',
  'bevestig', 'verifieer', '確認', '認証', '验证', '激活',
]; // prettier-ignore

/** Query names and path shapes that carry a one-use secret. */
const TOKEN_PARAM =
  /[?&#;](token|code|key|otp|t|k|auth|hash|sig|signature|nonce|ticket|magic|login_token|access_token)=[^&#]{6,}/i;
const LONG_SEGMENT = /\/[A-Za-z0-9_-]{20,}(?:[/?#]|$)/;

const containsAny = (haystack: string, words: readonly string[]): boolean =>
  words.some((w) => haystack.includes(w));

export function hasToken(url: string): boolean {
  return TOKEN_PARAM.test(url) || LONG_SEGMENT.test(url);
}

/** Unsubscribe wins (its links often carry tokens too), then reset, magic sign-in, verification. */
export function linkKind(url: string, text: string): LinkKind {
  let target = url.toLowerCase();
  try {
    const parsed = new URL(url);
    // The host says who sent it, not what the link does ("login.example.com/unsubscribe").
    target = (parsed.pathname + parsed.search + parsed.hash).toLowerCase();
  } catch {
    // Not a parseable URL: classify the whole string.
  }
  const label = text.toLowerCase();
  const both = `${target} ${label}`;
  if (containsAny(both, UNSUBSCRIBE)) return 'unsubscribe';
  if (containsAny(both, RESET)) return 'reset';
  if (containsAny(both, MAGIC)) return 'magic_login';
  if (containsAny(both, LOGIN) && hasToken(url)) return 'magic_login';
  if (containsAny(both, VERIFY)) return 'verify';
  return 'other';
}

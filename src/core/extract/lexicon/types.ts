// The shape of one language's OTP vocabulary, and how an entry is written.
//
// Entries are lower case. A leading "*" lets the word be the end of a compound ("*code" matches
// "bestätigungscode"); a trailing "*" lets it take endings ("kod*" matches "kodu", "kodem"). Without stars a
// word in a spaced script must stand alone; scripts written without spaces (CJK, Thai, Hangul) match anywhere.
export interface Lexicon {
  /** Decisive: said only of one-time codes ("verification code", "one-time password"). */
  strong: readonly string[];
  /** Strong hints: "code", "PIN", "verification". */
  code: readonly string[];
  /** Weak hints found around codes: verify, confirm, sign in, enter, expires, do not share. */
  hint: readonly string[];
  /** Kinds of code that are not one-time codes (promo, discount, postal); they hide code words inside them. */
  notOtp: readonly string[];
  /** Labels of other numbers: order, invoice, tracking, account, customer, phone, amount. */
  other: readonly string[];
}

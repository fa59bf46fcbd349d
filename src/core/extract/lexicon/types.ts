// The shape of one language's OTP vocabulary, and how an entry is written.
//
// Entries are lower case. A leading "*" lets the word be the end of a compound ("*code" matches
// "bestätigungscode"); a trailing "*" lets it take endings ("kod*" matches "kodu", "kodem"). Without stars a
// word in a spaced script must stand alone; scripts written without spaces (CJK, Thai, Lao, Khmer, Burmese,
// Hangul) match anywhere. Zero-width joiners in entries are ignored, as they are in the mail text.
export interface Lexicon {
  /** Decisive: said only of one-time codes ("verification code", "one-time password"). */
  strong: readonly string[];
  /** Strong hints: "code", "PIN", "verification". */
  code: readonly string[];
  /** Weak hints found around codes: verify, confirm, sign in, enter, expires, do not share. */
  hint: readonly string[];
  /** Kinds of code that are not one-time codes (promo, discount, postal, backup); they hide code words inside them. */
  notOtp: readonly string[];
  /** Labels of other numbers: order, invoice, tracking, account, customer, phone, amount, request, ticket. */
  other: readonly string[];
  /** Words that mark the code in their clause as no longer usable: previous, old, expired, cancelled. */
  old?: readonly string[];
  /** Words that mark the code in their clause as the current one: new, instead. */
  fresh?: readonly string[];
  /** Words asking the reader to type a code in: enter, expires, do not share. */
  entry?: readonly string[];
  /**
   * Labels that name a one-time code in a mail asking to enter one, and an approval or booking number on a
   * receipt ("approval code", "confirmation code"): code words only when the mail has an `entry` word.
   */
  ambivalent?: readonly string[];
}

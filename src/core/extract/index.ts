// Public surface of extraction: OTPs, links and body values from captured emails and requests.
export {
  extractOtp,
  OTP_AMBIGUITY_MARGIN,
  OTP_THRESHOLD,
  type OtpCandidate,
  type OtpInput,
  type OtpOptions,
  type OtpResult,
  type OtpSource,
} from './otp.ts';
export { extractLinks, type ExtractedLink, type LinkKind, type LinksInput } from './links.ts';
export { primaryLink, type PrimaryLink } from './primaryLink.ts';
export {
  extractFromBody,
  MAX_MATCHES,
  type BodyMatch,
  type BodyResult,
  type EmailItem,
  type EmailPart,
  type ExtractItem,
  type ExtractMode,
  type ExtractOptions,
  type RequestItem,
} from './fromBody.ts';
export { emailItemOf, otpInputOf, requestItemOf } from './items.ts';
export { htmlToPlainText } from './lines.ts';

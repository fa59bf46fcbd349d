// Public surface of extraction: OTPs, links and body values from captured emails and requests.
export { extractOtp, type OtpInput, type OtpResult } from './otp.ts';
export { extractLinks, type LinkKind } from './links.ts';
export { primaryLink } from './primaryLink.ts';
export { extractFromBody, type EmailItem, type RequestItem } from './fromBody.ts';
export { emailItemOf, otpInputOf, requestItemOf } from './items.ts';
export { htmlToPlainText } from './lines.ts';

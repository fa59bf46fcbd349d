// Decodes HTML character references the way browsers do, text and attribute values each by their own rule.
import { decodeHTML, decodeHTMLAttribute } from 'entities';

/** Text content: every named reference, numeric ones, and the legacy forms without a semicolon (`&copy 2024`). */
export function decodeEntities(text: string): string {
  return text.includes('&') ? decodeHTML(text) : text;
}

/**
 * Attribute values such as hrefs: a legacy reference followed by `=` or an alphanumeric stays as written, so a
 * query string like `?a=1&copy=2` keeps its parameter (HTML spec, "character reference state").
 */
export function decodeAttribute(value: string): string {
  return value.includes('&') ? decodeHTMLAttribute(value) : value;
}

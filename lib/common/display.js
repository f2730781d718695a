'use strict';

// Text from a file system or a config shown to a person or a model, one value per line: control
// characters (C0, DEL, C1), format characters (bidi controls such as U+202E, zero-width ones),
// line and paragraph separators and lone surrogates are written as escapes (\n, \t, \x1b,
// \u202e), and a backslash is doubled, so that the value stays on its own line, reaches a
// terminal as text and reads back unambiguously: a file named "a\n[DIR] b" cannot forge a row of
// a listing. The CLI and the MCP server both show names through it.
const UNSAFE = /[\\\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;
// Printable ASCII but the backslash: most names, shown as they are without the scan above.
const PLAIN = /^[\x20-\x5b\x5d-\x7e]*$/;
const NAMED_ESCAPES = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeCode(code) {
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\u{${code.toString(16)}}`;
}

/**
 * @param {unknown} value
 * @returns {string}
 */
function displayText(value) {
  const text = String(value);
  if (PLAIN.test(text)) return text;
  return text.replace(UNSAFE, (c) => NAMED_ESCAPES[c] ?? escapeCode(/** @type {number} */ (c.codePointAt(0))));
}

// How much of a caller's value (a pattern, a path, a command) a message quotes.
const EXCERPT_CHARS = 200;

/**
 * At most the first `max` characters of `value`, then "…" when there were more: what an error
 * message quotes of what a caller sent, so that a 4 MiB pattern is not sent back whole.
 * @param {unknown} value
 * @param {number} [max]
 * @returns {string}
 */
function excerpt(value, max = EXCERPT_CHARS) {
  const text = String(value);
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? max - 1 : max; // never half a surrogate pair
  return `${text.slice(0, end)}…`;
}

module.exports = { displayText, excerpt, EXCERPT_CHARS };

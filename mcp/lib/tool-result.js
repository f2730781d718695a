'use strict';

// Tool results. A handler returns what it found through ok(); anything it throws becomes a result
// through failure(): a sandbox error is the model's to read (its toLLMMessage names virtual paths
// only) with its code for programs, and anything else is a generic message, since its text may
// name host paths (an errno message, a stack) and is of no use to a model.
const { SandboxError } = require('./mount-sandbox');

const UNEXPECTED = 'The tool failed with an unexpected internal error. Nothing more can be said about it here; ' +
  'try another way, or ask the user to look at the server log.';

function ok(text, structured) {
  const result = { content: [{ type: 'text', text: String(text) }] };
  if (structured !== undefined) result.structuredContent = structured;
  return result;
}

function refusal(text, code) {
  return { isError: true, content: [{ type: 'text', text }], structuredContent: { code } };
}

// The library's own wording names its file API's operations; a model here calls tools.
function messageFor(error) {
  if (error.code === 'IS_DIRECTORY' && typeof error.path === 'string') {
    return `${error.path} is a directory. Use list_directory to see its entries, or name a file inside it.`;
  }
  return String(error.toLLMMessage());
}

function failure(error) {
  if (error instanceof SandboxError) return refusal(messageFor(error), String(error.code));
  // The library refuses arguments it cannot take (a lone surrogate, a string over its bounds)
  // with TypeError and RangeError saying what it expected: the model's to fix.
  if (error instanceof TypeError || error instanceof RangeError) {
    return refusal(`Invalid arguments: ${String(error.message).slice(0, 500)}`, 'INVALID_ARGUMENT');
  }
  return refusal(UNEXPECTED, 'INTERNAL');
}

module.exports = { ok, failure, UNEXPECTED };

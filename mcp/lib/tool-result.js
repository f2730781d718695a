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

function failure(error) {
  if (error instanceof SandboxError) {
    return {
      isError: true,
      content: [{ type: 'text', text: String(error.toLLMMessage()) }],
      structuredContent: { code: String(error.code) },
    };
  }
  return { isError: true, content: [{ type: 'text', text: UNEXPECTED }], structuredContent: { code: 'INTERNAL' } };
}

module.exports = { ok, failure, UNEXPECTED };

'use strict';

// The note a command's stderr ends with when some of its changes did not land: in the model's
// terms (paths as the command saw them, the rule that refused each), so it neither assumes its
// work is on the project nor retries what a rule will refuse again.
const { viewPath } = require('../exec/view');

const LISTED = 8;

function listed(changes, shown, withReason) {
  const items = changes.slice(0, LISTED).map((c) => (withReason && c.reason ? `${shown(c.path)} (${firstSentence(c.reason)})` : shown(c.path)));
  const more = changes.length > LISTED ? `, and ${changes.length - LISTED} more` : '';
  return `${items.join('; ')}${more}`;
}

function firstSentence(text) {
  const end = text.search(/\.(\s|$)/);
  const sentence = end < 0 ? text : text.slice(0, end);
  return sentence.length > 160 ? `${sentence.slice(0, 157)}...` : sentence;
}

// A refused directory stands for what it holds: git init's sample hooks under a refused hooks/.
function withoutRefusedParents(changes) {
  const dirs = new Set(changes.filter((c) => c.kind === 'directory').map((c) => c.path));
  const under = (p) => {
    for (let at = p.slice(0, p.lastIndexOf('/')); at.length > 0; at = at.slice(0, at.lastIndexOf('/'))) {
      if (dirs.has(at)) return true;
    }
    return false;
  };
  return changes.filter((c) => !under(c.path));
}

/** The note for `changes` (result.changes), or null when everything the command changed landed. */
function changesNote(changes, view) {
  if (!changes) return null;
  const shown = (p) => (view ? viewPath(view.workspace, p) : p);
  const notes = [];
  if (changes.mode === 'review' && changes.pending.length > 0) {
    notes.push(`Note: nothing this command changed is on the project yet: its ${changes.pending.length} change(s) wait for the user's review.`);
  } else if (changes.pending.length > 0) {
    notes.push(`Note: these changes wait for the user's approval and are not on the project yet: ${listed(changes.pending, shown, false)}.`);
  }
  if (changes.refused.length > 0) {
    notes.push(`Note: these changes of the command were refused and are not on the project (the command saw them, nothing else will): ${listed(withoutRefusedParents(changes.refused), shown, true)}.`);
  }
  if (changes.conflicts.length > 0) {
    notes.push(`Note: these files were changed by someone else while the command ran, so its changes to them were not applied (CONFLICT); read them again: ${listed(changes.conflicts, shown, false)}.`);
  }
  if (changes.truncated) notes.push('Note: the command changed more entries than one call judges (250,000); the rest wait until the caller applies them.');
  return notes.length === 0 ? null : notes.join('\n');
}

module.exports = { changesNote };

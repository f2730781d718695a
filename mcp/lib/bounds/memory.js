'use strict';

// One memory budget for all the calls the server runs at once: a call that will hold a large text
// (an edit reads the file and makes the edited copy, a media read its base64) reserves what it
// will hold before it reads, and a call that would take the server past the budget is refused
// with BUSY instead of growing the process without bound. What one message can carry is bounded
// apart (stdin.js).
const { SandboxError } = require('../mount-sandbox');

const DEFAULT_BUDGET_BYTES = 1024 * 1024 * 1024;

class BusyError extends SandboxError {
  constructor(bytes, budget) {
    super('BUSY', `the server is holding other large calls: ${bytes} more bytes would pass its budget of ${budget} bytes`);
    this.name = 'BusyError';
  }

  toLLMMessage() {
    return `Not done: ${this.message}. Try again when the other calls have finished, or work on a smaller file.`;
  }
}

class MemoryBudget {
  constructor(budget = DEFAULT_BUDGET_BYTES) {
    this.budget = budget;
    this.held = 0;
  }

  /**
   * Reserves `bytes` for `work` while it runs.
   * @template T
   * @param {number} bytes
   * @param {() => Promise<T>} work
   * @returns {Promise<T>}
   */
  async holding(bytes, work) {
    if (this.held + bytes > this.budget) throw new BusyError(bytes, this.budget);
    this.held += bytes;
    try {
      return await work();
    } finally {
      this.held -= bytes;
    }
  }
}

module.exports = { MemoryBudget, BusyError, DEFAULT_BUDGET_BYTES };

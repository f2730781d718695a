'use strict';

// Every object a caller hands the facade (configs, restrictions, policies, options, argument
// lists) is copied here once, before anything checks it, into plain own data; validation and the
// addon then read the copy alone. So what was validated is what is used, and a polluted
// Object.prototype (or Array.prototype) supplies nothing:
// - only own enumerable string-keyed properties are copied, each read once (a Proxy's ownKeys
//   and getOwnPropertyDescriptor traps run once per key, its get trap never);
// - a getter or setter is refused, without being run, by the caller's error type naming its key:
//   running the caller's code in the middle of validation is how a value could be checked as
//   one thing and used as another;
// - objects come back with a null prototype, arrays as fresh dense arrays (a hole reads as
//   undefined, never as an inherited index); ArrayBuffer views (byte content such as exec's
//   stdin) and every non-object are kept as given.
const MAX_DEPTH = 16; // the deepest legitimate input (config.mounts[i].approval.write) has 4
const MAX_ARRAY_LENGTH = 1_000_000; // a Proxy may claim any length; copying it must end

function keyPath(where, key) {
  if (typeof key === 'number') return `${where}[${key}]`;
  return where === '' ? key : `${where}.${key}`;
}

class Copier {
  constructor(makeError) {
    this.makeError = makeError;
    this.open = new Set(); // objects being copied: one seen again is a cycle
  }

  fail(message) {
    throw this.makeError(message);
  }

  value(v, where, depth) {
    if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v)) return v;
    if (depth > MAX_DEPTH) this.fail(`${where || 'the value'} is nested more than ${MAX_DEPTH} levels deep`);
    if (this.open.has(v)) this.fail(`${where || 'the value'} contains itself`);
    this.open.add(v);
    try {
      return Array.isArray(v) ? this.array(v, where, depth) : this.record(v, where, depth);
    } finally {
      this.open.delete(v);
    }
  }

  // The data value of an own property, or undefined when there is none; accessors refused.
  own(object, key, where) {
    const descriptor = Reflect.getOwnPropertyDescriptor(object, key);
    if (descriptor === undefined) return { present: false };
    if (!('value' in descriptor)) {
      this.fail(`${where} is a getter or setter; give its value as plain data`);
    }
    return { present: true, enumerable: descriptor.enumerable, value: descriptor.value };
  }

  array(array, where, depth) {
    const length = this.own(array, 'length', keyPath(where, 'length')).value;
    if (!Number.isSafeInteger(length) || length < 0 || length > MAX_ARRAY_LENGTH) {
      this.fail(`${where || 'the list'} has more than ${MAX_ARRAY_LENGTH} items`);
    }
    const out = new Array(length).fill(undefined);
    for (let i = 0; i < length; i++) {
      const item = this.own(array, String(i), keyPath(where, i));
      if (item.present) out[i] = this.value(item.value, keyPath(where, i), depth + 1);
    }
    return out;
  }

  record(object, where, depth) {
    const out = Object.create(null);
    for (const key of Reflect.ownKeys(object)) {
      if (typeof key !== 'string') continue;
      const field = this.own(object, key, keyPath(where, key));
      if (field.present && field.enumerable) out[key] = this.value(field.value, keyPath(where, key), depth + 1);
    }
    return out;
  }
}

// A plain copy of `value` (see above). `makeError(message)` builds the error thrown for an
// accessor, a cycle or excessive nesting; `where` names `value` in messages ("" for a config,
// whose keys then read "mounts[0].source").
function plainData(value, makeError, where = '') {
  return new Copier(makeError).value(value, where, 0);
}

// An options argument: undefined -> an empty record; else a plain copy whose keys are all in
// `allowed`. Returns the copy or, so that async methods can reject with it, the TypeError.
function optionsOf(value, allowed) {
  if (value === undefined) return Object.create(null);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return new TypeError('expected an options object');
  }
  let copy;
  try {
    copy = plainData(value, (message) => new TypeError(message));
  } catch (e) {
    return e;
  }
  for (const key of Object.keys(copy)) {
    if (!allowed.includes(key)) return new TypeError(`unknown option "${key}" (allowed: ${allowed.join(', ')})`);
  }
  return copy;
}

// A null-prototype record of the given own entries: what the facade hands the addon, so that
// no key the binding reads can be inherited.
function record(entries) {
  return Object.assign(Object.create(null), entries);
}

module.exports = { plainData, optionsOf, record };

'use strict';

// The CLI's command line: the options every command shares, how argv is read into them, and the
// two errors a command line or a refused request ends in. Which command takes which option is
// each command's own (its `takes`, checked in commands.js).

// A usage error (exit 2) prints its message and the command's usage; a refusal (exit 1) its
// message alone. Neither is a bug, so neither prints a stack trace.
class UsageError extends Error {}
class Refusal extends Error {
  /**
   * @param {string} code
   * @param {string} message
   */
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

// The options that take a value, and those that are switches; each command takes only those its
// entry lists.
const VALUE_OPTIONS = ['--config', '--worker', '--cwd', '--timeout', '--changes', '--tmp-bytes', '--namespaces'];
const SWITCHES = ['--network', '--allow-weaker', '--verbose', '--json', '--apply'];
// Options given as often as needed, collected in order.
const LIST_OPTIONS = ['--allow', '--deny'];
const PATH_OPTIONS = ['--config', '--worker'];

// The help lines of the options more than one command takes, worded alike in each.
const CONFIG_OPTION = '  --config dir|file   the program config file, or the directory to search upward from for\n' +
  '                      golem-forge.config.{yaml,yml,json} (default: the current directory)';
const JSON_OPTION = '  --json              print one JSON document on stdout instead (see below), errors included';

// { positional, options, flags, command, problem }: options by name ('--config': 'dir'), flags
// --help and --version, `command` what follows `--`, `problem` the first usage error found
// (reported once the command is known, so that the usage printed is that command's).
/** @param {string[]} argv */
function parseArgs(argv) {
  const positional = [];
  /** @type {Record<string, any>} */
  const options = {};
  /** @type {{ help?: boolean, version?: boolean }} */
  const flags = {};
  let command = null;
  let problem = null;
  const set = (name, value) => {
    if (Object.hasOwn(options, name)) problem ??= `${name} given twice`;
    options[name] = value;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      command = argv.slice(i + 1);
      break;
    }
    if (arg === '--help' || arg === '-h') flags.help = true;
    else if (arg === '--version' || arg === '-V') flags.version = true;
    else if (SWITCHES.includes(arg)) set(arg, true);
    else if (LIST_OPTIONS.includes(arg)) {
      const value = argv[i + 1];
      if (value === undefined || value.startsWith('--') || value === '') problem ??= `${arg} needs a host[:port]`;
      else options[arg] = [...(options[arg] || []), value];
      i++;
    } else if (VALUE_OPTIONS.includes(arg)) {
      const value = argv[i + 1];
      // "--config --verbose" is a forgotten value, not a config named --verbose; "--config ''"
      // an empty variable, not the current directory.
      const missing = value === undefined || value.startsWith('--') || (value === '' && PATH_OPTIONS.includes(arg));
      if (missing) problem ??= `${arg} needs a value`;
      else set(arg, value);
      i++;
    } else if (arg.startsWith('-') && arg !== '-') problem ??= `unknown option ${arg}`;
    else positional.push(arg);
  }
  return { positional, options, flags, command, problem };
}

module.exports = { UsageError, Refusal, parseArgs, CONFIG_OPTION, JSON_OPTION };

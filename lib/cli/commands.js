'use strict';

// The CLI's commands by name, in the order the usage lists them, and what is made from them all:
// the usage, each command's help, and the check that a command line gives a command only what it
// takes. Each command's module has its synopsis, options, help, argument check and run().
const { UsageError } = require('./args.js');

const COMMANDS = {
  check: require('./check.js'),
  explain: require('./explain.js'),
  exec: require('./exec.js'),
  apparmor: require('./apparmor.js'),
  doctor: require('./doctor.js'),
};

const USAGE = `Usage:
${Object.values(COMMANDS).map((c) => `  ${c.synopsis}\n      ${c.summary}`).join('\n')}
  mount-sandbox <command> --help
      That command's options and exit status.
  mount-sandbox --version`;

const isCommand = (name) => Object.hasOwn(COMMANDS, name);

const commandHelp = (name) => `Usage: ${COMMANDS[name].synopsis}\n\n${COMMANDS[name].help}`;

// After a usage error: the usage of the command that was asked for, if there is one.
function usageFor(asked) {
  return asked ? `Usage: ${COMMANDS[asked].synopsis}\n(mount-sandbox ${asked} --help for more)` : USAGE;
}

// Each command's arguments: only its own options, its positional arguments, `--` for exec alone.
function checkArgs(name, args) {
  for (const option of Object.keys(args.options)) {
    if (!COMMANDS[name].takes.includes(option)) throw new UsageError(`${name} does not take ${option}`);
  }
  if (name !== 'exec' && args.command !== null) throw new UsageError(`${name} runs no command: -- is for exec`);
  COMMANDS[name].checkArgs(args.positional.slice(1), args);
}

module.exports = { COMMANDS, USAGE, isCommand, commandHelp, usageFor, checkArgs };

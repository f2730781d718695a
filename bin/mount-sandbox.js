#!/usr/bin/env node
'use strict';

// mount-sandbox <check|explain|exec|apparmor|doctor> [--help]: validate a program config, explain
// how a virtual path resolves, run a command confined to the sandbox, print the AppArmor profile
// its launcher needs on Ubuntu, say what this machine allows exec. This entry reads the command line, dispatches and sets the exit
// status; each command is a module in lib/cli/ (commands.js lists them).
const { parseArgs, UsageError } = require('../lib/cli/args.js');
const { isCommand, commandHelp, usageFor, checkArgs, COMMANDS, USAGE } = require('../lib/cli/commands.js');
const { jsonText, printText, printError, printJsonError } = require('../lib/cli/output.js');
const { version } = require('../package.json');

// The command asked for, once known: a usage error prints that command's usage. With --json
// anywhere before `--`, whatever happens is one JSON document on stdout, even a usage error.
let asked = null;
let json = false;

// Each command answers with { code, report, lines } (`report` the --json document, `lines` the
// text), exec, apparmor and doctor with their own stdout and stderr as well.
async function main(argv) {
  const args = parseArgs(argv);
  const command = args.positional[0];
  if (isCommand(command)) asked = command;
  json = argv.slice(0, args.command === null ? argv.length : argv.indexOf('--')).includes('--json');
  // "exec ls -la": its -la is the command's, not an unknown option.
  if (command === 'exec' && args.command === null && args.positional.length > 1) checkArgs(command, args);
  if (args.problem) throw new UsageError(args.problem);
  if (args.flags.version) return { code: 0, lines: [version] };
  if (command === 'help' && isCommand(args.positional[1])) return { code: 0, lines: [commandHelp(args.positional[1])] };
  if (args.flags.help || command === 'help') {
    return { code: 0, lines: [isCommand(command) ? commandHelp(command) : USAGE] };
  }
  if (!command) {
    if (json) throw new UsageError('no command given');
    return { code: 2, lines: [USAGE] };
  }
  if (!isCommand(command)) throw new UsageError(`unknown command ${command}`);
  checkArgs(command, args);
  return COMMANDS[command].run(args);
}

// A reader that stops reading (mount-sandbox check | head -1) is not an error to report: the
// rest of the output goes nowhere, and the exit status is the command's. (Nor could a failed write
// to stdout or stderr be reported anywhere.)
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});

main(process.argv.slice(2)).then(
  (answer) => {
    // Help and --version are text, --json or not.
    if (json && answer.report !== undefined) process.stdout.write(jsonText(answer.report));
    else printText(answer);
    process.exitCode = answer.code;
  },
  (error) => {
    process.exitCode = error instanceof UsageError ? 2 : 1;
    if (json) printJsonError(error);
    else printError(error, usageFor(asked));
  },
);

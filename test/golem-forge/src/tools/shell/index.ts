// packages/cli/src/tools/shell/index.ts (new): a `shell` toolset that runs commands in the worker's
// sandbox. The CLI imports it the first time a worker lists `shell` under `toolsets`, as in the
// frontmatter `toolsets: { shell: { default: { approval: ask }, cwd: /src, env: { CI: '1' } } }`.
// Rules, input schema and approvals stay those of ../shell.ts; only the running moves.
import { BlockedError, ToolsetRegistry, type NamedTool, type ToolsetContext } from '@golem-forge/core';
import { MountSandbox } from 'mount-sandbox';
import {
  DEFAULT_TIMEOUT,
  MAX_OUTPUT_BYTES,
  ShellBlockedError,
  ShellConfigSchema,
  checkMetacharacters,
  createShellTool,
  matchShellRules,
  parseCommand,
  type ShellResult,
} from '../shell.js';

export function shellToolsetFactory(ctx: ToolsetContext): NamedTool[] {
  const sandbox = ctx.sandbox;
  if (!(sandbox instanceof MountSandbox)) {
    throw new Error('The shell toolset needs a sandbox made by mount-sandbox.');
  }
  const config = ShellConfigSchema.parse(ctx.config); // rules and default; cwd and env are ours
  const cwd = typeof ctx.config.cwd === 'string' ? ctx.config.cwd : '/';
  const env = ctx.config.env as Record<string, string> | undefined; // exec checks it
  const start = cwd === '/' ? '/workspace' : `/workspace${cwd}`;
  const refused = (stderr: string): ShellResult => ({ stdout: '', stderr, exitCode: 1, truncated: false });

  return [{
    ...createShellTool({ config }),
    description:
      'Run one command, split into words as a shell would, with no shell features ' +
      '(|, >, <, ;, &, `, $( and ${ are refused). ' +
      `The file tools' path /x is /workspace/x inside commands, which start in ${start}, ` +
      'so relative paths work unchanged.',
    execute: async (input: { command: string; timeout?: number }): Promise<ShellResult> => {
      const { command, timeout = DEFAULT_TIMEOUT } = input;
      let argv: string[];
      try {
        checkMetacharacters(command); // needsApproval let these through unasked: refuse them here
        argv = parseCommand(command);
      } catch (e) {
        if (e instanceof ShellBlockedError) return refused(e.message);
        throw e;
      }
      if (argv.length === 0) return refused('Empty command');
      if (matchShellRules(command, config.rules, config.default).approval === 'blocked') {
        throw new BlockedError('shell', `Command not allowed by the shell rules: ${command}`);
      }
      const { stdout, stderr, exitCode, truncated } = await sandbox.exec(argv, {
        cwd,
        env,
        timeoutMs: timeout * 1000,
        maxOutputBytes: MAX_OUTPUT_BYTES,
      });
      return { stdout, stderr, exitCode, truncated };
    },
  }];
}

ToolsetRegistry.register('shell', shellToolsetFactory);

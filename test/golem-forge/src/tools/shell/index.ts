// packages/cli/src/tools/shell/index.ts (new): a `shell` toolset that runs commands in the worker's
// sandbox. The CLI imports it the first time a worker lists `shell` under `toolsets`, as in the
// frontmatter `toolsets: { shell: { default: { approval: ask }, cwd: /src, env: { CI: '1' } } }`.
// Rules, input schema and approvals stay those of ../shell.ts; only the running moves.
import { BlockedError, ToolsetRegistry, type NamedTool, type ToolsetContext } from '@golem-forge/core';
import { MountSandbox, type ExecChanges } from 'mount-sandbox';
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

  // A command the rules pre-approved ran unasked: what it changed in places whose approval is
  // `ask` waited (holdAsk), and the user decides now. One the user approved lands whole.
  const settleHeld = async (changes: ExecChanges | null, command: string): Promise<string> => {
    if (changes === null || changes.pending.length === 0) return '';
    const paths = changes.pending.map((c) => c.path);
    const decision = await ctx.approvalController.requestApproval({
      toolName: 'shell',
      toolArgs: { command, changes: paths },
      description: `\`${command}\` changed files where changes need approval: ${paths.join(', ')}`,
    });
    if (!decision.approved) {
      await changes.discard();
      return `\nThe user did not approve these changes; they were dropped: ${paths.join(', ')}` +
        `${decision.note ? ` (${decision.note})` : ''}\n`;
    }
    const landed = await changes.apply();
    const refusals = [...landed.refused, ...landed.conflicts].map((c) => `${c.path} (${c.reason})`);
    const failed = refusals.length === 0 ? '' : `; these did not land: ${refusals.join('; ')}`;
    return `\nThe user approved these changes: ${landed.applied.map((c) => c.path).join(', ') || 'none'} landed${failed}\n`;
  };

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
      const { approval } = matchShellRules(command, config.rules, config.default);
      if (approval === 'blocked') {
        throw new BlockedError('shell', `Command not allowed by the shell rules: ${command}`);
      }
      const result = await sandbox.exec(argv, {
        cwd,
        env,
        timeoutMs: timeout * 1000,
        maxOutputBytes: MAX_OUTPUT_BYTES,
        holdAsk: approval === 'preApproved',
      });
      const { stdout, stderr, exitCode, truncated } = result;
      return { stdout, stderr: stderr + (await settleHeld(result.changes, command)), exitCode, truncated };
    },
  }];
}

ToolsetRegistry.register('shell', shellToolsetFactory);

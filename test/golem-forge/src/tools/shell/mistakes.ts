// Wiring mistakes the type check must catch (each line fails to compile, so a contract loose enough
// to let one through fails the check instead).
import type { ToolsetContext } from '@golem-forge/core';
import { MountSandbox } from 'mount-sandbox';
import type { ShellResult } from '../shell.js';

export async function mistakes(ctx: ToolsetContext, sandbox: MountSandbox): Promise<ShellResult[]> {
  // @ts-expect-error golem-forge's sandbox type has no exec: narrow with instanceof MountSandbox
  await ctx.sandbox?.exec(['ls']);
  // @ts-expect-error exec takes timeoutMs (milliseconds), not the tool's timeout in seconds
  await sandbox.exec(['ls'], { timeout: 30 });
  // @ts-expect-error exec takes an argv array, not the command string
  await sandbox.exec('ls -la');
  const { stdout, stderr, exitCode } = await sandbox.exec(['ls']);
  // @ts-expect-error the shell result needs truncated
  const partial: ShellResult = { stdout, stderr, exitCode };
  // @ts-expect-error exitCode is a number, never null (-1 for a signal or the timeout)
  const nullable: ShellResult = { stdout, stderr, exitCode: null, truncated: false };
  return [partial, nullable];
}

// What the wiring in ./shell/index.ts uses of golem-forge's packages/cli/src/tools/shell.ts
// (commit 8cdb671), stated here for the type check; written for it, not copied. That module runs
// commands itself (spawn, shell: false); the wiring keeps its rules, input schema and approvals and
// runs the command in the sandbox instead.
import type { NamedTool } from '@golem-forge/core';

/** The shell tool's result. */
export interface ShellResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  truncated: boolean;
}

type Approval = 'preApproved' | 'ask' | 'blocked';

/** A command that starts with `pattern` gets `approval`; the first matching rule wins. */
export interface ShellRule {
  pattern: string;
  approval: Approval;
}

/** Present: commands no rule matches get `approval`. Absent: they are blocked. */
export interface ShellDefault {
  approval: Approval;
}

/** The toolset's config, as its schema gives it back (rules default to []). */
export interface ShellConfig {
  rules: ShellRule[];
  default?: ShellDefault;
}

/** A zod object schema there; unknown keys are dropped. */
export declare const ShellConfigSchema: { parse(value: unknown): ShellConfig };

/** Refused anywhere in the command: |, >, <, ;, &, backquote, $( and ${. */
export declare const BLOCKED_METACHARACTERS: readonly ['|', '>', '<', ';', '&', '`', '$(', '${'];
/** 50 KiB per stream. */
export declare const MAX_OUTPUT_BYTES: number;
/** Seconds; the tool's input schema defaults `timeout` to it. */
export declare const DEFAULT_TIMEOUT = 30;
/** Seconds; the input schema's maximum for `timeout` (its minimum is 1, an integer). */
export declare const MAX_TIMEOUT = 300;

export declare class ShellError extends Error {
  constructor(message: string);
}

/** A command refused before running: a blocked metacharacter, or one shlex cannot split. */
export declare class ShellBlockedError extends ShellError {
  constructor(message: string);
}

/** Throws ShellBlockedError when the command holds one of BLOCKED_METACHARACTERS. */
export declare function checkMetacharacters(command: string): void;

/** shlex's split into words; throws ShellBlockedError when it cannot (an open quote). */
export declare function parseCommand(command: string): string[];

export interface MatchResult {
  approval: Approval;
  matchedRule: boolean;
}

/** Prefix match of the whole command string against the rules, then the default, else blocked. */
export declare function matchShellRules(
  command: string,
  rules: ShellRule[],
  defaultConfig?: ShellDefault,
): MatchResult;

export interface ShellToolOptions {
  config?: ShellConfig;
  /** A host directory for the spawned command (unused once commands run in the sandbox). */
  workingDir?: string;
  env?: Record<string, string>;
}

/**
 * The `shell` tool: input `{ command: string, timeout: integer seconds, 1 to MAX_TIMEOUT,
 * default DEFAULT_TIMEOUT }`; needsApproval from the rules (true for 'ask'; false for
 * 'preApproved', and for 'blocked' and unparsable commands, which execute refuses).
 */
export declare function createShellTool(options?: ShellToolOptions): NamedTool;

// Content search (grep) and glob: their options and results.
// Part of the main entry's declarations: lib/index.d.ts re-exports every name.

import type { ExecAbortSignal } from './exec.js';

export interface GrepOptions {
  /**
   * A directory (or one file) to search, virtual.
   * @default '/'
   */
  path?: string;
  /** @default false */
  literal?: boolean;
  /** @default false */
  ignoreCase?: boolean;
  /** Globs of files to search: without a "/" matched against names at any depth. */
  include?: string | string[];
  /** Globs of files and directories to pass over. */
  exclude?: string | string[];
  /**
   * Lines before and after each match, 0 to 20.
   * @default 0
   */
  context?: number;
  /**
   * Matches returned at most, 1 to 100000.
   * @default 1000
   */
  maxResults?: number;
  /**
   * Each line is cut to this many bytes.
   * @default 400
   */
  maxLineBytes?: number;
  /**
   * Honour .gitignore and .ignore files as ripgrep does.
   * @default false
   */
  gitignore?: boolean;
  /**
   * Search entries whose names start with ".".
   * @default false
   */
  hidden?: boolean;
  /**
   * Bytes read at most in all.
   * @default 2 ** 30
   */
  maxBytes?: number;
  /**
   * CPU time the search may take, over all its threads, in milliseconds.
   * @default 30000
   */
  maxCpuMs?: number;
  signal?: ExecAbortSignal;
}

export interface GrepLine {
  line: number;
  text: string;
  /** Present (true) when the line was cut to maxLineBytes. */
  cut?: true;
}

export interface GrepMatch extends GrepLine {
  path: string;
  before: GrepLine[];
  after: GrepLine[];
}

export interface GrepResult {
  /** By path, then line. */
  matches: GrepMatch[];
  filesSearched: number;
  bytesSearched: number;
  skippedBinary: number;
  /** Files the sandbox refused to read (a suffix, a size, a link out of it). */
  skippedRefused: number;
  /** Why the search stopped before the end, or null. */
  truncated: null | 'results' | 'bytes' | 'cpu' | 'entries' | 'cancelled';
}

export interface GlobResult {
  paths: string[];
  /** More paths matched than `limit`, or the walk stopped at a bound (entries, depth, work). */
  truncated: boolean;
}

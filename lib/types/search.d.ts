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
  /**
   * Only matches with no word character (`\w`, Unicode) just before or after them (ripgrep's -w).
   * @default false
   */
  word?: boolean;
  /**
   * The lines without a match instead (ripgrep's -v).
   * @default false
   */
  invert?: boolean;
  /**
   * Only files of these types, by ripgrep's names for them (its -t): `'js'` is `*.js`, `*.mjs`,
   * `*.cjs`, `*.jsx` and `*.vue`. docs/api.md lists every name and its globs.
   */
  type?: string | string[];
  /**
   * What to return: `'lines'` (`matches`), `'files'` (the files with a match, ripgrep's -l) or
   * `'count'` (the matching lines of each such file, -c), both in `files`.
   * @default 'lines'
   */
  output?: 'lines' | 'files' | 'count';
  /**
   * Give each match its `spans`: where in `text` the pattern matched (ripgrep's --column and -o).
   * @default false
   */
  spans?: boolean;
  /** Globs of files to search: without a "/" matched against names at any depth. */
  include?: string | string[];
  /** Globs of files and directories to pass over. */
  exclude?: string | string[];
  /**
   * Lines before and after each match, 0 to 20.
   * @default 0
   */
  context?: number;
  /** Lines before each match, 0 to 20 (ripgrep's -B); unset, `context`. */
  before?: number;
  /** Lines after each match, 0 to 20 (ripgrep's -A); unset, `context`. */
  after?: number;
  /** Matching lines returned at most per file, 1 to 100000 (ripgrep's -m); unset, no bound. */
  maxCount?: number;
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
   * Honour ignore files as ripgrep does: .gitignore files and .git/info/exclude inside a git
   * repository (a nested repository starts afresh), .ignore files anywhere. As ripgrep, on unless
   * turned off.
   * @default true
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
  /**
   * Threads the files are shared among, 1 to 16 (MAX_GREP_THREADS); unset, the machine's cores.
   * Each holds at most GREP_BYTES_PER_THREAD of a file: files are read in chunks, never whole.
   */
  threads?: number;
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
  /**
   * With `spans: true`: each match in the line, left to right, as offsets into `text`
   * (`text.slice(start, end)` is the match); a word search's without the characters around it.
   */
  spans?: { start: number; end: number }[];
}

export interface GrepFile {
  path: string;
  /** With output `'count'`: the file's matching lines (with `invert`, its lines without one). */
  count?: number;
}

export interface GrepResult {
  /** By path, then line; empty with output `'files'` or `'count'`. */
  matches: GrepMatch[];
  /** By path, with output `'files'` or `'count'` (`maxResults` bounds them); empty otherwise. */
  files: GrepFile[];
  filesSearched: number;
  bytesSearched: number;
  /**
   * Files a NUL byte stopped the search of (binary data). Files are read in 256 KiB chunks: as
   * ripgrep does with its buffers, the matches in the chunks before the one holding the NUL are
   * in `matches`, nothing from that chunk on is searched.
   */
  skippedBinary: number;
  /** Files the sandbox refused to read (a suffix, a size, a link out of it). */
  skippedRefused: number;
  /** Files left at a line longer than 16 MiB: the rest of each was not searched. */
  skippedLongLines: number;
  /**
   * Lines of non-ASCII text that a pattern with `\b` or `\B` may match, on which PCRE2, which
   * decides them, reached its step bound: counted as not matching. 0 but for patterns that
   * backtrack without end.
   */
  undecidedLines: number;
  /** Why the search stopped before the end, or null. */
  truncated: null | 'results' | 'bytes' | 'cpu' | 'entries' | 'cancelled';
}

/** What one search thread holds of a file at most: a 256 KiB chunk and a line it cut (16 MiB). */
export declare const GREP_BYTES_PER_THREAD: number;
/** A line longer than this (16 MiB) ends its file's search (`skippedLongLines`). */
export declare const GREP_LINE_BOUND: number;
/** The most threads one search may use. */
export declare const MAX_GREP_THREADS: number;

export interface GlobResult {
  paths: string[];
  /** More paths matched than `limit`, or the walk stopped at a bound (entries, depth, work). */
  truncated: boolean;
}

// The file API: what read, write, list and stat take and give (FileOperations, merged into
// MountSandbox), and attachments.
// Part of the main entry's declarations: lib/index.d.ts re-exports every name.

export interface FileStat {
  /** The virtual path exactly as the caller passed it. */
  path: string;
  size: number;
  createdAt: Date;
  modifiedAt: Date;
  isDirectory: boolean;
  /**
   * What is there, as the descriptor the path resolved to says: a FIFO, socket or device is
   * reported as one, never as a file.
   */
  type: 'file' | 'directory' | 'symlink' | 'fifo' | 'socket' | 'character-device' | 'block-device' | 'unknown';
  /**
   * Opaque (16 hex digits): changes whenever the file is replaced or changed in place, and only
   * then. Compare it for equality, or hand it to write, writeBinary or edit as `ifVersion`.
   */
  version: string;
}

export interface DirectoryEntry {
  name: string;
  type: 'file' | 'directory' | 'symlink' | 'other' | 'unknown';
}

export interface WriteOptions {
  /**
   * A version from stat(): the write (or edit) is made only if the file still has it, else it
   * rejects with ConflictError and changes nothing. A file deleted since is a conflict too.
   */
  ifVersion?: string;
}

export interface ReadRange {
  /** Byte offset to start at. */
  offset?: number;
  /** Most bytes to return. Default: to the end (within the read limit). */
  length?: number;
}

export interface FileOperations {
  /** Read a file as UTF-8 (invalid sequences become U+FFFD); with a range, that part of it. */
  read(path: string, range?: ReadRange): Promise<string>;
  readBinary(path: string, range?: ReadRange): Promise<Uint8Array>;
  /** Atomically replace the file (temp file + rename), creating parent directories. */
  write(path: string, content: string, options?: WriteOptions): Promise<void>;
  /** Any ArrayBuffer view is accepted; one over a SharedArrayBuffer is copied before the call. */
  writeBinary(path: string, content: Uint8Array, options?: WriteOptions): Promise<void>;
  /** Delete a file or symlink (never a directory, never a symlink's target). */
  delete(path: string): Promise<void>;
  /** False only when nothing is there; invalid or escaping paths reject. */
  exists(path: string): Promise<boolean>;
  /** Entry names, sorted; mount points appear in the directories that hold them. */
  list(path: string, options?: { withTypes?: false }): Promise<string[]>;
  /**
   * Each entry with its type as the directory records it (no stat per entry): 'other' is a FIFO,
   * socket or device, 'unknown' where the filesystem does not say; a mount point is a directory.
   */
  list(path: string, options: { withTypes: true }): Promise<DirectoryEntry[]>;
  stat(path: string): Promise<FileStat>;
  /** The host path a virtual path maps to, computed lexically (for display and git tools). */
  resolve(path: string): string;
  isValidPath(path: string): boolean;
}

export interface AttachmentPolicy {
  max_attachments?: number;
  max_total_bytes?: number;
  allowed_suffixes?: string[];
  denied_suffixes?: string[];
}

export interface Attachment {
  /** The file name (last path component). */
  name: string;
  /** The virtual path it was read from. */
  path: string;
  mimeType: string;
  data: Uint8Array;
  /** The contents as UTF-8, for textual media types. */
  text?: string;
}

export declare const DEFAULT_ATTACHMENT_POLICY: Readonly<Required<AttachmentPolicy>>;

/** One CLI command. Each lives in its own file under electron/cli/commands/ and is listed in index.ts. */
export interface CliCommand {
  /** Full text for `flipbook <name> --help`. */
  help: string;
  /** Returns the process exit code: 0 ok, 1 runtime failure, 2 usage error. */
  run(argv: string[]): Promise<number>;
}

/** Thrown for bad command-line usage; main() prints it with the command's help and exits 2. */
export class UsageError extends Error {}

/** A command as index.ts lists it: what `flipbook --help` shows, and how to load the rest. */
export interface CliCommandEntry {
  name: string;
  /** One line for `flipbook --help`. */
  summary: string;
  load(): Promise<CliCommand>;
}

import { commands } from './commands/index';
import { UsageError } from './command';
import { clipMessage } from '../../shared/api/clip';

function usage(): string {
  const width = Math.max(...commands.map((c) => c.name.length), 8);
  const lines = commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return ['Usage: flipbook <command> [options]', '', 'Commands:', ...lines, '', 'Run `flipbook <command> --help` for the options of one command.'].join('\n');
}

/** Every command's name (bin/flipbook.js keeps a code cache only for these). */
export const commandNames: readonly string[] = commands.map((c) => c.name);

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(usage());
    return name ? 0 : 2;
  }
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    console.error(`flipbook: unknown command '${clipMessage(name, 100)}'\n\n${usage()}`);
    return 2;
  }
  const cmd = await entry.load();
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(cmd.help);
    return 0;
  }
  try {
    return await cmd.run(rest);
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`flipbook ${name}: ${clipMessage(err.message)}\n\n${cmd.help}`);
      return 2;
    }
    console.error(`flipbook ${name}: ${clipMessage(err instanceof Error ? err.message : String(err))}`);
    return 1;
  }
}

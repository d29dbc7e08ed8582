/** A password prompt on the terminal, without echo (the password is never stored). */
import readline from 'node:readline';

export function promptPassword(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    const out = rl as unknown as { _writeToOutput: (s: string) => void };
    let asked = false;
    out._writeToOutput = (s: string) => {
      // Write the question once; swallow the echo of what is typed.
      if (!asked) {
        asked = true;
        process.stderr.write(s);
      }
    };
    rl.question(question, (answer) => {
      process.stderr.write('\n');
      rl.close();
      resolve(answer);
    });
    rl.on('SIGINT', () => {
      rl.close();
      reject(new Error('password prompt cancelled'));
    });
  });
}

/**
 * Electron's main process, as far as the backend goes (electron/shell/main.ts): this thread
 * imports only backend-client.ts, so the store is first loaded in the backend thread, as in
 * the app. Usage: node --import tsx main-child.ts PROJECT; prints one JSON line, the outcome of
 * opening PROJECT there.
 */
import { startBackendHost } from '../../../electron/host/backend-client';

const file = process.argv[2] ?? '';
const client = startBackendHost({ recent: [], annotator: '' }, { emit: () => undefined, pickPaths: async () => [], recentAdded: () => undefined, annotatorSet: () => undefined });
try {
  await client.open(file);
  console.log(JSON.stringify({ opened: true }));
} catch (e) {
  console.log(JSON.stringify({ opened: false, message: (e as Error).message }));
}
await client.close();

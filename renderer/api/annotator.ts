/**
 * The annotator's name, asked once per machine: Electron keeps it in a settings file in the
 * user-data folder (annotator:get/set); the web mode keeps it in this browser's localStorage.
 */
import type { FlipbookClient } from '../../shared/api/client';

const KEY = 'flipbook.annotator';

export async function loadAnnotator(client: FlipbookClient): Promise<string | null> {
  if (client.transport === 'http') return window.localStorage.getItem(KEY);
  const r = await client.call('annotator:get', {});
  return r.ok ? r.value : null;
}

export async function saveAnnotator(client: FlipbookClient, name: string): Promise<string> {
  const clean = name.trim();
  if (client.transport === 'http') {
    window.localStorage.setItem(KEY, clean);
    return clean;
  }
  const r = await client.call('annotator:set', { name: clean });
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

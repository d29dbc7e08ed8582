/**
 * The annotator's name, kept by Flipbook on this machine (its settings file beside the recent
 * projects, in both the desktop app and `flipbook serve`) — never in the browser, whose storage
 * is per origin and so lost with every new web-mode port.
 */
import type { FlipbookClient } from '../../shared/api/client';

export async function loadAnnotator(client: FlipbookClient): Promise<string | null> {
  const r = await client.call('annotator:get', {});
  return r.ok ? r.value : null;
}

export async function saveAnnotator(client: FlipbookClient, name: string): Promise<string> {
  const r = await client.call('annotator:set', { name: name.trim() });
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

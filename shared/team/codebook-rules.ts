/**
 * What makes a codebook usable in the tagging panel: stable unique ids, a label, and a key
 * per pathway that is one character, unique (case-insensitively: `x` toggles, `Shift+X`
 * sets the primary) and not already an app shortcut. RESERVED_KEYS mirrors the single-key
 * entries of renderer/shortcuts.ts (a test keeps the two equal); it lives here because the
 * backend validates imported codebooks too and may not import the renderer.
 */
export const RESERVED_KEYS: readonly string[] = [
  '?',
  '/',
  'j',
  'k',
  'q',
  ' ',
  '.',
  ',',
  ']',
  '[',
  'f',
  'y',
  'i',
  'e',
  'w',
  'a',
  '1',
  '2',
  '3',
  '4',
  '5',
  'v',
  'b',
  's',
  '=',
  '+',
  '-',
  '0',
];

export interface CodebookLike {
  id: string;
  pathways: readonly { id: string; label: string; shortcut?: string | null }[];
}

/** Human-readable problems (empty when the codebook is fine), each naming the pathway and field. */
export function codebookProblems(cb: CodebookLike, reserved: readonly string[] = RESERVED_KEYS): string[] {
  const out: string[] = [];
  if (cb.id.trim() === '') out.push('codebook id: empty');
  const ids = new Map<string, number>();
  const keys = new Map<string, string>();
  cb.pathways.forEach((p, i) => {
    const where = `pathway ${i + 1}${p.id ? ` (${p.id})` : ''}`;
    if (!/^[a-z0-9][a-z0-9_-]*$/i.test(p.id)) out.push(`${where} id: use letters, digits, - or _ (got "${p.id}")`);
    const seen = ids.get(p.id);
    if (seen !== undefined) out.push(`${where} id: same as pathway ${seen + 1}`);
    else ids.set(p.id, i);
    if (p.label.trim() === '') out.push(`${where} label: empty`);
    const key = p.shortcut ?? '';
    if (key === '') return;
    if ([...key].length !== 1 || /\s/.test(key)) {
      out.push(`${where} key: one character, got "${key}"`);
      return;
    }
    const k = key.toLowerCase();
    if (reserved.includes(k)) out.push(`${where} key: "${key}" is already an app shortcut`);
    const owner = keys.get(k);
    if (owner !== undefined) out.push(`${where} key: "${key}" is already the key of ${owner}`);
    else keys.set(k, p.id);
  });
  return out;
}

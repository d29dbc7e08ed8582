/**
 * Option lists as result tables store them: a JSON array, a Python list literal
 * (`['A. x', "B. it's"]`, what pandas writes for a list cell), or one option per line.
 * Returns null when the text is none of these.
 */
export function parseListLiteral(text: string): string[] | null {
  const t = text.trim();
  if (t.startsWith('[')) {
    try {
      const v: unknown = JSON.parse(t);
      if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
    } catch {
      // not JSON: try the Python literal below
    }
    return parsePythonList(t);
  }
  if (t.includes('\n'))
    return t
      .split('\n')
      .map((s) => s.trim())
      .filter(Boolean);
  return null;
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"' };

function parsePythonList(t: string): string[] | null {
  const out: string[] = [];
  let i = 1;
  const skipWs = (): void => {
    while (i < t.length && /\s/.test(t[i] as string)) i++;
  };
  skipWs();
  if (t[i] === ']') return i === t.length - 1 ? out : null;
  for (;;) {
    skipWs();
    const q = t[i];
    if (q !== "'" && q !== '"') return null;
    i++;
    let s = '';
    while (i < t.length && t[i] !== q) {
      if (t[i] === '\\' && i + 1 < t.length) {
        const e = t[i + 1] as string;
        s += ESCAPES[e] ?? `\\${e}`;
        i += 2;
      } else {
        s += t[i];
        i++;
      }
    }
    if (t[i] !== q) return null;
    i++;
    out.push(s);
    skipWs();
    if (t[i] === ',') {
      i++;
      skipWs();
      if (t[i] === ']') return i === t.length - 1 ? out : null;
      continue;
    }
    if (t[i] === ']') return i === t.length - 1 ? out : null;
    return null;
  }
}

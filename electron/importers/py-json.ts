/**
 * JSON as Python writes it. `json.dump` (and pandas' `to_json` for some dtypes) writes a float
 * that is not a number as the bare tokens `NaN`, `Infinity` and `-Infinity`, which strict JSON
 * (and `JSON.parse`) refuses. Result files of VLMEvalKit, MLVU and lmms-eval carry them for
 * missing scores and predictions, so every JSON reader of the importers goes through here and
 * reads those tokens as missing values (null) — docs/formats.md "Python's JSON".
 */

/** True when `text` may hold a bare NaN/Infinity token (cheap pre-check). */
function mayHoldPythonFloats(text: string): boolean {
  return text.includes('NaN') || text.includes('Infinity');
}

/**
 * `text` with every bare `NaN`, `Infinity`, `-Infinity` outside strings replaced by `null`.
 * No newline is added or removed, so line numbers of the result are the source's.
 */
export function nullPythonFloats(text: string): string {
  if (!mayHoldPythonFloats(text)) return text;
  let out = '';
  let from = 0;
  let inStr = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inStr) {
      if (c === 92)
        i++; // backslash: skip the escaped char
      else if (c === 34) inStr = false;
      continue;
    }
    if (c === 34) {
      inStr = true;
      continue;
    }
    let len = 0;
    if (c === 78 && text.startsWith('NaN', i)) len = 3;
    else if (c === 73 && text.startsWith('Infinity', i)) len = 8;
    else if (c === 45 && text.startsWith('-Infinity', i)) len = 9;
    if (len === 0) continue;
    // A token, not part of a longer bare word (which JSON.parse rejects anyway).
    const after = text[i + len];
    if (after !== undefined && /[A-Za-z0-9_]/.test(after)) continue;
    out += text.slice(from, i) + 'null';
    i += len - 1;
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** JSON.parse that reads Python's bare NaN/Infinity/-Infinity as null. */
export function parsePythonJson(text: string): unknown {
  return JSON.parse(nullPythonFloats(text));
}

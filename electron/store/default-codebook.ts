/** The default codebook a new project starts with: assets/codebook.json (FLIPBOOK_ASSETS_DIR overrides the folder). */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { codebookSchema, type Codebook } from '../../shared/domain/annotations';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ASSETS_DIR = process.env.FLIPBOOK_ASSETS_DIR ?? path.resolve(HERE, '../../assets');

/** assets/codebook.json when present and valid; otherwise null (an empty codebook). */
export function loadDefaultCodebook(file = path.join(ASSETS_DIR, 'codebook.json')): Codebook | null {
  try {
    const parsed = codebookSchema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

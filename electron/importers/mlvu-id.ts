import { createHash } from 'node:crypto';
import { basename, extname } from 'node:path';

/**
 * The sample id of an MLVU question that has no id of its own: `<video stem>#<first 8 hex
 * of sha1(question)>`. MLVU asks the same question of several videos and its files carry
 * no question id, so metadata, MLVU's own outputs and lmms-eval logs key the same question
 * the same way without sharing a row order (docs/formats.md "MLVU").
 */
export function mlvuSampleId(video: string, question: string): string {
  const h = createHash('sha1').update(question).digest('hex').slice(0, 8);
  return `${basename(video, extname(video))}#${h}`;
}

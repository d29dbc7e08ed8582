import { compareCodePoints } from './format';

/**
 * Code-point ranks of a set of strings: sorting rows by a few integer ranks is far cheaper
 * than comparing their strings pairwise (145k rows × 4 key columns), and gives the same order.
 */
export function codePointRanks(values: Iterable<string>): Map<string, number> {
  const unique = [...new Set(values)].sort(compareCodePoints);
  const ranks = new Map<string, number>();
  unique.forEach((v, i) => ranks.set(v, i));
  return ranks;
}

/** Indices 0…n−1 sorted by the integer key columns given (lexicographic over the columns). */
export function sortedOrder(n: number, columns: readonly Int32Array[] | readonly number[][]): Uint32Array {
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => {
    for (const col of columns) {
      const d = (col[a] as number) - (col[b] as number);
      if (d !== 0) return d;
    }
    return a - b;
  });
  return order;
}

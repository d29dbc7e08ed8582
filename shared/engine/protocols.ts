/**
 * Protocols (docs/metrics.md §6): a config's `@variant` (sampling policy, raw or cached
 * pipeline, subtitles, seed) names the protocol it was run under; the rest of its key is its
 * budget. Every headline number is computed on the main protocol's grid alone, so it does not
 * depend on which variant files sit beside it; the variants are compared with it instead —
 * protocol agreement (which items change membership of the confused, terminal-regression and
 * text-overwrite sets) and sampling recovery (which of the main grid's terminal regressions a
 * variant answers correctly).
 */
import type { ConfigSpec, ResponseMatrix } from '../domain/types';
import { compareCodePoints, parseConfigKey } from './config';
import { assertKind } from './grid-plan';
import { gridFlags, type GridFlags } from './mcqa';
import { configIndex } from './matrix';

/** The project setting naming the main protocol ('' = the configs without a variant tag). */
export const MAIN_PROTOCOL_SETTING = 'mainProtocol';

/** The protocol of a config key: its variant, or '' for a key without one. */
export function protocolOf(key: string): string {
  return parseConfigKey(key).variant ?? '';
}

/** The budget part of a key (`64f_151k@random` → `64f_151k`, `textonly@subs` → `textonly`). */
export function budgetOf(key: string): string {
  const at = key.indexOf('@');
  return at < 0 ? key : key.slice(0, at);
}

/** A protocol as people write it: `untagged` (or '') → '', `@random` / `random` → 'random'. */
export function protocolName(value: string): string {
  const t = value.trim();
  // '' needs no case of its own: it has no '@' to drop, so it comes back as ''.
  if (t === 'untagged') return '';
  return t.startsWith('@') ? t.slice(1) : t;
}

/** How a protocol is written for people: `@random`, or `untagged` for ''. */
export function protocolLabel(protocol: string): string {
  return protocol === '' ? 'untagged' : `@${protocol}`;
}

/**
 * The configs of `protocol`'s grid among a grid's configs, in their given order: the configs
 * tagged with it, and — when it has no text-only config of its own — the untagged text only,
 * which no sampling policy or pipeline can change (it sees no frame).
 */
export function protocolConfigs<T extends Pick<ConfigSpec, 'key' | 'frames'>>(configs: readonly T[], protocol: string): T[] {
  const own = (c: T) => protocolOf(c.key) === protocol;
  // No `protocol === ''` shortcut needed: for '' the untagged text only is its own config, so
  // the lines below already give exactly its own configs.
  if (configs.some((c) => c.frames === 0 && own(c))) return configs.filter(own);
  if (!configs.some(own)) return [];
  return configs.filter((c) => own(c) || (c.frames === 0 && protocolOf(c.key) === ''));
}

/**
 * The main grid of one (model, split): `protocol`'s configs, or none when the protocol has no
 * visual config there while other protocols do (a lone text-only column is not a grid of it).
 */
export function mainConfigs<T extends Pick<ConfigSpec, 'key' | 'frames'>>(configs: readonly T[], protocol: string): T[] {
  const mine = protocolConfigs(configs, protocol);
  if (mine.some((c) => c.frames > 0) || !configs.some((c) => c.frames > 0)) return mine;
  return [];
}

/** The protocols of a grid: '' first when present, then tags in code-point order. */
export function protocolsOf(keys: Iterable<string>): string[] {
  const set = new Set<string>();
  for (const k of keys) set.add(protocolOf(k));
  return [...set].sort(compareCodePoints);
}

/**
 * The main protocol when the project sets none: the untagged one when any visual config is
 * untagged; otherwise the tag with the most visual configs (ties: code-point order), so a
 * project holding only subtitled runs still has a main grid.
 */
export function defaultMainProtocol(keys: Iterable<string>): string {
  const visual = new Map<string, number>();
  for (const k of keys) {
    const p = parseConfigKey(k);
    if (p.frames === 0) continue;
    const tag = p.variant ?? '';
    visual.set(tag, (visual.get(tag) ?? 0) + 1);
  }
  if (visual.size === 0 || visual.has('')) return '';
  return [...visual].sort((a, b) => b[1] - a[1] || compareCodePoints(a[0], b[0]))[0]![0];
}

/** Fields of ConfigSpec in which a variant's configs differ from the main configs of the same budget. */
export type ProtocolDifference = 'sampling policy' | 'sampling seed' | 'cache fps' | 'pipeline';

function differences(variant: readonly ConfigSpec[], main: readonly ConfigSpec[]): ProtocolDifference[] {
  const byBudget = new Map(main.map((c) => [budgetOf(c.key), c] as const));
  const out = new Set<ProtocolDifference>();
  for (const v of variant) {
    const m = byBudget.get(budgetOf(v.key));
    if (!m || v.frames === 0) continue;
    const known = <T>(a: T | null, b: T | null) => a !== null && b !== null && a !== b;
    if (known(v.sampling.policy, m.sampling.policy)) out.add('sampling policy');
    if (known(v.sampling.seed, m.sampling.seed)) out.add('sampling seed');
    if (known(v.sampling.fps, m.sampling.fps)) out.add('cache fps');
    if (known(v.pipeline, m.pipeline)) out.add('pipeline');
  }
  return [...out];
}

/** One protocol's grid, on its own complete items (docs/metrics.md §2 rates). */
export interface ProtocolSide {
  protocol: string;
  configs: string[];
  n: number;
  nExcluded: number;
  terminalConfig: string | null;
  visualConfusionRate: number;
  terminalRegressionRate: number;
  /** null when the grid has no text-only config. */
  textOverwriteRate: number | null;
  counts: { visuallyConfused: number; terminalRegressions: number; textOverwritten: number };
}

/** Membership of one item set under the two protocols, on the items complete in both. */
export interface MembershipChange {
  /** In the main protocol's set only (sample-id order). */
  onlyMain: string[];
  /** In the variant's set only. */
  onlyVariant: string[];
  both: number;
  /** both / (both + onlyMain + onlyVariant); null when both sets are empty. */
  jaccard: number | null;
}

export const MEMBERSHIP_SETS = ['confused', 'terminalRegression', 'textOverwritten'] as const;
export type MembershipSet = (typeof MEMBERSHIP_SETS)[number];

export interface ProtocolAgreement {
  /** The budgets both protocols have (text only included when both have it), in main config order. */
  budgets: string[];
  main: ProtocolSide;
  variant: ProtocolSide;
  /** Items complete in both grids: membership is compared on these. */
  nCommon: number;
  confused: MembershipChange;
  terminalRegression: MembershipChange;
  /** null when the grids have no text-only config. */
  textOverwritten: MembershipChange | null;
}

export interface SamplingRecovery {
  /** The main grid's terminal config. */
  terminalConfig: string | null;
  /** Configs of the other protocol(s) with the terminal's frames and pixels per frame. */
  alternatives: string[];
  /** Items complete on the main grid with a cell in every alternative. */
  n: number;
  /** The main grid's terminal regressions among those items. */
  regressions: number;
  recovered: number;
  /** recovered / regressions; null when there is no alternative or no regression. */
  recoveryRate: number | null;
  /** The recovered items (sample-id order). */
  recoveredItems: string[];
  /** Why the rate is null, if it is. */
  note: string | null;
}

export interface ProtocolComparison {
  protocol: string;
  /** The protocol's grid (its configs, plus the shared text only when it has none). */
  configs: string[];
  /** What the configs' provenance says differs from the main configs of the same budgets. */
  differsIn: ProtocolDifference[];
  agreement: ProtocolAgreement | null;
  /** Why there is no agreement (no budget in common with the main grid). */
  agreementNote: string | null;
  recovery: SamplingRecovery;
}

export interface ProtocolReport {
  model: string;
  split: string;
  main: string;
  mainConfigs: string[];
  variants: ProtocolComparison[];
  /** Of the main grid's terminal regressions, those correct under at least one other protocol (docs/metrics.md §6). */
  anyRecovery: SamplingRecovery | null;
}

function side(m: ResponseMatrix, protocol: string, f: GridFlags): ProtocolSide {
  const n = f.rows.length;
  let c = 0;
  let t = 0;
  let o = 0;
  for (let r = 0; r < n; r++) {
    c += f.confused[r]!;
    t += f.terminalRegression[r]!;
    o += f.textOverwritten[r]!;
  }
  const hasText = f.plan.textPos >= 0;
  return {
    protocol,
    configs: f.plan.keys.slice(),
    n,
    nExcluded: f.nExcluded,
    terminalConfig: f.plan.keys[f.plan.terminalPos] ?? null,
    visualConfusionRate: c / n,
    terminalRegressionRate: t / n,
    textOverwriteRate: hasText ? o / n : null,
    counts: { visuallyConfused: c, terminalRegressions: t, textOverwritten: o },
  };
}

function membership(m: ResponseMatrix, pairs: readonly [number, number][], fa: Uint8Array, fb: Uint8Array, rowsA: Int32Array): MembershipChange {
  const onlyMain: string[] = [];
  const onlyVariant: string[] = [];
  let both = 0;
  for (const [a, b] of pairs) {
    const x = fa[a] === 1;
    const y = fb[b] === 1;
    if (x && y) both++;
    else if (x) onlyMain.push(m.itemIds[rowsA[a]!]!);
    else if (y) onlyVariant.push(m.itemIds[rowsA[a]!]!);
  }
  const union = both + onlyMain.length + onlyVariant.length;
  const byId = (p: string, q: string) => compareCodePoints(p, q);
  return { onlyMain: onlyMain.sort(byId), onlyVariant: onlyVariant.sort(byId), both, jaccard: union === 0 ? null : both / union };
}

/** Protocol agreement on the budgets two grids share, or null when they share no visual budget. */
function agreementOf(m: ResponseMatrix, main: string, mainGrid: readonly ConfigSpec[], protocol: string, varGrid: readonly ConfigSpec[]): ProtocolAgreement | null {
  const varBudgets = new Set(varGrid.map((c) => budgetOf(c.key)));
  const mainBudgets = new Set(mainGrid.map((c) => budgetOf(c.key)));
  const a = mainGrid.filter((c) => varBudgets.has(budgetOf(c.key)));
  const b = varGrid.filter((c) => mainBudgets.has(budgetOf(c.key)));
  if (!a.some((c) => c.frames > 0)) return null;
  const fa = gridFlags(
    m,
    a.map((c) => c.key),
  );
  const fb = gridFlags(
    m,
    b.map((c) => c.key),
  );
  // Rows of both grids are matrix rows in ascending order: one merge pairs the common ones
  // (a lookup by row gives the same pairs, but made the comparison ~1.3× slower at 20,000 items).
  const pairs: [number, number][] = [];
  for (let i = 0, j = 0; i < fa.rows.length && j < fb.rows.length;) {
    const x = fa.rows[i]!;
    const y = fb.rows[j]!;
    if (x === y) pairs.push([i++, j++]);
    else if (x < y) i++;
    else j++;
  }
  // Both grids are cut to the shared budgets, so B has text only exactly when A has.
  const hasText = fa.plan.textPos >= 0;
  return {
    budgets: fa.plan.keys.map(budgetOf),
    main: side(m, main, fa),
    variant: side(m, protocol, fb),
    nCommon: pairs.length,
    confused: membership(m, pairs, fa.confused, fb.confused, fa.rows),
    terminalRegression: membership(m, pairs, fa.terminalRegression, fb.terminalRegression, fa.rows),
    textOverwritten: hasText ? membership(m, pairs, fa.textOverwritten, fb.textOverwritten, fa.rows) : null,
  };
}

/** Sampling recovery (docs/metrics.md §6) of the main grid's terminal regressions by `alternatives`. */
function recoveryOf(m: ResponseMatrix, main: GridFlags, terminal: ConfigSpec, alternatives: readonly ConfigSpec[]): SamplingRecovery {
  const alts = alternatives.map((c) => c.key);
  const base = { terminalConfig: terminal.key, alternatives: alts };
  if (alternatives.length === 0) {
    const note = `no config of this protocol has the terminal ${terminal.key}'s frames and pixels per frame`;
    return { ...base, n: 0, regressions: 0, recovered: 0, recoveryRate: null, recoveredItems: [], note };
  }
  const C = m.configs.length;
  const cols = alts.map((k) => configIndex(m, k));
  let n = 0;
  let regressions = 0;
  const recoveredItems: string[] = [];
  for (let r = 0; r < main.rows.length; r++) {
    const at = main.rows[r]! * C;
    let complete = true;
    let correct = false;
    for (const c of cols) {
      const v = m.correct[at + c]!;
      if (v === -1) complete = false;
      else if (v === 1) correct = true;
    }
    if (!complete) continue;
    n++;
    if (main.terminalRegression[r] !== 1) continue;
    regressions++;
    if (correct) recoveredItems.push(m.itemIds[main.rows[r]!]!);
  }
  recoveredItems.sort(compareCodePoints);
  return {
    ...base,
    n,
    regressions,
    recovered: recoveredItems.length,
    recoveryRate: regressions > 0 ? recoveredItems.length / regressions : null,
    recoveredItems,
    note: regressions > 0 ? null : 'the main grid has no terminal regression on these items',
  };
}

const sameBudget = (a: ConfigSpec, b: ConfigSpec) => a.frames === b.frames && a.pixelCount === b.pixelCount;

/**
 * Every protocol of one MCQA (model, split) matrix holding all its configs, compared with the
 * main protocol's grid. Returns null when the main protocol has no grid here.
 */
export function compareProtocols(m: ResponseMatrix, main: string): ProtocolReport | null {
  assertKind(m, 'mcqa', 'protocol comparison');
  const mainGrid = mainConfigs(m.configs, main);
  if (mainGrid.length === 0) return null;
  const fMain = gridFlags(
    m,
    mainGrid.map((c) => c.key),
  );
  // A non-empty grid always has a terminal config (config.ts terminalConfig). mainConfigs gives a
  // grid with a visual config whenever the matrix has one, so when a variant with a visual config
  // is compared below, the terminal is visual.
  const terminal = fMain.plan.specs[fMain.plan.terminalPos]!;
  const others = protocolsOf(m.configs.map((c) => c.key)).filter((p) => p !== main);
  const variants: ProtocolComparison[] = [];
  const allAlternatives: ConfigSpec[] = [];
  for (const p of others) {
    const grid = protocolConfigs(m.configs, p);
    if (!grid.some((c) => c.frames > 0)) continue;
    // The terminal is visual here, so a config of its frames is visual too.
    const alternatives = grid.filter((c) => sameBudget(c, terminal));
    allAlternatives.push(...alternatives);
    const agreement = agreementOf(m, main, mainGrid, p, grid);
    variants.push({
      protocol: p,
      configs: grid.map((c) => c.key),
      differsIn: differences(grid, mainGrid),
      agreement,
      agreementNote: agreement ? null : `no visual budget in common with the main grid (${protocolLabel(p)} has ${grid.map((c) => c.key).join(', ')})`,
      recovery: recoveryOf(m, fMain, terminal, alternatives),
    });
  }
  return {
    model: m.model,
    split: m.split,
    main,
    mainConfigs: fMain.plan.keys.slice(),
    variants,
    anyRecovery: variants.length > 0 ? recoveryOf(m, fMain, terminal, allAlternatives) : null,
  };
}

// A config spec written out field by field, for tests to compare with what the code builds
// (the store's and the importers' tests): written by hand, so it is no copy of the code's own.
import type { ConfigSpec } from '../shared/domain/types';

/** The spec of `key` with every protocol field unset; `extra` sets the rest. */
export function config(key: string, frames: number, pixelCount: number | null = frames === 0 ? 0 : 150528, extra: Partial<ConfigSpec> = {}): ConfigSpec {
  return {
    key,
    frames,
    pixelCount,
    width: null,
    height: null,
    sampling: { policy: null, seed: null, fps: null },
    pipeline: null,
    toolkit: null,
    modelArgs: null,
    notes: null,
    ...extra,
  };
}

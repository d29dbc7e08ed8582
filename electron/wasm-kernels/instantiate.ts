/**
 * Instances of the AssemblyScript kernels (release/wasm/; built into
 * generated modules by scripts/build-wasm.js). Each kernel module is compiled once per
 * process; each use gets a fresh instance, whose memory (the stub runtime's bump allocator,
 * never freed) goes with it.
 */

/** The part of the WebAssembly JS API used here (the electron layer's libs declare none of it). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: Record<string, Record<string, unknown>>) => { exports: unknown };
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** What every kernel exports besides its own functions. */
export interface KernelBase {
  memory: { readonly buffer: ArrayBuffer };
  /** A block of `bytes` bytes (the memory grows as needed: views made before are detached). */
  alloc(bytes: number): number;
}

const compiled = new Map<string, object>();

/** A fresh instance of the kernel whose bytes are `base64` (a generated module's export). */
export function instantiate<K extends KernelBase>(name: string, base64: string): K {
  let module = compiled.get(name);
  if (!module) compiled.set(name, (module = new wasm.Module(Buffer.from(base64, 'base64'))));
  const instance = new wasm.Instance(module, {
    env: {
      // AssemblyScript's abort: only reached when memory cannot grow (beyond the 4 GB address
      // space). Callers catch it and take their general (JS) path.
      abort: () => {
        throw new Error(`${name}: out of memory`);
      },
    },
  });
  return instance.exports as K;
}

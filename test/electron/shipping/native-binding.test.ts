/**
 * build/native-binding.cjs: the pack-time swap of better-sqlite3's addon, on a scratch project
 * root (never the shared node_modules): the Electron build goes in, the Node build comes back
 * byte for byte, an interrupted swap is recovered, and a missing Electron build changes nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { nodeAddon, repoRoot, requireFromRepo, sha256 } from './shipping-helpers';
import { tempDir } from '../../temp-dir';

interface Target {
  electronVersion: string;
  platform: string;
  arch: string;
}
const nb = requireFromRepo(path.join(repoRoot, 'build/native-binding.cjs')) as {
  nodeBindingPath(root: string): string;
  electronBindingPath(t: Target, root: string): string;
  statePath(root: string): string;
  installElectronBinding(t: Target, root: string): void;
  restoreNodeBinding(root: string): boolean;
};

const target: Target = { electronVersion: '40.10.2', platform: process.platform, arch: process.arch };
let root = '';
let nodeBuild = '';
let electronBuild = '';

beforeEach(() => {
  root = tempDir('flipbook-native-');
  nodeBuild = nb.nodeBindingPath(root);
  electronBuild = nb.electronBindingPath(target, root);
  fs.mkdirSync(path.dirname(nodeBuild), { recursive: true });
  fs.copyFileSync(nodeAddon, nodeBuild); // the real Node build's bytes
  fs.mkdirSync(path.dirname(electronBuild), { recursive: true });
  fs.writeFileSync(electronBuild, Buffer.concat([Buffer.from('stand-in Electron-ABI addon\n'), fs.readFileSync(nodeAddon).subarray(0, 4096)]));
});

describe('native binding swap', () => {
  it('puts the Electron build in place and the Node build back, byte for byte', () => {
    const original = sha256(nodeBuild);
    nb.installElectronBinding(target, root);
    expect(sha256(nodeBuild)).toBe(sha256(electronBuild));
    expect(fs.existsSync(nb.statePath(root))).toBe(true);
    expect(nb.restoreNodeBinding(root)).toBe(true);
    expect(sha256(nodeBuild)).toBe(original);
    expect(fs.existsSync(nb.statePath(root))).toBe(false);
    expect(nb.restoreNodeBinding(root)).toBe(false); // idempotent
    expect(sha256(nodeBuild)).toBe(original);
  });

  it('recovers from a swap that was never undone (a killed packing run)', () => {
    const original = sha256(nodeBuild);
    nb.installElectronBinding(target, root);
    // A second run starts while the first one's swap is still in place: it must back up the
    // Node build, not the Electron build it finds in node_modules.
    nb.installElectronBinding(target, root);
    expect(sha256(nodeBuild)).toBe(sha256(electronBuild));
    nb.restoreNodeBinding(root);
    expect(sha256(nodeBuild)).toBe(original);
  });

  it('refuses, changing nothing, when there is no Electron build for the target', () => {
    const original = sha256(nodeBuild);
    const other: Target = { ...target, platform: 'win32', arch: 'arm64' };
    expect(() => nb.installElectronBinding(other, root)).toThrow(/No Electron build of better-sqlite3 for Electron 40\.10\.2 on win32-arm64.*cannot be cross-compiled/s);
    expect(sha256(nodeBuild)).toBe(original);
    expect(fs.existsSync(nb.statePath(root))).toBe(false);
  });

  it('refuses to restore bytes that do not match the backup', () => {
    nb.installElectronBinding(target, root);
    const state = JSON.parse(fs.readFileSync(nb.statePath(root), 'utf8')) as { backup: string };
    fs.appendFileSync(state.backup, 'corrupted');
    expect(() => nb.restoreNodeBinding(root)).toThrow(/does not match its backup/);
  });
});

/**
 * electron-builder configuration for Flipbook's installers (`npm run dist` → scripts/dist.js).
 *
 * A .cjs file rather than YAML because (1) the packing hooks that swap in the Electron build
 * of better-sqlite3 must be code, (2) the Electron version is read from the installed package
 * so the native rebuild and the packaged runtime cannot drift apart, and (3) tests can require()
 * it without a YAML parser. CommonJS because the package is "type": "module" and
 * electron-builder loads .cjs configs with require().
 */
'use strict';
const { installElectronBinding, restoreNodeBinding } = require('./build/native-binding.cjs');

const electronVersion = require('electron/package.json').version;

const RUNTIME_MODULES = require('./build/runtime-modules.cjs');

// electron-builder's Arch enum (builder-util): ia32, x64, armv7l, arm64, universal.
const ARCH_NAMES = ['ia32', 'x64', 'armv7l', 'arm64', 'universal'];

/** @type {import('electron-builder').Configuration} */
module.exports = {
  appId: 'org.flipbook.app',
  productName: 'Flipbook',
  copyright: 'Copyright © Flipbook contributors',
  electronVersion,
  directories: {
    buildResources: 'build',
    output: 'release-build',
  },

  // What the packaged app reads at run time. main.js/preload.cjs are esbuild bundles with every
  // JS dependency inlined except electron and better-sqlite3 (scripts/build-electron.js), so
  // node_modules only has to carry the native addon and the optional ffmpeg-static binary.
  files: [
    'package.json',
    'dist/electron/**',
    'dist/renderer/**',
    '!dist/**/*.map',
    // assets/codebook.json (default codebook) and assets/sample/schedule.json, found at
    // <app>/assets relative to dist/electron (electron/store/default-codebook.ts, electron/sample/schedule.ts).
    'assets/**',
    // electron/store/migrate.ts reads its .sql files from `<dir of the running module>/migrations`;
    // in the bundle that module is dist/electron/main.js.
    { from: 'electron/store/migrations', to: 'dist/electron/migrations', filter: ['*.sql'] },
    // Every JS dependency is inlined in the bundles; only what they load at run time ships.
    '!node_modules/**',
    `node_modules/{${RUNTIME_MODULES.join(',')}}/**`,
    // better-sqlite3's C sources and build intermediates: only build/Release/better_sqlite3.node loads.
    '!node_modules/better-sqlite3/{deps,src}/**',
    '!node_modules/better-sqlite3/build/{Release/obj,Release/obj.target,Release/.deps,deps}/**',
    '!node_modules/better-sqlite3/build/Release/{test_extension.node,*.a}',
  ],
  asar: true,
  // Native code and executables cannot be loaded or spawned from inside app.asar.
  asarUnpack: ['**/node_modules/better-sqlite3/**', '**/node_modules/ffmpeg-static/**'],

  // electron-builder's own rebuild compiles for Node's ABI when it cannot fetch Electron's
  // headers and still reports success; scripts/rebuild-native.js does it explicitly instead and
  // fails loudly, and the hooks below put its output in place only while the app is packed.
  npmRebuild: false,
  nodeGypRebuild: false,
  buildDependenciesFromSource: false,
  beforePack: async (context) => {
    const arch = ARCH_NAMES[context.arch] ?? String(context.arch);
    installElectronBinding({ electronVersion, platform: context.electronPlatformName, arch });
  },
  afterPack: async () => {
    restoreNodeBinding();
  },

  electronFuses: {
    runAsNode: false,
    enableCookieEncryption: true,
    enableNodeOptionsEnvironmentVariable: false,
    enableNodeCliInspectArguments: false,
    enableEmbeddedAsarIntegrityValidation: true,
    onlyLoadAppFromAsar: true,
    grantFileProtocolExtraPrivileges: false,
    // Flipping fuses invalidates the ad-hoc signature of unsigned arm64 macOS builds.
    resetAdHocDarwinSignature: true,
  },

  linux: {
    target: ['AppImage', 'deb'],
    icon: 'build/icons',
    category: 'Science',
    synopsis: 'Item-level audits of Video LLM scaling',
    maintainer: 'Flipbook contributors',
    vendor: 'Flipbook contributors',
    executableName: 'flipbook',
  },
  deb: {
    // Electron's runtime libraries on Debian/Ubuntu; ffmpeg for frames when ffmpeg-static is absent.
    depends: ['libgtk-3-0', 'libnotify4', 'libnss3', 'libxss1', 'libxtst6', 'xdg-utils', 'libatspi2.0-0', 'libuuid1', 'libsecret-1-0', 'ffmpeg'],
  },
  appImage: {
    artifactName: '${productName}-${version}-${arch}.${ext}',
  },
  mac: {
    target: ['dmg'],
    icon: 'build/icon.icns',
    category: 'public.app-category.developer-tools',
    hardenedRuntime: true,
  },
  dmg: {
    artifactName: '${productName}-${version}-${arch}.${ext}',
  },
  win: {
    target: ['nsis'],
    icon: 'build/icon.ico',
  },
  nsis: {
    oneClick: false,
    perMachine: false,
    allowToChangeInstallationDirectory: true,
    artifactName: '${productName}-Setup-${version}.${ext}',
  },
};



/**
 * The packages the bundled main process loads from node_modules at run time — the only ones
 * the installers ship (electron-builder.config.cjs `files`). Every other JS dependency is
 * inlined by esbuild (scripts/build-electron.js). better-sqlite3 is external there, with what
 * its loader requires (bindings → file-uri-to-path); ffmpeg-static is optional and looked up
 * with createRequire (electron/media/ffmpeg-path.ts). test/electron/shipping checks that the
 * bundle imports nothing outside this list.
 */
'use strict';
module.exports = ['better-sqlite3', 'bindings', 'file-uri-to-path', 'ffmpeg-static'];

import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import path from 'node:path';

// The renderer is built once and served two ways: from app:// in Electron and by the web
// mode's HTTP server. Relative asset URLs (base './') work under both.
export default defineConfig({
  root: path.resolve(import.meta.dirname, 'renderer'),
  base: './',
  plugins: [react()],
  build: {
    outDir: path.resolve(import.meta.dirname, 'dist/renderer'),
    emptyOutDir: true,
    sourcemap: true,
    // No inline scripts or eval: the CSP is script-src 'self'.
    modulePreload: { polyfill: false },
  },
  server: { host: '127.0.0.1' },
});

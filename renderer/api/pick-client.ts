/** Chooses the transport once, at start: the preload bridge when present (Electron), else HTTP. */
import type { FlipbookClient, PreloadBridge } from '../../shared/api/client';
import { createHttpClient } from './http-client';
import { createIpcClient } from './ipc-client';

declare global {
  interface Window {
    flipbook?: PreloadBridge;
  }
}

export function pickClient(): FlipbookClient {
  if (window.flipbook !== undefined) return createIpcClient(window.flipbook);
  const token = new URLSearchParams(window.location.search).get('token') ?? '';
  return createHttpClient(token);
}

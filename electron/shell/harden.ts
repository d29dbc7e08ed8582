/**
 * Denies everything a compromised or confused renderer could use to leave the app: navigation
 * away from app://, new windows, <webview>, permission prompts (camera, notifications, …).
 * Registered once for every web contents the app creates.
 */
import type { App, Session, WebContents } from 'electron';

export const APP_ORIGIN = 'app://flipbook';

export function isAppUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'app:' && u.host === 'flipbook';
  } catch {
    return false;
  }
}

export function hardenWebContents(contents: WebContents): void {
  // In-app hash routes change the fragment only; anything else is a navigation we refuse.
  contents.on('will-navigate', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-redirect', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

export function hardenSession(session: Session): void {
  session.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
}

export function hardenApp(app: App): void {
  app.on('web-contents-created', (_e, contents) => hardenWebContents(contents));
}

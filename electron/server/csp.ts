/**
 * The renderer's Content-Security-Policy, one string for both transports. video.js inlines
 * its icon font as a data: URL and sets inline styles, hence font-src data: and
 * style-src 'unsafe-inline'; scripts are only the bundle ('self'), never inline or eval.
 */
export function contentSecurityPolicy(mediaOrigins: string[] = []): string {
  const media = ["'self'", 'blob:', ...mediaOrigins].join(' ');
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data: blob: ${mediaOrigins.join(' ')}`.trim(),
    "font-src 'self' data:",
    `media-src ${media}`,
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'none'",
  ].join('; ');
}

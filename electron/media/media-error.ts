/** Why a video cannot be used. The UI shows `message` where the video and strips would be. */
export type MediaErrorCode =
  'missing' | 'not-a-file' | 'unreadable' | 'not-video' | 'truncated' | 'variable-frame-rate' | 'tool-missing' | 'ffmpeg-failed' | 'cancelled' | 'bad-request';

export class MediaError extends Error {
  constructor(
    readonly code: MediaErrorCode,
    readonly file: string | null,
    message: string,
  ) {
    super(file ? `${file}: ${message}` : message);
    this.name = 'MediaError';
  }
}

/**
 * The web mode's media route: ids from the backend's registry only (anything else is 404, so
 * a path or a traversal attempt never reaches the file system), served with HTTP range
 * semantics by the range module shared with Electron's media:// handler.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { handleMediaNode, isValidMediaId } from '../media/range-server';
import type { MediaRegistry } from '../media/media-registry';

export function createMediaResponder(registry: MediaRegistry) {
  return (req: IncomingMessage, res: ServerResponse, id: string): Promise<void> => handleMediaNode(registry, req, res, isValidMediaId(id) ? id : null);
}

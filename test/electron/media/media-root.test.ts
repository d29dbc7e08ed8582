// The media root is enforced (docs/security.md, "Media root"): an imported video name that
// leads outside it — `../`, an absolute path, a symlink — or names a non-video file is refused
// before anything serves it or hands it to ffmpeg.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openProject } from '../../../electron/store/index';
import { videoPathOf } from '../../../electron/media/item-video';
import { batch, tempDir } from '../store/helpers';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('media root', () => {
  it('serves videos under the root only, by real path and video extension', () => {
    const dir = tempDir('flipbook-media-');
    dirs.push(dir);
    const root = path.join(dir, 'media');
    const outside = path.join(dir, 'private');
    fs.mkdirSync(path.join(root, 'sub'), { recursive: true });
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(root, 'good.mp4'), 'not really a video, but named like one');
    fs.writeFileSync(path.join(root, 'sub', 'nested.mkv'), 'x');
    fs.writeFileSync(path.join(root, 'readme.nfo'), 'ffmpeg would draw this text as a frame');
    fs.writeFileSync(path.join(outside, 'secret.mp4'), 'private');
    fs.writeFileSync(path.join(outside, 'notes.nfo'), 'private');
    fs.symlinkSync(path.join(outside, 'secret.mp4'), path.join(root, 'link.mp4'));
    fs.symlinkSync(outside, path.join(root, 'linkdir'));
    fs.symlinkSync(path.join(root, 'readme.nfo'), path.join(root, 'disguised.mp4'));

    const project = openProject(path.join(dir, 'p.flipbook'), { create: true });
    try {
      const names: Record<string, string> = {
        good: 'good.mp4',
        nested: 'sub/nested.mkv',
        dotdot: '../private/secret.mp4',
        sneaky: 'sub/../../private/secret.mp4',
        absolute: path.join(outside, 'secret.mp4'),
        symlink: 'link.mp4',
        symlinkDir: 'linkdir/secret.mp4',
        nfo: 'readme.nfo',
        disguised: 'disguised.mp4',
        outsideNfo: '../private/notes.nfo',
      };
      project.applyImports([batch('meta.json', { items: Object.entries(names).map(([sampleId, videoFile]) => ({ split: 'S', sampleId, videoFile })) })]);
      project.setSetting('mediaRoot', root);
      const file = (id: string): string | null => videoPathOf(project, 'S', id).file;
      const error = (id: string): string => videoPathOf(project, 'S', id).error ?? '';

      expect(file('good')).toBe(fs.realpathSync(path.join(root, 'good.mp4')));
      expect(file('nested')).toBe(fs.realpathSync(path.join(root, 'sub', 'nested.mkv')));
      for (const id of ['dotdot', 'sneaky', 'absolute', 'symlink', 'symlinkDir', 'outsideNfo']) {
        expect({ id, file: file(id) }).toEqual({ id, file: null });
        expect(error(id)).toMatch(/outside the media root/);
      }
      for (const id of ['nfo', 'disguised']) {
        expect({ id, file: file(id) }).toEqual({ id, file: null });
        expect(error(id)).toMatch(/readme\.nfo is not a video file/);
      }

      // An explicit per-project allow-list admits absolute paths in a named folder.
      project.setSetting('mediaAllowedRoots', [outside]);
      expect(file('absolute')).toBe(fs.realpathSync(path.join(outside, 'secret.mp4')));
      expect(file('outsideNfo')).toBeNull();
    } finally {
      project.close();
    }
  });
});

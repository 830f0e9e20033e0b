import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mediaKindOf } from '../../src/session/media-kind.ts';
import { sessionIdForWorkspace } from '../../src/session/sessions.ts';
import { attachmentStoreDir, ensureWorkspace, ensureWorkspaceOnce, safeSegment, workspaceDir } from '../../src/session/workspace.ts';

const tmp = mkdtempSync(join(tmpdir(), 'skillgate-ws-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('workspace layout (R-PCTX-06, D-23)', () => {
  it('R-PCTX-06: workspace_dir = <data>/workspaces/<role_id>/<session_id>, absolute', () => {
    expect(workspaceDir('/srv/data', 'default', 's_abc')).toBe('/srv/data/workspaces/default/s_abc');
    expect(workspaceDir('rel/data', 'ops', 'cli_0123456789abcdef')).toBe(resolve('rel/data/workspaces/ops/cli_0123456789abcdef'));
    expect(attachmentStoreDir('/srv/data')).toBe('/srv/data/attachments');
  });

  it('D-23: ids are sanitised to one safe segment — never `..`, no slashes, distinct ids stay distinct', () => {
    for (const bad of ['..', '.', '', '../../etc', 'a/b', 'a\\b', '/abs', 'x\u0000y', '.hidden', '会话1']) {
      const seg = safeSegment(bad);
      expect(seg, bad).not.toMatch(/[/\\\u0000]/);
      expect(seg, bad).not.toBe('..');
      expect(seg, bad).not.toBe('.');
      expect(seg.length, bad).toBeGreaterThan(0);
      expect(workspaceDir('/d', bad, bad).startsWith('/d/workspaces/'), bad).toBe(true);
      expect(workspaceDir('/d', bad, bad).split('/')).toHaveLength(5);
    }
    expect(safeSegment('a/b')).not.toBe(safeSegment('a_b'));
    expect(safeSegment('a_b')).toBe('a_b');
    expect(safeSegment('..')).not.toBe(safeSegment('.'));
  });

  it('ensureWorkspaceOnce creates a folder it has not seen, and trusts one it made sure of (no system call); ensureWorkspace always re-creates', () => {
    const dir = workspaceDir(tmp, 'default', 's_once');
    expect(ensureWorkspaceOnce(dir)).toBe(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    rmSync(dir, { recursive: true });
    expect(ensureWorkspaceOnce(dir)).toBe(dir);
    expect(existsSync(dir)).toBe(false); // remembered: the skill call's own check re-creates it
    expect(ensureWorkspace(dir)).toBe(dir);
    expect(existsSync(dir)).toBe(true);
  });

  it('R-PCTX-06: ensureWorkspace creates the folder (mode 0700) and is idempotent', () => {
    const dir = workspaceDir(tmp, 'default', 's1');
    expect(existsSync(dir)).toBe(false);
    expect(ensureWorkspace(dir)).toBe(dir);
    expect(ensureWorkspace(dir)).toBe(dir);
    expect(statSync(dir).isDirectory()).toBe(true);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('the CLI session id is cli_ + 16 hex of sha256 of the absolute workspace path, stable', () => {
    const id = sessionIdForWorkspace('/tmp/ws-a');
    expect(id).toMatch(/^cli_[0-9a-f]{16}$/);
    expect(sessionIdForWorkspace('/tmp/ws-a')).toBe(id);
    expect(sessionIdForWorkspace('/tmp/./x/../ws-a')).toBe(id);
    expect(sessionIdForWorkspace('/tmp/ws-b')).not.toBe(id);
    expect(sessionIdForWorkspace('ws-rel')).toBe(sessionIdForWorkspace(resolve('ws-rel')));
  });
});

describe('mediaKindOf (A-10)', () => {
  it('A-10: names and MIME types map to image / video / audio / file', () => {
    const table: [string, string][] = [
      ['photo.PNG', 'image'],
      ['/x/y/报销单.jpg', 'image'],
      ['clip.mp4', 'video'],
      ['clip.mov', 'video'],
      ['voice.ogg', 'audio'],
      ['song.mp3', 'audio'],
      ['报销单.pdf', 'file'],
      ['noext', 'file'],
      ['', 'file'],
      ['image/png', 'image'],
      ['video/mp4', 'video'],
      ['audio/mpeg; codecs=mp3', 'audio'],
      ['image/x-unknown-thing', 'image'],
      ['application/pdf', 'file'],
      ['video/notes.txt', 'file'],
    ];
    for (const [v, kind] of table) expect(mediaKindOf(v), v).toBe(kind);
  });
});

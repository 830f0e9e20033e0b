import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  normalizeFileParams,
  OUTPUT_FIELDS,
  PATH_FIELDS,
  replaceRefsInText,
  type FileParamOptions,
} from '../../src/executor/file-params.ts';

let root: string;
let ws: string;
let store: string;
let outside: string;
let opts: FileParamOptions;
let img1: string;
let img10: string;
let spaced: string;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'skillgate-fp-')));
  ws = join(root, 'data/workspaces/default/s1');
  store = join(root, 'data/attachments');
  outside = join(root, 'outside');
  for (const d of [ws, store, outside, join(store, 's1')]) mkdirSync(d, { recursive: true });
  writeFileSync(join(ws, 'b.png'), 'png');
  writeFileSync(join(ws, 'c.png'), 'png');
  writeFileSync(join(outside, 'secret.txt'), 'secret');
  img1 = join(store, 's1/photo.png');
  img10 = join(store, 's1/tenth.png');
  spaced = join(ws, "my photo's.png");
  for (const f of [img1, img10, spaced]) writeFileSync(f, 'x');
  symlinkSync('/etc', join(ws, 'etc_link'));
  symlinkSync(join(outside, 'secret.txt'), join(ws, 'pw.txt'));
  symlinkSync(join(outside, 'nowhere.txt'), join(ws, 'dangling.txt'));
  symlinkSync(outside, join(ws, 'out_dir'));
  opts = { workspaceDir: ws, attachmentStoreDir: store, refs: { img_1: img1, img_10: img10, file_1: spaced } };
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

function ok(input: Record<string, unknown>, o: FileParamOptions = opts): Record<string, unknown> {
  const r = normalizeFileParams(input, o);
  if ('envelope' in r) throw new Error(`refused: ${JSON.stringify(r.envelope)}`);
  return r.input;
}

function refused(input: Record<string, unknown>, o: FileParamOptions = opts): Record<string, unknown> {
  const r = normalizeFileParams(input, o);
  if (!('envelope' in r)) throw new Error(`accepted: ${JSON.stringify(r.input)}`);
  return r.envelope;
}

describe('normalizeFileParams: which fields (R-FILE-01)', () => {
  it('R-FILE-01: all 19 names plus output_path and out are normalised; a field "other" is left untouched', () => {
    expect(PATH_FIELDS).toHaveLength(19);
    for (const key of [...PATH_FIELDS, 'output_path', 'out']) {
      expect(ok({ [key]: 'tmp/a/b.png' })[key], key).toBe(join(ws, 'b.png'));
    }
    expect(ok({ other: 'tmp/a/b.png', Image: 'tmp/a/b.png' })).toEqual({ other: 'tmp/a/b.png', Image: 'tmp/a/b.png' });
  });

  it('R-FILE-01: string items of arrays are normalised, other items left alone; nested keys are not touched', () => {
    const out = ok({ images: ['tmp/b.png', 3, null], meta: { image: 'tmp/b.png' } });
    expect(out.images).toEqual([join(ws, 'b.png'), 3, null]);
    expect(out.meta).toEqual({ image: 'tmp/b.png' });
  });

  it('the input object is never modified', () => {
    const input = { image: 'img_1', files: ['img_1', 'img_1'] };
    ok(input);
    expect(input).toEqual({ image: 'img_1', files: ['img_1', 'img_1'] });
  });
});

describe('absolute paths (R-FILE-02, D-23)', () => {
  it('R-FILE-02: an absolute path inside the workspace or (for inputs) the attachment store is unchanged', () => {
    const inWs = join(ws, 'b.png');
    expect(ok({ image: inWs, file: img1, output: join(ws, 'new/result.mp4') })).toEqual({
      image: inWs,
      file: img1,
      output: join(ws, 'new/result.mp4'),
    });
  });

  it('D-23: /etc/passwd is refused — recoverable, naming the parameter, zh-CN user_message', () => {
    const env = refused({ image: '/etc/passwd' });
    expect(env).toMatchObject({ success: false, error_type: 'recoverable', need_param: 'image' });
    expect(env.error).toContain('`image`');
    expect(env.error).toContain('/etc/passwd');
    expect(env.user_message).toContain('文件参数 image');
    expect(refused({ image: '/etc/passwd' }, { ...opts, lang: 'en' }).user_message).toMatch(/^The file parameter image/);
  });

  it('D-23: `..` that climbs out of the workspace is refused, as is a file:// URL outside', () => {
    expect(refused({ file: `${ws}/../../../../outside/secret.txt` }).need_param).toBe('file');
    expect(refused({ file: pathToFileURL('/etc/passwd').href }).need_param).toBe('file');
    expect(ok({ file: pathToFileURL(join(ws, 'b.png')).href }).file).toBe(pathToFileURL(join(ws, 'b.png')).href);
  });

  it('D-23: a symlink in the workspace pointing to /etc is refused (absolute through it, or by name)', () => {
    expect(refused({ file: join(ws, 'etc_link/passwd') }).need_param).toBe('file');
    expect(refused({ path: 'etc_link' }).need_param).toBe('path');
    expect(refused({ image: 'pw.txt' }).need_param).toBe('image');
    expect(refused({ image: join(ws, 'pw.txt') }).need_param).toBe('image');
    expect(refused({ image: join(ws, 'dangling.txt') }).need_param).toBe('image');
  });

  it('D-23: an output may not be written through a link leading outside, nor into the attachment store', () => {
    expect(refused({ out: 'pw.txt' }).need_param).toBe('out');
    expect(refused({ output: join(ws, 'out_dir/x.mp4') }).need_param).toBe('output');
    expect(refused({ dst: join(store, 's1/photo.png') }).need_param).toBe('dst');
  });

  it('D-23: several refused parameters are all named', () => {
    const env = refused({ image: '/etc/passwd', files: ['b.png', '/etc/shadow'], out: '..' });
    expect(env.need_param).toEqual(['image', 'files', 'out']);
  });

  it('URLs are not paths: http(s) and data: values stay as they are', () => {
    const input = { image: 'https://example.com/a/b.png', file: 'data:text/plain;base64,aGk=' };
    expect(ok(input)).toEqual(input);
  });
});

describe('relative paths (R-FILE-03..05)', () => {
  it('R-FILE-03: a relative path keeps only its basename under the workspace: tmp/a/b.png ⇒ <ws>/b.png', () => {
    expect(ok({ image: 'tmp/a/b.png' }).image).toBe(join(ws, 'b.png'));
    expect(ok({ image: 'b.png' }).image).toBe(join(ws, 'b.png'));
    expect(ok({ image: '..\\..\\b.png' }).image).toBe(join(ws, 'b.png'));
  });

  it('R-FILE-03: a value without a usable file name (`..`, `.`, `dir/`) is refused', () => {
    for (const v of ['..', '../..', '.', 'dir/']) expect(refused({ file: v }).need_param, v).toBe('file');
  });

  it('R-FILE-04: output, dst, output_path, out always land in the workspace, no existence check', () => {
    for (const key of OUTPUT_FIELDS) expect(ok({ [key]: 'renders/out.mp4' })[key], key).toBe(join(ws, 'out.mp4'));
    expect(ok({ out: 'b.png' }).out).toBe(join(ws, 'b.png'));
  });

  it('R-FILE-05: a missing bare name in another path field keeps its original value', () => {
    expect(ok({ image: 'x.png' }).image).toBe('x.png');
  });

  it('R-FILE-05/D-23: a missing value with directories or `..` keeps only its basename (never leads outside)', () => {
    expect(ok({ image: 'tmp/x.png' }).image).toBe('x.png');
    expect(ok({ file: '../../outside/secret.txt' }).file).toBe('secret.txt');
    expect(ok({ file: 'etc_link/passwd' }).file).toBe('passwd');
  });

  it('an empty or whitespace value is left for the required check', () => {
    expect(ok({ image: '', file: '  ' })).toEqual({ image: '', file: '  ' });
  });
});

describe('reference ids (R-FILE-07, R-FILE-08, A-10)', () => {
  it('R-FILE-07: a value exactly equal to a reference id becomes its local_path', () => {
    expect(ok({ image: 'img_1' }).image).toBe(img1);
    expect(ok({ images: ['img_10', 'img_1'] }).images).toEqual([img10, img1]);
    expect(ok({ photo: 'img_1', caption: 'img_1 at noon' })).toEqual({ photo: img1, caption: 'img_1 at noon' });
  });

  it('an id the session does not have is refused with the list of its files (never another file)', () => {
    const r = normalizeFileParams({ image: 'img_2' }, opts);
    expect('envelope' in r && r.envelope).toMatchObject({ success: false, error_type: 'recoverable', need_param: 'image' });
    const um = 'envelope' in r ? String(r.envelope.user_message) : '';
    expect(um).toContain('本会话没有 img_2');
    expect(um).toContain('img_1（');
    expect(um).toContain('file_1（');
  });

  it('R-FILE-08: ids inside command fields are replaced as substrings, posix slashes', () => {
    expect(ok({ command: 'convert img_1 out.png' }).command).toBe(`convert ${img1} out.png`);
    expect(replaceRefsInText('ffmpeg -i img_1', { img_1: 'C:\\data\\a.png' })).toBe('ffmpeg -i C:/data/a.png');
    for (const key of ['code', 'command', 'script', 'cmd', 'instruction', 'shell', 'bash']) {
      expect(ok({ [key]: 'x img_1' })[key], key).toBe(`x ${img1}`);
    }
  });

  it('A-10: img_1 never hits img_10 (longest first, word boundaries only)', () => {
    const refs = { img_1: '/w/one.png', img_10: '/w/ten.png' };
    expect(replaceRefsInText('cat img_10 img_1 img_1,img_10', refs)).toBe('cat /w/ten.png /w/one.png /w/one.png,/w/ten.png');
    expect(replaceRefsInText('ximg_1 img_1x img_1.png $img_1 dir/img_1 img_100', refs)).toBe(
      'ximg_1 img_1x img_1.png $img_1 dir/img_1 img_100',
    );
  });

  it('R-FILE-08: a path with spaces is single-quoted, with proper escaping of quotes', () => {
    expect(ok({ cmd: 'cp file_1 /tmp/x' }).cmd).toBe(`cp '${spaced.replace(/'/g, `'\\''`)}' /tmp/x`);
    expect(replaceRefsInText('cat file_1', { file_1: '/w/a b.txt' })).toBe("cat '/w/a b.txt'");
    expect(replaceRefsInText('cat file_1', { file_1: '/w/a;rm -rf ~' })).toBe("cat '/w/a;rm -rf ~'");
  });

  it('R-FILE-08: inside an existing quoted string the path is escaped for that string, not quoted again', () => {
    const refs = { file_1: '/w/a b$x".txt', img_1: "/w/it's.png" };
    expect(replaceRefsInText('cat "file_1"', refs)).toBe('cat "/w/a b\\$x\\".txt"');
    expect(replaceRefsInText("open('img_1')", refs)).toBe("open('/w/it'\\''s.png')");
    expect(replaceRefsInText('echo "see img_1 now"', { img_1: '/w/a b.png' })).toBe('echo "see /w/a b.png now"');
  });
});

describe('array de-duplication (R-FILE-09, A-11)', () => {
  it('R-FILE-09: ["img_1","img_1"] ⇒ one path; duplicates after normalisation collapse, first order kept', () => {
    expect(ok({ images: ['img_1', 'img_1'] }).images).toEqual([img1]);
    expect(ok({ files: ['c.png', 'tmp/b.png', 'img_1', 'b.png', 'c.png'] }).files).toEqual([join(ws, 'c.png'), join(ws, 'b.png'), img1]);
  });

  it('A-11: only arrays holding a path or a resolved reference are de-duplicated', () => {
    expect(ok({ tags: ['a', 'a'] }).tags).toEqual(['a', 'a']);
    expect(ok({ photos: ['img_1', 'x', 'img_1', 'x'] }).photos).toEqual([img1, 'x']);
    expect(ok({ images: ['https://e.com/a.png', 'https://e.com/a.png'] }).images).toHaveLength(2);
  });
});

import { describe, expect, it } from 'vitest';
import { filenameFromContentDisposition, filenameFromUrl, sanitizeFilename, withExtension } from '../../src/envelope/artifacts/filename.ts';
import { compileFetchPolicy, guardUrl, isBlockedAddress, parseFetchAllow } from '../../src/envelope/artifacts/net-guard.ts';
import { isPageOrJson } from '../../src/envelope/artifacts/url-fetch.ts';
import { linksInText, scanUrls } from '../../src/envelope/artifacts/url-scan.ts';

describe('address classification (SSRF guard)', () => {
  it('R-ART-03: the guard blocks loopback, private, link-local/metadata, CGNAT, this-network, multicast, ULA, v6 link-local, mapped v4', () => {
    for (const ip of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
    ]) {
      expect(isBlockedAddress(ip), ip).toBe(true);
    }
    for (const ip of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8']) {
      expect(isBlockedAddress(ip), ip).toBe(false);
    }
  });

  it('SKILLGATE_FETCH_ALLOW is comma-separated host[:port] or CIDR', async () => {
    expect(parseFetchAllow(' minio.internal:9000, 10.8.0.0/16 ,,[fd00::5]:8443 ')).toEqual([
      'minio.internal:9000',
      '10.8.0.0/16',
      '[fd00::5]:8443',
    ]);
    const policy = compileFetchPolicy(parseFetchAllow('minio.internal:9000,10.8.0.0/16,[fd00::5]:8443,files.lan'));
    const to = (ip: string) => async () => [{ address: ip, family: (ip.includes(':') ? 6 : 4) as 4 | 6 }];
    expect((await guardUrl(new URL('http://minio.internal:9000/b/x.png'), policy, to('10.0.0.9'))).ok).toBe(true);
    expect((await guardUrl(new URL('http://minio.internal:9001/b/x.png'), policy, to('10.0.0.9'))).ok).toBe(false);
    expect((await guardUrl(new URL('http://any.lan/x'), policy, to('10.8.3.4'))).ok).toBe(true);
    expect((await guardUrl(new URL('http://any.lan/x'), policy, to('10.9.3.4'))).ok).toBe(false);
    expect((await guardUrl(new URL('https://[fd00::5]:8443/x'), policy)).ok).toBe(true);
    expect((await guardUrl(new URL('https://[fd00::5]/x'), policy)).ok).toBe(false);
    expect((await guardUrl(new URL('http://files.lan:81/x'), policy, to('192.168.0.2'))).ok).toBe(true);
    expect(await guardUrl(new URL('ftp://example.com/x'), policy)).toEqual({ ok: false, reason: 'scheme' });
  });

  it('R-ART-03: a host with one private address among public ones is refused (every address is checked)', async () => {
    const policy = compileFetchPolicy([]);
    const resolve = async () => [
      { address: '93.184.216.34', family: 4 as const },
      { address: '127.0.0.1', family: 4 as const },
    ];
    expect(await guardUrl(new URL('http://mixed.example/x'), policy, resolve)).toEqual({
      ok: false,
      reason: 'refused',
      host: 'mixed.example',
      address: '127.0.0.1',
    });
    const pub = await guardUrl(new URL('http://pub.example/x'), policy, async () => [{ address: '93.184.216.34', family: 4 }]);
    expect(pub).toEqual({ ok: true, address: '93.184.216.34', family: 4 });
  });
});

describe('download file names', () => {
  it('R-ART-03: RFC 5987 filename* wins over filename; plain and percent-encoded forms work', () => {
    expect(filenameFromContentDisposition(`attachment; filename="a.pdf"; filename*=UTF-8''%E6%8A%A5%E5%91%8A.pdf`)).toBe('报告.pdf');
    expect(filenameFromContentDisposition('attachment; filename="we; ird.csv"')).toBe('we; ird.csv');
    expect(filenameFromContentDisposition('attachment; filename=plain.txt')).toBe('plain.txt');
    expect(filenameFromContentDisposition(`inline; filename*=iso-8859-1'en'%E9t%E9.txt`)).toBe('été.txt');
    expect(filenameFromContentDisposition('attachment; filename="../../etc/passwd"')).toBe('passwd');
    expect(filenameFromContentDisposition('attachment; filename=".bashrc"')).toBe('bashrc');
    expect(filenameFromContentDisposition('attachment')).toBeUndefined();
  });

  it('R-ART-03: URL basenames are decoded and sanitised; extensions come from the Content-Type', () => {
    expect(filenameFromUrl(new URL('https://x.test/a/%E5%9B%BE%E7%89%87.png?sig=1'))).toBe('图片.png');
    expect(filenameFromUrl(new URL('https://x.test/'))).toBeUndefined();
    expect(withExtension('chart', 'image/png')).toBe('chart.png');
    expect(withExtension('chart.jpeg', 'image/png')).toBe('chart.jpeg');
    expect(sanitizeFilename('a<b>:c|d?.txt')).toBe('a_b__c_d_.txt');
    expect([...sanitizeFilename(`${'长'.repeat(300)}.xlsx`)!].length).toBe(180);
    expect(sanitizeFilename(`${'长'.repeat(300)}.xlsx`)!.endsWith('.xlsx')).toBe(true);
  });
});

describe('link discovery (R-ART-03, R-ART-04, A-14)', () => {
  it('A-14: web pages and JSON (incl. +json) are skipped; images and octet streams are not', () => {
    for (const t of ['text/html; charset=utf-8', 'application/xhtml+xml', 'application/json', 'application/ld+json']) {
      expect(isPageOrJson(t), t).toBe(true);
    }
    for (const t of ['image/png', 'application/octet-stream', 'text/csv', '']) expect(isPageOrJson(t), t).toBe(false);
  });

  it('R-ART-04: links in markdown and Chinese text stop at brackets and CJK punctuation', () => {
    expect(linksInText('图见 https://a.test/x.png，详情 [这里](https://b.test/y?q=1). 以及 <https://c.test/z>。')).toEqual([
      'https://a.test/x.png',
      'https://b.test/y?q=1',
      'https://c.test/z',
    ]);
  });

  it('R-ART-04: a long body gives each distinct link once, in order of first appearance, wherever it lies', () => {
    const filler = '泵房压力正常 '.repeat(9000); // about 63 000 units: links sit on both sides of a scan window's end
    const text = `${filler}https://a.test/1 ${filler}[报告](https://b.test/2?x=1) https://a.test/1。${filler}<https://c.test/3>`;
    expect(text.length).toBeGreaterThan(180_000);
    expect(linksInText(text)).toEqual(['https://a.test/1', 'https://b.test/2?x=1', 'https://c.test/3']);
  });

  it('R-ART-03, R-ART-04: classification: explicit, ambiguous only for http(s) values, body text; platform keys ignored', async () => {
    const found = await scanUrls(
      {
        url: 'https://p.test/1',
        file: 'report.xlsx',
        image: 'https://p.test/2',
        video_urls: ['https://e.test/v.mp4', 'not a url'],
        message: 'see https://p.test/3 and https://e.test/v.mp4',
        artifacts: [{ url: 'https://ignored.test/a' }],
        images: [{ url: 'https://e.test/i.png', filename: 'pic.png' }],
        data: { nested: { link: 'https://p.test/4' } },
      },
      '/nonexistent-ws',
    );
    expect(found.map((c) => [c.kind, c.url, c.media ?? null])).toEqual([
      ['explicit', 'https://e.test/v.mp4', 'video'],
      ['explicit', 'https://e.test/i.png', 'image'],
      ['probe', 'https://p.test/1', null],
      ['probe', 'https://p.test/2', 'image'],
      ['probe', 'https://p.test/3', null],
      ['probe', 'https://p.test/4', null],
    ]);
    expect(found.find((c) => c.url === 'https://e.test/i.png')?.filename).toBe('pic.png');
  });
});

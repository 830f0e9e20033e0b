/**
 * WeCom's WXBizMsgCrypt (adapters/wecom/crypto.ts) against the shared fixtures' values
 * (computed with the fixtures' fake secrets, not by this code), and the
 * minimal callback XML reader (adapters/wecom/wire.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cdata, envelopeEncrypt, parseWecomXml, toWecomXml } from '../../../adapters/wecom/wire.ts';
import { checkWecomSignature, wecomAesKey, wecomDecrypt, wecomEncrypt, wecomSignature } from '../../../adapters/wecom/crypto.ts';
import { WECOM } from './fake-wecom.ts';

const DIR = join(import.meta.dirname, '..', '..', 'fixtures', 'adapters', 'wecom');
const ENVELOPE = readFileSync(join(DIR, 'encrypted_text_envelope.xml'), 'utf8');
const PLAIN = readFileSync(join(DIR, 'text_plain.xml'), 'utf8');
const KEY = wecomAesKey(WECOM.aesKey);
const ECHOSTR =
  'jvYct1iiVtv/VSUoGGcCZIYsptozp0wtHBE0NsF/2CyhDGtfHaPKH8Ffe37xZMBqaBLL2MXvRgyZTlz9l5kBX5Wucb1jyLyydBQ22uLisKTodx3/ENZieHSJV8s6Cn6t';

describe('WeCom crypto (doc /document/path/90968)', () => {
  it('msg_signature of the shared envelope and of the URL-verification echostr match the fixture', () => {
    const encrypt = envelopeEncrypt(ENVELOPE)!;
    expect(wecomSignature(WECOM.token, '1736928061', '1372623149', encrypt)).toBe('18564741165914e99a9fa11404b16775b3f91df9');
    expect(wecomSignature(WECOM.token, '1736928000', '9988776655', ECHOSTR)).toBe('3847e4cb8f0fa3fb0f47234a447d582a61922e74');
    expect(checkWecomSignature('18564741165914E99A9FA11404B16775B3F91DF9', WECOM.token, '1736928061', '1372623149', encrypt)).toBe(true);
    expect(checkWecomSignature('18564741165914e99a9fa11404b16775b3f91df0', WECOM.token, '1736928061', '1372623149', encrypt)).toBe(false);
    expect(checkWecomSignature('', WECOM.token, '1736928061', '1372623149', encrypt)).toBe(false);
  });

  it('the envelope decrypts to text_plain.xml with receive id = CorpID; echostr to its plaintext', () => {
    const got = wecomDecrypt(envelopeEncrypt(ENVELOPE)!, KEY)!;
    expect(got.receiveId).toBe(WECOM.corpId);
    expect(got.msg).toBe(PLAIN.replace(/\n$/, ''));
    expect(wecomDecrypt(ECHOSTR, KEY)).toEqual({ msg: 'echostr_plain_test_4242424242', receiveId: WECOM.corpId });
  });

  it('encryption pads to 32-byte blocks with the fixture layout (fixed random prefix reproduces the fixture)', () => {
    const again = wecomEncrypt(PLAIN.replace(/\n$/, ''), WECOM.corpId, KEY, Buffer.from('wecomtestrandom1'));
    expect(again).toBe(envelopeEncrypt(ENVELOPE));
    for (const msg of ['', 'a', '泵'.repeat(11), 'x'.repeat(44)]) {
      const e = wecomEncrypt(msg, WECOM.corpId, KEY);
      expect(Buffer.from(e, 'base64').length % 32).toBe(0);
      expect(wecomDecrypt(e, KEY)).toEqual({ msg, receiveId: WECOM.corpId });
    }
  });

  it('wrong key, bad base64, truncated or tampered ciphertext → null, never a throw', () => {
    const e = envelopeEncrypt(ENVELOPE)!;
    const other = wecomAesKey('A'.repeat(43));
    expect(wecomDecrypt(e, other)).toBeNull();
    expect(wecomDecrypt('not base64 !!', KEY)).toBeNull();
    expect(wecomDecrypt(e.slice(0, 40), KEY)).toBeNull();
    expect(wecomDecrypt('', KEY)).toBeNull();
    const raw = Buffer.from(e, 'base64');
    raw[raw.length - 1] = raw[raw.length - 1]! ^ 0xff;
    expect(wecomDecrypt(raw.toString('base64'), KEY)).toBeNull();
  });

  it('an EncodingAESKey that is not 43 base64 characters is refused', () => {
    expect(() => wecomAesKey('short')).toThrow(RangeError);
    expect(() => wecomAesKey(`${WECOM.aesKey}=`)).toThrow(RangeError);
  });
});

describe('WeCom callback XML reader', () => {
  it('reads the fixed shape: CDATA verbatim, numbers as text, first occurrence wins', () => {
    expect(parseWecomXml(PLAIN)).toEqual({
      ToUserName: 'wwtest0000000001',
      FromUserName: 'test_user_001',
      CreateTime: '1736928060',
      MsgType: 'text',
      Content: '泵房3 压力多少？',
      MsgId: '7460000000000000001',
      AgentID: '1000002',
    });
    expect(parseWecomXml('<?xml version="1.0"?>\n<xml><A><![CDATA[  two  ]]></A><A>x</A><B> 1 </B><C/></xml>')).toEqual({
      A: '  two  ',
      B: '1',
      C: '',
    });
  });

  it('entities decoded, CDATA split across sections joined, nested elements kept raw', () => {
    expect(parseWecomXml('<xml><T>a &lt;b&gt; &amp; &#x4E2D;&#25991;</T></xml>')).toEqual({ T: 'a <b> & 中文' });
    expect(parseWecomXml(toWecomXml({ C: 'x]]>y <z>' }))).toEqual({ C: 'x]]>y <z>' });
    expect(cdata(']]>')).toBe('<![CDATA[]]]]><![CDATA[>]]>');
    expect(parseWecomXml('<xml><S><I>1</I><I>2</I></S><N>3</N></xml>')).toEqual({ S: '<I>1</I><I>2</I>', N: '3' });
  });

  it('anything else is refused: other roots, DOCTYPE/entities, mismatched tags, bad references, JSON, trailing junk', () => {
    for (const bad of [
      '',
      '{"Encrypt":"x"}',
      '<root><A>1</A></root>',
      '<!DOCTYPE xml [<!ENTITY e "x">]><xml><A>&e;</A></xml>',
      '<xml><A>&e;</A></xml>',
      '<xml><A>1</B></xml>',
      '<xml><A>1</A>',
      '<xml><A><![CDATA[x</A></xml>',
      '<xml><A>&#0;</A></xml>',
      '<xml><A>&#xD800;</A></xml>',
      '<xml><A>1</A></xml><xml/>',
      '<xml>text</xml>',
    ]) {
      expect(parseWecomXml(bad), bad).toBeNull();
    }
  });

  it('envelopeEncrypt reads only the Encrypt element', () => {
    expect(envelopeEncrypt('<xml><ToUserName><![CDATA[w]]></ToUserName><Encrypt><![CDATA[abc=]]></Encrypt></xml>')).toBe('abc=');
    expect(envelopeEncrypt('<xml><ToUserName>w</ToUserName></xml>')).toBeNull();
    expect(envelopeEncrypt('<xml><Encrypt></Encrypt></xml>')).toBeNull();
  });
});

// Example NODE subprocess skill: reads SKILL_INPUT, prints one JSON line on stdout.
const input = JSON.parse(process.env.SKILL_INPUT || '{}');
if (typeof input.text !== 'string') {
  // `text` is required (schema.json): say so in the result, never count an absent text as empty
  console.error('word_count: no text given');
  process.stdout.write(
    JSON.stringify({
      success: false,
      error: 'text is required',
      error_type: 'recoverable',
      need_param: 'text',
      user_message: '请给出要统计的文字，例如 /word_count text="今天天气很好"。',
    }) + '\n',
  );
  process.exit(0);
}
const text = input.text;
const han = (text.match(/\p{Script=Han}/gu) || []).length;
const words = (text.replace(/\p{Script=Han}/gu, ' ').match(/[\p{L}\p{N}]+/gu) || []).length;
const lines = text === '' ? 0 : text.split(/\r?\n/).length;
const chars = [...text].length;
console.error(`word_count: ${chars} characters`);
process.stdout.write(
  JSON.stringify({
    characters: chars,
    han_characters: han,
    words: words + han,
    lines,
    display_md: `| 字符 | 汉字 | 词（汉字按字计） | 行 |\n|---|---|---|---|\n| ${chars} | ${han} | ${words + han} | ${lines} |`,
  }) + '\n',
);

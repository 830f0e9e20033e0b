const input = JSON.parse(process.env.SKILL_INPUT || '{}');
process.stdout.write(JSON.stringify({ success: true, n: input.n ?? 0 }) + '\n');

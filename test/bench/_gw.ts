import { runGatewayBench } from './_gwprof.ts';
await runGatewayBench(process.env.BENCH_DATABASE_URL);

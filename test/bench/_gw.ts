import { runGatewayBench } from '/work/main/test/bench/gateway.bench.ts';
await runGatewayBench(process.env.BENCH_DATABASE_URL);

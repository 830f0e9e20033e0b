#!/bin/sh
# Example SHELL skill: logs to stderr, the last stdout line is the JSON result.
echo "clock_sh: reading the clock" >&2
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
up=$(cut -d' ' -f1 /proc/uptime 2>/dev/null || echo 0)
printf '{"utc":"%s","uptime_s":%s,"user_message":"服务器时间（UTC）：%s"}\n' "$now" "${up:-0}" "$now"

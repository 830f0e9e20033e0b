"""Example Python skill: greets the actor with what the platform injected."""


async def execute(input_data, runtime_context):
    ctx = runtime_context or {}
    greeting = (input_data or {}).get("greeting") or "你好"
    name = ctx.get("actor_name") or "朋友"
    rows = [
        ("姓名", name),
        ("部门路径", ctx.get("actor_department_path") or "（未知）"),
        ("渠道", ctx.get("channel") or ""),
        ("会话", ctx.get("session_id") or ""),
    ]
    table = "\n".join(["| 项目 | 值 |", "|---|---|"] + [f"| {k} | {v} |" for k, v in rows])
    return {
        "greeting": f"{greeting}，{name}！",
        "user_message": f"{greeting}，{name}！",
        "display_md": f"**{greeting}，{name}！**\n\n{table}",
    }

"""skillgate Python bridge: runs one in-process-style Python handler (A-04, D-15, R-ENTRY-01..05).

Usage: python3 python_bridge.py <handler.py>        (cwd = the skill folder)

Protocol (JSON, one object per line, UTF-8):
  gateway -> bridge (stdin):
    1st line: {"input": {...}, "context": {...}}      context is the JSON-safe runtime_context
    later:    {"type": "call_skill_result", "id": n, "result": {...}}
  bridge -> gateway (the ORIGINAL stdout, kept as a private fd):
    {"type": "call_skill", "id": n, "name": "...", "input": {...}, "options": {...}}
    {"type": "result", "value": <any JSON>}                               (final)
    {"type": "error", "error": "...", "traceback": "...", "exit_code"?: n} (final)

While the handler runs, sys.stdout and file descriptor 1 point at stderr, so the handler's
own prints become log lines and never corrupt the protocol; sys.stdin / fd 0 read /dev/null.
"""

import asyncio
import importlib.util
import inspect
import io
import json
import math
import os
import sys
import threading
import traceback

ENTRY_NAMES = ("execute", "run", "handler", "main", "handle")

# --- protocol channel -------------------------------------------------------------------
_proto_out = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
_proto_in = os.fdopen(os.dup(0), "r", encoding="utf-8")
os.dup2(2, 1)  # fd 1 -> stderr (C extensions, subprocesses, os.write(1, ...))
_devnull = os.open(os.devnull, os.O_RDONLY)
os.dup2(_devnull, 0)
os.close(_devnull)
sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", buffering=0), encoding="utf-8", errors="replace", line_buffering=True)
sys.stdin = io.TextIOWrapper(os.fdopen(0, "rb", buffering=0), encoding="utf-8")
_write_lock = threading.Lock()


def _clean(value, depth=0):
    """JSON-safe copy: NaN/Infinity -> None; other non-serialisable values -> str (default=str)."""
    if depth > 200:
        return str(value)
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    if isinstance(value, dict):
        return {str(k): _clean(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v, depth + 1) for v in value]
    return value


def _send(msg):
    text = json.dumps(_clean(msg), ensure_ascii=False, default=str, allow_nan=False)
    with _write_lock:
        _proto_out.write(text + "\n")
        _proto_out.flush()


# --- call_skill over the protocol ----------------------------------------------------------
_pending = {}
_pending_lock = threading.Lock()
_next_id = [0]
_closed = [False]


def _resolve(fut, result):
    if not fut.done():
        fut.set_result(result)


def _reader():
    for line in _proto_in:
        line = line.strip()
        if not line:
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get("type") != "call_skill_result":
            continue
        with _pending_lock:
            entry = _pending.pop(msg.get("id"), None)
        if entry:
            loop, fut = entry
            result = msg.get("result")
            if not isinstance(result, dict):
                result = {"ok": False, "error": "malformed call_skill result"}
            loop.call_soon_threadsafe(_resolve, fut, result)
    _closed[0] = True
    with _pending_lock:
        waiting = list(_pending.items())
        _pending.clear()
    for _id, (loop, fut) in waiting:
        loop.call_soon_threadsafe(_resolve, fut, {"ok": False, "error": "the gateway closed the bridge"})


async def call_skill(name, input=None, **options):
    """Awaitable call_skill(name, input, **options): never raises (R-CALL-10)."""
    if _closed[0]:
        return {"ok": False, "error": "the gateway closed the bridge", "skill": name}
    loop = asyncio.get_running_loop()
    fut = loop.create_future()
    with _pending_lock:
        _next_id[0] += 1
        call_id = _next_id[0]
        _pending[call_id] = (loop, fut)
    try:
        _send({"type": "call_skill", "id": call_id, "name": name, "input": input or {}, "options": options})
    except Exception as exc:  # noqa: BLE001 - never raise into the skill
        with _pending_lock:
            _pending.pop(call_id, None)
        return {"ok": False, "error": "call_skill could not be sent: %s" % exc, "skill": name}
    return await fut


# --- handler -----------------------------------------------------------------------------
def _load(path):
    skill_dir = os.path.dirname(os.path.abspath(path))
    if skill_dir not in sys.path:
        sys.path.insert(0, skill_dir)
    spec = importlib.util.spec_from_file_location("skill_handler", path)
    if spec is None or spec.loader is None:
        raise ImportError("cannot import %s" % path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["skill_handler"] = module
    spec.loader.exec_module(module)
    return module


def _declared_positional(fn):
    """Declared positional parameters, defaulted ones included (D-15); *args counts as 2."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 2
    n = 0
    for p in params:
        if p.kind == p.VAR_POSITIONAL:
            return max(n, 2)
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            n += 1
    return n


async def _await(awaitable):
    return await awaitable


def _main():
    if len(sys.argv) != 2:
        _send({"type": "error", "error": "usage: python_bridge.py <handler.py>"})
        return
    first = _proto_in.readline()
    try:
        request = json.loads(first)
    except ValueError:
        _send({"type": "error", "error": "the bridge received no request"})
        return
    input_data = request.get("input") or {}
    runtime_context = dict(request.get("context") or {})
    runtime_context["db"] = None
    runtime_context["db_factory"] = None
    runtime_context["call_skill"] = call_skill
    threading.Thread(target=_reader, daemon=True).start()

    try:
        module = _load(sys.argv[1])
    except SystemExit as exc:
        _send({"type": "error", "error": "importing the handler raised SystemExit(%s)" % (exc.code,), "exit_code": exc.code if isinstance(exc.code, int) else None, "system_exit": True})
        return
    except BaseException as exc:  # noqa: BLE001
        _send({"type": "error", "error": "cannot import the handler: %s: %s" % (type(exc).__name__, exc), "traceback": traceback.format_exc()})
        return

    fn = None
    for name in ENTRY_NAMES:
        candidate = getattr(module, name, None)
        if callable(candidate):
            fn = candidate
            break
    if fn is None:
        _send({"type": "error", "error": "the handler defines no entry function (execute, run, handler, main or handle)"})
        return

    n = _declared_positional(fn)
    args = [] if n == 0 else [input_data] if n == 1 else [input_data, runtime_context]
    try:
        value = fn(*args)
        if inspect.isawaitable(value):
            value = asyncio.run(_await(value))
    except SystemExit as exc:
        _send({"type": "error", "error": "the handler raised SystemExit(%s)" % (exc.code,), "exit_code": exc.code if isinstance(exc.code, int) else None, "system_exit": True})
        return
    except BaseException as exc:  # noqa: BLE001
        _send({"type": "error", "error": "%s: %s" % (type(exc).__name__, exc), "traceback": traceback.format_exc()})
        return
    try:
        _send({"type": "result", "value": value})
    except Exception as exc:  # noqa: BLE001
        _send({"type": "error", "error": "the handler's return value cannot be sent as JSON: %s" % exc})


if __name__ == "__main__":
    try:
        _main()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(0)

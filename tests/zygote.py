"""A fork server ("zygote") for the kill -9 tests: appended to a child script that
defines ``say(**fields)`` and ``async def main(db, number)``. The modules are imported
once; each run is a fresh process forked from it that opens the store itself and is
killed with SIGKILL. Only the imports are shared: no store, thread or loop exists before
the fork. The zygote reads ``<db> <number>`` lines; a run's first line is its pid, and
after it dies the zygote says how (``{"dead": pid, "signal": n or null}``)."""

ZYGOTE = r"""
import os, traceback
say(zygote=True)
for order in sys.stdin:
    db, number = order.split()
    pid = os.fork()
    if pid == 0:
        sys.stdin.close()
        say(pid=os.getpid())
        code = 0
        try:
            asyncio.run(main(db, int(number)))
        except BaseException:
            traceback.print_exc()
            code = 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    say(dead=pid, signal=os.WTERMSIG(status) if os.WIFSIGNALED(status) else None)
"""

#!/usr/bin/env python3
"""Drives a command through a pseudo-terminal, as a user at a terminal would.

Usage: pty_session.py SCRIPT.json

The script is a JSON object:
  command     the argv to run on the terminal
  env         variables added to this process's environment
  columns     the terminal's width (default 120)
  transcript  the file to write everything the terminal showed to
  steps       a list of {"send": TEXT} (written as typed; "\r" is Enter, "\u0003" Ctrl-C,
              "\u0004" Ctrl-D, "\u001bOA" the Up arrow in the keypad mode line editors set), {"expect": REGEX, "timeout": SECONDS}
              (waits until the output after the previous match matches) and {"sleep": SECONDS}
  exit_timeout  seconds to wait for the command to exit after the last step (default 30)

Exit status: 0 when every step passed and the command exited; 2 when an expectation timed
out or the command did not exit, with the step on stderr; the command's status is written
after the transcript as a last line "[exit N]".
"""
import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        script = json.load(f)
    pid, fd = pty.fork()
    if pid == 0:
        env = dict(os.environ)
        env.update(script.get("env", {}))
        os.execvpe(script["command"][0], script["command"], env)
    columns = script.get("columns", 120)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    output = bytearray()
    cursor = 0
    failed = None

    def pump(seconds):
        """Reads what the terminal shows for up to `seconds`; False once it is closed."""
        ready, _, _ = select.select([fd], [], [], seconds)
        if not ready:
            return True
        try:
            data = os.read(fd, 65536)
        except OSError:
            return False
        if not data:
            return False
        output.extend(data)
        return True

    for i, step in enumerate(script["steps"]):
        if "send" in step:
            os.write(fd, step["send"].encode("utf-8"))
        elif "sleep" in step:
            deadline = time.monotonic() + step["sleep"]
            while time.monotonic() < deadline and pump(max(0.0, deadline - time.monotonic())):
                pass
        elif "expect" in step:
            pattern = re.compile(step["expect"].encode("utf-8"))
            deadline = time.monotonic() + step.get("timeout", 30)
            while True:
                m = pattern.search(output, cursor)
                if m:
                    cursor = m.end()
                    break
                left = deadline - time.monotonic()
                if left <= 0 or not pump(min(left, 0.2)):
                    m = pattern.search(output, cursor)
                    if m:
                        cursor = m.end()
                        break
                    failed = "step %d: %r did not show in time" % (i, step["expect"])
                    break
            if failed:
                break

    status = None
    deadline = time.monotonic() + script.get("exit_timeout", 30)
    while status is None and time.monotonic() < deadline:
        done, code = os.waitpid(pid, os.WNOHANG)
        if done:
            status = os.waitstatus_to_exitcode(code)
            break
        pump(0.1)
    while pump(0.05):  # what is left on the terminal
        if not select.select([fd], [], [], 0)[0]:
            break
    if status is None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        failed = failed or "the command did not exit"
    with open(script["transcript"], "wb") as f:
        f.write(bytes(output))
        f.write(("\n[exit %s]\n" % status).encode())
    if failed:
        print(failed, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()

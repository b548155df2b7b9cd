"""Run a command in a pseudo-terminal and answer the crawler's label questions as a user would:
each time a question's prompt shows, type the next answer and Enter. Prints what the terminal
showed, then exits with the command's exit code.

  python3 pty-answer.py ANSWERS -- COMMAND...     (ANSWERS: comma separated, e.g. y,n,s)
"""
import os
import pty
import sys

PROMPT = b"relevant? y = yes"


def main() -> int:
    sep = sys.argv.index("--")
    answers = [a for a in sys.argv[1].split(",") if a]
    cmd = sys.argv[sep + 1 :]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(cmd[0], cmd)
    shown = b""
    seen_prompts = 0
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
        prompts = shown.count(PROMPT)
        while seen_prompts < prompts:
            seen_prompts += 1
            if answers:
                os.write(fd, (answers.pop(0) + "\n").encode())
    _, status = os.waitpid(pid, 0)
    sys.stdout.write(shown.decode("utf-8", "replace"))
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main())

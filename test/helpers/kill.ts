/** Test helper: kill -9 a detached child's whole process group once a condition holds (polled), as a crash would. */
import type { ChildProcess } from 'node:child_process';

export function killGroupWhen(child: ChildProcess, ready: () => boolean, what = 'the crawl'): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const t = setInterval(() => {
      if (!ready()) return;
      clearInterval(t);
      process.kill(-child.pid!, 'SIGKILL');
      resolve();
    }, 50);
    child.on('exit', () => {
      clearInterval(t);
      reject(new Error(`${what} ended before it could be killed`));
    });
  });
}

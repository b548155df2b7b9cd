/**
 * The `unit` vitest project's setup: a unit test is pure. It opens no socket (no server, no
 * Redis, no HTTP), starts no child process and no browser. Each of those fails here at once with
 * a message naming the convention, so a test file that needs them cannot sit in the fast loop
 * unnoticed: it is named `*.e2e.test.ts` and runs in the `e2e` project instead.
 */
import childProcess from 'node:child_process';
import net from 'node:net';
import { syncBuiltinESMExports } from 'node:module';

function forbidden(what: string): never {
  throw new Error(`a unit test may not ${what}: name the test file *.e2e.test.ts (the e2e vitest project)`);
}

net.Server.prototype.listen = function listen() {
  forbidden('listen on a socket');
};
net.Socket.prototype.connect = function connect() {
  forbidden('open a socket (HTTP, Redis, a browser)');
};
for (const name of ['spawn', 'spawnSync', 'fork', 'exec', 'execSync', 'execFile', 'execFileSync'] as const) {
  (childProcess as unknown as Record<string, unknown>)[name] = () => forbidden(`start a child process (${name})`);
}
// ESM `import { spawn } from 'node:child_process'` reads the live bindings: bring them in line.
syncBuiltinESMExports();
